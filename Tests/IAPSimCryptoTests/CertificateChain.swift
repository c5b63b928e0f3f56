import Foundation

@testable import IAPSimCrypto

/// A three-level P-256 chain for the tests (root CA → intermediate CA, pathlen 0, tagged with
/// `intermediateMarker` → leaf tagged with `leafMarker`), built with `X509CertificateBuilder`
/// alone. The markers sit under 2.999, the arc X.660 sets aside for examples.
struct CertificateChain {
    let root: X509Certificate
    let intermediate: X509Certificate
    let leaf: X509Certificate
    let rootKey: P256PrivateKey
    let intermediateKey: P256PrivateKey
    let leafKey: P256PrivateKey

    static let organization = "iapsim TEST ONLY"
    /// 1970-01-01T00:00:00Z, written as UTCTime.
    static let notBefore = Date(timeIntervalSince1970: 0)
    /// 9999-12-31T23:59:59Z, written as GeneralizedTime (RFC 5280's "no expiry" value).
    static let notAfter = Date(timeIntervalSince1970: 253_402_300_799)
    static let intermediateMarker = ASN1ObjectIdentifier(dotted: "2.999.1")!
    static let leafMarker = ASN1ObjectIdentifier(dotted: "2.999.2")!

    var certificatesLeafFirst: [X509Certificate] { [leaf, intermediate, root] }

    init(
        rootKey: P256PrivateKey, intermediateKey: P256PrivateKey, leafKey: P256PrivateKey,
        serialNumbers: (root: [UInt8], intermediate: [UInt8], leaf: [UInt8]) = ([0x01], [0x02], [0x03])
    ) throws {
        let rootName = DistinguishedName(commonName: "iapsim TEST ONLY Root CA", organization: Self.organization)
        let intermediateName = DistinguishedName(
            commonName: "iapsim TEST ONLY Intermediate CA", organization: Self.organization)
        let leafName = DistinguishedName(commonName: "iapsim TEST ONLY Leaf", organization: Self.organization)
        let rootIdentifier = X509Extension.keyIdentifier(for: rootKey.publicKey)
        let intermediateIdentifier = X509Extension.keyIdentifier(for: intermediateKey.publicKey)
        let leafIdentifier = X509Extension.keyIdentifier(for: leafKey.publicKey)
        func certificate(
            _ serial: [UInt8], _ issuer: DistinguishedName, _ subject: DistinguishedName, _ key: P256PublicKey,
            _ extensions: [X509Extension], signer: P256PrivateKey
        ) throws -> X509Certificate {
            try X509CertificateBuilder(
                serialNumber: serial, issuer: issuer, subject: subject, notBefore: Self.notBefore,
                notAfter: Self.notAfter, subjectPublicKey: key, extensions: extensions
            ).sign(with: signer)
        }
        root = try certificate(
            serialNumbers.root, rootName, rootName, rootKey.publicKey,
            [
                .basicConstraints(isCertificateAuthority: true), .keyUsage([.keyCertSign, .cRLSign]),
                .subjectKeyIdentifier(rootIdentifier),
            ], signer: rootKey)
        intermediate = try certificate(
            serialNumbers.intermediate, rootName, intermediateName, intermediateKey.publicKey,
            [
                .basicConstraints(isCertificateAuthority: true, pathLengthConstraint: 0),
                .keyUsage([.keyCertSign, .cRLSign]), .subjectKeyIdentifier(intermediateIdentifier),
                .authorityKeyIdentifier(rootIdentifier), .marker(Self.intermediateMarker),
            ], signer: rootKey)
        leaf = try certificate(
            serialNumbers.leaf, intermediateName, leafName, leafKey.publicKey,
            [
                .basicConstraints(isCertificateAuthority: false), .keyUsage([.digitalSignature]),
                .subjectKeyIdentifier(leafIdentifier), .authorityKeyIdentifier(intermediateIdentifier),
                .marker(Self.leafMarker),
            ], signer: intermediateKey)
        self.rootKey = rootKey
        self.intermediateKey = intermediateKey
        self.leafKey = leafKey
    }

    /// Three fresh keys and random 16-byte serial numbers from `generator`.
    static func generate(using generator: inout some RandomNumberGenerator) throws -> CertificateChain {
        func serial() -> [UInt8] {
            var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
            // A non-zero first byte keeps the serial 16 bytes long; its top bit stays random,
            // so both the plain and the 0x00-prefixed INTEGER forms get exercised.
            bytes[0] |= 0x40
            return bytes
        }
        let keys = try (0..<3).map { _ in try P256PrivateKey.generate(using: &generator) }
        return try CertificateChain(
            rootKey: keys[0], intermediateKey: keys[1], leafKey: keys[2], serialNumbers: (serial(), serial(), serial()))
    }
}
