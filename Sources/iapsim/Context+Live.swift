import Foundation
import IAPSimKit

extension Context {
    /// The real world, read once at start-up: the process environment, the working
    /// directory, the system clock, and the catalog `make install` put beside the binary
    /// (`PREFIX/share/iapsim/catalog` for `PREFIX/bin/iapsim`).
    static func live() -> Context {
        let executable = Bundle.main.executableURL?.resolvingSymlinksInPath()
        let prefix = executable?.deletingLastPathComponent().deletingLastPathComponent()
        return Context(
            environment: ProcessInfo.processInfo.environment,
            currentDirectory: FileManager.default.currentDirectoryPath,
            now: { Date() },
            installedCatalogDirectory: prefix?.appendingPathComponent("share/iapsim/catalog").path)
    }
}
