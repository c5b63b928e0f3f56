import Foundation
import IAPSimCrypto
import Testing

@testable import IAPSimKit

/// The simulated App Store signing chain has the shape of Apple's: root → WWDR-marked
/// intermediate → leaf marked for App Store signing, every name saying TEST ONLY. (The X.509
/// encoding itself is IAPSimCryptoTests' subject.)
@Suite struct TestCertificateChainTests {
    private func chain() throws -> TestCertificateChain {
        let keys = try (1...3).map { index in
            try P256PrivateKey(rawRepresentation: SHA256.hash(Array("chain key \(index)".utf8)))
        }
        return try TestCertificateChain(rootKey: keys[0], intermediateKey: keys[1], leafKey: keys[2])
    }

    @Test func theChainIsShapedLikeApplesAndSaysTestOnly() throws {
        let chain = try chain()
        #expect(chain.certificatesLeafFirst == [chain.leaf, chain.intermediate, chain.root])
        #expect(chain.leaf.isIssued(by: chain.intermediate) && chain.intermediate.isIssued(by: chain.root))
        #expect(try chain.root.subject().description == "CN=iapsim TEST ONLY Root CA, O=iapsim TEST ONLY")
        #expect(try chain.intermediate.subject().value(of: .commonName) == "iapsim TEST ONLY Intermediate CA")
        #expect(try chain.leaf.subject().value(of: .commonName) == "iapsim TEST ONLY StoreKit Signing")
        #expect(try chain.intermediate.extension(.basicConstraints)?.basicConstraints() ?? (false, nil) == (true, 0))

        let wwdr = try #require(chain.intermediate.extension(.appleWWDRIntermediateMarker))
        #expect(!wwdr.isCritical && wwdr.value == [0x05, 0x00])
        #expect(chain.leaf.extension(.appleWWDRIntermediateMarker) == nil)
        let marker = try #require(chain.leaf.extension(.appleStoreSigningMarker))
        #expect(!marker.isCritical && marker.value == [0x05, 0x00])
        // The whole Extension: 1.2.840.113635.100.6.11.1, criticality omitted (FALSE), value NULL.
        #expect(
            chain.leaf.derRepresentation.firstRange(of: [
                0x30, 0x10, 0x06, 0x0A, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x63, 0x64, 0x06, 0x0B, 0x01, 0x04, 0x02, 0x05,
                0x00,
            ]) != nil)
        #expect(chain.leaf.notAfter == TestCertificateChain.defaultNotAfter)
    }

    @Test func buildingTheSameChainTwiceGivesTheSameBytes() throws {
        #expect(try chain().leaf.derRepresentation == chain().leaf.derRepresentation)
    }
}
