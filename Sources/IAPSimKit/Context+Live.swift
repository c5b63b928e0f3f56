import Foundation

extension Context {
    /// The real world as a program that runs the library sees it: `environment` and
    /// `currentDirectory` as the process has them, the system clock, and the catalog
    /// `make install` put beside the binary at `executablePath` (`PREFIX/share/iapsim/catalog`
    /// for `PREFIX/bin/iapsim`). The library never reads these itself: the `iapsim` executable
    /// and the StoreKit module (the app's side) each pass in what their process has.
    public static func live(environment: [String: String], currentDirectory: String, executablePath: String?)
        -> Context
    {
        // PREFIX/bin/iapsim → PREFIX/share/iapsim/catalog
        let prefix = executablePath.map { path in
            path.split(separator: "/", omittingEmptySubsequences: false).dropLast(2).joined(separator: "/")
        }
        return Context(
            environment: environment, currentDirectory: currentDirectory, now: { Date() },
            installedCatalogDirectory: prefix.map { $0 + "/share/iapsim/catalog" })
    }
}
