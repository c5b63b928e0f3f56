import Foundation

/// Finds the shared test vectors: walks up from this source file to the first folder that
/// has `shared/vectors` (the workspace root), so the tests work from any checkout location
/// beside `shared/`. A missing folder is an error, never a skip: CI must not pass silently.
enum VectorFiles {
    struct MissingVectors: Error, CustomStringConvertible {
        let searchedFrom: String
        let file: String
        var description: String {
            "Test vectors not found: no shared/vectors/\(file) in any parent of \(searchedFrom). "
                + "The vectors live in the workspace's shared/vectors folder beside the repository."
        }
    }

    static func url(_ relativePath: String, filePath: String = #filePath) throws -> URL {
        var directory = URL(fileURLWithPath: filePath).deletingLastPathComponent()
        while directory.path != "/" {
            let candidate = directory.appendingPathComponent("shared/vectors").appendingPathComponent(relativePath)
            if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        throw MissingVectors(searchedFrom: filePath, file: relativePath)
    }

    static func decode<T: Decodable>(_ type: T.Type, from relativePath: String) throws -> T {
        let data = try Data(contentsOf: url(relativePath))
        return try JSONDecoder().decode(type, from: data)
    }
}
