// swift-tools-version:6.0
// Two apps' purchase code, tested with StoreKitTest on Linux against iapsim, every file
// importing Apple's module names only (StoreKit, StoreKitTest, XCTest, Testing):
//   RageShop     — StoreKit 1, delegate style, Swift 5 language mode, XCTest with a request spy;
//   ProShop      — StoreKit 2, async style and a paywall, Swift 6 language mode, Swift Testing
//                  and an XCTest file;
//   QueueWatcher — a program driven by RunLoop.main whose observer runs on the main thread.
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
        // A main-run-loop program that buys once: StoreKit's observer runs on the main thread.
        .executableTarget(
            name: "QueueWatcher", dependencies: [.product(name: storeKit, package: "iapsim")],
            swiftSettings: [.swiftLanguageMode(.v5)]),
        .testTarget(
            name: "ProShopTests",
            dependencies: ["ProShop", .product(name: storeKitTest, package: "iapsim")],
            resources: [.copy("Shop.storekit")]),
    ]
)
