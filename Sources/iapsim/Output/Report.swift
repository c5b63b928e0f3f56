import IAPSimJSON
import IAPSimKit

/// What a command produced: its exit status, its JSON for `--json`, its text otherwise, and
/// its messages for standard error. Commands build one; `Renderer` alone prints it, so the
/// output of every command is a value tests can inspect without running the CLI.
struct Report {
    var status: ExitCode = .success
    /// The exit status of a program iapsim ran (`clock exec`), which becomes iapsim's own.
    var programStatus: Int32?
    /// Printed with `--json`; nil prints nothing on standard output.
    var json: JSONOutput?
    /// Printed without `--json`. Built only when asked for: a 10,000-product list in JSON
    /// never lays out its table. It may read as it prints, and fail part-way.
    var text: () throws -> [Block] = { [] }
    /// On standard error before the output, unless `--quiet` (warnings about the input).
    var warnings: [String] = []
    /// On standard error after the output, unless `--quiet`.
    var notes: [String] = []
    /// On standard error after the output, always.
    var errors: [String] = []

    /// A piece of text output.
    enum Block {
        case line(String, Console.Style? = nil)
        /// A line marked with a green ✔ when there is colour.
        case success(String)
        /// Generated text printed as it is: a help page, a completion script.
        case verbatim(String)
        /// Bytes written to standard output unchanged: a binary file (`iapsim receipt`).
        case bytes([UInt8])
        /// Rows in columns; the first is a header when `header`. `details` are lines printed
        /// under a row (by index), dimmed. Columns in `shrinking` are cut to fit the width.
        case table(
            rows: [[String]], header: Bool = false, shrinking: [Int] = [], indent: String = "",
            details: [Int: String] = [:])
        /// Rows in columns of widths measured beforehand (`TerminalText.widths`), made as they
        /// are printed: a long history is never held whole.
        case streamedTable(widths: [Int], rows: (_ emit: ([String]) -> Void) throws -> Void)
    }

    /// The usual report: one JSON value, or lines of text.
    init(
        status: ExitCode = .success, json: JSON? = nil, lines: @autoclosure @escaping () -> [String] = [],
        notes: [String] = []
    ) {
        self.status = status
        self.json = json.map(JSONOutput.value)
        self.text = { lines().map { .line($0) } }
        self.notes = notes
    }

    init(status: ExitCode = .success, json: JSONOutput?, text: @escaping () throws -> [Block]) {
        self.status = status
        self.json = json
        self.text = text
    }

    /// Adds `member` to a JSON object value (not to a streamed document).
    mutating func addJSON(_ name: String, _ value: JSON) {
        if case .value(.object(let members)) = json { json = .value(.object(members + [(name, value)])) }
    }
}

/// `--json` output: a value, or a document written piece by piece (which may read as it
/// writes, and fail part-way).
enum JSONOutput {
    case value(JSON)
    case stream((inout JSONStream) throws -> Void)
}

/// Prints reports.
enum Renderer {
    /// Prints `report` through `console`, as JSON or as text, and returns its exit status.
    /// - Throws: what a streamed part throws; what was printed before stays printed.
    static func render(_ report: Report, json: Bool, console: Console, width: Int?) throws -> ExitCode {
        report.warnings.forEach(console.notice)
        if json {
            switch report.json {
            case .value(let value)?: console.out(bytes: value.bytes() + [0x0A])
            case .stream(let write)?:
                var stream = JSONStream { console.out(bytes: $0) }
                defer { stream.flush() }  // what was written before a failure
                try write(&stream)
                stream.finish()
            case nil: break
            }
        } else {
            for block in try report.text() {
                switch block {
                case .line(let text, let style): console.out(text, style: style)
                case .success(let text): console.out(text, mark: "✔", style: .green)
                case .verbatim(let text): console.outVerbatim(text.hasSuffix("\n") ? text : text + "\n")
                case .bytes(let bytes): console.out(bytes: bytes)
                case .table(let rows, let header, let shrinking, let indent, let details):
                    for (index, line) in TerminalText.table(rows, width: width, shrinking: shrinking).enumerated() {
                        console.out(indent + line, style: header && index == 0 ? .bold : nil)
                        if let detail = details[index] { console.out("    " + detail, style: .dim) }
                    }
                case .streamedTable(let widths, let rows):
                    try rows { cells in
                        console.out(TerminalText.line(cells.map { TerminalText.escaped($0) }, widths: widths))
                    }
                }
            }
        }
        report.notes.forEach(console.notice)
        report.errors.forEach(console.error)
        return report.status
    }
}

extension Report {
    /// This report printing `text` exactly as it is (help pages, scripts), without `--json`.
    func verbatim(_ text: String) -> Report {
        var report = self
        report.text = { [.verbatim(text)] }
        return report
    }
}
