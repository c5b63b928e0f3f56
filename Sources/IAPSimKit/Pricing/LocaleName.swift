import Foundation

/// Turns the ways people write a locale (`de_DE`, `de-DE`, `de_DE.UTF-8`, `de_DE@euro`) into
/// one Foundation knows, and refuses names it does not know.
///
/// On Linux an unknown identifier such as `xx_YY` silently formats with a fallback, and a
/// POSIX `@modifier` makes currency formatting drop the symbol (measured with Foundation on Linux), so both are
/// handled here rather than passed through.
public enum LocaleName {
    /// The canonical identifier (`de_DE`) for `name`, or nil if Foundation does not know it.
    public static func canonical(_ name: String) -> String? {
        var text = Substring(name)
        if let at = text.firstIndex(of: "@") { text = text[..<at] }
        if let dot = text.firstIndex(of: ".") { text = text[..<dot] }
        let identifier = String(text.map { $0 == "-" ? "_" : $0 })
        guard !identifier.isEmpty,
            identifier.unicodeScalars.allSatisfy({
                $0.isASCII && ($0.properties.isAlphabetic || $0 == "_" || ("0"..."9").contains($0))
            })
        else { return nil }
        // language[_Script][_REGION], each part one ICU knows.
        let parts = identifier.split(separator: "_", omittingEmptySubsequences: false).map(String.init)
        guard (1...3).contains(parts.count), LocaleCodes.contains(LocaleCodes.languages, parts[0]) else { return nil }
        var rest = parts.dropFirst()
        if let script = rest.first, script.count == 4 {
            guard LocaleCodes.contains(LocaleCodes.scripts, script) else { return nil }
            rest = rest.dropFirst()
        }
        if let region = rest.first {
            guard rest.count == 1,
                LocaleCodes.contains(LocaleCodes.regions, region)
                    || (region.count == 3 && region.allSatisfy(\.isNumber))
            else { return nil }
        }
        return identifier
    }
}
