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
    /// Writes UTF-8 bytes to standard output as they are: large JSON output skips a copy
    /// into a `String`. Defaults to decoding them for `writeOut`.
    var writeOutBytes: (@Sendable ([UInt8]) -> Void)? = nil

    /// Writes `bytes` (UTF-8) and a newline to standard output.
    func out(bytes: [UInt8]) {
        if let writeOutBytes {
            writeOutBytes(bytes + [0x0A])
        } else {
            writeOut(String(decoding: bytes, as: UTF8.self) + "\n")
        }
    }

    /// Writes `text` and a newline to standard output.
    func out(_ text: String) { writeOut(text + "\n") }
    /// Writes `text` and a newline to standard error.
    func error(_ text: String) { writeError(text + "\n") }

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
