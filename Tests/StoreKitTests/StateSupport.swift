import IAPSimKit
import IAPSimTestSupport

/// Gives the session's certificate set the committed TEST ONLY receipt chain, as the first
/// receipt would give it fresh keys: a debug build takes several seconds per RSA key.
/// (A file of its own: IAPSimKit's names would shadow StoreKit's in a test file.)
func installReceiptChainFixture(stateDirectory: String) throws {
    _ = try SigningIdentity.loadOrCreate(in: stateDirectory + "/certs", lockTimeout: 5)
        .withReceiptChain(lockTimeout: 5, make: ReceiptChainFixture.make)
}

/// How many transactions the store's customer `account` has in the state folder, read through
/// IAPSimKit (not the API under test).
func transactionCount(stateDirectory: String, account: String) throws -> Int {
    let location = StateLocation(directory: stateDirectory, lockTimeout: 5, account: account)
    return try StateStore(location: location).read().account.transactionCount
}
