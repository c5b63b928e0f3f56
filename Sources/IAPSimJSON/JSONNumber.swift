/// The grammar of a JSON number, in one place.
extension JSONValue {
    /// Steps over the number at `start` as RFC 8259 §6 writes it: `-`? then `0`, or a digit
    /// 1–9 and more digits; then `.` and at least one digit; then `e` or `E`, a sign, at least
    /// one digit. `012`, `1.`, `.5`, `1e` and `1+2` are not numbers. Every reader of JSON
    /// numbers (the parser, the journal's fast reader) takes exactly these.
    /// - Returns: the offset just past the number, or where it went wrong and why.
    public static func scanNumber(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> (
        end: Int, problem: String?
    ) {
        var position = start
        @inline(__always)
        func isDigit(_ index: Int) -> Bool { index < bytes.count && bytes[index] &- UInt8(ascii: "0") < 10 }
        @inline(__always)
        func skipDigits() -> Bool {
            guard isDigit(position) else { return false }
            repeat { position += 1 } while isDigit(position)
            return true
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
        if position < bytes.count, bytes[position] == UInt8(ascii: "0") {
            position += 1
            if isDigit(position) { return (position, "malformed number: a leading zero") }
        } else if !skipDigits() {
            return (position, "malformed number")
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard skipDigits() else { return (position, "malformed number: no digit after '.'") }
        }
        if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard skipDigits() else { return (position, "malformed number: no digit in the exponent") }
        }
        return (position, nil)
    }
}
