import Foundation
import IAPSimJSON

/// Prices as `PriceFormatter` spelled them, remembered in a file of the state folder
/// (`prices.cache`), so that a later command need not start the formatting library: ICU builds
/// its currency tables once per process (the sets that decide the space between a symbol and
/// the digits, the locale's data), about a millisecond — most of what `iapsim buy` costs
/// beyond reading and writing its files.
///
/// A cache, derived and never needed: written without the lock and without fsync (a temp file
/// and a rename, so a reader sees a whole file), and a file that does not read, or that was
/// written by another build of iapsim (`build`: the formatting library is linked into it), is
/// passed over and written again. At most `capacity` texts are kept.
public final class PriceTexts: @unchecked Sendable {
    public static let fileName = "prices.cache"
    static let capacity = 512
    static let format = 1

    private let path: String
    private let build: String
    private let lock = NSLock()
    /// Loaded at the first look-up.
    private var texts: [String: String]?
    private var added = false

    /// - Parameters:
    ///   - path: the cache file.
    ///   - build: what names the build of iapsim and of the formatting library in it; texts
    ///     another build wrote are not used.
    public init(path: String, build: String) {
        self.path = path
        self.build = build
    }

    /// `formatter`'s text for `price`: remembered, else `format` (the formatter's own
    /// `string(for:)` unless a test counts), remembered for `save()`.
    public func text(
        for price: Decimal, by formatter: PriceFormatter, format: ((Decimal) -> String)? = nil
    ) -> String {
        let key = formatter.localeIdentifier + " " + formatter.currencyCode + " " + price.plainString
        return lock.withLock {
            if texts == nil { texts = load() }
            if let known = texts?[key] { return known }
            let text = format?(price) ?? formatter.string(for: price)
            if (texts?.count ?? 0) < Self.capacity {
                texts?[key] = text
                added = true
            }
            return text
        }
    }

    /// Writes the file when a text was added since it was read. A failure is passed over: the
    /// texts are spelled again next time.
    public func save() {
        lock.withLock {
            guard added, let texts else { return }
            let document = JSONValue.object([
                ("format", .int(Self.format)), ("build", .string(build)),
                ("texts", .object(texts.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })),
            ])
            try? POSIXFile.replaceUnsynced(path, with: document.bytes() + [0x0A])
            added = false
        }
    }

    private func load() -> [String: String] {
        guard let data = try? POSIXFile.readIfPresent(path), let json = try? JSONValue.parse([UInt8](data)),
            let reader = try? Reader(json, at: ""), (try? reader.required("format").int()) == Self.format,
            (try? reader.required("build").string()) == build, case .object(let members)? = json["texts"]
        else { return [:] }
        var texts: [String: String] = [:]
        for (key, value) in members.prefix(Self.capacity) {
            if case .string(let text) = value { texts[key] = text }
        }
        return texts
    }
}
