// swift-tools-version: 6.1
import PackageDescription

// A path dependency is known by its folder's name, which differs between
// clones and worktrees of the repository: take it from where this file is.
let rootPackage = Context.packageDirectory.split(separator: "/").dropLast().last.map(String.init) ?? ".."

// The property-list benchmarks: `make bench` (scripts/bench.sh) runs them in a
// release build and prints one table comparing ICTKit with its peers.
//
// A separate package so the root package's dependencies stay as they are.
// The harness is our own (ContinuousClock, warm-up, median of repetitions)
// rather than ordo-one/benchmark: every row needs the peer timed in the same
// run and a ratio against a target, which that package does not print, and
// two rows time whole processes and one reads a child's peak memory.
let package = Package(
    name: "PropertyListBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        // FilePath, which the document calls take.
        .package(url: "https://github.com/apple/swift-system", from: "1.4.0"),
    ],
    targets: [
        // libxml2 for the bare xmlTextReader pass. The root package's
        // CLibXML2 target is not a product, so this is a module of our own.
        .systemLibrary(
            name: "CBenchmarkLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"]), .brew(["libxml2"])]
        ),
        // Real Syncthing devices on loopback for rows P and G: the test
        // harness's own file (a link to Tests/TestSupport/SyncthingDevices.swift),
        // so the tests and the bench start devices with one implementation.
        // The test target cannot be a dependency of this package; the file
        // needs nothing else of TestSupport.
        .target(name: "SyncthingHarness"),
        .executableTarget(
            name: "PropertyListBenchmarks",
            dependencies: [
                "CBenchmarkLibXML2",
                "SyncthingHarness",
                .product(name: "PropertyList", package: rootPackage),
                .product(name: "KeyedArchive", package: rootPackage),
                .product(name: "NIBArchive", package: rootPackage),
                .product(name: "PackageFormat", package: rootPackage),
                .product(name: "ConflictVersions", package: rootPackage),
                .product(name: "UniformTypes", package: rootPackage),
                .product(name: "DocumentFormats", package: rootPackage),
                .product(name: "LiveQuery", package: rootPackage),
                .product(name: "FileCoordination", package: rootPackage),
                .product(name: "UbiquityContainers", package: rootPackage),
                .product(name: "UbiquitousKeyValueStore", package: rootPackage),
                .product(name: "TypedStream", package: rootPackage),
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
    ]
)
