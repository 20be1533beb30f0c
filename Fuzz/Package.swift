// swift-tools-version: 6.1
// The fuzzing harness: a package of its own, so `make test` never builds it.
// Build it with scripts/fuzz.sh (which passes -sanitize=fuzzer,address).
import PackageDescription

let package = Package(
    name: "ICTFuzz",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "ICTKit", path: ".."),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        // FilePath, which the document calls take.
        .package(url: "https://github.com/apple/swift-system", from: "1.4.0"),
    ],
    targets: [
        .executableTarget(
            name: "ICTFuzz",
            dependencies: [
                .product(name: "ICTKit", package: "ICTKit"),
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            // The libraries are instrumented by scripts/fuzz.sh's -Xswiftc flags
            // (address sanitizer and coverage, no fuzzer main, so the build
            // plugin's tool still runs); only this target links libFuzzer.
            swiftSettings: [.unsafeFlags(["-sanitize=fuzzer,address", "-parse-as-library"])],
            linkerSettings: [.unsafeFlags(["-sanitize=fuzzer,address"])]
        )
    ]
)
