import Foundation
import IAPSimKit

extension Context {
    /// The real world, read once at start-up: the process environment, the working
    /// directory, the system clock, and the catalog `make install` put beside the binary.
    static func live() -> Context {
        // Read once, straight from the C library: `ProcessInfo`'s dictionary and the
        // singleton behind it cost a short command's start-up half a millisecond more.
        let environment = processEnvironment()
        leaveFaketime(environment)
        return live(
            environment: environment, currentDirectory: currentDirectory(), executablePath: executablePath())
    }

    /// The process environment as `getenv` sees it: a name given twice keeps its first value.
    static func processEnvironment() -> [String: String] {
        #if os(Linux)
            var result: [String: String] = [:]
            var entry = environ
            while let text = entry.pointee {
                let bytes = UnsafeBufferPointer(
                    start: UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self), count: strlen(text))
                if let equals = bytes.firstIndex(of: UInt8(ascii: "=")) {
                    let name = String(decoding: bytes[..<equals], as: UTF8.self)
                    if result[name] == nil {
                        result[name] = String(decoding: bytes[(equals + 1)...], as: UTF8.self)
                    }
                }
                entry += 1
            }
            return result
        #else
            return ProcessInfo.processInfo.environment
        #endif
    }

    /// The working directory, from `getcwd`; Foundation's answer when that fails (a folder
    /// removed under the shell).
    private static func currentDirectory() -> String {
        #if os(Linux)
            guard let path = getcwd(nil, 0) else { return FileManager.default.currentDirectoryPath }
            defer { free(path) }
            return String(cString: path)
        #else
            return FileManager.default.currentDirectoryPath
        #endif
    }

    /// Runs this iapsim again without libfaketime when a program under `iapsim clock exec`
    /// started it (`Faketime.environmentLeaving`); returns only when it is not one.
    private static func leaveFaketime(_ environment: [String: String]) {
        guard let clean = Faketime.environmentLeaving(environment), let path = executablePath() else { return }
        let argv = ([path] + processArguments().dropFirst()).map { strdup($0) } + [nil]
        let envp = clean.map { strdup("\($0.key)=\($0.value)") } + [nil]
        execve(path, argv, envp)
        // execve failed: go on under the faked clock rather than not at all.
    }

    /// The arguments this process was started with. On Linux they are read from
    /// /proc/self/cmdline: under libfaketime 0.9.10, `CommandLine.arguments` can come back
    /// without them.
    private static func processArguments() -> [String] {
        #if os(Linux)
            if let data = FileManager().contents(atPath: "/proc/self/cmdline"), !data.isEmpty {
                return data.split(separator: 0, omittingEmptySubsequences: false).dropLast().map {
                    String(decoding: $0, as: UTF8.self)
                }
            }
        #endif
        return CommandLine.arguments
    }

    /// This binary's real path: /proc/self/exe on Linux (cheaper than `Bundle.main`), the
    /// bundle's executable elsewhere.
    /// What names this build of iapsim, and so of the formatting library linked into it: its
    /// version, and its executable's size and time. Texts remembered by another build
    /// (`PriceTexts`) are formatted again.
    static let buildIdentity: String = {
        var info = stat()
        guard let path = executablePath(), stat(path, &info) == 0 else { return Version.number }
        #if os(Linux)
            let modified = info.st_mtim
        #else
            let modified = info.st_mtimespec
        #endif
        return "\(Version.number) \(info.st_size) \(modified.tv_sec).\(modified.tv_nsec)"
    }()

    private static func executablePath() -> String? {
        #if os(Linux)
            guard let resolved = realpath("/proc/self/exe", nil) else { return nil }
            defer { free(resolved) }
            return String(cString: resolved)
        #else
            return Bundle.main.executableURL?.resolvingSymlinksInPath().path
        #endif
    }
}
