import Foundation
import IAPSimKit

extension Context {
    /// The real world, read once at start-up: the process environment, the working
    /// directory, the system clock, and the catalog `make install` put beside the binary.
    static func live() -> Context {
        live(
            environment: ProcessInfo.processInfo.environment,
            currentDirectory: FileManager.default.currentDirectoryPath, executablePath: executablePath())
    }

    /// This binary's real path: /proc/self/exe on Linux (cheaper than `Bundle.main`), the
    /// bundle's executable elsewhere.
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
