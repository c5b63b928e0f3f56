import Foundation

/// Turns the ways people write a locale (`de_DE`, `de-DE`, `de_DE.UTF-8`, `de_DE@euro`) into
/// one Foundation knows, and refuses names it does not know.
///
/// On Linux an unknown identifier such as `xx_YY` silently formats with a fallback, and a
/// POSIX `@modifier` makes currency formatting drop the symbol (LINUX-NOTES.md), so both are
/// handled here rather than passed through.
public enum LocaleName {
    /// The canonical identifier (`de_DE`) for `name`, or nil if Foundation does not know it.
    public static func canonical(_ name: String) -> String? {
        var text = Substring(name)
        if let at = text.firstIndex(of: "@") { text = text[..<at] }
        if let dot = text.firstIndex(of: ".") { text = text[..<dot] }
        let identifier = text.replacingOccurrences(of: "-", with: "_")
        guard !identifier.isEmpty,
            identifier.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || $0 == "_" || ("0"..."9").contains($0)) })
        else { return nil }
        if known.contains(identifier) { return identifier }
        // A known language in a known region (`en_DE`) is a valid locale ICU has no entry for.
        let parts = identifier.split(separator: "_")
        if parts.count == 2, known.contains(String(parts[0])),
            Locale.Region.isoRegions.contains(where: { $0.identifier == parts[1] })
        {
            return identifier
        }
        return nil
    }

    private static let known: Set<String> = Set(Locale.availableIdentifiers)
}
