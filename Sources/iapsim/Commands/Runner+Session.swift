import Foundation
import IAPSimJSON
import IAPSimKit

extension Runner {
    /// `clock`: show or move the simulated clock.
    func clock(_ action: ClockAction) throws -> Report {
        let (_, session) = try catalogAndSession()
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

    /// `settings`: show, set or reset the session's controls.
    func settings(_ action: SettingsAction) throws -> Report {
        let (_, session) = try catalogAndSession()
        let settings: SessionSettings
        switch action {
        case .show: settings = try session.settings()
        case .set(let key, let value): settings = try session.setSetting(key, to: value)
        case .reset(let key): settings = try session.resetSettings(key)
        }
        let json = JSON.object([
            ("settings", .object(SettingKey.allCases.map { ($0.rawValue, .string(settings[$0])) })),
            ("sources", .object(SettingKey.allCases.map { ($0.rawValue, .string(settings.source(of: $0).rawValue)) })),
        ])
        switch action {
        case .set(let key, _):
            return Report(json: json, lines: ["\(key.rawValue) = \(settings[key])"])
        case .reset(let key?):
            return Report(json: json, lines: ["\(key.rawValue) = \(settings[key]) (\(settings.source(of: key).rawValue))"])
        default:
            let rows = [["SETTING", "VALUE", "FROM"]]
                + SettingKey.allCases.map { [$0.rawValue, settings[$0], settings.source(of: $0).rawValue] }
            return Report(json: .value(json)) { [.table(rows: rows)] }
        }
    }
}
