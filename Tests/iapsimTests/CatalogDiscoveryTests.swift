import Foundation
import IAPSimKit
import Testing

@testable import iapsim

/// The developer's own catalog, found as `SKTestSession` finds it: a folder with a `.storekit`
/// alone (as most apps ship one), the current folder's only `.storekit`, and a clear word
/// when it is the bundled demo or a product is not in the file searched.
@Suite struct CatalogDiscoveryTests {
    static let bundled = Harness.repositoryRoot + "/catalog/Products.storekit"

    /// A harness whose current folder is the state folder, with no catalog named.
    static func unnamed() -> Harness {
        let harness = Harness()
        harness.environment.removeValue(forKey: "IAPSIM_CATALOG")
        try? FileManager().createDirectory(atPath: harness.stateDirectory, withIntermediateDirectories: true)
        return harness
    }

    static func context(_ environment: [String: String]) -> Context {
        Context(environment: environment, currentDirectory: "/", now: { Date(timeIntervalSince1970: 0) })
    }

    static func copyStoreKit(to path: String) throws {
        try FileManager().createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try FileManager().copyItem(atPath: bundled, toPath: path)
    }

    @Test func aFolderWithAStoreKitFileAloneIsACatalogOfEveryProduct() throws {
        let harness = Harness()
        let folder = Harness.temporaryPath("shop-")
        try Self.copyStoreKit(to: folder + "/Shop.storekit")
        harness.environment["IAPSIM_CATALOG"] = folder
        let list = harness.run("list")
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.stdout.contains("com.example.app.book") && list.stdout.contains("com.example.app.pro.monthly"))
        let buy = harness.run("buy", "com.example.app.pro.monthly", "--yes")
        #expect(buy.status == 0, "\(buy.stderr)")
        #expect(
            try CatalogSource.resolve(
                catalogDirectory: folder, storeKitFile: nil, productIDsFile: nil, context: Self.context([:]))
                == CatalogSource(storeKitPath: folder + "/Shop.storekit", productIDsPath: nil))
    }

    @Test func severalStoreKitFilesAreRefusedByName() throws {
        let harness = Harness()
        let folder = Harness.temporaryPath("two-")
        try Self.copyStoreKit(to: folder + "/A.storekit")
        try Self.copyStoreKit(to: folder + "/B.storekit")
        harness.environment["IAPSIM_CATALOG"] = folder
        let result = harness.run("list")
        #expect(result.status == 66)
        #expect(
            result.stderr
                == "Error: \(folder): several StoreKit configuration files (A.storekit, B.storekit); "
                + "choose one with --storekit FILE\n")
    }

    /// `iapsim list` in the folder of the app's `.storekit` lists that file's products, not
    /// the demo catalog's, and says nothing about a demo.
    @Test func theCurrentFoldersStoreKitFileIsTheCatalog() throws {
        let harness = Self.unnamed()
        try Self.copyStoreKit(to: harness.stateDirectory + "/Game.storekit")
        let result = harness.run("list")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("com.example.app.book"))
        #expect(!result.stderr.contains("demo catalog"))
    }

    @Test func theDemoCatalogIsNamedOnStandardError() throws {
        let harness = Self.unnamed()
        let context = Context(
            environment: harness.environment, currentDirectory: harness.stateDirectory,
            now: { Date(timeIntervalSince1970: 1_768_478_400) },
            installedCatalogDirectory: Harness.repositoryRoot + "/catalog")
        let source = try CatalogSource.resolve(
            catalogDirectory: nil, storeKitFile: nil, productIDsFile: nil, context: context)
        #expect(source.origin == .installedDemo)
        #expect(
            CommandContext.demoCatalogNote(source.storeKitPath)
                == "Note: using the demo catalog installed with iapsim (\(Self.bundled)); run iapsim in the "
                + "folder of your .storekit file, or pass --catalog DIR or --storekit FILE")
        let none = harness.run("list")
        #expect(none.status == 66)
        #expect(none.stderr.contains("*.storekit"), "the message says the current folder was searched")
    }

    /// An option beats the environment: `--storekit FILE` reads that file alone, whatever
    /// folder `IAPSIM_CATALOG` names.
    @Test func storeKitOptionBeatsTheCatalogVariable() throws {
        let harness = Harness()
        let file = Harness.temporaryPath("own-") + "/Own.storekit"
        try Self.copyStoreKit(to: file)
        let result = harness.run("--storekit", file, "list", "--json")
        #expect(result.status == 0, "\(result.stderr)")
        let source = try CatalogSource.resolve(
            catalogDirectory: nil, storeKitFile: file, productIDsFile: nil,
            context: Self.context(["IAPSIM_CATALOG": Harness.repositoryRoot + "/catalog"]))
        #expect(source == CatalogSource(storeKitPath: file, productIDsPath: nil))
    }

    /// "No such product" names the file searched and the identifiers nearest the one typed,
    /// case ignored, and another app's identifier finds the product of the same name.
    @Test(arguments: [
        ("com.example.app.Book", "did you mean 'com.example.app.book'?"),
        ("com.acme.game.book", "'com.example.app.book'?"),
        ("zzz", "see 'iapsim list'"),
    ])
    func noSuchProductNamesTheFileAndTheNearest(typed: String, hint: String) {
        let result = Harness().run("buy", typed, "--yes")
        #expect(result.status == 5)
        #expect(
            result.stderr.hasPrefix("Error: \(typed): no such product in \(Self.bundled) (storeProductNotAvailable)"))
        #expect(result.stderr.contains(hint), "\(result.stderr)")
    }
}
