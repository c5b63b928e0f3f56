import Foundation
import Testing

@testable import IAPSimKit

@Suite struct ProductIdentifierListTests {
    @Test func readsXMLAndBinaryPlists() throws {
        #expect(try ProductIdentifierList.load(path: Support.fixture("ids.plist")).first == "fx.coins")
        #expect(try ProductIdentifierList.load(path: Support.fixture("ids-binary.plist")) == ["fx.levels", "fx.coins"])
    }

    @Test func aRootOfAnotherShapeIsNamedWithTheShapesExpected() throws {
        let path = Support.fixture("ids-string-root.plist")
        let error = try #require(throws: CatalogError.self) { try ProductIdentifierList.load(path: path) }
        #expect(error == .notAnArray(path: path, found: "a string"))
        let message = try #require(error.errorDescription)
        #expect(message.hasPrefix(path + ": expected an array of product identifier strings, a dictionary keyed"))
        #expect(message.contains("productIdentifier, productID, identifier or id") && !message.contains("\n"))
    }

    /// Apple's StoreKit sample code: `Products.plist` maps each identifier to an emoji.
    @Test func aDictionaryOfIdentifiersReadsItsKeysInFileOrder() throws {
        #expect(
            try ProductIdentifierList.load(path: Support.fixture("products-dict.plist")) == [
                "consumable.fuel.octane89", "consumable.fuel.octane87", "nonconsumable.utilityvehicle",
                "subscription.standard", "com.example & <friends>",
            ])
        #expect(try ProductIdentifierList.load(path: Support.fixture("ids-dict-root.plist")) == ["a"])
        // A binary plist keeps no order: sorted.
        #expect(
            try ProductIdentifierList.load(path: Support.fixture("products-dict-binary.plist")) == [
                "com.example & <friends>", "consumable.fuel.octane87", "consumable.fuel.octane89",
                "nonconsumable.utilityvehicle", "subscription.standard",
            ])
    }

    @Test func anArrayOfDictionariesReadsTheirIdentifiers() throws {
        #expect(
            try ProductIdentifierList.load(path: Support.fixture("products-array-of-dicts.plist")) == [
                "fx.coins", "fx.levels", "fx.pass", "fx.plus.monthly",
            ])
        let path = Support.fixture("products-array-no-id.plist")
        let error = try #require(throws: CatalogError.self) { try ProductIdentifierList.load(path: path) }
        #expect(error.errorDescription?.hasPrefix("\(path): element 1 has no productIdentifier, productID") == true)
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
        let error = try #require(throws: CatalogError.self) { try ProductIdentifierList.load(path: malformed) }
        guard case .malformed(malformed, let detail) = error else {
            Issue.record("expected malformed, got \(error)")
            return
        }
        #expect(detail.hasPrefix("not a property list (XML or binary)"))
    }

    /// A file is taken for a property list by its head: binary, or an XML `plist` element or
    /// doctype in its first 512 bytes.
    @Test func aPropertyListIsToldByItsHead() {
        let xml = "<?xml version=\"1.0\"?>\n<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\">\n<plist>"
        #expect(PropertyList.looksLikePropertyList(Data(xml.utf8)))
        #expect(PropertyList.looksLikePropertyList(Data("<plist version=\"1.0\"><array/></plist>".utf8)))
        #expect(PropertyList.looksLikePropertyList(Data("bplist00".utf8)))
        #expect(!PropertyList.looksLikePropertyList(Data("{\"products\": []}".utf8)))
        #expect(!PropertyList.looksLikePropertyList(Data((String(repeating: " ", count: 512) + "<plist>").utf8)))
        #expect(!PropertyList.looksLikePropertyList(Data("<pli".utf8)))
    }
}

/// A `.storekit` file saved as an XML or binary property list reads as its JSON form does.
@Suite struct PropertyListStoreKitTests {
    @Test(arguments: ["valid-xml.storekit", "valid-binary.storekit"])
    func readsLikeTheJSONFile(_ name: String) throws {
        let json = try StoreKitConfiguration.load(path: Support.fixture("valid.storekit"))
        let plist = try StoreKitConfiguration.load(path: Support.fixture(name))
        #expect(plist.products == json.products)
        #expect(plist.storefront == json.storefront)
        #expect(plist.localeIdentifier == json.localeIdentifier)
        #expect(plist.settings == json.settings)
        let findings = CatalogCheck.run(CatalogSource(storeKitPath: Support.fixture(name), productIDsPath: nil))
        let jsonFindings = CatalogCheck.run(
            CatalogSource(storeKitPath: Support.fixture("valid.storekit"), productIDsPath: nil))
        #expect(findings.map(\.problem) == jsonFindings.map(\.problem))
    }

    @Test func aBrokenPlistStoreKitFileNamesItself() throws {
        let path = Support.temporaryDirectory() + "/broken.storekit"
        try Data("<?xml version=\"1.0\"?><plist><dict><key>products</key><array><dict>".utf8)
            .write(to: URL(fileURLWithPath: path))
        let error = try #require(throws: CatalogError.self) { try StoreKitConfiguration.load(path: path) }
        guard case .malformed(let named, let detail) = error else {
            Issue.record("expected malformed, got \(error)")
            return
        }
        #expect(named == path)
        #expect(detail.contains("XML property list"))
        let deep = Support.temporaryDirectory() + "/deep.storekit"
        try Data(("<plist>" + String(repeating: "<array>", count: 100_000)).utf8).write(to: URL(fileURLWithPath: deep))
        #expect(throws: CatalogError.self) { try StoreKitConfiguration.load(path: deep) }
    }
}
