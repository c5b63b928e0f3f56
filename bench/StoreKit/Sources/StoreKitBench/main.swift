import Foundation
import IAPSimKit

#if canImport(IAPSimStoreKit)
    @_spi(IAPSim) import IAPSimStoreKit
#else
    @_spi(IAPSim) import StoreKit
#endif

// Microseconds per operation, median of rounds: what `iapsim list` and `iapsim buy` do in
// their process (open the catalog and the state, request the products and format their prices;
// open, quote and purchase), and the same through the StoreKit API (`Product.products(for:)`,
// `purchase()`, which also signs the transaction and verifies its JWS).
// Usage: StoreKitBench CATALOG_DIR [iterations]

let arguments = CommandLine.arguments.dropFirst()
guard let catalogDirectory = arguments.first else {
    FileHandle.standardError.write(Data("usage: StoreKitBench CATALOG_DIR [iterations]\n".utf8))
    exit(64)
}
let iterations = arguments.dropFirst().compactMap { Int($0) }.first ?? 200
let storeKitPath = catalogDirectory + "/Products.storekit"
let root = NSTemporaryDirectory() + "iapsim-storekitbench-\(getpid())"
defer { try? FileManager().removeItem(atPath: root) }

func median(_ samples: [Double]) -> Double { samples.sorted()[samples.count / 2] }

func time(_ body: () async throws -> Void) async throws -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try await body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1000
}

func cliSession(_ state: String) throws -> (Catalog, StoreSession) {
    try StoreSession.open(
        CatalogSource(storeKitPath: storeKitPath, productIDsPath: catalogDirectory + "/IAPProductIDs.plist"),
        store: StateStore(location: StateLocation(directory: state)), storefront: nil, now: { Date() },
        events: { _ in })
}

let cliState = root + "/cli"
let apiState = root + "/api"
StoreRuntime.shared.configure(.init(stateDirectory: apiState, storeKitPath: storeKitPath))
let ids = try cliSession(cliState).0.products.map(\.id)

var cliList: [Double] = []
var apiList: [Double] = []
var cliBuy: [Double] = []
var apiBuy: [Double] = []
var cliBuySigned: [Double] = []
let signer = StoreSession.Signer(
    identity: try SigningIdentity.loadOrCreate(in: root + "/cli-certs", lockTimeout: 10))
for round in 0...iterations {
    let listing = try await time {
        let (catalog, session) = try cliSession(cliState)
        let response = try session.requestProducts(in: catalog)
        let formatter = PriceFormatter(currencyCode: catalog.storefront.currencyCode, localeIdentifier: "en_US")
        for product in response.products { _ = formatter.string(for: product.price) }
    }
    let products = try await time { _ = try await Product.products(for: ids) }
    let buying = try await time {
        let (catalog, session) = try cliSession(cliState)
        let quote = try session.quote(try PurchaseRequest(productID: "com.example.app.coins100"), in: catalog)
        _ = try session.purchase(quote, in: catalog)
    }
    // `iapsim buy` then `iapsim jws transaction ID`: the same purchase, and its signed form.
    let buyingSigned = try await time {
        let (catalog, session) = try cliSession(cliState)
        let quote = try session.quote(try PurchaseRequest(productID: "com.example.app.coins100"), in: catalog)
        let receipt = try session.purchase(quote, in: catalog)
        if let id = receipt.result.transaction?.id { _ = try session.signedTransaction(id, signer: signer) }
    }
    let coins = try await Product.products(for: ["com.example.app.coins100"])[0]
    var result = Product.PurchaseResult.userCancelled
    let purchase = try await time { result = try await coins.purchase() }
    guard case .success(.verified(let transaction)) = result else {
        FileHandle.standardError.write(Data("StoreKitBench: the purchase did not verify\n".utf8))
        exit(1)
    }
    await transaction.finish()  // untimed: `iapsim buy` finishes in the same step, the app later
    guard round > 0 else { continue }  // the first round warms caches
    cliList.append(listing)
    apiList.append(products)
    cliBuy.append(buying)
    apiBuy.append(purchase)
    cliBuySigned.append(buyingSigned)
}
print(
    "{\"cli_list_us\": \(median(cliList)), \"api_products_us\": \(median(apiList)), "
        + "\"cli_buy_us\": \(median(cliBuy)), \"cli_buy_signed_us\": \(median(cliBuySigned)), "
        + "\"api_purchase_us\": \(median(apiBuy)), \"products\": \(ids.count)}")
