import Foundation
import IAPSimKit

extension Context {
    /// The real world, read once at start-up: the process environment, the working
    /// directory, the system clock, and the catalog `make install` put beside the binary
    /// (`PREFIX/share/iapsim/catalog` for `PREFIX/bin/iapsim`).
    static func live() -> Context {
        // PREFIX/bin/iapsim → PREFIX/share/iapsim/catalog
        let prefix = executablePath().map { path in
            path.split(separator: "/", omittingEmptySubsequences: false).dropLast(2).joined(separator: "/")
        }
        return Context(
            environment: ProcessInfo.processInfo.environment,
            currentDirectory: FileManager.default.currentDirectoryPath,
            now: { Date() },
            installedCatalogDirectory: prefix.map { $0 + "/share/iapsim/catalog" })
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
