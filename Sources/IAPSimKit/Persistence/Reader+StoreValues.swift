import Foundation
import IAPSimJSON

extension Reader {
    /// A plain decimal string (`"2.99"`), read exactly.
    func decimal() throws(Failure) -> Decimal {
        guard case .string(let text) = value, let number = Decimal(plainDecimal: text) else {
            throw fail("a decimal number as a string such as \"2.99\"")
        }
        return number
    }

    /// An ISO 8601 subscription period such as `P1M`.
    func period() throws(Failure) -> SubscriptionPeriod {
        guard case .string(let text) = value, let period = SubscriptionPeriod(iso8601: text) else {
            throw fail("a subscription period such as P1M")
        }
        return period
    }

    /// A UUID in its 36-character form, as `appAccountToken` is kept.
    func uuid() throws(Failure) -> UUID {
        guard case .string(let text) = value, text.utf8.count == 36, let uuid = UUID(uuidString: text) else {
            throw fail("a UUID such as \"7e3fb20b-4cdb-47cc-936d-99d65f608138\"")
        }
        return uuid
    }
}
