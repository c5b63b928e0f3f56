import Foundation
import Testing

@testable import IAPSimKit

/// `check` passed catalogs every other command refuses: it read leniently and never ran the
/// loader. It runs the loader too, and says what it refuses.
@Suite struct CatalogCheckLoaderTests {
    /// The bundled `.storekit` with `edit` applied, alone in a folder (no plist).
    private func storeKit(_ edit: (String) -> String) throws -> String {
        let text = try String(contentsOfFile: Support.repositoryRoot + "/catalog/Products.storekit", encoding: .utf8)
        let edited = edit(text)
        #expect(edited != text, "the edit changed nothing")
        let path = Support.temporaryDirectory() + "/Products.storekit"
        try edited.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test(arguments: [
        ("\"numberOfPeriods\" : 3", "\"numberOfPeriods\" : 5000"),
        ("\"paymentMode\" : \"payAsYouGo\"", "\"paymentMode\" : \"sometimes\""),
    ])
    func whatTheLoaderRefusesCheckReports(original: String, replacement: String) throws {
        let path = try storeKit { $0.replacingOccurrences(of: original, with: replacement) }
        let source = CatalogSource(storeKitPath: path, productIDsPath: nil)
        #expect(throws: CatalogError.self) { try Catalog.load(source) }
        let findings = CatalogCheck.run(source)
        #expect(findings.map(\.code) == [.refusedByLoader], "\(findings)")
    }

    @Test func aCatalogTheLoaderTakesGetsNoLoaderFinding() throws {
        let path = try storeKit { $0 + " " }
        #expect(CatalogCheck.run(CatalogSource(storeKitPath: path, productIDsPath: nil)).isEmpty)
    }
}
