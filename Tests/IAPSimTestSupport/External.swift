// A build of every target without tests (`swift build -c release --static-swift-stdlib`, which
// `make release` runs) has no Testing module to link statically; External is only for tests.
#if canImport(Testing)
    import Foundation
    import Testing

    /// What a test needs from outside the repository — the corpus of real catalog files beside it,
    /// a tool such as openssl, a device such as /dev/full — under one rule: where `CI` is set (CI
    /// services set it, and so does `.ci/run`) a missing one fails the test, so CI never passes a
    /// test that did not run; elsewhere the test stops there and is reported cancelled, with the
    /// reason, so a clone on its own passes.
    ///
    /// Every test target that needs something from outside uses it, from `IAPSimTestSupport`.
    public enum External {
        /// Whether this is a CI run: `CI` set to anything but the empty string.
        public static var isCI: Bool { !(ProcessInfo.processInfo.environment["CI"] ?? "").isEmpty }

        /// `value`; when it is nil, a failure in CI and a skip elsewhere, both saying `absence`.
        public static func require<T>(
            _ value: T?, _ absence: String, sourceLocation: SourceLocation = #_sourceLocation
        ) throws -> T {
            if let value { return value }
            let reason = "\(absence) (required where CI is set)"
            if isCI { return try #require(value, "\(reason)", sourceLocation: sourceLocation) }
            try Test.cancel("skipped: \(reason)", sourceLocation: sourceLocation)
        }

        /// The corpus of real `.storekit` and plist files: `IAPSIM_CORPUS`, or `shared/corpus`
        /// beside the repository.
        public static func corpus(sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
            let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent()
            let path =
                ProcessInfo.processInfo.environment["IAPSIM_CORPUS"]
                ?? repository.deletingLastPathComponent().appendingPathComponent("shared/corpus").path
            var isDirectory: ObjCBool = false
            let present = FileManager().fileExists(atPath: path + "/storekit", isDirectory: &isDirectory)
            return try require(
                present && isDirectory.boolValue ? path : nil,
                "no corpus at \(path) (shared/corpus beside the repository, or IAPSIM_CORPUS)",
                sourceLocation: sourceLocation)
        }

        /// `path` when it is an executable, such as /usr/bin/openssl.
        public static func executable(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws
            -> String
        {
            try require(
                FileManager().isExecutableFile(atPath: path) ? path : nil, "\(path) is not installed",
                sourceLocation: sourceLocation)
        }

        /// `path` when it exists, such as /dev/full (Linux).
        public static func file(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
            try require(
                FileManager().fileExists(atPath: path) ? path : nil, "\(path) does not exist here",
                sourceLocation: sourceLocation)
        }
    }
#endif
