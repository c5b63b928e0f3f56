// swift-tools-version:6.0
// Two apps' purchase code, tested with StoreKitTest on Linux against iapsim:
//   RageShop — StoreKit 1, delegate style, Swift 5 language mode, XCTest;
//   ProShop  — StoreKit 2, async style, Swift 6 language mode, Swift Testing.
// One package, so iapsim's targets compile once for both (`make test` runs it).
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
    name: "StoreKitApps",
    platforms: [.macOS(.v13)],
    dependencies: [.package(name: "iapsim", path: "../..")],
    targets: [
        .target(
            name: "RageShop", dependencies: [.product(name: storeKit, package: "iapsim")],
            swiftSettings: [.swiftLanguageMode(.v5)]),
        .testTarget(
            name: "RageShopTests",
            dependencies: ["RageShop", .product(name: storeKitTest, package: "iapsim")],
            resources: [.copy("Shop.storekit")], swiftSettings: [.swiftLanguageMode(.v5)]),
        .target(name: "ProShop", dependencies: [.product(name: storeKit, package: "iapsim")]),
        .testTarget(
            name: "ProShopTests",
            dependencies: ["ProShop", .product(name: storeKitTest, package: "iapsim")],
            resources: [.copy("Shop.storekit")]),
    ]
)
