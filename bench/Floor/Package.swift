// swift-tools-version:6.0
import PackageDescription

// The floor for `make bench`: the smallest Swift program that does iapsim's start-up I/O,
// built exactly as `make install` builds iapsim (release, static Swift runtime on Linux).
let package = Package(
    name: "Floor",
    targets: [.executableTarget(name: "Floor")]
)
