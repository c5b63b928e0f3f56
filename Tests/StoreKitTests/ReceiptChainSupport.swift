import IAPSimKit

/// Gives the session's certificate set the committed TEST ONLY receipt chain, as the first
/// receipt would give it fresh keys: a debug build takes several seconds per RSA key.
/// (A file of its own: IAPSimKit's names would shadow StoreKit's in a test file.)
func installReceiptChainFixture(stateDirectory: String) throws {
    _ = try SigningIdentity.loadOrCreate(in: stateDirectory + "/certs", lockTimeout: 5)
        .withReceiptChain(lockTimeout: 5, make: ReceiptChainFixture.make)
}
