// swift-tools-version:6.0
import PackageDescription

// `make bench`'s StoreKit API benchmark: `Product.products(for:)` and `purchase()` through
// iapsim's StoreKit module against the library work `iapsim list` and `iapsim buy` do in
// their process, timed in one process on the same state.
#if os(Linux)
    let storeKit = "StoreKit"
#else
    let storeKit = "IAPSimStoreKit"
#endif

let package = Package(
    name: "StoreKitBench",
    platforms: [.macOS(.v13)],
    dependencies: [.package(name: "iapsim", path: "../..")],
    targets: [
        .executableTarget(
            name: "StoreKitBench",
            dependencies: [.product(name: storeKit, package: "iapsim"), .product(name: "IAPSimKit", package: "iapsim")])
    ]
)
