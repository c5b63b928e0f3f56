import Foundation
import IAPSimJSON
import IAPSimKit

struct ServerError: CLICommand {
    static let spec = CommandSpec(
        name: "server-error",
        abstract: "Make 'iapsim serve' answer Apple's errors, or answer late, for back-off tests.",
        synopsis: "[CODE | delay DURATION] [--count N] [--endpoint PATTERN] | clear",
        discussion: """
            Arms an App Store Server API error for the requests 'iapsim serve' answers (in
            this shell or another, while it runs), so a backend's retry and back-off code can
            be tested: 4290000 RateLimitExceededError (HTTP 429, with Retry-After: the UNIX
            time in milliseconds, one second on, on iapsim's clock), 4040002
            AccountNotFoundRetryableError, 4040004 AppNotFoundRetryableError, 4040006
            OriginalTransactionIdNotFoundRetryableError (HTTP 404), 5000001
            GeneralInternalRetryableError or 5000000 GeneralInternalError (HTTP 500), each
            with Apple's body. A code or Apple's name arms it; 'delay 2s' holds each answer
            instead (for a client's time-out). --count N affects the next N matching requests
            (counted down under the state lock, so two requests never both take the last),
            else every one; --endpoint PATTERN only request paths it matches ('*' within a
            segment, '**' as the last one), else every endpoint. An error and a delay may both
            apply to a request; of several errors, the first armed that matches. A request
            must still carry a good token: a 401 comes first. A /verifyReceipt status arms the
            legacy endpoint instead, for a backend's retry of receipt validation: 21002 (a
            temporary issue), 21005 (the receipt server unavailable), 21009 (internal data
            access error) or 21100-21199 (internal data access errors, with is-retryable
            true), answered as HTTP 200 with the status in the body as Apple's endpoint does,
            before the receipt is read; --count and --endpoint work as for the API (an
            --endpoint must match /verifyReceipt). API errors and delays are not met by
            /verifyReceipt, nor its statuses by the API. With no argument it lists what is
            armed ('status' and 'settings' show it too); 'clear' disarms everything.
            """,
        arguments: [
            .init(
                "error",
                kind: .word(
                    APIError.backOff.map { String($0.error.errorCode) } + ["21002", "21005", "21009", "delay", "clear"]
                )),
            .init("duration", kind: .text),
        ],
        options: [
            OptionSpec(
                name: "count", valueName: "N", help: "Affect the next N matching requests (default: every one)."),
            OptionSpec(
                name: "endpoint", valueName: "PATTERN",
                help: "Affect only request paths it matches, e.g. '/inApps/v1/transactions/*'."),
        ],
        examples: [
            "iapsim server-error 4290000 --count 2",
            "iapsim server-error 5000001 --endpoint '/inApps/v1/subscriptions/*'",
            "iapsim server-error delay 3s --count 1", "iapsim server-error 21005 --count 1",
            "iapsim server-error 21100", "iapsim server-error", "iapsim server-error clear",
        ])

    let action: Action

    enum Action: Equatable {
        case show
        case arm(ServerFault)
        case clear
    }

    init(_ words: ParsedWords) throws(UsageError) {
        let arguments = words.arguments
        func fault(_ effect: ServerFault.Effect) throws(UsageError) -> ServerFault {
            do {
                let count = try words.value("count").map { text throws(ServerFaultError) in try ServerFault.count(text)
                }
                let endpoint = try words.value("endpoint").map { text throws(ServerFaultError) in
                    try EndpointPattern(text)
                }
                return try ServerFault(effect, remaining: count, endpoint: endpoint).checked()
            } catch {
                throw words.error(error.errorDescription ?? "\(error)")
            }
        }
        switch arguments.first {
        case nil:
            try Self.refuseOptions(words, "listing")
            action = .show
        case "clear":
            try words.expect(count: 1)
            try Self.refuseOptions(words, "clear")
            action = .clear
        case "delay":
            guard arguments.count == 2 else { throw words.error("usage: iapsim server-error delay DURATION (e.g. 2s)") }
            action = .arm(
                try fault(
                    try Self.checked(words) { () throws(ServerFaultError) in
                        .delay(try ServerFault.delay(arguments[1]))
                    }))
        case let code?:
            try words.expect(count: 1)
            action = .arm(
                try fault(
                    try Self.checked(words) { () throws(ServerFaultError) in
                        try ServerFault.effect(named: code)
                    }))
        }
    }

    /// `read()`, its error as the usage error the user reads.
    private static func checked<T>(_ words: ParsedWords, _ read: () throws(ServerFaultError) -> T) throws(UsageError)
        -> T
    {
        do {
            return try read()
        } catch {
            throw words.error(error.errorDescription ?? "\(error)")
        }
    }

    private static func refuseOptions(_ words: ParsedWords, _ what: String) throws(UsageError) {
        for name in ["count", "endpoint"] where words.has(name) {
            throw words.error("--\(name) goes with an error or a delay to arm, not with \(what)")
        }
    }

    func run(in context: CommandContext) throws -> Report {
        let session = try context.session()
        let faults: [ServerFault]
        var lines: [String] = []
        switch action {
        case .show:
            faults = try session.serverFaults()
        case .arm(let fault):
            faults = try session.armServerFault(fault)
            lines.append("Armed: \(fault.summary)")
        case .clear:
            let removed = try session.clearServerFaults()
            faults = []
            lines.append(removed.isEmpty ? "Nothing was armed." : "Cleared \(removed.count) armed.")
        }
        if case .show = action {
            lines = faults.isEmpty ? ["Nothing armed."] : faults.map { "Armed: \($0.summary)" }
        }
        return Report(json: .object([("serverErrors", .array(faults.map(\.publicJSON)))]), lines: lines)
    }
}
