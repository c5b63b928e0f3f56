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
        // PREFIX/bin/iapsim → PREFIX/share/iapsim/catalog: the path cut at its last slash but
        // one (nothing left when it has fewer), in bytes (`split` and `joined` cost a command
        // 280,000 instructions of generic types made at run time).
        let prefix = executablePath.map { path in
            var bytes = Array(path.utf8)
            for _ in 0..<2 { bytes.removeSubrange((bytes.lastIndex(of: UInt8(ascii: "/")) ?? 0)...) }
            return String(decoding: bytes, as: UTF8.self)
        }
        return Context(
            environment: environment, currentDirectory: currentDirectory, now: { Date() },
            installedCatalogDirectory: prefix.map { $0 + "/share/iapsim/catalog" })
    }
}
