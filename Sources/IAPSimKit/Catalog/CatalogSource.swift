import Foundation

/// Where a catalog's two files come from.
///
/// Precedence: `--catalog DIR` > `--storekit FILE` > `IAPSIM_CATALOG` > `./catalog` > a single
/// `*.storekit` in the current folder (as `SKTestSession` finds one) > the installed demo
/// copy. An option beats the environment: `--storekit FILE` with `IAPSIM_CATALOG` set reads
/// the file. Within a folder the `.storekit` file is `Products.storekit`, else the folder's
/// only `*.storekit` (apps ship `Shop.storekit` or `Configuration.storekit`); several are
/// refused with their names. The identifier list is the folder's `IAPProductIDs.plist`; a
/// folder without one is a catalog whose every product is the app's, as a `.storekit`
/// under Xcode's StoreKit testing is. `--storekit` and `--product-ids` replace either file.
public struct CatalogSource: Sendable, Equatable {
    public static let storeKitFileName = "Products.storekit"
    public static let productIDsFileName = "IAPProductIDs.plist"

    public var storeKitPath: String
    /// Nil: request every product in the store.
    public var productIDsPath: String?
    /// How it was found: the executable says so when it is the bundled demo.
    public var origin: Origin = .named

    /// How a catalog was found.
    public enum Origin: Sendable, Equatable {
        /// Named by an option or `IAPSIM_CATALOG`.
        case named
        /// The `catalog` folder of the current folder.
        case localFolder
        /// The only `.storekit` file of the current folder.
        case currentFolder
        /// The demo catalog installed with iapsim, found because nothing else was.
        case installedDemo
    }

    public init(storeKitPath: String, productIDsPath: String?, origin: Origin = .named) {
        self.storeKitPath = storeKitPath
        self.productIDsPath = productIDsPath
        self.origin = origin
    }

    /// Resolves the options and environment into two paths.
    /// - Throws: `CatalogError.noCatalog` when no folder is named and none is found,
    ///   `.severalStoreKitFiles` when a folder holds several and none is `Products.storekit`.
    public static func resolve(
        catalogDirectory: String?, storeKitFile: String?, productIDsFile: String?, context: Context
    ) throws(CatalogError) -> CatalogSource {
        let productIDs = productIDsFile.map(context.absolutePath)
        if let storeKitFile, catalogDirectory == nil {
            return CatalogSource(storeKitPath: context.absolutePath(storeKitFile), productIDsPath: productIDs)
        }
        var source: CatalogSource
        if let named = catalogDirectory ?? context.value(of: .catalog) {
            let storeKit = storeKitFile.map(context.absolutePath)
            source = try folder(context.absolutePath(named), origin: .named, storeKitFile: storeKit)
        } else if let found = try found(in: context) {
            source = found
        } else {
            var searched = [context.absolutePath("catalog"), context.currentDirectory + "/*.storekit"]
            if let installed = context.installedCatalogDirectory { searched.append(installed) }
            throw CatalogError.noCatalog(searched: searched)
        }
        if let storeKitFile { source.storeKitPath = context.absolutePath(storeKitFile) }
        if let productIDs { source.productIDsPath = productIDs }
        return source
    }

    /// The catalog of a folder: its `.storekit` file, and its identifier list when it has one.
    /// A folder that does not exist keeps the usual names, so the error names what is missing.
    /// - Parameter storeKitFile: the `.storekit` file `--storekit` names instead of the folder's.
    static func folder(_ directory: String, origin: Origin, storeKitFile: String? = nil) throws(CatalogError)
        -> CatalogSource
    {
        var storeKit = storeKitFile ?? directory + "/" + storeKitFileName
        if storeKitFile == nil, !FileSystem.isRegularFile(storeKit) {
            let others = storeKitFiles(in: directory)
            if others.count > 1 { throw CatalogError.severalStoreKitFiles(directory: directory, names: others) }
            if let only = others.first { storeKit = directory + "/" + only }
        }
        let list = directory + "/" + productIDsFileName
        let hasList = FileSystem.isRegularFile(list) || !FileSystem.isRegularFile(storeKit)
        return CatalogSource(storeKitPath: storeKit, productIDsPath: hasList ? list : nil, origin: origin)
    }

    /// Where iapsim looks when nothing names a catalog.
    private static func found(in context: Context) throws(CatalogError) -> CatalogSource? {
        let local = context.absolutePath("catalog")
        if !storeKitFiles(in: local).isEmpty { return try folder(local, origin: .localFolder) }
        if !storeKitFiles(in: context.currentDirectory).isEmpty {
            return try folder(context.currentDirectory, origin: .currentFolder)
        }
        if let installed = context.installedCatalogDirectory,
            FileSystem.isRegularFile(installed + "/" + storeKitFileName)
        {
            return try folder(installed, origin: .installedDemo)
        }
        return nil
    }

    /// The names of the `.storekit` files in `directory`, sorted; none when it cannot be read.
    static func storeKitFiles(in directory: String) -> [String] {
        let names = (try? FileManager().contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasSuffix(".storekit") && FileSystem.isRegularFile(directory + "/" + $0) }.sorted()
    }
}
