/// The order identifier on the buyer's emailed receipt (`MK5TTTVWJH`), which the App Store
/// Server API's Look Up Order ID takes. Apple, "Look Up Order ID": "The App Store also sends
/// customers an email receipt with an order ID each time they make in-app purchases", and a
/// subscription's receipt comes with each period billed. So an order is one charge: each
/// purchase — a resubscription, an upgrade or a crossgrade too, though it keeps its chain's
/// original transaction identifier — and each renewal, which bills and starts a period of its
/// own. A renewal belongs to the order that started its period, its own; an extension of that
/// period (Extend a Subscription Renewal Date) stays in it. iapsim sends no receipts, so it
/// derives the order from the transaction identifier of that charge; the derivation can be
/// undone, so an order is found through the index like a transaction, with no table of its
/// own. A purchase's order is the one earlier iapsim gave it (the chain's first transaction
/// had the purchase's own identifier).
///
/// `M` and nine characters of Crockford's base 32 (no I, L, O or U) for identifiers below
/// 2⁴⁵, thirteen above; the identifier is multiplied by an odd constant first, so
/// neighbouring purchases do not get neighbouring orders.
public enum OrderID {
    private static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)
    private static let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15
    /// `multiplier`'s inverse modulo 2⁶⁴ (so also modulo 2⁴⁵), by Newton's iteration.
    private static let inverse: UInt64 = {
        var x = multiplier
        for _ in 0..<6 { x = x &* (2 &- multiplier &* x) }
        return x
    }()
    private static let shortBits: UInt64 = 45

    /// The order of the charge whose transaction identifier is `transactionID`.
    public static func string(transactionID: UInt64) -> String {
        let short = transactionID < 1 << shortBits
        let mask: UInt64 = short ? (1 << shortBits) - 1 : .max
        var value = (transactionID &* multiplier) & mask
        var characters = [UInt8](repeating: 0, count: short ? 9 : 13)
        for index in characters.indices.reversed() {
            characters[index] = alphabet[Int(value & 31)]
            value >>= 5
        }
        return "M" + String(decoding: characters, as: UTF8.self)
    }

    /// The transaction identifier `order` was made from; nil for text no charge here has as
    /// its order (any case is read; the letters I, L and O as 1, 1 and 0 are not).
    public static func transactionID(_ order: String) -> UInt64? {
        let bytes = Array(order.utf8)
        guard bytes.count == 10 || bytes.count == 14, bytes[0] == UInt8(ascii: "M") || bytes[0] == UInt8(ascii: "m")
        else { return nil }
        let short = bytes.count == 10
        var value: UInt64 = 0
        for (index, byte) in bytes.enumerated().dropFirst() {
            let upper = (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) ? byte - 32 : byte
            guard let digit = alphabet.firstIndex(of: upper) else { return nil }
            if index == 1, !short, digit >= 16 { return nil }  // 13 characters hold 65 bits; 64 are used
            value = value << 5 | UInt64(digit)
        }
        let mask: UInt64 = short ? (1 << shortBits) - 1 : .max
        let id = (value &* inverse) & mask
        // One spelling per identifier: a short one never comes back from the long form.
        guard short == (id < 1 << shortBits) else { return nil }
        return id
    }
}

extension Transaction {
    /// The order this transaction is (`OrderID`): each purchase and each renewal its own.
    public var orderID: String { OrderID.string(transactionID: id) }
}
