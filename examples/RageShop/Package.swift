// swift-tools-version:5.9
// A StoreKit 1 app's purchase code, tested with StoreKitTest on Linux against iapsim.
// Swift 5 language mode, as the app was written.
import PackageDescription

// On Linux iapsim's modules are StoreKit and StoreKitTest; on macOS, beside Apple's, they
// are IAPSimStoreKit and IAPSimStoreKitTest (docs/STOREKIT.md).
#if os(Linux)
    let storeKit = "StoreKit", storeKitTest = "StoreKitTest"
#else
    let storeKit = "IAPSimStoreKit", storeKitTest = "IAPSimStoreKitTest"
#endif

let package = Package(
    name: "RageShop",
    platforms: [.macOS(.v13)],
    dependencies: [.package(name: "iapsim", path: "../..")],
    targets: [
        .target(name: "RageShop", dependencies: [.product(name: storeKit, package: "iapsim")]),
        .testTarget(
            name: "RageShopTests",
            dependencies: ["RageShop", .product(name: storeKitTest, package: "iapsim")],
            resources: [.copy("Shop.storekit")]),
    ],
    swiftLanguageVersions: [.v5]
)
