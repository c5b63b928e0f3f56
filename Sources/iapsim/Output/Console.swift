import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The terminal side of a run: where output goes, where answers come from, and whether a
/// person is there. Tests pass their own to capture output and script answers.
struct Console: Sendable {
    var writeOut: @Sendable (String) -> Void
    var writeError: @Sendable (String) -> Void
    /// One line of standard input, without its newline; nil at end of input.
    var readLine: @Sendable () -> String?
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

    /// Writes `bytes` (UTF-8) and a newline to standard output.
    func out(bytes: [UInt8]) {
        if quiet { return }
        if let writeOutBytes {
            writeOutBytes(bytes + [0x0A])
        } else {
            writeOut(String(decoding: bytes, as: UTF8.self) + "\n")
        }
    }

    /// Writes `text` and a newline to standard output, unless quiet.
    func out(_ text: String) {
        if !quiet { writeOut(text + "\n") }
    }

    /// A warning or note on standard error, unless quiet.
    func notice(_ text: String) {
        if !quiet { writeError(paint(text, prefix: "Warning:", .yellow, on: errorIsTerminal) + "\n") }
    }

    /// An error on standard error, always.
    func error(_ text: String) { writeError(paint(text, prefix: "Error:", .red, on: errorIsTerminal) + "\n") }

    /// ANSI styles, used only when `color` is on.
    enum Style: String {
        case bold = "1"
        case dim = "2"
        case red = "31"
        case green = "32"
        case yellow = "33"
    }

    /// `text` in `style` when colour is on (and, for stderr, stderr is a terminal).
    func styled(_ text: String, _ style: Style) -> String {
        color ? "\u{1B}[\(style.rawValue)m\(text)\u{1B}[0m" : text
    }

    private func paint(_ text: String, prefix: String, _ style: Style, on terminal: Bool) -> String {
        guard color, terminal, text.hasPrefix(prefix) else { return text }
        return styled(prefix, style) + text.dropFirst(prefix.count)
    }

    /// The process's own streams.
    static func live() -> Console {
        Console(
            writeOut: { text in
                FileHandle.standardOutput.write(Data(text.utf8))
            },
            writeError: { text in
                FileHandle.standardError.write(Data(text.utf8))
            },
            readLine: { Swift.readLine(strippingNewline: true) },
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
            writeOutBytes: { bytes in
                bytes.withUnsafeBytes { buffer in
                    var offset = 0
                    while offset < buffer.count {
                        let written = write(STDOUT_FILENO, buffer.baseAddress! + offset, buffer.count - offset)
                        if written <= 0 {
                            if written < 0, errno == EINTR { continue }
                            return
                        }
                        offset += written
                    }
                }
            })
    }
}
