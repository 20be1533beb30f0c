// swift-tools-version: 6.1
// An example outside ICTKit's package: a tool that depends on ICTKit by path
// and uses only its public API (`make examples` builds and runs it).
import PackageDescription

let package = Package(
    name: "DocumentReport",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "ICTKit", path: "../..")
    ],
    targets: [
        .executableTarget(
            name: "DocumentReport",
            dependencies: [.product(name: "ICTKit", package: "ICTKit")]
        )
    ]
)
