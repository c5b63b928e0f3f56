import Foundation

/// Runs /usr/bin/openssl for cross-checks. A missing binary is an error, not a skip.
enum OpenSSL {
    static let path = "/usr/bin/openssl"

    struct Result {
        let status: Int32
        let standardOutput: Data
        let standardError: String
        var outputText: String { String(decoding: standardOutput, as: UTF8.self) }
    }

    struct NotInstalled: Error, CustomStringConvertible {
        var description: String { "openssl is required for the cross-checks but \(OpenSSL.path) is not executable" }
    }

    @discardableResult
    static func run(_ arguments: [String], in directory: URL) throws -> Result {
        guard FileManager.default.isExecutableFile(atPath: path) else { throw NotInstalled() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, standardOutput: outputData,
            standardError: String(decoding: errorData, as: UTF8.self))
    }
}

/// A temporary folder removed when the closure returns.
func withTemporaryDirectory<T>(_ body: (URL) throws -> T) throws -> T {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("cryptocore-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try body(directory)
}

extension URL {
    func write(_ text: String, to name: String) throws {
        try Data(text.utf8).write(to: appendingPathComponent(name))
    }

    func write(_ bytes: [UInt8], to name: String) throws {
        try Data(bytes).write(to: appendingPathComponent(name))
    }

    func read(_ name: String) throws -> String {
        try String(contentsOf: appendingPathComponent(name), encoding: .utf8)
    }
}
