/// The App Store's hosts a backend's production code names, which `serve` answers as through
/// a `CONNECT` tunnel (`HTTPS_PROXY`). The host names the environment, as Apple's do: the
/// App Store Server API at `api.storekit.itunes.apple.com` (Production) and
/// `api.storekit-sandbox.itunes.apple.com` (Sandbox) ("App Store Server API": "Base URL"), and
/// at `api.storekit.apple.com` and `api.storekit-sandbox.apple.com`, the base URLs Apple's own
/// server libraries use now; `verifyReceipt` at `buy.itunes.apple.com` and
/// `sandbox.itunes.apple.com` ("verifyReceipt").
public enum AppleHost: String, Sendable, CaseIterable {
    case api = "api.storekit.itunes.apple.com"
    case apiSandbox = "api.storekit-sandbox.itunes.apple.com"
    case apiApple = "api.storekit.apple.com"
    case apiSandboxApple = "api.storekit-sandbox.apple.com"
    case buy = "buy.itunes.apple.com"
    case sandbox = "sandbox.itunes.apple.com"

    /// The only port a tunnel opens to: HTTPS.
    public static let port = 443

    /// The host a `CONNECT` names, if it is one of Apple's at port 443.
    public init?(host: String, port: Int) {
        guard port == Self.port, let known = Self(rawValue: host.lowercased()) else { return nil }
        self = known
    }

    public var environment: AppStoreEnvironment {
        switch self {
        case .api, .apiApple, .buy: .production
        case .apiSandbox, .apiSandboxApple, .sandbox: .sandbox
        }
    }

    /// Whether it serves the App Store Server API (`/inApps/…`); the others serve `/verifyReceipt`.
    public var servesServerAPI: Bool { self != .buy && self != .sandbox }

    /// Production answers Production's data; Sandbox answers the rest (Xcode and local
    /// testing data are test data, as Sandbox's).
    public func holds(_ data: AppStoreEnvironment) -> Bool {
        (environment == .production) == (data == .production)
    }

    /// `/verifyReceipt`'s status for a receipt of another environment (Apple, "status"):
    /// 21007, a test receipt sent to production; 21008, a production receipt sent to the
    /// test environment. Nil when this host verifies it.
    public func verifyReceiptStatus(for data: AppStoreEnvironment) -> Int? {
        guard !holds(data) else { return nil }
        return environment == .production ? 21007 : 21008
    }
}
