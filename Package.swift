// swift-tools-version:6.0
import PackageDescription

// No dependencies beyond the toolchain: Foundation, Glibc/Darwin and Swift Testing.
let package = Package(
    name: "iapsim",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "iapsim", targets: ["iapsim"]),
        .library(name: "IAPSimKit", targets: ["IAPSimKit"]),
    ],
    targets: [
        // The domain: catalog, prices, transactions, the state store. No I/O to the terminal.
        .target(name: "IAPSimKit"),
        // The command line: hand-written parser, help text, rendering and exit codes.
        .executableTarget(name: "iapsim", dependencies: ["IAPSimKit"]),
        .testTarget(
            name: "IAPSimKitTests",
            dependencies: ["IAPSimKit"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(name: "iapsimTests", dependencies: ["iapsim", "IAPSimKit"]),
    ]
)
