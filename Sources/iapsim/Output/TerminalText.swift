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

    /// `text` padded with spaces to `width` characters.
    static func padded(_ text: String, to width: Int) -> String {
        let count = text.count
        return count >= width ? text : text + String(repeating: " ", count: width - count)
    }

    /// Rows laid out in columns two spaces apart; the last column is not padded. When the
    /// lines would be wider than `width`, the `shrinking` columns are cut down in turn (to 8
    /// characters at least), their cells ending in `…`.
    static func table(_ cells: [[String]], width: Int? = nil, shrinking: [Int] = []) -> [String] {
        var rows = cells.map { $0.map { escaped($0) } }  // before measuring: escapes are wider
        guard let columns = rows.map(\.count).max(), columns > 0 else { return [] }
        var widths = [Int](repeating: 0, count: columns)
        for row in rows {
            for (column, cell) in row.enumerated() { widths[column] = max(widths[column], cell.count) }
        }
        if let width {
            for column in shrinking where column < columns - 1 {
                let total = widths.reduce(0, +) + 2 * (columns - 1)
                guard total > width else { break }
                let limit = max(8, widths[column] - (total - width))
                guard limit < widths[column] else { continue }
                widths[column] = limit
                for index in rows.indices where rows[index].count > column && rows[index][column].count > limit {
                    rows[index][column] = String(rows[index][column].prefix(limit - 1)) + "…"
                }
            }
        }
        return rows.map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : padded(cell, to: widths[column])
            }.joined(separator: "  ")
        }
    }
}
