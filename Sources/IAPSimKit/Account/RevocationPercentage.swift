import Foundation

/// The share of a transaction a prorated refund gives back (`refund --prorated PERCENT`):
/// Apple's `revocationPercentage`, "the percentage … of the transaction that the App Store has
/// refunded or revoked", rounded to three decimal places and signed in milliunits (40% is
/// 40000). A refund of the whole transaction is a full refund (`REFUND_FULL`, 100000), so a
/// prorated one is more than 0% and less than 100% (`REFUND_PRORATED`).
public struct RevocationPercentage: Sendable, Equatable, Hashable {
    /// The percentage, more than 0 and less than 100, with at most three decimals.
    public let value: Decimal

    /// `PERCENT` as a person writes it: `40`, `67.932`, `0.015` (a `%` after it is allowed).
    /// - Throws: `InvalidRevocationPercentage` naming `text`.
    public init(text: String) throws(InvalidRevocationPercentage) {
        let digits = text.hasSuffix("%") ? String(text.dropLast()) : text
        guard let value = Decimal(plainDecimal: digits), value > 0, value < 100,
            (digits.split(separator: ".").dropFirst().first?.count ?? 0) <= 3
        else { throw InvalidRevocationPercentage(text: text) }
        self.value = value
    }

    /// The percentage as signed data carries it: milliunits, 40% → 40000.
    public var milliunits: Int {
        var scaled = value * 1000
        var rounded = Decimal()
        NSDecimalRound(&rounded, &scaled, 0, .plain)
        return NSDecimalNumber(decimal: rounded).intValue
    }

    /// A whole refund, in milliunits.
    public static let fullMilliunits = 100_000
}

/// A `--prorated` percentage that is not one a prorated refund can give back.
public struct InvalidRevocationPercentage: Error, Equatable, Sendable, LocalizedError {
    public var text: String

    public var errorDescription: String? {
        "--prorated \(text): expected a percentage more than 0 and less than 100, with at most three decimals "
            + "(a refund of the whole transaction is 'iapsim refund ID' without --prorated)"
    }
}
