import Foundation
import IAPSimJSON
import IAPSimKit

/// The rows of one list command's `--json` (`transactions`, `notifications`), kept for as long
/// as the state keeps its version, so the page pages, filters and sorts a 10,000-row history
/// without running the command again. Filtering and sorting compare the JSON's own values as
/// text or numbers: they decide nothing about the App Store.
final class RowCache: @unchecked Sendable {
    /// The command and the member of its output that holds the rows.
    let words: [String]
    let member: String
    private let lock = NSLock()
    private var version: StateVersion?
    private var rows: [Row] = []
    /// The command's other members (`pending`, `verification`, …), as they are.
    private var rest: [(String, JSONValue)] = []
    private var lastOutcome: PageCommands.Outcome?

    init(words: [String], member: String) {
        self.words = words
        self.member = member
    }

    /// One row of the command's output, as it printed it.
    struct Row {
        var value: JSONValue

        init(_ value: JSONValue) { self.value = value }

        /// The text of a top-level member: a string or number as written, a flag as
        /// true/false, an object by its `type` (`offer`); nil for null or a missing member.
        /// Looked up when a query needs it: a history's rows are made once per change and most
        /// are never filtered on.
        func field(_ key: String) -> String? {
            guard case .object(let members) = value, let member = members.first(where: { $0.0 == key })?.1 else {
                return nil
            }
            switch member {
            case .string(let text), .number(let text): return text
            case .bool(let flag): return flag ? "true" : "false"
            case .object(let inner):
                if case .string(let text)? = inner.first(where: { $0.0 == "type" })?.1 { return text }
                return nil
            default: return nil
            }
        }

        /// Whether any top-level member's text contains `text` (lowercased), ignoring case.
        func contains(_ text: String) -> Bool {
            guard case .object(let members) = value else { return false }
            return members.contains { key, _ in field(key)?.lowercased().contains(text) == true }
        }
    }

    /// What the page asked for: a filter, an order and a page.
    struct Query: Equatable {
        var text = ""
        /// Exact values of top-level members: `productID` = `com.example.app.book`.
        var equal: [String: String] = [:]
        var sortKey: String?
        var descending = false
        var offset = 0
        var limit = 50

        static let largestPage = 500
    }

    /// A page of rows at the state's version `now`, running the command (with `extra`, the
    /// customer's `--account NAME`) when the version changed; a version names its customer, so
    /// another customer's rows are never served. Returns nil with the outcome of a command
    /// that failed (a corrupt state).
    func page(_ query: Query, at now: StateVersion, extra: [String] = [], commands: PageCommands)
        -> Result<JSONValue, Failure>
    {
        lock.lock()
        defer { lock.unlock() }
        if version != now {
            let outcome: PageCommands.Outcome
            do {
                outcome = try commands.run(words + extra, allowed: PageCommands.reads)
            } catch {
                return .failure(Failure(outcome: nil, message: error.message))
            }
            guard outcome.exitCode == 0, let members = outcome.output?.objectValue else {
                return .failure(Failure(outcome: outcome, message: outcome.messages.joined(separator: "\n")))
            }
            rows = members.first { $0.0 == member }?.1.arrayValue?.map(Row.init) ?? []
            rest = members.filter { $0.0 != member }
            version = now
        }
        let text = query.text.lowercased()
        var matched = rows.indices.filter { index in
            let row = rows[index]
            for (key, value) in query.equal where row.field(key) != value { return false }
            return text.isEmpty || row.contains(text)
        }
        if let key = query.sortKey {
            // Each row's key once, then the order of the indices by it.
            var keys = [SortKey](repeating: .missing, count: rows.count)
            for index in matched { keys[index] = Self.sortKey(rows[index].field(key)) }
            matched.sort { left, right in
                let order = Self.compare(keys[left], keys[right])
                if order == 0 { return query.descending ? left > right : left < right }
                return query.descending ? order > 0 : order < 0
            }
        } else if query.descending {
            matched.reverse()
        }
        let start = min(max(query.offset, 0), matched.count)
        let end = min(start + max(1, min(query.limit, Query.largestPage)), matched.count)
        return .success(
            .object(
                [
                    ("version", .string(now.text)), ("total", .int(rows.count)), ("matched", .int(matched.count)),
                    ("offset", .int(start)), (member, .array(matched[start..<end].map { rows[$0].value })),
                ] + rest))
    }

    /// Why a page could not be made.
    struct Failure: Error {
        var outcome: PageCommands.Outcome?
        var message: String
    }

    /// A member's text as a sort key: numbers (prices, identifiers) by value, anything else
    /// (dates in ISO 8601) as text, a missing value last.
    enum SortKey {
        case number(Double)
        case text(String)
        case missing
    }

    static func sortKey(_ text: String?) -> SortKey {
        guard let text else { return .missing }
        if !text.isEmpty, text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "." || $0 == "-") }),
            let number = Double(text)
        {
            return .number(number)
        }
        return .text(text)
    }

    /// -1, 0 or 1: numbers before text, missing values last.
    static func compare(_ left: SortKey, _ right: SortKey) -> Int {
        switch (left, right) {
        case (.number(let a), .number(let b)): return a < b ? -1 : a > b ? 1 : 0
        case (.text(let a), .text(let b)): return a < b ? -1 : a > b ? 1 : 0
        case (.missing, .missing): return 0
        case (.missing, _): return 1
        case (_, .missing): return -1
        case (.number, .text): return -1
        case (.text, .number): return 1
        }
    }
}
