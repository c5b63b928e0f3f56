import Foundation
import IAPSimHTTP
import IAPSimJSON

/// What `iapsim serve` decides from a request's head, before a byte of its body is read:
///
/// - `Host` must name this server (`HostPolicy`), else 421: a page of another site that an
///   attacker's name rebinds to 127.0.0.1 gets nothing, `/verifyReceipt` included.
/// - The body limit comes from the request line: `/verifyReceipt` takes a receipt with a long
///   history in Base64 (`receiptBodyLimit`); every other route takes `apiBodyLimit`. Past
///   it, 413, with nothing of the body buffered past the limit.
/// - A request to `/inApps` that declares a body must carry a bearer token that verifies
///   (signature, audience, expiry) before that body is read: else 401 at once.
public struct ServerAdmission: Sendable {
    /// The largest body of an App Store Server API request: Apple's requests are a few
    /// hundred bytes (a consumption report, an extension, a notification history query).
    public static let apiBodyLimit = 1 << 20
    /// The largest `/verifyReceipt` body: a receipt of some 10^5 transactions, in Base64 inside JSON.
    public static let receiptBodyLimit = 32 << 20

    /// The `Host` values that name the server, once its port is known.
    public let hosts: Hosts
    /// Checks bearer tokens.
    public let api: AppStoreServerAPI

    public init(hosts: Hosts, api: AppStoreServerAPI) {
        self.hosts = hosts
        self.api = api
    }

    /// The decision for one request head.
    public func admit(_ head: HTTPRequest) -> HTTPAdmission {
        // A CONNECT has no body: whether it is tunnelled is the server's tunnel policy.
        if head.method == "CONNECT" { return .readBody(limit: 0) }
        // A request in absolute form is one for a proxy (a client's HTTP_PROXY): a page a
        // browser loads never sends one. The handler answers it (an OCSP request) or refuses it.
        if head.absoluteAuthority != nil { return .readBody(limit: Self.apiBodyLimit) }
        let policy = hosts.policy
        // Inside a tunnel the client names the host it asked for (one of Apple's, which the
        // tunnel policy accepted), not this server.
        let tunnelled = head.tunnelHost.map { tunnel in
            head.headers["Host"].map { $0.lowercased() == tunnel || $0.lowercased() == tunnel + ":443" } ?? false
        }
        guard tunnelled ?? policy.allows(head.headers["Host"]) else {
            let message = "this server answers only to Host \(policy.primary) (or localhost, [::1] on that port)"
            return .answer(
                HTTPResponse.json(
                    JSONValue.object([("errorMessage", .string(message))]).bytes(compact: true), status: 421)
            )
        }
        if head.pathComponents == ["verifyReceipt"] { return .readBody(limit: Self.receiptBodyLimit) }
        if head.pathComponents.first == "inApps", Self.declaresBody(head),
            !api.authenticates(authorization: head.headers["Authorization"])
        {
            return .answer(HTTPResponse(status: .unauthorized))
        }
        return .readBody(limit: Self.apiBodyLimit)
    }

    /// Whether the head announces a body (a length other than 0, or chunks).
    static func declaresBody(_ head: HTTPRequest) -> Bool {
        if head.headers.contains("Transfer-Encoding") { return true }
        guard let length = head.headers["Content-Length"] else { return false }
        return !length.allSatisfy { $0 == "0" || $0 == " " || $0 == "," }
    }

    /// The `Host` policy of a server whose port is known only once it listens (`--port 0`):
    /// set once, read by every connection's thread.
    public final class Hosts: @unchecked Sendable {
        private let lock = NSLock()
        private var current: HostPolicy
        private let extraHosts: [String]
        private let acceptsAny: Bool

        /// The loopback names on `port` and `extraHosts` (the `--host` value where remote use
        /// is asked for, or where it is an address literal); every name with `acceptsAny`.
        public init(port: UInt16, extraHosts: [String] = [], acceptsAny: Bool = false) {
            self.extraHosts = extraHosts
            self.acceptsAny = acceptsAny
            current = HostPolicy(port: port, extraHosts: extraHosts, acceptsAny: acceptsAny)
        }

        /// The policy for the port the server got.
        public func listening(on port: UInt16) {
            let policy = HostPolicy(port: port, extraHosts: extraHosts, acceptsAny: acceptsAny)
            lock.withLock { current = policy }
        }

        var policy: HostPolicy { lock.withLock { current } }
    }
}

extension AppStoreServerAPI {
    /// Whether `authorization` carries a bearer token that verifies now (signature, audience,
    /// expiry): the check made before a request's body is read. The token's `bid` is checked
    /// later, against the state's bundle identifier.
    public func authenticates(authorization: String?) -> Bool {
        (try? verifier.authenticate(
            authorization: authorization, now: realNow(), simulatedNow: { try? session.simulatedNow() })) != nil
    }
}
