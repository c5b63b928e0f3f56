import Foundation
import Testing

@testable import IAPSimKit

/// Paths taken apart and standardized by hand, as Foundation's `NSString` and `URL` do it:
/// those cost tens of thousands of instructions a call on Linux, many calls a command.
@Suite struct PathTests {
    /// The folder and the name of a path, spelled without `NSString`, as `NSString` spells them.
    @Test(arguments: ["/a/b/c", "/a", "/", "a/b", "/a/b/", "/a//b", "accounts/bob/purchases.json"])
    func pathPartsAreNSStrings(path: String) {
        #expect(FileSystem.folder(of: path) == (path as NSString).deletingLastPathComponent)
        #expect(FileSystem.name(of: path) == (path as NSString).lastPathComponent)
    }

    /// A bare name, whose folder traps in Foundation's `NSString` on Linux, has none.
    @Test func aBareNameHasNoFolder() {
        #expect(FileSystem.folder(of: "").isEmpty && FileSystem.name(of: "").isEmpty)
        #expect(FileSystem.folder(of: "a").isEmpty && FileSystem.name(of: "a") == "a")
        #expect(FileSystem.folder(of: "a/").isEmpty && FileSystem.name(of: "a/") == "a")
    }

    /// A path made absolute reads as `URL` standardizes it, without `URL`.
    @Test(arguments: [
        "/a/b", "/a/./b", "/a/../b", "/a//b", "/a/b/", "/../a", "/a/b/..", "/a/b/../..", "/a/b/../../..", "/", "//",
        "/a/.", "/a/..", "/./", "/a/b/.../c", "/a/..b/c", "/a b/é", "/a//", "/a//../b", "/a/.//b", "/.a/./b/",
    ])
    func standardizedPathsAreURLs(path: String) {
        #expect(Context.standardized(path) == URL(fileURLWithPath: path).standardized.path)
    }

    /// The catalog `make install` puts beside the binary: PREFIX of PREFIX/bin/iapsim, cut as
    /// splitting at "/" and dropping the last two parts cuts it.
    @Test(arguments: [
        "/usr/local/bin/iapsim", "/opt/x/bin/iapsim", "/bin/iapsim", "/iapsim", "iapsim", "a/b", "", "/a//b/c",
    ])
    func installedCatalogIsBesideTheBinary(path: String) {
        let context = Context.live(environment: [:], currentDirectory: "/", executablePath: path)
        let prefix = path.split(separator: "/", omittingEmptySubsequences: false).dropLast(2).joined(separator: "/")
        #expect(context.installedCatalogDirectory == prefix + "/share/iapsim/catalog")
    }
}
