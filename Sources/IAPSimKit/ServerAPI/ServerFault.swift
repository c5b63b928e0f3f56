import Foundation
import IAPSimJSON

/// An error or a delay armed for `iapsim serve`: the next `remaining` requests (every one,
/// when nil) whose path `endpoint` matches (every path, when nil) are answered with `error`,
/// or answered late by `delay` seconds. For the code that matters on a bad day: a backend's
/// retry and back-off (Apple, "Error Codes", "Identifying rate limits"). A `/verifyReceipt`
/// status is armed the same way and met by `/verifyReceipt` alone; the API's errors and
/// delays are met by the App Store Server API's paths alone.
public struct ServerFault: Sendable, Equatable {
    public enum Effect: Sendable, Equatable {
        case error(APIError)
        /// Seconds before the answer, for a client's time-out.
        case delay(Double)
        /// A status `/verifyReceipt` answers instead of validating the receipt.
        case receiptStatus(TransientReceiptStatus)
    }

    public var effect: Effect
    /// Requests left to affect; nil for every request.
    public var remaining: Int?
    /// The paths affected; nil for every path.
    public var endpoint: EndpointPattern?

    public init(_ effect: Effect, remaining: Int? = nil, endpoint: EndpointPattern? = nil) {
        self.effect = effect
        self.remaining = remaining
        self.endpoint = endpoint
    }

    /// The file in the state folder that holds the armed faults.
    public static let fileName = "server-errors.json"
    /// The longest delay: longer than any client's time-out worth testing, short enough that
    /// a server thread is not held for good.
    public static let longestDelay = 600.0
    /// The most requests a count may name.
    public static let largestCount = 1_000_000

    /// What one request meets: the first armed error whose pattern matches, and the first
    /// armed delay that does.
    public struct Outcome: Sendable, Equatable {
        public var error: APIError?
        public var delay: Double?
        public var receiptStatus: TransientReceiptStatus? = nil
        public static let none = Outcome(error: nil, delay: nil)
    }

    /// Whether a request to `path` meets this fault: a receipt status only `/verifyReceipt`,
    /// the rest only the other paths; then only a path `endpoint` matches.
    func applies(to path: String) -> Bool {
        let isReceipt: Bool
        if case .receiptStatus = effect { isReceipt = true } else { isReceipt = false }
        guard isReceipt == (path == TransientReceiptStatus.path) else { return false }
        return endpoint?.matches(path) ?? true
    }

    /// Takes what a request to `path` meets from `faults`, counting it down: a fault whose
    /// count reaches zero is removed.
    public static func consume(_ faults: inout [ServerFault], path: String) -> Outcome {
        var outcome = Outcome.none
        var index = 0
        while index < faults.count {
            let fault = faults[index]
            var taken = false
            if fault.applies(to: path) {
                switch fault.effect {
                case .error(let error) where outcome.error == nil:
                    outcome.error = error
                    taken = true
                case .delay(let seconds) where outcome.delay == nil:
                    outcome.delay = seconds
                    taken = true
                case .receiptStatus(let status) where outcome.receiptStatus == nil:
                    outcome.receiptStatus = status
                    taken = true
                default: break
                }
            }
            if taken, let remaining = fault.remaining {
                if remaining <= 1 {
                    faults.remove(at: index)
                    continue
                }
                faults[index].remaining = remaining - 1
            }
            index += 1
        }
        return outcome
    }

    // MARK: Reading what the command line gives

    /// An error by its code (`4290000`) or Apple's name (`RateLimitExceededError`, or without
    /// `Error`, any case): only the errors a client backs off from (`APIError.backOff`).
    public static func error(named text: String) throws(ServerFaultError) -> APIError {
        let folded = text.lowercased()
        for (name, error) in APIError.backOff {
            let lower = name.lowercased()
            if folded == String(error.errorCode) || folded == lower || folded + "error" == lower { return error }
        }
        throw .unknownError(text)
    }

    /// What a code arms: a `/verifyReceipt` status (`TransientReceiptStatus`) or an API error
    /// (`error(named:)`).
    public static func effect(named text: String) throws(ServerFaultError) -> Effect {
        if let code = Int(text), let status = TransientReceiptStatus(code) { return .receiptStatus(status) }
        return .error(try error(named: text))
    }

    /// The fault, refused if it could never be met: a `/verifyReceipt` status whose
    /// `--endpoint` does not match `/verifyReceipt`.
    public func checked() throws(ServerFaultError) -> ServerFault {
        if case .receiptStatus = effect, let endpoint, !endpoint.matches(TransientReceiptStatus.path) {
            throw .receiptStatusEndpoint(endpoint.text)
        }
        return self
    }

    /// A delay such as `2s`, `1.5s`, `500ms` or `2` (seconds), from 1 ms up to `longestDelay`
    /// (the file keeps milliseconds: a shorter one would not read back).
    public static func delay(_ text: String) throws(ServerFaultError) -> Double {
        var number = Substring(text)
        var scale = 1.0
        if number.hasSuffix("ms") {
            number = number.dropLast(2)
            scale = 0.001
        } else if number.hasSuffix("s") {
            number = number.dropLast()
        }
        guard !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
            let value = Double(number), value.isFinite, value * scale >= 0.001, value * scale <= longestDelay
        else { throw .invalidDelay(text) }
        return value * scale
    }

    /// A count of requests: a whole number from 1 to `largestCount`.
    public static func count(_ text: String) throws(ServerFaultError) -> Int {
        guard text.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(text), value >= 1,
            value <= largestCount
        else { throw .invalidCount(text) }
        return value
    }
}

/// Which request paths a fault affects: the path as the client sends it, without the query,
/// segment by segment. `*` in a segment stands for any text within it (`/inApps/v1/transactions/*`
/// is Get Transaction Info, not `…/transactions/1/appAccountToken`), and a last segment `**`
/// for any number of segments (`/inApps/v2/**`).
public struct EndpointPattern: Sendable, Equatable {
    public let text: String
    private let segments: [Substring]

    /// - Throws: `ServerFaultError.invalidEndpoint` unless `text` starts with `/` and holds
    ///   printable ASCII with no `?`, `**` only as the last segment.
    public init(_ text: String) throws(ServerFaultError) {
        guard text.hasPrefix("/"), text.count <= 1000,
            text.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F && $0 != "?" })
        else { throw .invalidEndpoint(text) }
        let segments = text.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        if let index = segments.firstIndex(where: { $0.contains("**") }),
            index != segments.count - 1 || segments[index] != "**"
        {
            throw .invalidEndpoint(text)
        }
        self.text = text
        self.segments = segments
    }

    /// Whether `path` (e.g. `/inApps/v1/transactions/7`) is one this pattern names.
    public func matches(_ path: String) -> Bool {
        let parts = path.dropFirst(path.hasPrefix("/") ? 1 : 0).split(separator: "/", omittingEmptySubsequences: false)
        if segments.last == "**" {
            let fixed = segments.dropLast()
            return parts.count >= fixed.count && zip(fixed, parts).allSatisfy { Self.glob($0, $1) }
        }
        return parts.count == segments.count && zip(segments, parts).allSatisfy { Self.glob($0, $1) }
    }

    /// `*` matches any run of characters (within one segment).
    static func glob(_ pattern: Substring, _ text: Substring) -> Bool {
        let pieces = pattern.split(separator: "*", omittingEmptySubsequences: false)
        guard pieces.count > 1 else { return pattern == text }
        var rest = text
        guard rest.hasPrefix(pieces[0]) else { return false }
        rest = rest.dropFirst(pieces[0].count)
        for piece in pieces.dropFirst().dropLast() {
            guard let range = rest.range(of: piece) else { return false }
            rest = rest[range.upperBound...]
        }
        let last = pieces[pieces.count - 1]
        return rest.count >= last.count && rest.hasSuffix(last)
    }
}

/// Why an error or a delay could not be armed.
public enum ServerFaultError: Error, Equatable, Sendable {
    case unknownError(String)
    case invalidDelay(String)
    case invalidCount(String)
    case invalidEndpoint(String)
    /// A `/verifyReceipt` status armed for paths that never include `/verifyReceipt`.
    case receiptStatusEndpoint(String)
}

extension ServerFaultError: LocalizedError {
    public var errorDescription: String? {
        switch self {
        case .unknownError(let text):
            "'\(text)' is not an error a client backs off from; use one of "
                + APIError.backOff.map { "\($0.error.errorCode) (\($0.name))" }.joined(separator: ", ")
                + ", or a /verifyReceipt status: \(TransientReceiptStatus.listed)"
        case .invalidDelay(let text):
            "delay '\(text)': expected seconds such as 2s, 1.5s or 500ms, from 1ms to "
                + "\(Int(ServerFault.longestDelay))s"
        case .invalidCount(let text):
            "--count \(text): expected a whole number from 1 to \(ServerFault.largestCount)"
        case .invalidEndpoint(let text):
            "--endpoint \(text): expected a path such as /inApps/v1/transactions/* ('*' within a segment, "
                + "'**' as the last one)"
        case .receiptStatusEndpoint(let text):
            "--endpoint \(text): a /verifyReceipt status is met by /verifyReceipt alone, which this does not match"
        }
    }
}

extension ServerFault {
    /// The stored form, one object per fault.
    var json: JSONValue {
        var members: [(String, JSONValue)] = []
        switch effect {
        case .error(let error):
            members.append(("errorCode", .int(error.errorCode)))
        case .delay(let seconds):
            members.append(("delaySeconds", .number(Self.secondsText(seconds))))
        case .receiptStatus(let status):
            members.append(("receiptStatus", .int(status.status)))
        }
        if let remaining { members.append(("remaining", .int(remaining))) }
        if let endpoint { members.append(("endpoint", .string(endpoint.text))) }
        return .object(members)
    }

    /// Reads the stored form back; nil for anything `json` does not write.
    init?(json value: JSONValue) {
        let effect: Effect
        if let code = value["errorCode"]?.intValue {
            guard let error = APIError.backOff.first(where: { $0.error.errorCode == code })?.error else { return nil }
            effect = .error(error)
        } else if let code = value["receiptStatus"]?.intValue {
            guard let status = TransientReceiptStatus(code) else { return nil }
            effect = .receiptStatus(status)
        } else if case .number(let text)? = value["delaySeconds"], let seconds = Double(text), seconds > 0,
            seconds <= Self.longestDelay
        {
            effect = .delay(seconds)
        } else {
            return nil
        }
        var remaining: Int?
        if let member = value["remaining"] {
            guard let count = member.intValue, count >= 1 else { return nil }
            remaining = count
        }
        var endpoint: EndpointPattern?
        if let member = value["endpoint"] {
            guard let text = member.stringValue, let pattern = try? EndpointPattern(text) else { return nil }
            endpoint = pattern
        }
        self.init(effect, remaining: remaining, endpoint: endpoint)
    }

    /// Seconds as `iapsim` shows them: `2`, `1.5`, `0.25`.
    public static func secondsText(_ seconds: Double) -> String {
        let milliseconds = Int64((seconds * 1000).rounded())
        let whole = milliseconds / 1000
        var fraction = String(milliseconds % 1000)
        if fraction == "0" { return String(whole) }
        fraction = String(repeating: "0", count: 3 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return "\(whole).\(fraction)"
    }

    /// One line for `status`, `settings` and `server-error`: `4290000 RateLimitExceededError,
    /// next 2 requests, /inApps/v1/transactions/*`.
    public var summary: String {
        let what: String
        switch effect {
        case .error(let error): what = "\(error.errorCode) \(error.backOffName ?? "")"
        case .delay(let seconds): what = "delay \(Self.secondsText(seconds))s"
        case .receiptStatus(let status): what = "/verifyReceipt status \(status.status) (\(status.meaning))"
        }
        let howMany = remaining.map { $0 == 1 ? "next request" : "next \($0) requests" } ?? "every request"
        return "\(what), \(howMany), \(endpoint?.text ?? "every endpoint")"
    }

    /// The public form, for `--json`.
    public var publicJSON: JSONValue {
        var members: [(String, JSONValue)] = []
        switch effect {
        case .error(let error):
            members += [
                ("errorCode", .int(error.errorCode)), ("errorMessage", .string(error.errorMessage)),
                ("httpStatus", .int(error.status)), ("name", .string(error.backOffName ?? "")),
            ]
        case .delay(let seconds):
            members.append(("delaySeconds", .number(Self.secondsText(seconds))))
        case .receiptStatus(let status):
            members.append(("receiptStatus", .int(status.status)))
            if let retryable = status.isRetryable { members.append(("isRetryable", .bool(retryable))) }
        }
        members.append(("remaining", remaining.map { .int($0) } ?? .null))
        members.append(("endpoint", endpoint.map { .string($0.text) } ?? .null))
        return .object(members)
    }
}
