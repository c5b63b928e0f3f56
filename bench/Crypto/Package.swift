// swift-tools-version:6.0
import PackageDescription

// `make bench`'s signing benchmark: iapsim's own ES256 (IAPSimCrypto, and IAPSimKit for a
// whole signed transaction, taken from the repository by path), timed in-process so the
// figures compare with `openssl speed ecdsap256`.
let package = Package(
    name: "CryptoBench",
    platforms: [.macOS(.v13)],
    dependencies: [.package(name: "iapsim", path: "../..")],
    targets: [
        .executableTarget(
            name: "CryptoBench",
            dependencies: [
                .product(name: "IAPSimCrypto", package: "iapsim"), .product(name: "IAPSimKit", package: "iapsim"),
            ])
    ]
)
