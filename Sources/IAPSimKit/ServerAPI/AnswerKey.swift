import Foundation

/// A read of the App Store Server API, by everything its answer is made from: the request
/// (method, host, path, query), the app its token names, the version of every file the answer
/// reads (`SettledStateVersion`), the signing set, and the simulated millisecond the answer's
/// signed dates carry. An answer is a function of these, so a read asked again with the same
/// key is answered from `AppStoreServerAPI.answers`: a backend's test suite asking for the
/// same transaction again and again, or `wrk`, gets one signed answer per simulated
/// millisecond, and a change from a shell (or from another request) is a new version, seen by
/// the next request. Only reads are kept: the `GET` endpoints that name a transaction, an
/// order or an app transaction (`customerSegment`); the rest is made for each request.
struct AnswerKey: Hashable {
    var method: String
    var host: String
    var path: [String]
    /// The query's names and values, in order, alternating.
    var query: [String]
    var bid: String
    var version: SettledStateVersion
    /// What the signing folder's `current` names (`CertificateSetFolder.generation`).
    var signingSet: String?
    var millisecond: Int64

    /// The path and the millisecond tell entries apart; equality compares the rest.
    func hash(into hasher: inout Hasher) {
        hasher.combine(path)
        hasher.combine(millisecond)
    }
}

extension AppStoreServerAPI {
    /// The key of `request` (whose token named `bid`), on this request's pinned session; nil
    /// when its answer must be made afresh: not a read, or a version of the state that a `stat`
    /// cannot tell (`SettledStateVersion`).
    func answerKey(_ request: APIRequest, bid: String) -> AnswerKey? {
        let parts = request.pathComponents
        guard request.method == "GET" || request.method == "HEAD", parts.count >= 3, parts[0] == "inApps",
            let segment = Self.customerSegment(parts.dropFirst())
        else { return nil }
        // The signing set first, and the files before they are read: what changes meanwhile
        // gives a version that does not come again.
        let signingSet = signer.identity.generation
        let app = session.store.location
        guard
            let version = SettledStateVersion(
                app: session.store, customer: { try otherCustomer(segment).map(app.forAccount) ?? app }),
            let now = try? session.simulatedNow(seen: version.appState)
        else { return nil }
        return AnswerKey(
            method: request.method, host: request.host?.rawValue ?? "", path: parts,
            query: request.query.flatMap { [$0.name, $0.value] }, bid: bid, version: version, signingSet: signingSet,
            millisecond: Int64((now.timeIntervalSince1970 * 1000).rounded()))
    }
}
