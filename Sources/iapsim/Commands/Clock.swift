import Foundation
import IAPSimJSON
import IAPSimKit

struct Clock: CLICommand {
    static let spec = CommandSpec(
        name: "clock", abstract: "Show or move the simulated clock.",
        synopsis: "[advance DURATION | advance --to DATE | set DATE | freeze | run | reset]",
        discussion: """
            The simulator keeps its own clock in the state. It runs at real speed, or fast
            under the deprecated ...IsOneDay time rates, unless frozen; under the
            monthlyRenewalEvery... rates each subscription period lasts what Apple's table
            gives (a month 30 s at monthlyRenewalEveryThirtySeconds). 'advance P1M' or
            'advance --to 2027-01-01T00:00:00Z' moves it forward (ISO 8601), and subscriptions
            renew, enter billing retry or expire on the way. 'freeze' stops it (for scripts that
            check exact dates), 'run' restarts it, 'reset' returns to real time.
            """,
        arguments: [
            .init("action", kind: .word(["advance", "set", "freeze", "run", "reset"])),
            .init("duration", kind: .duration),
        ],
        options: [
            OptionSpec(name: "to", valueName: "DATE", help: "With advance: move to this ISO 8601 date.")
        ],
        examples: [
            "iapsim clock", "iapsim clock advance P1M", "iapsim clock advance --to 2099-01-01T00:00:00Z",
            "iapsim clock freeze",
        ])

    let action: Action

    enum Action: Equatable {
        case show
        /// Forward by a duration on the Gregorian calendar in UTC.
        case advance(DateComponents)
        case set(Date)
        case freeze, run, reset
    }

    init(_ words: ParsedWords) throws(UsageError) {
        func parsedDate(_ text: String) throws(UsageError) -> Date {
            guard let date = ISO8601Date.date(text) else {
                throw words.error(ClockError.invalidDate(text).errorDescription ?? text)
            }
            return date
        }
        let arguments = words.arguments
        let verb = arguments.first
        let date = words.value("to")
        if date != nil, verb != "advance" { throw words.error("--to goes with 'iapsim clock advance --to DATE'") }
        switch verb {
        case nil:
            action = .show
        case "advance":
            if let date {
                try words.expect(count: 1)
                action = .set(try parsedDate(date))
                return
            }
            guard arguments.count == 2 else {
                throw words.error("usage: iapsim clock advance DURATION (e.g. P1M) or --to DATE")
            }
            guard let components = ISODuration.components(arguments[1]) else {
                throw words.error(ClockError.invalidDuration(arguments[1]).errorDescription ?? "")
            }
            action = .advance(components)
        case "set":
            guard arguments.count == 2 else { throw words.error("usage: iapsim clock set DATE") }
            action = .set(try parsedDate(arguments[1]))
        case "freeze", "run", "reset":
            try words.expect(count: 1)
            action = verb == "freeze" ? .freeze : verb == "run" ? .run : .reset
        case let other?:
            throw words.error("unknown clock action '\(other)'; use advance, set, freeze, run or reset")
        }
    }

    func run(in context: CommandContext) throws -> Report {
        let (_, session) = try context.catalogAndSession()
        switch action {
        case .show: break
        case .advance(let components): _ = try session.advanceClock(by: components)
        case .set(let date): _ = try session.setClock(to: date)
        case .freeze: _ = try session.freezeClock(true)
        case .run: _ = try session.freezeClock(false)
        case .reset: _ = try session.resetClock()
        }
        let reading = try session.clockReading()
        let mode = reading.frozen ? "frozen" : "running, \(reading.rate.name)"
        return Report(
            json: .object([
                ("date", .date(reading.now)), ("frozen", .bool(reading.frozen)),
                ("timeRate", .string(reading.rate.name)),
            ]),
            lines: ["\(ISO8601Date.string(reading.now)) (\(mode))"])
    }
}
