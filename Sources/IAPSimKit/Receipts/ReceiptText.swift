/// A receipt's Base64 text, decoded where it lies (a request body, a file) in one pass: the
/// decoded bytes are the only copy made, whatever the text's size. Whitespace (line breaks of
/// `base64 -w 76`) is skipped; inside a JSON string, `\/` is a `/` and `\n`, `\r`, `\t` are
/// whitespace. Padding is required, as Foundation's decoder requires it.
enum ReceiptText {
    private static let table: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, character) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8.enumerated() {
            table[Int(character)] = UInt8(value)
        }
        return table
    }()

    /// Whether every backslash of `text` starts `\/`, `\n`, `\r` or `\t`.
    static func hasOnlySimpleEscapes(_ text: ArraySlice<UInt8>) -> Bool {
        var index = text.startIndex
        while index < text.endIndex {
            if text[index] == UInt8(ascii: "\\") {
                let next = text.index(after: index)
                guard next < text.endIndex, "/nrt".utf8.contains(text[next]) else { return false }
                index = text.index(after: next)
            } else {
                index = text.index(after: index)
            }
        }
        return true
    }

    /// The bytes `text` encodes, or nil when it is not padded Base64 (whitespace aside).
    static func decode(_ text: ArraySlice<UInt8>, jsonEscaped: Bool) -> [UInt8]? {
        var output: [UInt8] = []
        output.reserveCapacity(text.count / 4 * 3)
        var accumulator: UInt32 = 0
        var count = 0  // Base64 characters and padding, whitespace aside
        var padding = 0
        var escaped = false
        for byte in text {
            var character = byte
            if escaped {
                escaped = false
                switch byte {
                case UInt8(ascii: "/"): break
                case UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"): continue
                default: return nil
                }
            } else if jsonEscaped, byte == UInt8(ascii: "\\") {
                escaped = true
                continue
            } else {
                switch byte {
                case 0x20, 0x09, 0x0A, 0x0D, 0x0B, 0x0C: continue
                default: break
                }
            }
            if character == UInt8(ascii: "=") {
                padding += 1
                count += 1
                guard padding <= 2 else { return nil }
                continue
            }
            character = table[Int(character)]
            guard character != 0xFF, padding == 0 else { return nil }
            accumulator = accumulator << 6 | UInt32(character)
            count += 1
            if count % 4 == 0 {
                output.append(UInt8(truncatingIfNeeded: accumulator >> 16))
                output.append(UInt8(truncatingIfNeeded: accumulator >> 8))
                output.append(UInt8(truncatingIfNeeded: accumulator))
                accumulator = 0
            }
        }
        guard !escaped, count % 4 == 0 else { return nil }
        // The last group: its padding stands for the bytes it does not carry.
        switch padding {
        case 1:
            output.append(UInt8(truncatingIfNeeded: accumulator >> 10))
            output.append(UInt8(truncatingIfNeeded: accumulator >> 2))
        case 2:
            output.append(UInt8(truncatingIfNeeded: accumulator >> 4))
        default: break
        }
        return output
    }
}
