/// The order identifier on the buyer's emailed receipt (`MK5TTTVWJH`), which the App Store
/// Server API's Look Up Order ID takes. iapsim sends no receipts, so it derives one per
/// purchase from the purchase's original transaction identifier: a subscription's renewals
/// share the order of the purchase that began the chain. The derivation can be undone, so an
/// order is found through the index like a chain, with no table of its own.
///
/// `M` and nine characters of Crockford's base 32 (no I, L, O or U) for original identifiers
/// below 2⁴⁵, thirteen above; the identifier is multiplied by an odd constant first, so
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

    /// The order of the purchase whose original transaction identifier is `originalID`.
    public static func string(originalID: UInt64) -> String {
        let short = originalID < 1 << shortBits
        let mask: UInt64 = short ? (1 << shortBits) - 1 : .max
        var value = (originalID &* multiplier) & mask
        var characters = [UInt8](repeating: 0, count: short ? 9 : 13)
        for index in characters.indices.reversed() {
            characters[index] = alphabet[Int(value & 31)]
            value >>= 5
        }
        return "M" + String(decoding: characters, as: UTF8.self)
    }

    /// The original transaction identifier `order` was made from; nil for text no purchase
    /// here has as its order (any case is read; the letters I, L and O as 1, 1 and 0 are not).
    public static func originalID(_ order: String) -> UInt64? {
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
        let originalID = (value &* inverse) & mask
        // One spelling per identifier: a short one never comes back from the long form.
        guard short == (originalID < 1 << shortBits) else { return nil }
        return originalID
    }
}

extension Transaction {
    /// The order this transaction belongs to (`OrderID`): its purchase's, shared by renewals.
    public var orderID: String { OrderID.string(originalID: originalID) }
}
