import Foundation

public struct InvalidHex: Error, CustomStringConvertible {
    public let text: String
    public var description: String { "not hexadecimal: \(text.prefix(40))" }
}

extension Array where Element == UInt8 {
    /// Decodes hexadecimal text (either case); throws on odd length or non-hex characters.
    public init(hex text: String) throws {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { throw InvalidHex(text: text) }
        func nibble(_ c: UInt8) throws -> UInt8 {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
            default: throw InvalidHex(text: text)
            }
        }
        var bytes = [UInt8]()
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            bytes.append(try nibble(digits[index]) << 4 | nibble(digits[index + 1]))
            index += 2
        }
        self = bytes
    }

    public var hex: String { map { String(format: "%02x", $0) }.joined() }
}
