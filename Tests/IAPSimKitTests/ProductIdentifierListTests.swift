import Testing

@testable import IAPSimKit

@Suite struct ProductIdentifierListTests {
    @Test func readsXMLAndBinaryPlists() throws {
        #expect(try ProductIdentifierList.load(path: Support.fixture("ids.plist")).first == "fx.coins")
        #expect(try ProductIdentifierList.load(path: Support.fixture("ids-binary.plist")) == ["fx.levels", "fx.coins"])
    }

    @Test func aRootThatIsNotAnArrayIsNamed() throws {
        let path = Support.fixture("ids-dict-root.plist")
        #expect(throws: CatalogError.notAnArray(path: path, found: "a dictionary")) {
            try ProductIdentifierList.load(path: path)
        }
    }

    @Test func aNonStringElementNamesItsIndex() throws {
        let path = Support.fixture("ids-non-string.plist")
        let error = try #require(throws: CatalogError.self) { try ProductIdentifierList.load(path: path) }
        #expect(error == .nonStringElement(path: path, index: 1, found: "a number"))
        #expect(error.errorDescription == "\(path): element 1 is a number, expected a product identifier string")
    }

    @Test func emptyAndMalformedFilesAreTold() throws {
        let empty = Support.fixture("ids-empty.plist")
        #expect(throws: CatalogError.emptyFile(path: empty)) { try ProductIdentifierList.load(path: empty) }
        let malformed = Support.fixture("ids-malformed.plist")
        #expect(throws: CatalogError.malformed(path: malformed, detail: "not a property list (XML or binary)")) {
            try ProductIdentifierList.load(path: malformed)
        }
    }
}
