import IAPSimJSON

/// A `/verifyReceipt` status that says the App Store could not answer now, not that the
/// receipt is bad: what `iapsim server-error` arms for the legacy endpoint, so a backend's
/// retry of receipt validation can be tested. Apple, "status" (App Store Receipts):
/// - 21002: the receipt data was malformed, "or the service experienced a temporary issue";
/// - 21005: "The receipt server was temporarily unable to provide the receipt";
/// - 21009: "Internal data access error";
/// - 21100–21199: "various internal data access errors", the only ones with `is-retryable`
///   ("responseBody": 1 a temporary issue, retry later; 0 do not retry; "Only applicable to
///   status codes 21100-21199").
///
/// Like every `/verifyReceipt` answer, each is HTTP 200 with the status in the body.
public struct TransientReceiptStatus: Sendable, Equatable {
    public let status: Int

    /// The path of the endpoint these statuses are armed for.
    public static let path = "/verifyReceipt"
    /// The statuses with names of their own; with 21100–21199.
    static let named: [Int] = [21002, 21005, 21009]
    static let internalRange = 21100...21199

    /// - Returns: nil unless `status` is one of Apple's transient statuses.
    public init?(_ status: Int) {
        guard Self.named.contains(status) || Self.internalRange.contains(status) else { return nil }
        self.status = status
    }

    /// Whether Apple sends `is-retryable` with it: true for 21100–21199, which iapsim arms as
    /// the temporary issue a backend should retry.
    public var isRetryable: Bool? { Self.internalRange.contains(status) ? true : nil }

    /// What Apple's table says of it, for `server-error`'s list.
    public var meaning: String {
        switch status {
        case 21002: "temporary issue"
        case 21005: "receipt server unavailable"
        case 21009: "internal data access error"
        default: "internal data access error, is-retryable"
        }
    }

    /// The body `/verifyReceipt` answers with (HTTP 200).
    public func body(environment: String?) -> JSONValue {
        var members: [(String, JSONValue)] = [("status", .int(status))]
        if let environment { members.append(("environment", .string(environment))) }
        if let retryable = isRetryable { members.append(("is-retryable", .bool(retryable))) }
        return .object(members)
    }

    /// The statuses, as `server-error`'s help lists them.
    public static let listed = "21002, 21005, 21009, 21100-21199"
}
