/// Where a catalog's two files come from.
///
/// Precedence: `--catalog DIR` > `IAPSIM_CATALOG` > `./catalog` > the installed copy. Within a
/// folder the files are `Products.storekit` and `IAPProductIDs.plist`; `--storekit FILE` and
/// `--product-ids FILE` replace either. With `--storekit` and no folder named, there is no
/// identifier list and the app asks for every product the store has, as an app under Xcode's
/// StoreKit testing often does.
public struct CatalogSource: Sendable, Equatable {
    public static let storeKitFileName = "Products.storekit"
    public static let productIDsFileName = "IAPProductIDs.plist"

    public var storeKitPath: String
    /// Nil: request every product in the store.
    public var productIDsPath: String?

    public init(storeKitPath: String, productIDsPath: String?) {
        self.storeKitPath = storeKitPath
        self.productIDsPath = productIDsPath
    }

    /// Resolves the options and environment into two paths.
    /// - Throws: `CatalogError.noCatalog` when no folder is named and none is found.
    public static func resolve(
        catalogDirectory: String?, storeKitFile: String?, productIDsFile: String?, context: Context
    ) throws(CatalogError) -> CatalogSource {
        let named = catalogDirectory ?? context.value(of: .catalog)
        if let storeKitFile, named == nil {
            return CatalogSource(
                storeKitPath: context.absolutePath(storeKitFile),
                productIDsPath: productIDsFile.map(context.absolutePath))
        }
        let directory: String
        if let named {
            directory = context.absolutePath(named)
        } else {
            let local = context.absolutePath("catalog")
            var searched = [local]
            if FileSystem.isRegularFile(local + "/" + storeKitFileName) {
                directory = local
            } else if let installed = context.installedCatalogDirectory,
                FileSystem.isRegularFile(installed + "/" + storeKitFileName)
            {
                directory = installed
            } else {
                if let installed = context.installedCatalogDirectory { searched.append(installed) }
                throw CatalogError.noCatalog(searched: searched)
            }
        }
        return CatalogSource(
            storeKitPath: storeKitFile.map(context.absolutePath) ?? directory + "/" + storeKitFileName,
            productIDsPath: productIDsFile.map(context.absolutePath) ?? directory + "/" + productIDsFileName)
    }
}
