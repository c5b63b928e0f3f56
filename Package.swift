// swift-tools-version:6.0
import PackageDescription

// No dependencies beyond the toolchain: Foundation, Glibc/Darwin and Swift Testing.
// Targets by what they know, every arrow pointing down:
//   iapsim → IAPSimKit → IAPSimCrypto, IAPSimHTTP, IAPSimJSON
//   IAPSimHTTP → IAPSimTLS → IAPSimCrypto (a TLS 1.3 server for `serve` to speak inside a CONNECT tunnel)
//   StoreKit, StoreKitTest → IAPSimKit (Apple's API shapes over the library; IAPSimKit imports neither)

// Where Apple's StoreKit does not exist (Linux), the API modules take Apple's names, so a file
// written for Apple compiles unchanged; where it does (macOS), the same sources build under
// iapsim's own names beside Apple's framework (docs/STOREKIT.md).
#if os(Linux)
    let storeKitModule = "StoreKit"
    let storeKitTestModule = "StoreKitTest"
#else
    let storeKitModule = "IAPSimStoreKit"
    let storeKitTestModule = "IAPSimStoreKitTest"
#endif
let package = Package(
    name: "iapsim",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "iapsim", targets: ["iapsim"]),
        .library(name: "IAPSimKit", targets: ["IAPSimKit"]),
        .library(name: "IAPSimCrypto", targets: ["IAPSimCrypto"]),
        .library(name: "IAPSimHTTP", targets: ["IAPSimHTTP"]),
        .library(name: "IAPSimJSON", targets: ["IAPSimJSON"]),
        .library(name: "IAPSimTLS", targets: ["IAPSimTLS"]),
        .library(name: storeKitModule, targets: [storeKitModule]),
        .library(name: storeKitTestModule, targets: [storeKitTestModule]),
    ],
    targets: [
        // SHA-256, HMAC, P-256/ECDSA, RFC 6979, DER, X.509, PEM, Base64: knows no App Store.
        // Certificate times count days on IAPSimJSON's Gregorian calendar, the state's.
        .target(name: "IAPSimCrypto", dependencies: ["IAPSimJSON"]),
        // HTTP/1.1 server and client on POSIX sockets: knows no App Store.
        .target(name: "IAPSimHTTP", dependencies: ["IAPSimTLS"]),
        // A TLS 1.3 server (record layer, handshake, a socket-free engine and a stream over
        // caller-given I/O), hand-written for test data: knows no App Store and no HTTP.
        .target(name: "IAPSimTLS", dependencies: ["IAPSimCrypto"]),
        // JSON values, reader, writer, ISO 8601 dates and the Gregorian calendar: knows no App Store.
        .target(name: "IAPSimJSON"),
        // The domain: catalog, prices, transactions, the state store. No I/O to the terminal.
        .target(name: "IAPSimKit", dependencies: ["IAPSimCrypto", "IAPSimHTTP", "IAPSimJSON"]),
        // The command line: hand-written parser, help text, rendering and exit codes.
        // StoreKit 1 and 2 as an app calls them, each call one IAPSimKit operation on the state.
        .target(
            name: storeKitModule, dependencies: ["IAPSimKit", "IAPSimCrypto", "IAPSimJSON"], path: "Sources/StoreKit"),
        // SKTestSession: Xcode's controls, each the operation the matching iapsim command runs.
        .target(
            name: storeKitTestModule, dependencies: [.target(name: storeKitModule), "IAPSimKit"],
            path: "Sources/StoreKitTest"),
        // The page `iapsim ui` serves is real HTML, CSS and JavaScript, compiled in as bytes.
        .executableTarget(
            name: "iapsim", dependencies: ["IAPSimKit", "IAPSimCrypto", "IAPSimHTTP", "IAPSimJSON", "IAPSimTLS"],
            resources: [
                .embedInCode("UI/Page/index.html"), .embedInCode("UI/Page/app.css"), .embedInCode("UI/Page/app.js"),
                .embedInCode("UI/Page/views.js"), .embedInCode("UI/Page/buy.js"),
            ]),
        // What several test targets share (External, the receipt chain fixture, hex): a library
        // for tests only, which no product contains.
        .target(
            name: "IAPSimTestSupport", dependencies: ["IAPSimCrypto", "IAPSimKit"], path: "Tests/IAPSimTestSupport"),
        .testTarget(
            name: "IAPSimCryptoTests",
            dependencies: ["IAPSimCrypto", "IAPSimTestSupport"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(name: "IAPSimHTTPTests", dependencies: ["IAPSimHTTP", "IAPSimTLS", "IAPSimCrypto"]),
        .testTarget(
            name: "IAPSimTLSTests",
            dependencies: ["IAPSimTLS", "IAPSimCrypto", "IAPSimHTTP", "IAPSimTestSupport"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(name: "IAPSimJSONTests", dependencies: ["IAPSimJSON"], resources: [.copy("Fixtures")]),
        .testTarget(
            name: "IAPSimKitTests",
            dependencies: ["IAPSimKit", "IAPSimCrypto", "IAPSimHTTP", "IAPSimJSON", "IAPSimTestSupport"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "StoreKitTests",
            dependencies: [
                .target(name: storeKitModule), .target(name: storeKitTestModule), "IAPSimKit", "IAPSimCrypto",
                "IAPSimTestSupport",
            ]),
        .testTarget(
            name: "iapsimTests",
            dependencies: ["iapsim", "IAPSimKit", "IAPSimCrypto", "IAPSimJSON", "IAPSimTestSupport"]),
    ]
)
