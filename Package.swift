// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "ICTKit",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "PropertyList", targets: ["PropertyList"]),
        .library(name: "FoundationValues", targets: ["FoundationValues"]),
        .library(name: "DataLayers", targets: ["DataLayers"]),
        .library(name: "KeyedArchive", targets: ["KeyedArchive"]),
        .library(name: "TypedStream", targets: ["TypedStream"]),
        .library(name: "CoreDataFiles", targets: ["CoreDataFiles"]),
        .library(name: "KeyedCoding", targets: ["KeyedCoding"]),
        .library(name: "NIBArchive", targets: ["NIBArchive"]),
        .library(name: "EmbeddedLayers", targets: ["EmbeddedLayers"]),
        .library(name: "KeyedCodingAppleNames", targets: ["KeyedCodingAppleNames"]),
        .library(name: "PackageFormat", targets: ["PackageFormat"]),
        .library(name: "UniformTypes", targets: ["UniformTypes"]),
        .library(name: "DocumentFormats", targets: ["DocumentFormats"]),
        .library(name: "ConflictVersions", targets: ["ConflictVersions"]),
        .library(name: "FileCoordination", targets: ["FileCoordination"]),
        .library(name: "UbiquityContainers", targets: ["UbiquityContainers"]),
        .library(name: "UbiquitousKeyValueStore", targets: ["UbiquitousKeyValueStore"]),
        .library(name: "DocumentObject", targets: ["DocumentObject"]),
        .library(name: "LiveQuery", targets: ["LiveQuery"]),
        .library(name: "AppleCompatibility", targets: ["AppleCompatibility"]),
        .library(name: "ICTKit", targets: ["ICTKit"]),
        // The five modules' names before 0.13, each re-exporting its module under its new name; deprecated, removed
        // in 0.14 (CHANGELOG, "Renamed").
        .library(name: "Documents", targets: ["Documents"]),
        .library(name: "ICTDocument", targets: ["ICTDocument"]),
        .library(name: "DocumentPackage", targets: ["DocumentPackage"]),
        .library(name: "DocumentVersions", targets: ["DocumentVersions"]),
        .library(name: "DocumentQuery", targets: ["DocumentQuery"]),
        .executable(name: "ict", targets: ["ICTCommand"]),
        // The C interface (Sources/ICTKitC/include/ictkit.h) as a shared library, for C and the Python package.
        .library(name: "ICTKitC", type: .dynamic, targets: ["ICTKitC"]),
    ],
    dependencies: [
        // UsageErrorTextTests holds the usage errors' wording to what Ict.swift prints.
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        // FilePath, for the path overloads beside String and URL.
        .package(url: "https://github.com/apple/swift-system", from: "1.4.0"),
        // `swift package generate-documentation` (make docs): each module's DocC catalog.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
    ],
    targets: [
        // MARK: C shims — libxml2, libpng and zlib each behind one module; CFileSystem (the system calls Swift
        // cannot import) called by SystemSupport, PackageFormat and ConflictVersions.
        .systemLibrary(
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"]), .brew(["libxml2"])]
        ),
        .target(name: "CPropertyListSupport"),
        .systemLibrary(name: "CFileSystem"),
        .systemLibrary(
            name: "CLibZ",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]
        ),
        .systemLibrary(
            name: "CLibPNG",
            pkgConfig: "libpng",
            providers: [.apt(["libpng-dev"]), .brew(["libpng"])]
        ),
        // SQLite, for Core Data's SQLite stores (CoreDataFiles).
        .systemLibrary(
            name: "CSQLite",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),

        // MARK: System support — internal, shared with `package` access, never a product of its own.
        // The system calls and file-system helpers more than one module needs (names as bytes, file URLs,
        // stat/open/readdir wrappers, locks, temporary files, atomic writes).
        .target(name: "SystemSupport", dependencies: ["CFileSystem", .product(name: "SystemPackage", package: "swift-system")]),

        // MARK: Core formats — property lists, keyed archives, coding, uniform types.
        .target(
            name: "PropertyList",
            dependencies: [
                "CLibXML2",
                "CPropertyListSupport",
                "SystemSupport",
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        // Foundation's value types (attributed text, colours, fonts, geometry, URLs, …) that both archive formats decode to.
        .target(
            name: "FoundationValues",
            dependencies: ["PropertyList", .product(name: "OrderedCollections", package: "swift-collections")]
        ),
        // Layers inside data values: compressed data (gzip, zlib, DEFLATE) inflated within limits, and protocol
        // buffers read without a schema, as `protoc --decode_raw` reads them.
        .target(name: "DataLayers", dependencies: ["CLibZ"]),
        .target(
            name: "KeyedArchive",
            dependencies: [
                "PropertyList",
                "FoundationValues",
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        // NSArchiver's typed streams (old nibs, iMessage's attributedBody), read losslessly and decoded by class name.
        .target(
            name: "TypedStream",
            dependencies: ["PropertyList", "FoundationValues", .product(name: "OrderedCollections", package: "swift-collections")]
        ),
        // Core Data's files without Core Data: managed object models (.xcdatamodeld, .xcdatamodel, .momd, .mom)
        // and SQLite stores.
        .target(
            name: "CoreDataFiles",
            dependencies: [
                "CSQLite",
                // Raw inflate of a store's Z_MODELCACHE.
                "DataLayers",
                // The layers inside a column's value, for the JSON form's "layers".
                "EmbeddedLayers",
                "PropertyList",
                "KeyedArchive",
                "SystemSupport",
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        // An NSCoder-shaped, class-based coder over KeyedArchive's typed one, for code ported from Apple platforms.
        .target(
            name: "KeyedCoding",
            dependencies: [
                "KeyedArchive",
                "PropertyList",
                "SystemSupport",
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
        // Compiled nibs: Apple's NIBArchive format, and Interface Builder's keyed keyedobjects.nib as the same object graph.
        .target(
            name: "NIBArchive",
            dependencies: [
                "KeyedArchive",
                "PropertyList",
                "SystemSupport",
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        // Layers inside data values, stepped into by key paths and shown by `inspect --expand`: property lists,
        // keyed archives, typed streams, NIB archives, gzip/zlib and protocol buffers. Above every reader it uses,
        // so that each layer kind is read by its own module and none imports another's.
        .target(
            name: "EmbeddedLayers",
            dependencies: [
                "DataLayers",
                "KeyedArchive",
                "NIBArchive",
                "PropertyList",
                "TypedStream",
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
        .target(
            name: "UniformTypes",
            dependencies: [
                "PropertyList",
                "SystemSupport",
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            plugins: ["EmbedSchemas"]
        ),

        // MARK: The old module names (deprecated): one file each, `@_exported import` of the new name.
        .target(name: "Documents", dependencies: ["DocumentObject"], path: "Sources/Deprecated/Documents"),
        .target(name: "ICTDocument", dependencies: ["DocumentFormats"], path: "Sources/Deprecated/ICTDocument"),
        .target(name: "DocumentPackage", dependencies: ["PackageFormat"], path: "Sources/Deprecated/DocumentPackage"),
        .target(name: "DocumentVersions", dependencies: ["ConflictVersions"], path: "Sources/Deprecated/DocumentVersions"),
        .target(name: "DocumentQuery", dependencies: ["LiveQuery"], path: "Sources/Deprecated/DocumentQuery"),

        // MARK: Documents and packages — file wrappers, conflict versions, .ict documents.
        .target(
            name: "PackageFormat",
            dependencies: [
                "CLibZ", "PropertyList", "SystemSupport",
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .target(
            name: "ConflictVersions",
            dependencies: ["PackageFormat", "SystemSupport", .product(name: "SystemPackage", package: "swift-system")]
        ),
        // Coordinated reading and writing across threads and processes, and presenters (NSFileCoordinator's meaning).
        .target(
            name: "FileCoordination",
            dependencies: ["PackageFormat", "ConflictVersions", "SystemSupport", .product(name: "SystemPackage", package: "swift-system")]
        ),
        // Ubiquity containers: folders a sync engine keeps on several devices, configured once (FileManager's ubiquity calls' meaning).
        .target(
            name: "UbiquityContainers",
            dependencies: [
                "PackageFormat", "FileCoordination", "PropertyList", "SystemSupport",
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        // The iCloud key-value store's meaning over a container: a file per device, merged (NSUbiquitousKeyValueStore's meaning).
        .target(
            name: "UbiquitousKeyValueStore",
            dependencies: [
                "PropertyList", "SystemSupport", "UbiquityContainers",
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        // Documents with a life: open, edit, autosave, save, revert, close, conflict state (UIDocument's meaning).
        .target(
            name: "DocumentObject",
            dependencies: [
                "PackageFormat", "ConflictVersions", "FileCoordination", "SystemSupport",
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        // A live search of folders of documents: gathering, then added/changed/removed from inotify (NSMetadataQuery's meaning).
        .target(
            name: "LiveQuery",
            dependencies: [
                "ConflictVersions", "UbiquityContainers", "UniformTypes", "SystemSupport",
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        // The original apps' formats: .ict and .ptk packages, .icfnote and .dox notes (above the query, to which
        // its kinds describe themselves, and the coordinator, through which it saves).
        .target(
            name: "DocumentFormats",
            dependencies: [
                "CLibPNG",
                "PropertyList",
                "KeyedArchive",
                "EmbeddedLayers",
                "PackageFormat",
                "ConflictVersions",
                // Its package saves take turns with ICTKit's other writers (PackageWrapper.coordinatedSave).
                "FileCoordination",
                "UniformTypes",
                "SystemSupport",
                // Its document kinds as a metadata query knows them (DocumentKind+MetadataQuery.swift).
                "LiveQuery",
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            plugins: ["EmbedSchemas"]
        ),

        // MARK: Apple's names — for code ported from Apple platforms by changing its import.
        // Foundation's names for KeyedCoding's types.
        .target(
            name: "KeyedCodingAppleNames",
            dependencies: ["KeyedCoding"]
        ),
        // Foundation's FileWrapper and UniformTypeIdentifiers' UTType under Apple's names off Apple platforms.
        .target(
            name: "AppleCompatibility",
            dependencies: [
                "PackageFormat",
                "ConflictVersions",
                "FileCoordination",
                "DocumentObject",
                "LiveQuery",
                "UbiquityContainers",
                "UbiquitousKeyValueStore",
                "UniformTypes",
                "PropertyList",
                // A UIDocument's contents are named by FilePath, as Documents reads and saves them.
                "SystemSupport",
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),

        // MARK: Umbrella — `import ICTKit`: every library module at once.
        .target(
            name: "ICTKit",
            dependencies: [
                "PropertyList", "FoundationValues", "KeyedArchive", "TypedStream", "NIBArchive", "EmbeddedLayers", "CoreDataFiles", "KeyedCoding",
                "PackageFormat", "ConflictVersions", "FileCoordination", "UniformTypes", "DocumentFormats", "DocumentObject",
                "LiveQuery", "UbiquityContainers", "UbiquitousKeyValueStore", "AppleCompatibility",
            ]
        ),

        // MARK: Command line — `ict`.
        // The tooling layer: what `ict` does to an input (classifying it, reading it within bounds, addressing and
        // editing by key path, converting, inspecting, listing, diffing) and its reports' forms, with `package`
        // access for the command and its tests; not a product, and no library module imports it.
        .target(
            name: "ICTKitTooling",
            dependencies: [
                "PropertyList",
                "KeyedArchive",
                "CoreDataFiles",
                "PackageFormat",
                "ConflictVersions",
                "FileCoordination",
                "UniformTypes",
                "DocumentFormats",
                "LiveQuery",
                "NIBArchive",
                "EmbeddedLayers",
                "DataLayers",
                "SystemSupport",
                "TypedStream",
                "FoundationValues",
                "UbiquityContainers",
                "UbiquitousKeyValueStore",
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
        .executableTarget(
            name: "ICTCommand",
            dependencies: [
                "ICTKitTooling",
                "PropertyList",
                "KeyedArchive",
                "CoreDataFiles",
                "PackageFormat",
                "ConflictVersions",
                "FileCoordination",
                "UniformTypes",
                "DocumentFormats",
                "LiveQuery",
                "NIBArchive",
                "EmbeddedLayers",
                "DataLayers",
                "SystemSupport",
                "TypedStream",
                "FoundationValues",
                "UbiquityContainers",
                "UbiquitousKeyValueStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),

        // MARK: C interface — ictkit.h over the modules, for C callers and the Python package in python/.
        .target(
            name: "ICTKitC",
            dependencies: [
                "PropertyList", "KeyedArchive", "TypedStream", "NIBArchive", "CoreDataFiles", "SystemSupport",
                .product(name: "OrderedCollections", package: "swift-collections"),
            ],
            exclude: ["include"]
        ),

        // MARK: Build tools.
        // Embeds Schemas/ in UniformTypes (type declarations, as text and as type tables) and in DocumentFormats
        // (the document schema) at build time (see the plugin for why not .embedInCode).
        .plugin(name: "EmbedSchemas", capability: .buildTool(), dependencies: ["SchemaEmbedder"]),
        .executableTarget(name: "SchemaEmbedder", dependencies: ["PropertyList"], path: "Plugins/SchemaEmbedder"),

        // MARK: Examples the tests run.
        // The original app's CTData/CTMetadata NSSecureCoding classes, unchanged but for their import line.
        .executableTarget(
            name: "CTDocumentPort",
            // KeyedCoding too, though the names module re-exports it: an incremental build then
            // recompiles the port when KeyedCoding's classes change (it did not through the re-export alone).
            dependencies: ["KeyedCodingAppleNames", "KeyedCoding"],
            path: "Examples/CTDocumentPort",
            exclude: ["README.md"]
        ),

        // MARK: Test support — children the tests run, and an independent zip.
        // Children the crash tests kill with SIGKILL while they save a package or resolve a version.
        .executableTarget(name: "PackageSaveStress", dependencies: ["PackageFormat"], path: "Tests/PackageSaveStress"),
        .executableTarget(
            name: "VersionResolveStress", dependencies: ["ConflictVersions", "PackageFormat"], path: "Tests/VersionResolveStress"),
        // A child making coordinated reads, writes, moves and presenting, for FileCoordinationTests (and a bench row).
        .executableTarget(name: "CoordinationStress", dependencies: ["FileCoordination"], path: "Tests/CoordinationStress"),
        // A child that holds an ItemLock until killed, for the lock tests of ICTCommandTests.
        .executableTarget(name: "LockHolder", dependencies: ["SystemSupport"], path: "Tests/LockHolder"),
        // What several test targets share: the repository root, the interop corpus and its condition (skipped
        // without it, failed on CI), and the tests' independent zip writer and reader, Python's zipfile. (The Swift
        // zip package used before declares its privacy manifest only on Apple platforms, so every build on Linux
        // printed a warning about it.)
        .target(name: "TestSupport", path: "Tests/TestSupport"),

        // MARK: Tests, in the order of the modules they test.
        .testTarget(
            name: "SystemSupportTests",
            dependencies: ["SystemSupport", "TestSupport", .product(name: "SystemPackage", package: "swift-system")]
        ),
        .testTarget(name: "TestSupportTests", dependencies: ["TestSupport"]),
        .testTarget(
            name: "PropertyListTests",
            dependencies: ["PropertyList", "TestSupport", .product(name: "SystemPackage", package: "swift-system")],
            exclude: ["Fixtures/plist_to_json.py", "Fixtures/plistlib_roundtrip.py", "Fixtures/fuzz"]
        ),
        .testTarget(name: "FoundationValuesTests", dependencies: ["FoundationValues", "PropertyList"]),
        .testTarget(
            name: "DataLayersTests",
            dependencies: ["DataLayers", "EmbeddedLayers", "KeyedArchive", "PropertyList", "TestSupport"],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "KeyedArchiveTests",
            dependencies: [
                "KeyedArchive", "FoundationValues", "PropertyList", "TestSupport",
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "TypedStreamTests",
            dependencies: [
                "TypedStream", "FoundationValues", "PropertyList", "TestSupport",
                .product(name: "OrderedCollections", package: "swift-collections"),
            ],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "CoreDataFilesTests",
            dependencies: [
                "CoreDataFiles", "KeyedArchive", "PropertyList", "TestSupport",
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "KeyedCodingTests",
            dependencies: ["KeyedCoding", "KeyedArchive", "PropertyList", "CTDocumentPort", "DocumentFormats", "TestSupport"],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "NIBArchiveTests",
            dependencies: [
                "NIBArchive", "KeyedArchive", "PropertyList", "TestSupport",
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "EmbeddedLayersTests",
            dependencies: ["EmbeddedLayers", "KeyedArchive", "PropertyList", "TestSupport"]
        ),
        .testTarget(
            name: "UniformTypesTests",
            dependencies: ["UniformTypes", "PropertyList", "TestSupport", .product(name: "SystemPackage", package: "swift-system")],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "PackageFormatTests",
            dependencies: [
                "PackageFormat",
                "PackageSaveStress",
                "TestSupport",
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "ConflictVersionsTests",
            dependencies: [
                "ConflictVersions", "PackageFormat", "VersionResolveStress", "TestSupport", .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .testTarget(
            name: "FileCoordinationTests",
            dependencies: [
                "FileCoordination", "ConflictVersions", "PackageFormat", "CoordinationStress", "TestSupport",
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .testTarget(
            name: "DocumentFormatsTests",
            dependencies: ["DocumentFormats", "KeyedArchive", "PropertyList", "TestSupport", .product(name: "SystemPackage", package: "swift-system")]
        ),
        .testTarget(
            name: "DocumentObjectTests",
            dependencies: [
                "DocumentObject", "PackageFormat", "ConflictVersions", "FileCoordination", "DocumentFormats", "TestSupport",
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .testTarget(
            name: "LiveQueryTests",
            dependencies: [
                "LiveQuery", "DocumentFormats", "SystemSupport", "TestSupport", "UbiquityContainers",
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .testTarget(
            name: "UbiquityContainersTests",
            dependencies: ["UbiquityContainers", "FileCoordination", "TestSupport", .product(name: "SystemPackage", package: "swift-system")]
        ),
        .testTarget(
            name: "UbiquitousKeyValueStoreTests",
            dependencies: ["UbiquitousKeyValueStore", "UbiquityContainers", "PropertyList", "TestSupport"]
        ),
        .testTarget(
            name: "AppleCompatibilityTests",
            dependencies: [
                "AppleCompatibility", "PackageFormat", "LiveQuery", "DocumentFormats", "TestSupport", "UbiquitousKeyValueStore",
                "UbiquityContainers",
            ]
        ),
        // The source texts' query, conflict, container and document code, written as Swift on Apple's platforms
        // writes it, with only its import block changed; Swift 5 mode, the language that code was written in.
        .testTarget(
            name: "AppleSourceTextTests",
            dependencies: ["AppleCompatibility", "TestSupport"],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .testTarget(
            name: "ICTKitTests",
            dependencies: [
                "ICTKit", "TestSupport",
                // The old module names, imported by OldModuleNamesTests.
                "Documents", "ICTDocument", "DocumentPackage", "DocumentVersions", "DocumentQuery",
            ]
        ),
        // The C interface from C (a client compiled with clang, run under valgrind) and from Python (python/).
        .testTarget(name: "ICTKitCTests", dependencies: ["ICTKitC", "TestSupport"], exclude: ["CProgram"]),
        // The tooling layer in process (its classifier, key paths, folders, differences and contact sheet); the command's
        // own tests run the built `ict`.
        .testTarget(name: "ICTKitToolingTests", dependencies: ["ICTKitTooling", "DocumentFormats", "PropertyList", "TestSupport"]),
        .testTarget(
            name: "ICTCommandTests",
            dependencies: [
                "ICTCommand",
                "ICTKitTooling",
                "CoordinationStress",
                "ConflictVersions",
                "DocumentFormats",
                "LockHolder",
                "PropertyList",
                "TestSupport",
            ]
        ),
    ]
)
