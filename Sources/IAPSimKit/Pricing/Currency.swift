import Foundation

/// What iapsim needs to know about currencies beyond their codes.
public enum Currency {
    /// ISO 4217 currencies with no minor unit: a price in one of them is a whole number
    /// (JPY 120, KRW 1,500), and App Store Connect accepts no other.
    public static let zeroDecimal: Set<String> = [
        "BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF", "UGX", "UYI", "VND", "VUV", "XAF",
        "XOF", "XPF",
    ]

    /// Whether `price` can be charged in `currencyCode`.
    public static func isValid(_ price: Decimal, in currencyCode: String) -> Bool {
        guard zeroDecimal.contains(currencyCode) else { return true }
        var value = price
        var rounded = Decimal()
        NSDecimalRound(&rounded, &value, 0, .plain)
        return rounded == price
    }
}
