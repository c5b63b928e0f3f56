import Foundation

/// A private folder per fuzzing process for the files the loaders read.
enum FuzzFiles {
    static let directory: String = {
        let path = NSTemporaryDirectory() + "iapsim-fuzz-\(getpid())"
        try? FileManager().createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    static func write(_ data: Data, name: String) -> String {
        let path = directory + "/" + name
        try? data.write(to: URL(fileURLWithPath: path))
        return path
    }
}
