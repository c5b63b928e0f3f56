import Foundation

/// Everything the library needs to know about the world it runs in.
///
/// The executable builds the live value once (`iapsim`'s `Context+Live.swift`); tests build
/// their own with a temporary directory, a fixed clock and a pinned locale. The library never
/// reads the process environment, the real clock or the current directory by itself.
public struct Context: Sendable {
    /// The environment variables, as the process received them.
    public var environment: [String: String]
    /// The directory relative paths are resolved against.
    public var currentDirectory: String
    /// The clock. Purchases, expiries and renewals are dated with it.
    public var now: @Sendable () -> Date
    /// Which conventions to follow for the config directory.
    public var platform: Platform
    /// Where `make install` put the bundled catalog, if anywhere (the last place looked for one).
    public var installedCatalogDirectory: String?

    public init(
        environment: [String: String] = [:],
        currentDirectory: String,
        now: @escaping @Sendable () -> Date,
        platform: Platform = .current,
        installedCatalogDirectory: String? = nil
    ) {
        self.environment = environment
        self.currentDirectory = currentDirectory
        self.now = now
        self.platform = platform
        self.installedCatalogDirectory = installedCatalogDirectory
    }

    /// The value of an environment variable, treating an empty value as unset (as shells and
    /// the XDG convention do).
    public func variable(_ name: String) -> String? {
        guard let value = environment[name], !value.isEmpty else { return nil }
        return value
    }

    /// `path` made absolute against `currentDirectory`, with `.` and `..` resolved.
    public func absolutePath(_ path: String) -> String {
        var absolute = path
        if path == "~" || path.hasPrefix("~/"), let home = value(of: .home) {
            absolute = home + path.dropFirst()
        } else if !path.hasPrefix("/") {
            absolute = (currentDirectory.hasSuffix("/") ? currentDirectory : currentDirectory + "/") + path
        }
        return Self.standardized(absolute)
    }

    /// `URL(fileURLWithPath: path).standardized.path`, spelled by hand for an absolute path:
    /// `.` and `..` removed as RFC 3986 removes dot segments, the trailing slash dropped. `URL`
    /// costs a command 130,000 instructions a call on Linux, three calls before any work.
    static func standardized(_ path: String) -> String {
        guard path.hasPrefix("/") else { return URL(fileURLWithPath: path).standardized.path }
        // Bytes, not substrings: an array of substrings costs its type's metadata at start-up.
        let slash = UInt8(ascii: "/")
        let dot = UInt8(ascii: ".")
        let bytes = Array(path.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var starts: [Int] = []  // where each segment of `output` begins (its slash)
        var trailingSlash = false
        var start = 1
        while true {
            var end = start
            while end < bytes.count, bytes[end] != slash { end += 1 }
            let last = end >= bytes.count
            let count = end - start
            if count == 1, bytes[start] == dot {
                trailingSlash = last
            } else if count == 2, bytes[start] == dot, bytes[start + 1] == dot {
                if let segment = starts.popLast() { output.removeSubrange(segment...) }
                trailingSlash = last
            } else {
                starts.append(output.count)
                output.append(slash)
                output += bytes[start..<end]
                trailingSlash = false
            }
            if last { break }
            start = end + 1
        }
        if output.isEmpty || (trailingSlash && output.last != slash) { output.append(slash) }
        while output.count > 1, output.last == slash { output.removeLast() }
        return String(decoding: output, as: UTF8.self)
    }
}

/// The operating system whose conventions apply.
public enum Platform: String, Sendable {
    case linux, macOS

    public static var current: Platform {
        #if os(macOS)
            return .macOS
        #else
            return .linux
        #endif
    }
}
