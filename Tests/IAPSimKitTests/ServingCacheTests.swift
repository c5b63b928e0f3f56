import Foundation
import IAPSimCrypto
import IAPSimJSON
import Testing

@testable import IAPSimKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a long-running server keeps between requests (the decoded snapshot, looked-up
/// transactions, accepted bearer tokens) must never hide a change: each is checked against
/// what it was made from on every use.
@Suite struct ServingCacheTests {
    /// Rewrites the snapshot in place with `text` (same length), then sets its modification
    /// time back to what it was, as `cp -p` or an editor that keeps times would.
    private func editInPlace(_ path: String, _ change: (String) -> String) throws {
        var info = stat()
        #expect(stat(path, &info) == 0)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let edited = change(text)
        #expect(edited.utf8.count == text.utf8.count && edited != text)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.write(contentsOf: Data(edited.utf8))
        try handle.close()
        #if canImport(Darwin)
            var times = [info.st_atimespec, info.st_mtimespec]
        #else
            var times = [info.st_atim, info.st_mtim]
        #endif
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
    }

    @Test func aSnapshotChangedByAnotherProcessIsReadAgain() throws {
        let server = Support.store()
        let cli = StateStore(location: server.location)  // another process: its own cache
        try cli.update { _ = $0.app.deliver("a.one") }
        #expect(try server.read().app.purchasedProductIdentifiers == ["a.one"])
        // The same number of bytes, written at once: perhaps in the same clock tick, with the
        // inode of the file it replaces.
        try cli.update {
            $0.app = PurchaseState().app
            _ = $0.app.deliver("a.two")
        }
        #expect(try server.read().app.purchasedProductIdentifiers == ["a.two"])
        try cli.update { _ = $0.app.deliver("a.three") }
        #expect(try server.read().app.purchasedProductIdentifiers == ["a.three", "a.two"])
    }

    @Test func aSettledSnapshotEditedInPlaceWithItsTimeKeptIsReadAgain() throws {
        let location = Support.store().location
        // A server whose clock is a minute ahead: every snapshot it reads has settled, so
        // it trusts the file's signature instead of reading it again.
        let server = StateStore(location: location, cache: StateCache(now: { StateCache.realNow() + 60 }))
        let cli = StateStore(location: location)
        try cli.update { _ = $0.app.deliver("a.one") }
        #expect(try server.read().app.purchasedProductIdentifiers == ["a.one"])
        #expect(try server.read().app.purchasedProductIdentifiers == ["a.one"])  // from memory
        try cli.update {
            $0.app = PurchaseState().app
            _ = $0.app.deliver("a.two")
        }
        #expect(try server.read().app.purchasedProductIdentifiers == ["a.two"])
        // Same inode, same size, same modification time: only the change time tells.
        try editInPlace(location.statePath) { $0.replacingOccurrences(of: "a.two", with: "a.six") }
        #expect(try server.read().app.purchasedProductIdentifiers == ["a.six"])
    }

    @Test func aPinnedRequestSeesOneVersionAndTheNextOneSeesTheChange() throws {
        let server = Support.store()
        let cli = StateStore(location: server.location)  // a shell's iapsim
        try cli.update { _ = $0.app.deliver("a.one") }
        let request = server.pinned()
        #expect(try request.view { $0.app.purchasedProductIdentifiers } == ["a.one"])
        try cli.update { _ = $0.app.deliver("a.two") }
        // The same request: the version it first read, for the snapshot and the whole state.
        #expect(try request.view { $0.app.purchasedProductIdentifiers } == ["a.one"])
        #expect(try request.snapshotView().app.purchasedProductIdentifiers == ["a.one"])
        // The next request, and the unpinned store, see the change.
        #expect(try server.pinned().view { $0.app.purchasedProductIdentifiers } == ["a.one", "a.two"])
        #expect(try server.view { $0.app.purchasedProductIdentifiers } == ["a.one", "a.two"])
        // A request that writes reads what it wrote.
        try request.update { _ = $0.app.deliver("a.three") }
        #expect(try request.view { $0.app.purchasedProductIdentifiers } == ["a.one", "a.three", "a.two"])
    }

    /// The one version the page and `Transaction.updates` wait on: the same while nothing is
    /// written, another after any change from another process, its own per customer.
    @Test func theStateVersionChangesWithEveryWriteAndNotOtherwise() throws {
        let store = Support.store()
        let before = StateVersion(store.location)
        #expect(StateVersion(store.location) == before)
        #expect(before.text.hasPrefix("default-"))
        let cli = StateStore(location: store.location)
        try cli.update { _ = $0.app.deliver("a.one") }
        let bought = StateVersion(store.location)
        #expect(bought != before && bought.text != before.text)
        #expect(StateVersion(store.location) == bought)
        try cli.update { _ = $0.app.deliver("a.two") }
        #expect(StateVersion(store.location) != bought)
        #expect(StateVersion(store.location.forAccount("bob")) != StateVersion(store.location))
        #expect(FileVersion(store.location.statePath).exists && !FileVersion(store.location.directory + "/no").exists)
    }

    @Test func aPayloadSignedAgainGivesTheSameBytesFromABoundedMemo() throws {
        let directory = Support.temporaryDirectory() + "/certs"
        let identity = try SigningIdentity.loadOrCreate(in: directory, lockTimeout: 5)
        let payload = JSONValue.object([("transactionId", .string("1")), ("signedDate", .int(1))])
        let first = identity.sign(payload, environment: .sandbox)
        #expect(identity.sign(payload, environment: .sandbox) == first)
        #expect(identity.memo.count == 1)
        // RFC 6979: an identity that never saw the payload signs it to the same bytes, so the
        // memo answers exactly what signing again would.
        let fresh = try #require(try SigningIdentity.load(from: directory))
        #expect(fresh.memo.count == 0)
        #expect(fresh.sign(payload, environment: .sandbox) == first)
        #expect(identity.sign(payload, environment: .xcode) != first)
        for n in 0..<200 { _ = identity.sign(.object([("n", .int(n))]), environment: .sandbox) }
        #expect(identity.memo.count <= 64)
        let inspected = try JWSInspection.inspect(first, trusting: identity)
        #expect(inspected.verifies && inspected.payload["transactionId"]?.stringValue == "1")
    }

    @Test func aTransactionSignedAgainInTheSameContextComesFromABoundedMemo() throws {
        let identity = try SigningIdentity.loadOrCreate(in: Support.temporaryDirectory() + "/certs", lockTimeout: 5)
        let bought = Date(timeIntervalSince1970: 1_800_000_000)
        let transaction = Transaction(
            id: 1, originalID: 1, productID: "a.one", productType: .nonConsumable, purchaseDate: bought,
            originalPurchaseDate: bought, price: 1, currency: "USD", storefrontCountryCode: "USA")
        let context = SigningContext(
            bundleID: "com.example.app", appAppleID: nil, environment: .sandbox, signedDate: bought + 1,
            appTransactionID: "700000000000000001")
        let first = identity.signedTransaction(transaction, context: context)
        // A transaction the memo did not have is new by construction: not looked up by its bytes.
        #expect(identity.memo.count == 0)
        let payload = SignedPayloads.transaction(transaction, context: context)
        #expect(identity.signOnce(payload, environment: .sandbox) == first.jws && identity.memo.count == 0)
        #expect(first.payload == payload && first.jws == identity.sign(payload, environment: .sandbox))
        #expect(identity.signedTransaction(transaction, context: context).jws == first.jws)
        #expect(identity.transactionMemo.count == 1)
        // Any change to the transaction or the context is signed anew, never answered stale.
        var refunded = transaction
        refunded.revocationDate = bought + 2
        refunded.revocationReason = .other
        let afterRefund = identity.signedTransaction(refunded, context: context)
        #expect(afterRefund.jws != first.jws && afterRefund.payload["revocationDate"] != nil)
        // The payload carries the signing date in whole milliseconds: a request later within
        // the same millisecond of a running clock gets the same signature without a new one.
        var sameMillisecond = context
        sameMillisecond.signedDate = bought + 1.0003
        let remembered = identity.transactionMemo.count
        #expect(identity.signedTransaction(transaction, context: sameMillisecond).jws == first.jws)
        #expect(identity.transactionMemo.count == remembered)
        var later = context
        later.signedDate = bought + 1.001
        #expect(identity.signedTransaction(transaction, context: later).payload["signedDate"] != payload["signedDate"])
        var production = context
        production.environment = .production
        #expect(
            identity.signedTransaction(transaction, context: production).payload["environment"] == .string("Production")
        )
        for n in 0..<200 {
            var other = transaction
            other.id = UInt64(n + 2)
            _ = identity.signedTransaction(other, context: context)
        }
        #expect(identity.transactionMemo.count <= 64)
    }

    /// Requests within one millisecond of a running clock all ask for the same new signature
    /// at once: it is made once, and the others wait for it.
    @Test func aValueAskedForByManyThreadsAtOnceIsMadeOnce() {
        let memo = BoundedMemo<Int, Int>(limit: 64, patience: 60)
        let made = Collected<Int>()
        let answers = Collected<Int>()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let value = memo.value(for: 7) {
                made.append(1)
                Thread.sleep(forTimeInterval: 0.05)  // long enough for the others to arrive
                return 49
            }
            answers.append(value)
        }
        #expect(made.all.count == 1)
        #expect(answers.all == Array(repeating: 49, count: 8))
        #expect(memo.value(for: 8) { 64 } == 64 && memo.count == 2)
    }

    @Test func aRefundMadeElsewhereShowsInTheNextLookUp() throws {
        let catalog = try Support.validCatalog()
        let clock = Support.Clock()
        let server = StoreSession(store: Support.store(), now: { clock.now }, catalogSettings: catalog.store.settings)
        let cli = StoreSession(
            store: StateStore(location: server.store.location), now: { clock.now },
            catalogSettings: catalog.store.settings)
        let product = try #require(catalog.store.products.first { $0.id == "fx.levels" })
        let bought = try #require(try cli.buy(product, in: catalog).transaction)
        #expect(try server.store.transaction(bought.id)?.revocationDate == nil)
        _ = try cli.refund(bought.id, reason: .other)
        #expect(try server.store.transaction(bought.id)?.revocationDate != nil)
    }

    @Test func anAcceptedTokenIsStillCheckedForTimeAndApp() throws {
        func b64(_ text: String) -> String { Base64URL.encode(Array(text.utf8)) }
        let exp = 1_800_000_000
        let token =
            "Bearer " + b64(#"{"alg":"ES256","kid":"K","typ":"JWT"}"#) + "."
            + b64(#"{"iss":"i","bid":"com.example.app","aud":"appstoreconnect-v1","exp":\#(exp)}"#) + ".c2ln"
        let verifier = BearerTokenVerifier()
        let before = Date(timeIntervalSince1970: Double(exp - 600))
        try verifier.verify(authorization: token, bundleID: "com.example.app", now: before)
        try verifier.verify(authorization: token, bundleID: "com.example.app", now: before)  // remembered
        #expect(throws: BearerTokenVerifier.Refusal.rejected("the token has expired")) {
            try verifier.verify(
                authorization: token, bundleID: "com.example.app", now: Date(timeIntervalSince1970: Double(exp + 1)))
        }
        #expect(throws: BearerTokenVerifier.Refusal.rejected("bid is not com.example.other")) {
            try verifier.verify(authorization: token, bundleID: "com.example.other", now: before)
        }
    }
}
