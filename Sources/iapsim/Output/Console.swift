import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The terminal side of a run: where output goes, where answers come from, and whether a
/// person is there. Tests pass their own to capture output and script answers.
///
/// Every line of text goes through `TerminalText.escaped` here, and nowhere else: catalog
/// text, identifiers and echoed arguments cannot send control sequences to the terminal, and
/// no message can forget it. Styles are added after escaping, by the console alone.
struct Console: Sendable {
    var writeOut: @Sendable (String) -> Void
    var writeError: @Sendable (String) -> Void
    /// One line of standard input, without its newline; nil at end of input.
    var readLine: @Sendable () -> String?
    /// One line of standard input of at most the given number of bytes, reading no further
    /// than one byte past it. Nil (tests) falls back to `readLine`.
    var readBoundedLine: (@Sendable (Int) -> BoundedLine)? = nil

    /// What `readLine(atMost:)` found.
    enum BoundedLine: Equatable {
        case line(String)
        /// Longer than the limit; the rest is left unread.
        case tooLong
        case end
    }

    /// One line of standard input, refused past `limit` bytes without reading the rest.
    func readLine(atMost limit: Int) -> BoundedLine {
        if let readBoundedLine { return readBoundedLine(limit) }
        guard let line = readLine() else { return .end }
        return line.utf8.count > limit ? .tooLong : .line(line)
    }
    /// Whether standard input is a terminal: only then does iapsim ask before buying.
    var inputIsTerminal: Bool
    /// Whether standard output and standard error are terminals: only then is there colour.
    var outputIsTerminal = false
    var errorIsTerminal = false
    /// The terminal's width in columns, when standard output is one.
    var terminalWidth: Int? = nil
    /// `--quiet`: nothing but errors.
    var quiet = false
    /// Colour and symbols: on a terminal, unless `NO_COLOR` or `--no-color`.
    var color = false
    /// Writes UTF-8 bytes to standard output as they are: large JSON output skips a copy
    /// into a `String`. Defaults to decoding them for `writeOut`.
    var writeOutBytes: (@Sendable ([UInt8]) -> Void)? = nil
    /// The first failure to write standard output (not a broken pipe), if any: the run then
    /// exits 74 although the command itself did its work.
    var outputFailure: @Sendable () -> String? = { nil }

    /// Writes `bytes` (UTF-8) as they are, with no newline: generated JSON, streamed.
    func out(bytes: [UInt8]) {
        if quiet { return }
        if let writeOutBytes {
            writeOutBytes(bytes)
        } else {
            writeOut(String(decoding: bytes, as: UTF8.self))
        }
    }

    /// Writes `text`, escaped, and a newline to standard output, unless quiet. `text` is one
    /// line: a newline in it (from a catalog's title, say) is shown as `\u{A}`, so no value
    /// can start a line of its own that a script would read as output of another kind.
    func out(_ text: String, style: Style? = nil) {
        if !quiet { writeOut(styled(TerminalText.escaped(text), style) + "\n") }
    }

    /// Writes `text` after `mark` in `style`; the mark only when there is colour.
    func out(_ text: String, mark: String, style: Style) {
        guard color else { return out(text) }
        if !quiet { writeOut(styled(mark, style) + " " + TerminalText.escaped(text) + "\n") }
    }

    /// Writes generated text (a completion script, the man page) exactly as it is.
    func outVerbatim(_ text: String) {
        if !quiet { writeOut(text) }
    }

    /// A warning or note on standard error, unless quiet.
    func notice(_ text: String) {
        if !quiet { writeError(paint(TerminalText.escaped(text), prefix: "Warning:", .yellow) + "\n") }
    }

    /// An error on standard error, always.
    func error(_ text: String) { writeError(paint(TerminalText.escaped(text), prefix: "Error:", .red) + "\n") }

    /// A question on standard error, asked even with `--quiet`: a person is there.
    func ask(_ question: String) -> String? {
        writeError(TerminalText.escaped(question) + " [y/N] ")
        let answer = readLine()
        // End of input (Ctrl-D) leaves the cursor on the prompt line: end it.
        if answer == nil { writeError("\n") }
        return answer
    }

    /// ANSI styles, used only when `color` is on.
    enum Style: String {
        case bold = "1"
        case dim = "2"
        case red = "31"
        case green = "32"
        case yellow = "33"
    }

    /// `text` in `style` when colour is on.
    func styled(_ text: String, _ style: Style?) -> String {
        guard color, let style else { return text }
        return "\u{1B}[\(style.rawValue)m\(text)\u{1B}[0m"
    }

    private func paint(_ text: String, prefix: String, _ style: Style) -> String {
        guard color, errorIsTerminal, text.hasPrefix(prefix) else { return text }
        return styled(prefix, style) + text.dropFirst(prefix.count)
    }

    /// The process's own streams, written with checked POSIX writes: a closed or full stream
    /// never traps. A broken pipe ends the process with SIGPIPE, as for any Unix tool.
    static func live() -> Console {
        let failure = StreamFailure()
        return Console(
            writeOut: { text in failure.write(Array(text.utf8), to: STDOUT_FILENO) },
            writeError: { text in failure.write(Array(text.utf8), to: STDERR_FILENO) },
            readLine: { Swift.readLine(strippingNewline: true) },
            readBoundedLine: { limit in
                var bytes: [UInt8] = []
                while bytes.count <= limit {
                    let byte = getchar()
                    if byte == EOF { return bytes.isEmpty ? .end : .line(String(decoding: bytes, as: UTF8.self)) }
                    if byte == 0x0A { break }
                    bytes.append(UInt8(truncatingIfNeeded: byte))
                }
                guard bytes.count <= limit else { return .tooLong }
                if bytes.last == 0x0D { bytes.removeLast() }
                return .line(String(decoding: bytes, as: UTF8.self))
            },
            inputIsTerminal: isatty(STDIN_FILENO) == 1,
            outputIsTerminal: isatty(STDOUT_FILENO) == 1,
            errorIsTerminal: isatty(STDERR_FILENO) == 1,
            terminalWidth: {
                var size = winsize()
                guard isatty(STDOUT_FILENO) == 1, ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0
                else {
                    return nil
                }
                return Int(size.ws_col)
            }(),
            writeOutBytes: { bytes in failure.write(bytes, to: STDOUT_FILENO) },
            outputFailure: { failure.outputFailure })
    }
}

/// Remembers the first failed write to standard output; once a stream has failed, later
/// writes to it are skipped.
private final class StreamFailure: @unchecked Sendable {
    private let lock = NSLock()
    private var failed: [Int32: String] = [:]

    var outputFailure: String? { lock.withLock { failed[STDOUT_FILENO] } }

    func write(_ bytes: [UInt8], to fd: Int32) {
        if lock.withLock({ failed[fd] != nil }) { return }
        bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count {
                let written = systemWrite(fd, base + offset, buffer.count - offset)
                if written >= 0 {
                    offset += written
                    continue
                }
                let code = errno
                if code == EINTR { continue }
                if code == EPIPE {
                    // SIGPIPE was ignored by whoever started us: end as the signal would.
                    signal(SIGPIPE, SIG_DFL)
                    raise(SIGPIPE)
                }
                lock.withLock { failed[fd] = String(cString: strerror(code)) }
                return
            }
        }
    }
}

private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
        Glibc.write(fd, buffer, count)
    #else
        Darwin.write(fd, buffer, count)
    #endif
}
