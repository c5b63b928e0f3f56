import Foundation
import Testing

@testable import IAPSimJSON

/// JSONTestSuite's parsing cases (`Fixtures/JSONTestSuite`: its README.md says where they come
/// from): every `y_` document is accepted, every `n_` one refused with a `SyntaxError`, and
/// the `i_` ones — where RFC 8259 lets a parser choose — go the way iapsim chose, listed below.
@Suite struct JSONTestSuiteTests {
    static let folder: String? = Bundle.module.resourcePath.map { $0 + "/Fixtures/JSONTestSuite/test_parsing" }

    static func files(_ prefix: String) -> [String] {
        guard let folder, let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [] }
        return names.filter { $0.hasPrefix(prefix) && $0.hasSuffix(".json") }.sorted()
    }

    static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: try #require(folder) + "/" + name)))
    }

    @Test func theSuiteIsThere() {
        // A copy that lost files would pass the cases below with fewer of them.
        #expect(Self.files("y_").count == 95)
        #expect(Self.files("n_").count == 188)
        #expect(Self.files("i_").count == 35)
    }

    @Test(arguments: files("y_"))
    func accepts(_ name: String) throws {
        let bytes = try Self.bytes(name)
        #expect(throws: Never.self, "\(name)") { try JSONValue.parse(bytes) }
    }

    @Test(arguments: files("n_"))
    func refuses(_ name: String) throws {
        let bytes = try Self.bytes(name)
        #expect(throws: JSONValue.SyntaxError.self, "\(name)") { try JSONValue.parse(bytes) }
    }

    /// Where the RFC lets a parser choose: a number beyond any machine type is kept as its
    /// text (a price or an identifier is read by whoever needs it, exactly), and nesting up
    /// to `maximumDepth` is taken; text that is not UTF-8 (a lone surrogate escape, invalid
    /// bytes, UTF-16) is refused, so nothing iapsim writes from it could fail to read back;
    /// and a byte order mark is refused here (iapsim never writes one) and skipped by the
    /// catalog reader (`StoreKitConfiguration.document`), for a `.storekit` an editor saved.
    @Test(arguments: files("i_"))
    func decides(_ name: String) throws {
        let bytes = try Self.bytes(name)
        let accepted = (try? JSONValue.parse(bytes)) != nil
        let expected = name.hasPrefix("i_number_") || name == "i_structure_500_nested_arrays.json"
        #expect(accepted == expected, "\(name)")
    }

    @Test func aNumberIsWhatRFC8259WritesAndNothingElse() throws {
        for text in ["0", "-0", "12", "-1.5", "1e5", "1E+5", "0.5e-07", "123456789012345678901234567890"] {
            #expect(try JSONValue.parse(Array(text.utf8)) == .number(text), "\(text)")
        }
        for text in ["01", "-", "1.", ".5", "1e", "1e+", "1+2", "0x10", "1.2.3", "--1", "+1"] {
            #expect(throws: JSONValue.SyntaxError.self, "\(text)") { try JSONValue.parse(Array(text.utf8)) }
        }
    }
}
