import Foundation
import IAPSimKit

extension Runner {
    /// `clock`: show or move the simulated clock.
    func clock(_ action: ClockAction) throws -> ExitCode {
        let (_, session) = try catalogAndSession()
        let date: Date
        switch action {
        case .show:
            date = try session.clockReading().now
        case .advance(let text):
            guard let components = ISODuration.components(text) else { throw ClockError.invalidDuration(text) }
            date = try session.advanceClock(by: components)
        case .set(let text):
            guard let target = ISO8601Date.date(text) else { throw ClockError.invalidDate(text) }
            date = try session.setClock(to: target)
        case .freeze:
            date = try session.freezeClock(true)
        case .run:
            date = try session.freezeClock(false)
        case .reset:
            date = try session.resetClock()
        }
        let reading = try session.clockReading()
        if options.json {
            emit(
                .object([
                    ("date", .date(date)), ("frozen", .bool(reading.frozen)), ("timeRate", .string(reading.rate.name)),
                ]))
        } else {
            let mode = reading.frozen ? "frozen" : "running, \(reading.rate.name)"
            console.out("\(ISO8601Date.string(date)) (\(mode))")
        }
        return .success
    }

    /// `settings`: show, set or reset the session's controls.
    func settings(_ action: SettingsAction) throws -> ExitCode {
        let (_, session) = try catalogAndSession()
        let settings: SessionSettings
        switch action {
        case .show: settings = try session.settings()
        case .set(let key, let value): settings = try session.setSetting(key, to: value)
        case .reset(let key): settings = try session.resetSettings(key)
        }
        if options.json {
            emit(
                .object([
                    ("settings", .object(SettingKey.allCases.map { ($0.rawValue, .string(settings[$0])) })),
                    (
                        "sources",
                        .object(SettingKey.allCases.map { ($0.rawValue, .string(settings.sources[$0]!.rawValue)) })
                    ),
                ]))
            return .success
        }
        switch action {
        case .set(let key, _):
            let key = SettingKey(rawValue: key)!
            console.out("\(key.rawValue) = \(settings[key])")
            return .success
        case .reset(let key?):
            let key = SettingKey(rawValue: key)!
            console.out("\(key.rawValue) = \(settings[key]) (\(settings.sources[key]!.rawValue))")
            return .success
        default:
            break
        }
        var rows = [["SETTING", "VALUE", "FROM"]]
        for key in SettingKey.allCases {
            rows.append([key.rawValue, settings[key], settings.sources[key]!.rawValue])
        }
        TerminalText.table(rows).forEach(console.out)
        return .success
    }
}
