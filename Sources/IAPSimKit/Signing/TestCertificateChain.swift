import Foundation
import IAPSimCrypto

/// A three-level P-256 chain shaped like Apple's App Store signing chain (root CA →
/// intermediate CA marked 1.2.840.113635.100.6.2.1 → leaf marked 1.2.840.113635.100.6.11.1),
/// with the keys, for signing simulated JWS transactions. Every name says TEST ONLY.
///
/// The intermediate and the leaf name iapsim's OCSP responder (`OCSPResponder.url`) in their
/// authorityInfoAccess, so a verifier with online checks on asks `serve` (as its HTTP proxy)
/// whether they are still good. Sets made by an iapsim before that carry none.
public struct TestCertificateChain: Sendable {
    /// The self-signed root CA.
    public let root: X509Certificate
    /// The CA between root and leaf (pathlen 0).
    public let intermediate: X509Certificate
    /// The signing certificate.
    public let leaf: X509Certificate
    /// The root's private key.
    public let rootKey: P256PrivateKey
    /// The intermediate's private key.
    public let intermediateKey: P256PrivateKey
    /// The leaf's private key, which signs the JWS payloads.
    public let leafKey: P256PrivateKey

    /// Organization used in every subject.
    public static let organization = "iapsim TEST ONLY"
    /// 1970-01-01T00:00:00Z, written as UTCTime.
    public static let defaultNotBefore = Date(timeIntervalSince1970: 0)
    /// 9999-12-31T23:59:59Z, written as GeneralizedTime (RFC 5280's "no expiry" value).
    public static let defaultNotAfter = Date(timeIntervalSince1970: 253_402_300_799)

    /// The chain leaf first, as JWS's "x5c" header lists it.
    public var certificatesLeafFirst: [X509Certificate] { [leaf, intermediate, root] }

    /// A chain read back from its files; the caller has checked that it is one.
    public init(
        root: X509Certificate, intermediate: X509Certificate, leaf: X509Certificate, rootKey: P256PrivateKey,
        intermediateKey: P256PrivateKey, leafKey: P256PrivateKey
    ) {
        self.root = root
        self.intermediate = intermediate
        self.leaf = leaf
        self.rootKey = rootKey
        self.intermediateKey = intermediateKey
        self.leafKey = leafKey
    }

    /// Builds the chain from given keys and serial numbers; deterministic, because ECDSA
    /// signing here uses RFC 6979 nonces.
    /// - Throws: `CryptoError` only for unencodable inputs (a zero or over-long serial).
    public init(
        rootKey: P256PrivateKey, intermediateKey: P256PrivateKey, leafKey: P256PrivateKey,
        serialNumbers: (root: [UInt8], intermediate: [UInt8], leaf: [UInt8]) = ([0x01], [0x02], [0x03]),
        notBefore: Date = TestCertificateChain.defaultNotBefore,
        notAfter: Date = TestCertificateChain.defaultNotAfter,
        ocspURL: String? = OCSPResponder.url
    ) throws(CryptoError) {
        let names = (
            root: DistinguishedName(commonName: "iapsim TEST ONLY Root CA", organization: Self.organization),
            intermediate: DistinguishedName(
                commonName: "iapsim TEST ONLY Intermediate CA", organization: Self.organization),
            leaf: DistinguishedName(commonName: "iapsim TEST ONLY StoreKit Signing", organization: Self.organization)
        )
        (root, intermediate, leaf) = try Self.certificates(
            names: names, serialNumbers: serialNumbers,
            publicKeys: (rootKey.publicKey, intermediateKey.publicKey, leafKey.publicKey),
            identifiers: (
                X509Extension.keyIdentifier(for: rootKey.publicKey),
                X509Extension.keyIdentifier(for: intermediateKey.publicKey),
                X509Extension.keyIdentifier(for: leafKey.publicKey)
            ),
            rootKey: rootKey, intermediateKey: intermediateKey, notBefore: notBefore, notAfter: notAfter,
            ocspURL: ocspURL)
        self.rootKey = rootKey
        self.intermediateKey = intermediateKey
        self.leafKey = leafKey
    }

    /// The three certificates of an App Store-shaped chain, for P-256 keys (JWS) or RSA keys
    /// (receipts): the root self-signed, the intermediate (pathlen 0, Apple's intermediate
    /// marker) and the leaf (Apple's signing marker), valid over the whole simulated calendar;
    /// with `ocspURL`, the intermediate and the leaf name that OCSP responder.
    static func certificates(
        names: (root: DistinguishedName, intermediate: DistinguishedName, leaf: DistinguishedName),
        serialNumbers: (root: [UInt8], intermediate: [UInt8], leaf: [UInt8]),
        publicKeys: (any X509SubjectPublicKey, any X509SubjectPublicKey, any X509SubjectPublicKey),
        identifiers: ([UInt8], [UInt8], [UInt8]), rootKey: some X509SigningKey,
        intermediateKey: some X509SigningKey, notBefore: Date = defaultNotBefore, notAfter: Date = defaultNotAfter,
        ocspURL: String? = nil
    ) throws(CryptoError) -> (X509Certificate, X509Certificate, X509Certificate) {
        let access = try ocspURL.map { (url: String) throws(CryptoError) in
            try X509Extension.authorityInformationAccess(ocspURLs: [url])
        }
        let root = try X509CertificateBuilder(
            serialNumber: serialNumbers.root, issuer: names.root, subject: names.root,
            notBefore: notBefore, notAfter: notAfter, subjectPublicKey: publicKeys.0,
            extensions: [
                .basicConstraints(isCertificateAuthority: true),
                .keyUsage([.keyCertSign, .cRLSign]),
                .subjectKeyIdentifier(identifiers.0),
            ]
        ).sign(with: rootKey)
        let intermediate = try X509CertificateBuilder(
            serialNumber: serialNumbers.intermediate, issuer: names.root, subject: names.intermediate,
            notBefore: notBefore, notAfter: notAfter, subjectPublicKey: publicKeys.1,
            extensions: [
                .basicConstraints(isCertificateAuthority: true, pathLengthConstraint: 0),
                .keyUsage([.keyCertSign, .cRLSign]),
                .subjectKeyIdentifier(identifiers.1),
                .authorityKeyIdentifier(identifiers.0),
                .marker(.appleWWDRIntermediateMarker),
            ] + (access.map { [$0] } ?? [])
        ).sign(with: rootKey)
        let leaf = try X509CertificateBuilder(
            serialNumber: serialNumbers.leaf, issuer: names.intermediate, subject: names.leaf,
            notBefore: notBefore, notAfter: notAfter, subjectPublicKey: publicKeys.2,
            extensions: [
                .basicConstraints(isCertificateAuthority: false),
                .keyUsage([.digitalSignature]),
                .subjectKeyIdentifier(identifiers.2),
                .authorityKeyIdentifier(identifiers.1),
                .marker(.appleStoreSigningMarker),
            ] + (access.map { [$0] } ?? [])
        ).sign(with: intermediateKey)
        return (root, intermediate, leaf)
    }

    /// Generates three fresh keys and random 16-byte serial numbers from `generator`.
    public static func generate<Generator: RandomNumberGenerator>(
        using generator: inout Generator
    ) throws(CryptoError) -> TestCertificateChain {
        func serial() -> [UInt8] {
            var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
            // A non-zero first byte keeps the serial 16 bytes long; its top bit stays random,
            // so both the plain and the 0x00-prefixed INTEGER forms get exercised.
            bytes[0] |= 0x40
            return bytes
        }
        let rootKey = try P256PrivateKey.generate(using: &generator)
        let intermediateKey = try P256PrivateKey.generate(using: &generator)
        let leafKey = try P256PrivateKey.generate(using: &generator)
        return try TestCertificateChain(
            rootKey: rootKey, intermediateKey: intermediateKey, leafKey: leafKey,
            serialNumbers: (serial(), serial(), serial()))
    }

    /// Generates a chain from the system's cryptographic random source.
    public static func generate() throws(CryptoError) -> TestCertificateChain {
        var generator = SystemRandomNumberGenerator()
        return try generate(using: &generator)
    }
}
