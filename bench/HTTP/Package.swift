// swift-tools-version:6.0
import PackageDescription

// bench/http.sh's server: IAPSimHTTP's HTTPServer (taken from the repository by path) with a
// handler that answers every request with the same fixed body, for wrk to load.
let package = Package(
    name: "HTTPBench",
    platforms: [.macOS(.v13)],
    dependencies: [.package(name: "iapsim", path: "../..")],
    targets: [.executableTarget(name: "HTTPBench", dependencies: [.product(name: "IAPSimHTTP", package: "iapsim")])]
)
