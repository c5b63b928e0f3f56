import Foundation

/// How a program run by `iapsim clock exec` reads the simulated clock: libfaketime, preloaded
/// into it, reads a timestamp file (`FAKETIME_TIMESTAMP_FILE`) that iapsim rewrites in the
/// state folder on every clock change. What that file holds is a pure function of the clock.
///
/// libfaketime's forms (its README, "Using offsets for relative dates", "Using absolute
/// dates", "Changing the 'x' modifier during run-time"):
/// - an offset, `+86400.5`: the real clock plus that many seconds. It ticks at real speed,
///   and since the file is read again (every `FAKETIME_CACHE_DURATION` seconds) a new offset
///   moves a running program's clock at once. This is the running clock's form.
/// - an absolute time: the clock stands still there. With `FAKETIME_FMT=%s` it is seconds
///   since 1970 (not a local date, which would be read in the program's time zone). This is
///   the frozen clock's form.
/// - not `@DATE` ("start at"): that date counts from each process's own start, so two
///   programs would disagree and a change would not move a running one.
public enum Faketime {
    /// The timestamp file's name in the state folder.
    public static let fileName = "clock.faketime"

    /// What the timestamp file holds for `clock` (nil: never set, so real time).
    ///
    /// A running clock is an offset to the millisecond; under the deprecated `…IsOneDay` time
    /// rates iapsim's clock runs faster than real time, and the program's clock keeps real
    /// speed from the last clock change (libfaketime's `x` rate counts from each process's own
    /// start, so no one file could say it for every program). A frozen clock is whole seconds.
    public static func specification(for clock: SimulatedClock?) -> String {
        guard let clock else { return "+0" }
        if clock.frozen {
            let seconds = clock.base.timeIntervalSince1970.rounded(.down)
            return String(Int64(seconds))
        }
        let offset = clock.base.timeIntervalSince(clock.anchor)
        guard offset.isFinite else { return "+0" }
        let milliseconds = Int64((offset * 1000).rounded())
        let sign = milliseconds < 0 ? "-" : "+"
        let magnitude = milliseconds.magnitude
        let fraction = String(magnitude % 1000)
        return "\(sign)\(magnitude / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
    }

    /// Where libfaketime is looked for, in order: Debian's `libfaketime` package (the
    /// multiarch folders), then `/usr/local` and `/usr/lib`; on macOS Homebrew's dylib.
    public static func libraryCandidates(platform: Platform) -> [String] {
        switch platform {
        case .linux:
            ["x86_64-linux-gnu", "aarch64-linux-gnu", "arm-linux-gnueabihf", "i386-linux-gnu", "riscv64-linux-gnu"]
                .map { "/usr/lib/\($0)/faketime/libfaketime.so.1" }
                + ["/usr/lib/faketime/libfaketime.so.1", "/usr/local/lib/faketime/libfaketime.so.1"]
        case .macOS:
            ["/opt/homebrew/lib/faketime/libfaketime.1.dylib", "/usr/local/lib/faketime/libfaketime.1.dylib"]
        }
    }

    /// Why a file whose first bytes are `header` cannot be preloaded into a program on this
    /// machine, or nil when it can. A file the dynamic loader cannot preload is skipped with a
    /// warning, and the program then reads the real clock, the one thing `clock exec` promises
    /// it will not: so the library is checked first, without loading it into iapsim (whose
    /// own clock libfaketime would then move). On Linux: a shared object (ELF, `ET_DYN`) of
    /// this machine's class, byte order and architecture; on macOS a 64-bit Mach-O dylib.
    public static func whyNotLoadable(header: [UInt8], platform: Platform) -> String? {
        switch platform {
        case .linux:
            guard header.count >= 20, header.starts(with: [0x7F, 0x45, 0x4C, 0x46]) else {
                return "not a shared library (no ELF header)"
            }
            guard header[4] == (MemoryLayout<Int>.size == 8 ? 2 : 1), header[5] == 1 else {
                return "a library for another word size or byte order"
            }
            let type = UInt16(header[16]) | UInt16(header[17]) << 8
            guard type == 3 else { return "an ELF file that is not a shared library" }
            let machine = UInt16(header[18]) | UInt16(header[19]) << 8
            guard machine == Self.elfMachine else {
                return "a library for another architecture (ELF machine \(machine), this one \(Self.elfMachine))"
            }
            return nil
        case .macOS:
            let magic =
                header.count >= 4
                ? UInt32(header[0]) | UInt32(header[1]) << 8 | UInt32(header[2]) << 16 | UInt32(header[3]) << 24 : 0
            // MH_MAGIC_64, or a universal (fat) file, which holds several architectures.
            return magic == 0xFEED_FACF || magic == 0xBEBA_FECA ? nil : "not a Mach-O library"
        }
    }

    /// This machine's ELF `e_machine`.
    static var elfMachine: UInt16 {
        #if arch(x86_64)
            62
        #elseif arch(arm64)
            183
        #elseif arch(i386)
            3
        #elseif arch(arm)
            40
        #else
            243  // RISC-V
        #endif
    }

    /// What to install when none is found, for the one-line error.
    public static func installHint(platform: Platform) -> String {
        switch platform {
        case .linux:
            "install libfaketime (Debian, Ubuntu: apt-get install faketime) or set \(EnvironmentVariable.libfaketime.name)"
        case .macOS: "install libfaketime (brew install libfaketime) or set \(EnvironmentVariable.libfaketime.name)"
        }
    }

    /// The environment of a program run on the simulated clock: `environment` with libfaketime
    /// preloaded and pointed at `timestampFile`.
    ///
    /// - `FAKETIME` is removed: it takes priority over the file.
    /// - `FAKETIME_FMT=%s`, for the frozen form.
    /// - `FAKETIME_CACHE_DURATION=1` unless the caller set it or `FAKETIME_NO_CACHE`: a clock
    ///   change reaches the program within two seconds (libfaketime's cache of a second, then
    ///   the next read), without a file read per clock call (8 µs each, measured).
    /// - The monotonic clock is libfaketime's to fake as it does by default: with
    ///   `FAKETIME_DONT_FAKE_MONOTONIC=1` (libfaketime's advice for the JVM) libfaketime
    ///   0.9.10 makes Python's `time.sleep` fail with EINVAL, so it is the caller's to set.
    /// - Not `FAKETIME_SKIP_CMDS=iapsim`: with it, libfaketime 0.9.10 leaves a Swift program
    ///   without its arguments. An iapsim the program runs leaves libfaketime instead
    ///   (`environmentLeaving`).
    public static func environment(
        _ environment: [String: String], library: String, timestampFile: String, platform: Platform
    ) -> [String: String] {
        var result = environment
        result["FAKETIME"] = nil
        result["FAKETIME_TIMESTAMP_FILE"] = timestampFile
        result["FAKETIME_FMT"] = "%s"
        if result["FAKETIME_NO_CACHE"] == nil, result["FAKETIME_CACHE_DURATION"] == nil {
            result["FAKETIME_CACHE_DURATION"] = "1"
        }
        switch platform {
        case .linux:
            let preload = result["LD_PRELOAD"].flatMap { $0.isEmpty ? nil : $0 }
            result["LD_PRELOAD"] = preload.map { library + ":" + $0 } ?? library
        case .macOS:
            let preload = result["DYLD_INSERT_LIBRARIES"].flatMap { $0.isEmpty ? nil : $0 }
            result["DYLD_INSERT_LIBRARIES"] = preload.map { library + ":" + $0 } ?? library
            result["DYLD_FORCE_FLAT_NAMESPACE"] = "1"
        }
        return result
    }

    /// The environment an iapsim started under `clock exec` runs itself again with, without
    /// libfaketime: it must read the real clock and work out the simulated one itself (a
    /// faked clock would count the simulated time twice). Nil when `environment` is not one
    /// `clock exec` made (libfaketime preloaded, pointed at a state's timestamp file).
    public static func environmentLeaving(_ environment: [String: String]) -> [String: String]? {
        guard let file = environment["FAKETIME_TIMESTAMP_FILE"], file.hasSuffix("/" + fileName) else { return nil }
        var result = environment
        var changed = false
        for variable in ["LD_PRELOAD", "DYLD_INSERT_LIBRARIES"] {
            guard let value = environment[variable] else { continue }
            let kept = value.split(whereSeparator: { $0 == ":" || $0 == " " }).filter { !$0.contains("libfaketime") }
            if kept.count != value.split(whereSeparator: { $0 == ":" || $0 == " " }).count {
                result[variable] = kept.isEmpty ? nil : kept.joined(separator: ":")
                changed = true
            }
        }
        return changed ? result : nil
    }
}
