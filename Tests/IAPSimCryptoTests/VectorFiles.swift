import Foundation

/// The published test vectors in `Fixtures/` (its README.md says where each comes from), read
/// from the test bundle. A missing file is an error, never a skip: a run must not pass
/// silently without them.
enum VectorFiles {
    struct MissingVectors: Error, CustomStringConvertible {
        let file: String
        let bundle: String
        var description: String {
            "Test vectors not found: no Fixtures/\(file) in \(bundle). "
                + "They are part of the repository, in Tests/IAPSimCryptoTests/Fixtures."
        }
    }

    /// The location of `relativePath` (such as `wycheproof/hmac_sha256_test.json`) in `bundle`.
    static func url(_ relativePath: String, in bundle: Bundle = .module) throws -> URL {
        guard let resources = bundle.resourceURL else {
            throw MissingVectors(file: relativePath, bundle: bundle.bundlePath)
        }
        let url = resources.appendingPathComponent("Fixtures").appendingPathComponent(relativePath)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw MissingVectors(file: relativePath, bundle: bundle.bundlePath)
        }
        return url
    }

    static func decode<T: Decodable>(_ type: T.Type, from relativePath: String) throws -> T {
        let data = try Data(contentsOf: url(relativePath))
        return try JSONDecoder().decode(type, from: data)
    }
}
