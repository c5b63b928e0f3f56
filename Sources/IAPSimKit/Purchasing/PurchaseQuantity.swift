import Foundation

/// How many of a product one purchase buys: 1 to 10, the bounds of StoreKit's
/// `SKMutablePayment.quantity` (Apple, "quantity": the minimum value is 1, the maximum 10) and
/// of `Product.PurchaseOption.quantity(_:)`. A value outside them cannot be made, so no
/// purchase, pending request or transaction the library records can carry one.
public struct PurchaseQuantity: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The quantities StoreKit allows in one payment.
    public static let range = 1...10
    /// One: a product that is not a consumable is always bought one at a time.
    public static let one = PurchaseQuantity(checked: 1)

    /// The number, within `range`.
    public let value: Int

    /// - Throws: `PurchaseRequestError.invalidQuantity` naming `value` when it is outside `range`.
    public init(_ value: Int) throws(PurchaseRequestError) {
        guard Self.range.contains(value) else { throw .invalidQuantity(String(value)) }
        self.value = value
    }

    /// A quantity as a person types it (`buy --quantity 3`): ASCII digits only, so neither a sign
    /// (`+3`, which `Int("+3")` would take) nor spaces pass.
    /// - Throws: `PurchaseRequestError.invalidQuantity` naming `text`.
    public init(text: String) throws(PurchaseRequestError) {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            let value = Int(text), Self.range.contains(value)
        else { throw .invalidQuantity(text) }
        self.value = value
    }

    private init(checked value: Int) { self.value = value }

    public var description: String { String(value) }

    public static func < (lhs: PurchaseQuantity, rhs: PurchaseQuantity) -> Bool { lhs.value < rhs.value }
}

extension PurchaseQuantity: ExpressibleByIntegerLiteral {
    /// A quantity written in code (`quantity: 3`). A literal outside 1…10 is a programming
    /// error and stops the program: the type never holds one.
    public init(integerLiteral value: Int) {
        precondition(Self.range.contains(value), "a purchase quantity is 1 to 10, not \(value)")
        self.value = value
    }
}
