import Foundation
import IAPSimJSON

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

    /// One row and the text of each of its top-level scalars, lowercased for search.
    struct Row {
        var value: JSONValue
        var fields: [String: String]
        var search: String

        init(_ value: JSONValue) {
            self.value = value
            var fields: [String: String] = [:]
            for (key, member) in value.objectValue ?? [] {
                switch member {
                case .string(let text), .number(let text): fields[key] = text
                case .bool(let flag): fields[key] = flag ? "true" : "false"
                case .object(let members):
                    // `offer` is an object: its type is what a person filters on.
                    if case .string(let text)? = members.first(where: { $0.0 == "type" })?.1 { fields[key] = text }
                default: break
                }
            }
            self.fields = fields
            search = fields.values.joined(separator: " ").lowercased()
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

    /// A page of rows at the state's version `now`, running the command when the version
    /// changed. Returns nil with the outcome of a command that failed (a corrupt state).
    func page(_ query: Query, at now: StateVersion, commands: PageCommands) -> Result<JSONValue, Failure> {
        lock.lock()
        defer { lock.unlock() }
        if version != now {
            let outcome: PageCommands.Outcome
            do {
                outcome = try commands.run(words, allowed: PageCommands.reads)
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
        var matched = rows.indices.filter { index in
            let row = rows[index]
            for (key, value) in query.equal where row.fields[key] != value { return false }
            return query.text.isEmpty || row.search.contains(query.text.lowercased())
        }
        if let key = query.sortKey {
            let rows = self.rows
            matched.sort { left, right in
                let order = Self.compare(rows[left].fields[key], rows[right].fields[key])
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

    /// Numbers (prices, identifiers) by value, anything else (dates in ISO 8601) as text;
    /// a missing value last.
    static func compare(_ left: String?, _ right: String?) -> Int {
        switch (left, right) {
        case (nil, nil): return 0
        case (nil, _): return 1
        case (_, nil): return -1
        case (let left?, let right?):
            if Self.isNumber(left), Self.isNumber(right), let a = Double(left), let b = Double(right) {
                return a < b ? -1 : a > b ? 1 : 0
            }
            return left < right ? -1 : left > right ? 1 : 0
        }
    }

    private static func isNumber(_ text: String) -> Bool {
        !text.isEmpty && text.allSatisfy { $0.isASCII && ($0.isNumber || $0 == "." || $0 == "-") }
    }
}
