import Foundation
import Testing

@testable import IAPSimKit

/// `Faketime`: what libfaketime's timestamp file holds for each clock, the environment of a
/// program under `clock exec`, and the file every clock change rewrites.
@Suite struct FaketimeTests {
    private let real = Date(timeIntervalSince1970: 1_800_000_000.25)

    @Test func aRunningClockIsAnOffsetToTheMillisecond() {
        let ahead = SimulatedClock(base: real + 86_400.5, anchor: real, frozen: false)
        #expect(Faketime.specification(for: ahead) == "+86400.500")
        let behind = SimulatedClock(base: real - 0.007, anchor: real, frozen: false)
        #expect(Faketime.specification(for: behind) == "-0.007")
        #expect(Faketime.specification(for: SimulatedClock(base: real, anchor: real, frozen: false)) == "+0.000")
        #expect(Faketime.specification(for: nil) == "+0")
    }

    @Test func aFrozenClockIsAnAbsoluteTimeInWholeSeconds() {
        let frozen = SimulatedClock(
            base: Date(timeIntervalSince1970: 1_893_456_000.9), anchor: real, frozen: true)
        #expect(Faketime.specification(for: frozen) == "1893456000")
    }

    @Test func theProgramsEnvironmentPreloadsLibfaketimeAndDropsFAKETIME() {
        let given = ["FAKETIME": "+1d", "LD_PRELOAD": "/lib/other.so", "PATH": "/bin"]
        let made = Faketime.environment(
            given, library: "/lib/libfaketime.so.1", timestampFile: "/s/clock.faketime", platform: .linux)
        #expect(made["FAKETIME"] == nil)
        #expect(made["LD_PRELOAD"] == "/lib/libfaketime.so.1:/lib/other.so")
        #expect(made["FAKETIME_TIMESTAMP_FILE"] == "/s/clock.faketime")
        #expect(made["FAKETIME_FMT"] == "%s")
        #expect(made["FAKETIME_CACHE_DURATION"] == "1")
        #expect(made["PATH"] == "/bin")
        let uncached = Faketime.environment(
            ["FAKETIME_NO_CACHE": "1"], library: "/l.dylib", timestampFile: "/s/clock.faketime", platform: .macOS)
        #expect(uncached["FAKETIME_CACHE_DURATION"] == nil)
        #expect(uncached["DYLD_INSERT_LIBRARIES"] == "/l.dylib" && uncached["DYLD_FORCE_FLAT_NAMESPACE"] == "1")
    }

    @Test func anIapsimUnderClockExecLeavesLibfaketime() {
        let made = Faketime.environment(
            ["LD_PRELOAD": "/lib/other.so"], library: "/usr/lib/x/faketime/libfaketime.so.1",
            timestampFile: "/s/clock.faketime", platform: .linux)
        #expect(Faketime.environmentLeaving(made)?["LD_PRELOAD"] == "/lib/other.so")
        // A libfaketime the user preloaded for a file of their own is theirs.
        #expect(Faketime.environmentLeaving(["LD_PRELOAD": "/x/libfaketime.so.1"]) == nil)
        var alone = made
        alone["LD_PRELOAD"] = "/usr/lib/x/faketime/libfaketime.so.1"
        #expect(Faketime.environmentLeaving(alone).map { $0["LD_PRELOAD"] == nil } == true)
        alone["LD_PRELOAD"] = nil
        #expect(Faketime.environmentLeaving(alone) == nil)
    }

    @Test func everyClockChangeRewritesTheFile() throws {
        let store = Support.store()
        let clock = { @Sendable in Date(timeIntervalSince1970: 1_800_000_000) }
        let session = StoreSession(store: store, now: clock)
        let path = store.location.clockFilePath
        func file() throws -> String { try String(contentsOfFile: path, encoding: .utf8) }
        _ = try session.setClock(to: Date(timeIntervalSince1970: 1_800_086_400))
        #expect(try file() == "+86400.000\n")
        _ = try session.advanceClock(by: DateComponents(day: 1))
        #expect(try file() == "+172800.000\n")
        _ = try session.freezeClock(true)
        #expect(try file() == "1800172800\n")
        _ = try session.freezeClock(false)
        _ = try session.resetClock()
        #expect(try file() == "+0.000\n")
        try FileManager().removeItem(atPath: path)
        #expect(try session.clockFile() == path)
        #expect(try file() == "+0.000\n")
        _ = try store.erase()
        #expect(try file() == "+0\n")
    }
}

/// A library the loader would skip (and so leave the program on the real clock) is told apart
/// from one it preloads, by its header alone.
@Suite struct FaketimeLibraryTests {
    /// An ELF header: 64-bit little-endian, of `type` and `machine`.
    private func elf(type: UInt16 = 3, machine: UInt16 = Faketime.elfMachine) -> [UInt8] {
        var header = [UInt8](repeating: 0, count: 64)
        header[0...3] = [0x7F, 0x45, 0x4C, 0x46]
        header[4] = 2
        header[5] = 1
        header[16] = UInt8(type & 0xFF)
        header[18] = UInt8(machine & 0xFF)
        header[19] = UInt8(machine >> 8)
        return header
    }

    @Test func aSharedObjectOfThisMachineLoads() {
        #expect(Faketime.whyNotLoadable(header: elf(), platform: .linux) == nil)
    }

    @Test func anythingElseIsSaidWhy() {
        #expect(Faketime.whyNotLoadable(header: Array("not a library\n".utf8), platform: .linux) != nil)
        #expect(Faketime.whyNotLoadable(header: [], platform: .linux) != nil)
        #expect(
            Faketime.whyNotLoadable(header: elf(type: 2), platform: .linux)?.contains("not a shared library") == true)
        let other: UInt16 = Faketime.elfMachine == 62 ? 183 : 62
        #expect(
            Faketime.whyNotLoadable(header: elf(machine: other), platform: .linux)?.contains("architecture") == true)
        #expect(Faketime.whyNotLoadable(header: elf(), platform: .macOS) != nil)
    }
}
