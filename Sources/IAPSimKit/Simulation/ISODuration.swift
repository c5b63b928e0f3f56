import Foundation

/// ISO 8601 durations (`P1Y2M3W4DT5H6M7S`, any part optional) as calendar components.
public enum ISODuration {
    /// `components` written back as a duration (`P1Y2M10DT5H`), for messages.
    public static func text(_ components: DateComponents) -> String {
        var text = "P"
        for (value, unit) in [(components.year, "Y"), (components.month, "M"), (components.day, "D")] {
            if let value, value != 0 { text += "\(value)\(unit)" }
        }
        let time = [(components.hour, "H"), (components.minute, "M"), (components.second, "S")]
            .compactMap { value, unit in value.flatMap { $0 == 0 ? nil : "\($0)\(unit)" } }
        if !time.isEmpty { text += "T" + time.joined() }
        return text == "P" ? "PT0S" : text
    }

    public static func components(_ text: String) -> DateComponents? {
        if let short = shorthand(text) { return short }
        var components = DateComponents()
        var number = ""
        var inTime = false
        var sawUnit = false
        let scalars = Array(text.uppercased())
        guard scalars.first == "P", scalars.count > 1 else { return nil }
        for character in scalars.dropFirst() {
            if character.isASCII, character.isNumber {
                number.append(character)
                continue
            }
            if character == "T" {
                guard !inTime, number.isEmpty else { return nil }
                inTime = true
                continue
            }
            guard let value = Int(number), value <= 1_000_000 else { return nil }
            number = ""
            sawUnit = true
            switch (character, inTime) {
            case ("Y", false): components.year = value
            case ("M", false): components.month = value
            case ("W", false): components.day = (components.day ?? 0) + 7 * value
            case ("D", false): components.day = (components.day ?? 0) + value
            case ("H", true): components.hour = value
            case ("M", true): components.minute = value
            case ("S", true): components.second = value
            default: return nil
            }
        }
        return number.isEmpty && sawUnit ? components : nil
    }

    /// The shorthands people type, each one number and one unit, unambiguous: `30d`, `2w`,
    /// `12h`, `1y`, `90min`, `45s`, `3mo` (a bare `m` is refused: minutes or months?).
    static func shorthand(_ text: String) -> DateComponents? {
        let lowered = text.lowercased()
        let digits = lowered.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, digits.count <= 7, let value = Int(digits) else { return nil }
        var components = DateComponents()
        switch lowered.dropFirst(digits.count) {
        case "y": components.year = value
        case "mo": components.month = value
        case "w": components.day = 7 * value
        case "d": components.day = value
        case "h": components.hour = value
        case "min": components.minute = value
        case "s": components.second = value
        default: return nil
        }
        return components
    }
}
