/// Catalog text made safe to print: a `.storekit` file cannot send escape sequences to the
/// terminal or reorder a line with bidirectional controls. Control characters (C0, DEL, C1)
/// and the bidi embedding, override and isolate controls are shown as `\u{…}`.
enum TerminalText {
    /// - Parameter keepingNewlines: leave `\n` as it is, for text of several lines.
    static func escaped(_ text: String, keepingNewlines: Bool = false) -> String {
        let escape = { (scalar: Unicode.Scalar) in needsEscape(scalar) && !(keepingNewlines && scalar == "\n") }
        guard text.unicodeScalars.contains(where: escape) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            if escape(scalar) {
                result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// How many terminal columns `text` takes: 2 for each East Asian Wide or Fullwidth
    /// character (CJK ideographs, kana, Hangul, fullwidth forms, emoji shown as emoji), 0 for
    /// combining marks and other zero-width characters, 1 for the rest, counted per grapheme
    /// cluster as terminals draw them (Unicode Standard Annex #11, East Asian Width).
    static func displayWidth(_ text: String) -> Int {
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text.utf8.count }  // ASCII: the common case
        return text.reduce(0) { $0 + width(of: $1) }
    }

    /// The columns one grapheme cluster takes.
    static func width(of character: Character) -> Int {
        var sawVisible = false
        for scalar in character.unicodeScalars {
            let properties = scalar.properties
            if properties.isEmojiPresentation || isWide(scalar.value) { return 2 }
            if scalar.value == 0xFE0F, properties.isEmoji || character.unicodeScalars.first!.properties.isEmoji {
                return 2  // an emoji asked for in its emoji form: ❤️
            }
            switch properties.generalCategory {
            case .nonspacingMark, .enclosingMark, .format: continue
            default: sawVisible = true
            }
        }
        return sawVisible ? 1 : 0
    }

    /// East Asian Wide (W) and Fullwidth (F) ranges of UAX #11 outside the emoji, which
    /// `isEmojiPresentation` covers.
    private static func isWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
            0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F,
            0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x16FE4, 0x17000...0x18CFF, 0x1B000...0x1B2FF,
            0x20000...0x2FFFD, 0x30000...0x3FFFD:
            true
        default:
            false
        }
    }

    /// `text` padded with spaces to `width` columns.
    static func padded(_ text: String, to width: Int) -> String {
        let count = displayWidth(text)
        return count >= width ? text : text + String(repeating: " ", count: width - count)
    }

    /// `text` cut to at most `width` columns, ending in `…` when cut. A wide character that
    /// would straddle the edge goes whole: the cell is then a column short, and padded.
    static func truncated(_ text: String, to width: Int) -> String {
        guard displayWidth(text) > width else { return text }
        var result = ""
        var used = 0
        for character in text {
            let columns = self.width(of: character)
            if used + columns > width - 1 { break }
            result.append(character)
            used += columns
        }
        return result + "…"
    }

    /// Rows laid out in columns two spaces apart; the last column is not padded. When the
    /// lines would be wider than `width`, the `shrinking` columns are cut down in turn (to 8
    /// columns at least), their cells ending in `…`. Widths are terminal columns
    /// (`displayWidth`), so CJK titles and emoji line up. Cells are escaped first: escapes are
    /// wider than what they replace.
    static func table(_ cells: [[String]], width: Int? = nil, shrinking: [Int] = []) -> [String] {
        var rows = cells.map { $0.map { escaped($0) } }
        guard let columns = rows.map(\.count).max(), columns > 0 else { return [] }
        var widths = [Int](repeating: 0, count: columns)
        for row in rows { measure(row, into: &widths, escaped: true) }
        if let width {
            for column in shrinking where column < columns - 1 {
                let total = widths.reduce(0, +) + 2 * (columns - 1)
                guard total > width else { break }
                let limit = max(8, widths[column] - (total - width))
                guard limit < widths[column] else { continue }
                widths[column] = limit
                for index in rows.indices where rows[index].count > column {
                    rows[index][column] = truncated(rows[index][column], to: limit)
                }
            }
        }
        return rows.map { line($0, widths: widths) }
    }

    /// Widens `widths` to fit `cells`, a row of a table laid out a row at a time.
    /// - Parameter escaped: whether the cells are escaped already.
    static func measure(_ cells: [String], into widths: inout [Int], escaped isEscaped: Bool = false) {
        if widths.count < cells.count { widths += [Int](repeating: 0, count: cells.count - widths.count) }
        for (column, cell) in cells.enumerated() {
            widths[column] = max(widths[column], displayWidth(isEscaped ? cell : escaped(cell)))
        }
    }

    /// One row of escaped cells, each padded to its column's width but the last, two spaces apart.
    static func line(_ cells: [String], widths: [Int]) -> String {
        cells.enumerated().map { column, cell in
            column == cells.count - 1 || column >= widths.count ? cell : padded(cell, to: widths[column])
        }.joined(separator: "  ")
    }
}
