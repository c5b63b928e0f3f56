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
}
