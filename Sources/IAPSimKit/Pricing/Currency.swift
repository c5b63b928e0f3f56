import Foundation

/// What iapsim needs to know about currencies beyond their codes.
public enum Currency {
    /// ISO 4217 currencies with no minor unit: a price in one of them is a whole number
    /// (JPY 120, KRW 1,500), and App Store Connect accepts no other.
    public static let zeroDecimal: Set<String> = [
        "BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF", "UGX", "UYI", "VND", "VUV", "XAF",
        "XOF", "XPF",
    ]

    /// The highest price iapsim takes, in any currency: a trillion units, far above any App
    /// Store price (the dearest tiers are some hundreds of millions of Vietnamese dong), and
    /// low enough that ten of it, in the milliunits signed data carries, fit a 64-bit integer
    /// (Apple, "price": int64). A catalog or a price increase above it is refused.
    public static let maximumPrice = Decimal(1_000_000_000_000)

    /// Whether `price` can be charged in `currencyCode`.
    public static func isValid(_ price: Decimal, in currencyCode: String) -> Bool {
        guard zeroDecimal.contains(currencyCode) else { return true }
        var value = price
        var rounded = Decimal()
        NSDecimalRound(&rounded, &value, 0, .plain)
        return rounded == price
    }
}
