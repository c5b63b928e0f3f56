// swift-tools-version:6.0
// A StoreKit 2 app's store, tested with StoreKitTest on Linux against iapsim, in the Swift 6
// language mode.
import PackageDescription

// On Linux iapsim's modules are StoreKit and StoreKitTest; on macOS, beside Apple's, they
// are IAPSimStoreKit and IAPSimStoreKitTest (docs/STOREKIT.md).
#if os(Linux)
    let storeKit = "StoreKit"
    let storeKitTest = "StoreKitTest"
#else
    let storeKit = "IAPSimStoreKit"
    let storeKitTest = "IAPSimStoreKitTest"
#endif

let package = Package(
    name: "ProShop",
    platforms: [.macOS(.v13)],
    dependencies: [.package(name: "iapsim", path: "../..")],
    targets: [
        .target(name: "ProShop", dependencies: [.product(name: storeKit, package: "iapsim")]),
        .testTarget(
            name: "ProShopTests",
            dependencies: ["ProShop", .product(name: storeKitTest, package: "iapsim")],
            resources: [.copy("Shop.storekit")]),
    ]
)
