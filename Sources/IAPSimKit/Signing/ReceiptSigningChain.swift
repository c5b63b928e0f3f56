import Foundation
import IAPSimCrypto

/// The RSA chain app receipts are signed with, shaped like the one Apple signs them with
/// (Apple Root CA → Apple Worldwide Developer Relations intermediate → "Mac App Store and
/// iTunes Store Receipt Signing"): an RSA-2048 root CA, an intermediate CA marked
/// 1.2.840.113635.100.6.2.1 and a leaf marked 1.2.840.113635.100.6.11.1, every certificate
/// signed with sha256WithRSAEncryption, as Apple's are since the receipt-signing intermediate
/// moved to SHA-256 (TN3138, "Handling App Store receipt signing certificate changes").
///
/// It lives beside the P-256 JWS chain in the same `iapsim certs` set, under its own root, as
/// Apple's receipts and JWS hang from different roots too. Every name says TEST ONLY.
public struct ReceiptSigningChain: Sendable {
    public let root: X509Certificate
    public let intermediate: X509Certificate
    public let leaf: X509Certificate
    public let rootKey: RSAPrivateKey
    public let intermediateKey: RSAPrivateKey
    /// The key that signs receipts.
    public let leafKey: RSAPrivateKey

    /// The files of the chain in a certificate set, in the order they are written and listed.
    public static let fileNames = [
        "receipt-root.pem", "receipt-root.key", "receipt-intermediate.pem", "receipt-intermediate.key",
        "receipt-leaf.pem", "receipt-leaf.key",
    ]

    /// The chain leaf first, as a receipt's SignedData carries it.
    public var certificatesLeafFirst: [X509Certificate] { [leaf, intermediate, root] }

    /// A chain read back from its files; the caller has checked that it is one.
    public init(
        root: X509Certificate, intermediate: X509Certificate, leaf: X509Certificate, rootKey: RSAPrivateKey,
        intermediateKey: RSAPrivateKey, leafKey: RSAPrivateKey
    ) {
        self.root = root
        self.intermediate = intermediate
        self.leaf = leaf
        self.rootKey = rootKey
        self.intermediateKey = intermediateKey
        self.leafKey = leafKey
    }

    /// Builds the chain from given keys; deterministic (PKCS #1 v1.5 signatures are).
    public init(
        rootKey: RSAPrivateKey, intermediateKey: RSAPrivateKey, leafKey: RSAPrivateKey,
        serialNumbers: (root: [UInt8], intermediate: [UInt8], leaf: [UInt8]) = ([0x01], [0x02], [0x03])
    ) throws(CryptoError) {
        let organization = TestCertificateChain.organization
        let names = (
            root: DistinguishedName(commonName: "iapsim TEST ONLY Receipt Root CA", organization: organization),
            intermediate: DistinguishedName(
                commonName: "iapsim TEST ONLY Receipt Intermediate CA", organization: organization),
            leaf: DistinguishedName(commonName: "iapsim TEST ONLY Receipt Signing", organization: organization)
        )
        (root, intermediate, leaf) = try TestCertificateChain.certificates(
            names: names, serialNumbers: serialNumbers,
            publicKeys: (rootKey.publicKey, intermediateKey.publicKey, leafKey.publicKey),
            identifiers: (
                X509Extension.keyIdentifier(for: rootKey.publicKey),
                X509Extension.keyIdentifier(for: intermediateKey.publicKey),
                X509Extension.keyIdentifier(for: leafKey.publicKey)
            ),
            rootKey: rootKey, intermediateKey: intermediateKey)
        self.rootKey = rootKey
        self.intermediateKey = intermediateKey
        self.leafKey = leafKey
    }

    /// Generates three RSA-2048 keys from the system's random source (a fraction of a second
    /// each in a release build) and random 16-byte serial numbers.
    public static func generate() throws(CryptoError) -> ReceiptSigningChain {
        var generator = SystemRandomNumberGenerator()
        func serial() -> [UInt8] {
            var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
            bytes[0] |= 0x40
            return bytes
        }
        return try ReceiptSigningChain(
            rootKey: try RSAPrivateKey.generate(), intermediateKey: try RSAPrivateKey.generate(),
            leafKey: try RSAPrivateKey.generate(), serialNumbers: (serial(), serial(), serial()))
    }

    /// The files' contents, in `fileNames` order.
    var fileContents: [String] {
        [
            root.pemRepresentation, rootKey.pemRepresentation, intermediate.pemRepresentation,
            intermediateKey.pemRepresentation, leaf.pemRepresentation, leafKey.pemRepresentation,
        ]
    }
}
