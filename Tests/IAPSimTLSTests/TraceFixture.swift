import Foundation
import IAPSimTestSupport

/// RFC 8448 §3's values (`Fixtures/rfc8448-simple-1rtt.json`, its README says where they come
/// from), read from the test bundle. A missing file fails the test, never skips it.
struct TraceFixture {
    struct Missing: Error, CustomStringConvertible {
        let name: String
        var description: String { "no value \(name) in Fixtures/rfc8448-simple-1rtt.json (Tests/IAPSimTLSTests)" }
    }

    let values: [String: String]

    init() throws {
        guard let resources = Bundle.module.resourceURL else { throw Missing(name: "(the whole file)") }
        let url = resources.appendingPathComponent("Fixtures/rfc8448-simple-1rtt.json")
        values = try JSONDecoder().decode([String: String].self, from: Data(contentsOf: url))
    }

    /// The hex value named `name`, as bytes.
    func bytes(_ name: String) throws -> [UInt8] {
        guard let text = values[name] else { throw Missing(name: name) }
        return try [UInt8](hex: text)
    }
}
