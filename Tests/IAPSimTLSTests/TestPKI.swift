import Foundation
import IAPSimCrypto
import IAPSimTLS

/// A TEST ONLY root CA and a server certificate for Apple's App Store host names, both P-256,
/// made with `X509CertificateBuilder` the way `iapsim certs` will make them: what curl, Python
/// and openssl check (subjectAltName, serverAuth, CA:false, digitalSignature, dates) is there.
struct TestPKI {
    static let hostNames = [
        "api.storekit.itunes.apple.com", "api.storekit-sandbox.itunes.apple.com", "buy.itunes.apple.com",
        "sandbox.itunes.apple.com",
    ]

    let rootKey: P256PrivateKey
    let root: X509Certificate
    let leafKey: P256PrivateKey
    let leaf: X509Certificate

    init(now: Date = Date()) throws {
        rootKey = try P256PrivateKey.generate()
        leafKey = try P256PrivateKey.generate()
        let organization = "iapsim TEST ONLY"
        let rootName = DistinguishedName(commonName: "iapsim TEST ONLY TLS Root CA", organization: organization)
        let leafName = DistinguishedName(commonName: Self.hostNames[0], organization: organization)
        let rootIdentifier = X509Extension.keyIdentifier(for: rootKey.publicKey)
        root = try X509CertificateBuilder(
            serialNumber: [0x01], issuer: rootName, subject: rootName, notBefore: now - 3600,
            notAfter: now + 30 * 86400, subjectPublicKey: rootKey.publicKey,
            extensions: [
                .basicConstraints(isCertificateAuthority: true), .keyUsage([.keyCertSign, .cRLSign]),
                .subjectKeyIdentifier(rootIdentifier),
            ]
        ).sign(with: rootKey)
        leaf = try X509CertificateBuilder(
            serialNumber: [0x02], issuer: rootName, subject: leafName, notBefore: now - 3600,
            notAfter: now + 7 * 86400, subjectPublicKey: leafKey.publicKey,
            extensions: [
                .basicConstraints(isCertificateAuthority: false), .keyUsage([.digitalSignature]),
                .extendedKeyUsage([.serverAuthentication]), try .subjectAlternativeName(dnsNames: Self.hostNames),
                .subjectKeyIdentifier(X509Extension.keyIdentifier(for: leafKey.publicKey)),
                .authorityKeyIdentifier(rootIdentifier),
            ]
        ).sign(with: rootKey)
    }

    /// The server's identity: the leaf, then the root (clients may ignore the root).
    var identity: TLSIdentity {
        TLSIdentity(certificateChain: [leaf.derRepresentation, root.derRepresentation], privateKey: leafKey)
    }

    /// Serves the leaf for Apple's host names and for clients that send no name; refuses others.
    func configuration(
        randomBytes: @escaping @Sendable (Int) -> [UInt8] = TLSServerConfiguration.systemRandomBytes
    ) -> TLSServerConfiguration {
        let identity = identity
        return TLSServerConfiguration(randomBytes: randomBytes) { name in
            name.map { Self.hostNames.contains($0) } ?? true ? identity : nil
        }
    }
}
