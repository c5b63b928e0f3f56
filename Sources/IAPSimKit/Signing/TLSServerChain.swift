import Foundation
import IAPSimCrypto

/// The certificates `serve` answers with inside a `CONNECT` tunnel: a TEST ONLY TLS root, and a
/// server certificate it issues for Apple's App Store hosts (`AppleHost`), both P-256. A
/// backend trusts the root (`iapsim certs export DIR` writes `tls-root.pem`;
/// `REQUESTS_CA_BUNDLE=DIR/tls-root.pem`) and reaches "Apple" with its code unchanged.
///
/// They live in the certs folder beside the signing set (`tls-root.pem`, `tls-root.key`,
/// `tls-server.pem`, `tls-server.key`, keys 0600), made on first use under the folder's lock.
/// Valid from 2000 to 9999 (RFC 5280's "no well-defined expiration"), so a backend whose clock
/// follows the simulated one (`clock exec`) accepts them at any simulated date.
public struct TLSServerChain: Sendable {
    public static let fileNames = ["tls-root.pem", "tls-root.key", "tls-server.pem", "tls-server.key"]

    public let root: X509Certificate
    public let server: X509Certificate
    public let serverKey: P256PrivateKey

    /// The chain as TLS sends it: the server certificate, then the root.
    public var certificateChain: [[UInt8]] { [server.derRepresentation, root.derRepresentation] }

    /// The chain in `directory`, made now if it has none.
    /// - Throws: `SigningError.corruptIdentity` for files that do not form the chain,
    ///   `StateError` when they cannot be read or written.
    public static func loadOrCreate(in directory: String, lockTimeout: Double) throws -> TLSServerChain {
        if let chain = try load(from: directory) { return chain }
        try FileManager().createDirectory(atPath: directory, withIntermediateDirectories: true)
        return try FileLock.holding(path: directory + "/.lock", timeout: lockTimeout) {
            if let chain = try load(from: directory) { return chain }  // made meanwhile
            SigningIdentity.removeLeftovers(in: directory)
            let chain = try generate()
            let texts = [
                chain.root.pemRepresentation, try P256PrivateKey.pem(chain.rootKey), chain.server.pemRepresentation,
                try P256PrivateKey.pem(chain.serverKey),
            ]
            // The root's key last: a kill midway leaves no half chain that `load` accepts.
            for (name, text) in zip(fileNames, texts).reversed() {
                do throws(POSIXFile.Failure) {
                    try POSIXFile.writeAtomically(Data(text.utf8), to: directory + "/" + name)
                } catch {
                    throw error.storeError
                }
            }
            return TLSServerChain(root: chain.root, server: chain.server, serverKey: chain.serverKey)
        }
    }

    /// The chain in `directory`; nil when it has none (yet).
    static func load(from directory: String) throws -> TLSServerChain? {
        var texts: [String] = []
        for name in fileNames {
            let path = directory + "/" + name
            let data: Data?
            do throws(POSIXFile.Failure) {
                data = try POSIXFile.readIfPresent(path)
            } catch {
                throw StateError.unreadable(path: path, reason: error.reason)
            }
            guard let data else { return nil }
            texts.append(String(decoding: data, as: UTF8.self))
        }
        do {
            let root = try X509Certificate(pemRepresentation: texts[0])
            let rootKey = try P256PrivateKey(pemRepresentation: texts[1])
            let server = try X509Certificate(pemRepresentation: texts[2])
            let serverKey = try P256PrivateKey(pemRepresentation: texts[3])
            guard try root.publicKey() == rootKey.publicKey, try server.publicKey() == serverKey.publicKey,
                server.isSignatureValid(issuerKey: rootKey.publicKey)
            else {
                throw SigningError.corruptIdentity(
                    path: directory + "/tls-server.pem", detail: "the files do not form the TLS chain to tls-root.pem")
            }
            return TLSServerChain(root: root, server: server, serverKey: serverKey)
        } catch let error as SigningError {
            throw error
        } catch {
            throw SigningError.corruptIdentity(path: directory + "/tls-root.pem", detail: "\(error)")
        }
    }

    private static func generate() throws -> (
        root: X509Certificate, rootKey: P256PrivateKey, server: X509Certificate, serverKey: P256PrivateKey
    ) {
        let rootKey = try P256PrivateKey.generate()
        let serverKey = try P256PrivateKey.generate()
        let organization = "iapsim TEST ONLY"
        let rootName = DistinguishedName(commonName: "iapsim TEST ONLY TLS Root CA", organization: organization)
        let serverName = DistinguishedName(commonName: AppleHost.api.rawValue, organization: organization)
        let rootIdentifier = X509Extension.keyIdentifier(for: rootKey.publicKey)
        let from = Date(timeIntervalSince1970: 946_684_800)  // 2000-01-01
        let until = Date(timeIntervalSince1970: 253_402_300_799)  // 9999-12-31T23:59:59Z
        var serial = [UInt8](repeating: 0, count: 16)
        var random = SystemRandomNumberGenerator()
        for index in serial.indices { serial[index] = random.next() }
        serial[0] &= 0x7F
        let root = try X509CertificateBuilder(
            serialNumber: serial, issuer: rootName, subject: rootName, notBefore: from, notAfter: until,
            subjectPublicKey: rootKey.publicKey,
            extensions: [
                .basicConstraints(isCertificateAuthority: true), .keyUsage([.keyCertSign, .cRLSign]),
                .subjectKeyIdentifier(rootIdentifier),
            ]
        ).sign(with: rootKey)
        serial[1] &+= 1
        let server = try X509CertificateBuilder(
            serialNumber: serial, issuer: rootName, subject: serverName, notBefore: from, notAfter: until,
            subjectPublicKey: serverKey.publicKey,
            extensions: [
                .basicConstraints(isCertificateAuthority: false), .keyUsage([.digitalSignature]),
                .extendedKeyUsage([.serverAuthentication]),
                try .subjectAlternativeName(dnsNames: AppleHost.allCases.map(\.rawValue)),
                .subjectKeyIdentifier(X509Extension.keyIdentifier(for: serverKey.publicKey)),
                .authorityKeyIdentifier(rootIdentifier),
            ]
        ).sign(with: rootKey)
        return (root, rootKey, server, serverKey)
    }

    /// Writes the TLS root a client trusts (`tls-root.pem`) into `directory` (made if need
    /// be); a symlink there is refused.
    /// - Returns: the path written.
    public func exportRoot(to directory: String) throws -> String {
        try OutsideFile.makeDirectory(directory)
        let path = directory + "/tls-root.pem"
        try OutsideFile.write(Array(root.pemRepresentation.utf8), to: path)
        return path
    }

    init(root: X509Certificate, server: X509Certificate, serverKey: P256PrivateKey) {
        self.root = root
        self.server = server
        self.serverKey = serverKey
    }
}

extension P256PrivateKey {
    fileprivate static func pem(_ key: P256PrivateKey) throws -> String { key.pemRepresentation }
}
