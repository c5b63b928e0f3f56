import Foundation
import Testing

@testable import IAPSimKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An unsynced file replaced through a temp file (on Linux by exchanging the two names, then
/// removing the old file): the new bytes at the name, mode 0600, nothing left beside it, and a
/// reader that had the old file open still reads it whole.
@Suite struct FileReplacementTests {
    @Test func replacesAFileLeavingNothingBeside() throws {
        let folder = Support.temporaryDirectory()
        let path = folder + "/store.json"
        try POSIXFile.replaceUnsynced(path, with: Array("first\n".utf8))
        let reader = open(path, O_RDONLY)
        #expect(reader >= 0)
        defer { close(reader) }

        try POSIXFile.replaceUnsynced(path, with: Array("second, longer\n".utf8))

        #expect(try String(contentsOfFile: path, encoding: .utf8) == "second, longer\n")
        #expect(try FileManager().contentsOfDirectory(atPath: folder) == ["store.json"])
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o600)
        var old = [UInt8](repeating: 0, count: 64)
        let count = read(reader, &old, old.count)
        #expect(count == 6 && String(decoding: old.prefix(6), as: UTF8.self) == "first\n")
    }

    @Test func createsAFileThatIsNotThere() throws {
        let folder = Support.temporaryDirectory()
        let path = folder + "/prices.cache"
        try POSIXFile.replaceUnsynced(path, with: Array("made\n".utf8))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "made\n")
        #expect(try FileManager().contentsOfDirectory(atPath: folder) == ["prices.cache"])
    }
}
