#if canImport(CryptoKit)
    import CryptoKit
    import Foundation
    import Testing

    @testable import IAPSimCrypto

    /// On macOS, Apple's own CryptoKit judges the pure-Swift P-256: it verifies iapsim's
    /// signatures and iapsim verifies its. (Linux has no CryptoKit; there OpenSSL is the judge.)
    @Suite struct CryptoKitInteropTests {
        @Test func cryptoKitVerifiesOurSignaturesAndWeVerifyItsOwn() throws {
            for index in 0..<50 {
                let message = Array("message \(index)".utf8)
                let ours = try P256PrivateKey.generate()
                let theirs = try P256.Signing.PublicKey(x963Representation: ours.publicKey.x963Representation)
                let signature = try P256.Signing.ECDSASignature(
                    rawRepresentation: ours.signature(for: message).rawRepresentation)
                #expect(theirs.isValidSignature(signature, for: Data(message)))

                let kit = P256.Signing.PrivateKey()
                let kitSignature = try kit.signature(for: Data(message))
                let publicKey = try P256PublicKey(x963Representation: Array(kit.publicKey.x963Representation))
                #expect(
                    publicKey.isValidSignature(
                        try ECDSASignature(rawRepresentation: kitSignature.rawRepresentation), for: message))
                #expect(IAPSimKit.SHA256.hash(message) == Array(CryptoKit.SHA256.hash(data: Data(message))))
            }
        }
    }
#endif
