import Foundation
import IAPSimJSON

extension StoreSession {
    /// `iapsim settings set KEY VALUE`. Changing the time rate restarts the clock from the
    /// current simulated time, so time already passed keeps the rate it passed at.
    public func setSetting(_ key: SettingKey, to value: String) throws -> SessionSettings {
        var parsed = SettingOverrides()
        try parsed.set(key, text: value)
        let real = realNow()
        return try transact { state, moment in
            state.simulation.settings.take(key, from: parsed)
            if key == .timeRate, let clock = state.simulation.clock {
                state.simulation.clock = SimulatedClock(base: moment.now, anchor: real, frozen: clock.frozen)
            }
            let settings = self.moment(state, real: real).settings
            reportStorefrontChange(from: moment.settings, to: settings)
            return settings
        }
    }

    /// A storefront that changed is reported as `Storefront.updates` /
    /// `paymentQueueDidChangeStorefront(_:)` report it to a running app. The transactions
    /// already made keep the storefront they were made in (`Transaction.storefront`).
    private func reportStorefrontChange(from old: SessionSettings, to new: SessionSettings) {
        let (before, after) = (old[.storefront], new[.storefront])
        if before != after { events(.storefrontChanged(from: before, to: after)) }
    }

    /// `iapsim settings reset [KEY]`: back to the catalog's or iapsim's defaults
    /// (`SKTestSession.resetToDefaultState()`).
    public func resetSettings(_ key: SettingKey? = nil) throws -> SessionSettings {
        let real = realNow()
        return try transact { state, moment in
            if let key { state.simulation.settings.remove(key) } else { state.simulation.settings.removeAll() }
            if let clock = state.simulation.clock {
                state.simulation.clock = SimulatedClock(base: moment.now, anchor: real, frozen: clock.frozen)
            }
            let settings = self.moment(state, real: real).settings
            reportStorefrontChange(from: moment.settings, to: settings)
            return settings
        }
    }

    // MARK: The clock

    /// The simulated time now, and whether the clock is frozen.
    public func clockReading() throws -> (now: Date, frozen: Bool, rate: TimeRate) {
        try look { state, moment in (moment.now, state.simulation.clock?.frozen ?? false, moment.settings.timeRate) }
    }

    /// Moves the clock to `date` (never backwards: renewals already made stay made).
    /// Subscriptions renew and expire up to it.
    /// - Throws: `ClockError.backwards`, or `.outOfRange` past `SimulatedClock.latest` or
    ///   before `SimulatedClock.earliest`.
    public func setClock(to date: Date) throws -> Date {
        try Self.checkRange(date, value: ISO8601Date.expandedString(date))
        return try moveClock { now in date }
    }

    /// Moves the clock forward by `components` on the proleptic Gregorian calendar in UTC
    /// (years and months first, the day clamped to a shorter month's end, then days and time).
    /// - Throws: `ClockError.outOfRange` when the clock would pass `SimulatedClock.latest`.
    public func advanceClock(by components: DateComponents) throws -> Date {
        let duration = ISODuration.text(components)
        return try moveClock { now throws(ClockError) in
            let hours = (components.hour ?? 0).multipliedReportingOverflow(by: 3600)
            let minutes = (components.minute ?? 0).multipliedReportingOverflow(by: 60)
            let time = hours.partialValue.addingReportingOverflow(minutes.partialValue)
            let seconds = time.partialValue.addingReportingOverflow(components.second ?? 0)
            guard !hours.overflow, !minutes.overflow, !time.overflow, !seconds.overflow,
                let start = GregorianDate(now),
                let end = start.adding(
                    years: components.year ?? 0, months: components.month ?? 0, days: components.day ?? 0,
                    seconds: seconds.partialValue),
                let date = end.date
            else {
                throw .outOfRange(value: "\(duration) after \(ISO8601Date.string(now))", bound: SimulatedClock.latest)
            }
            let fraction = now.timeIntervalSince1970 - now.timeIntervalSince1970.rounded(.down)
            let target = date + fraction
            try Self.checkRange(
                target, value: "\(duration) after \(ISO8601Date.string(now)) (\(ISO8601Date.expandedString(target)))")
            return target
        }
    }

    private static func checkRange(_ date: Date, value: String) throws(ClockError) {
        if date > SimulatedClock.latest { throw .outOfRange(value: value, bound: SimulatedClock.latest) }
        if date < SimulatedClock.earliest { throw .outOfRange(value: value, bound: SimulatedClock.earliest) }
    }

    /// Stops or restarts the clock.
    public func freezeClock(_ frozen: Bool) throws -> Date {
        let real = realNow()
        return try transact { state, moment in
            state.simulation.clock = SimulatedClock(base: moment.now, anchor: real, frozen: frozen)
            return moment.now
        }
    }

    /// Back to real time, even when that is earlier than the simulated time: an explicit
    /// reset may move the clock back. Transactions and renewals already recorded stay.
    public func resetClock() throws -> Date {
        let real = realNow()
        defer { try? bringOtherAccountsUpToDate() }
        return try transact { state, moment in
            state.simulation.clock = SimulatedClock(base: real, anchor: real, frozen: false)
            try SubscriptionEngine.advance(&state, to: real, settings: moment.settings)
            return real
        }
    }

    private func moveClock(_ target: (Date) throws -> Date) throws -> Date {
        let real = realNow()
        defer { try? bringOtherAccountsUpToDate() }
        return try transact { state, moment in
            var date = try target(moment.now)
            // The instant the clock shows (whole seconds) is not earlier than now: a running
            // clock is some fraction of a second past it.
            if date < moment.now, date >= moment.now.addingTimeInterval(-1),
                date.timeIntervalSince1970.rounded(.down)
                    == moment.now.timeIntervalSince1970.rounded(.down)
            {
                date = moment.now
            }
            guard date >= moment.now else { throw ClockError.backwards(from: moment.now, to: date) }
            state.simulation.clock = SimulatedClock(
                base: date, anchor: real, frozen: state.simulation.clock?.frozen ?? false)
            try SubscriptionEngine.advance(&state, to: date, settings: moment.settings)
            return date
        }
    }
}

extension StoreSession {
    /// libfaketime's timestamp file, written afresh for the clock as it is now: what
    /// `iapsim clock exec` points a program at. Every later clock change rewrites it.
    /// - Returns: the file's path.
    public func clockFile() throws -> String {
        try store.refreshClockFile()
    }
}
