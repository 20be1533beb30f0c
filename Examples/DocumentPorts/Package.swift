// swift-tools-version: 6.1
// The original apps' UIDocument subclasses, ported to Linux by changing
// their import: tools outside ICTKit's package that depend on it by path and
// use only its public API (`make examples` builds and runs them).
import PackageDescription

let package = Package(
    name: "DocumentPorts",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "ICTKit", path: "../..")
    ],
    targets: [
        // Opens, edits, saves (as a new document) and closes each document given, and reports its state.
        .target(
            name: "DocumentPortSupport",
            dependencies: [.product(name: "AppleCompatibility", package: "ICTKit")]
        ),
        // The photo-and-name app's `.ict` package document (CTData, CTMetadata: Examples/CTDocumentPort).
        .executableTarget(
            name: "CTDocumentApp",
            dependencies: [
                "DocumentPortSupport",
                .product(name: "AppleCompatibility", package: "ICTKit"),
                .product(name: "KeyedCodingAppleNames", package: "ICTKit"),
                .product(name: "DocumentFormats", package: "ICTKit"),
            ]
        ),
        // The notes app's one-file `.icfnote` text document.
        .executableTarget(
            name: "NoteApp",
            dependencies: [
                "DocumentPortSupport",
                .product(name: "AppleCompatibility", package: "ICTKit"),
                .product(name: "DocumentObject", package: "ICTKit"),
                // DocumentText, the UTF-8 reading of a note (DocumentObject does not re-export it).
                .product(name: "DocumentFormats", package: "ICTKit"),
            ]
        ),
        // The notes app's iCloud side: its container, moves in and out with setUbiquitous, a query of the
        // ubiquitous documents (`make examples` runs it on two Syncthing devices: scripts/syncthing-pair.sh).
        // Swift 5 mode, the language the notes app's code was written in.
        .executableTarget(
            name: "CloudNoteApp",
            dependencies: [.product(name: "AppleCompatibility", package: "ICTKit")],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        // The database book's CTAppDelegate: settings in the iCloud key-value store, copied into UserDefaults.
        .executableTarget(
            name: "SettingsApp",
            dependencies: [.product(name: "AppleCompatibility", package: "ICTKit")]
        ),
        // The tutorial's `.dox` note.
        .executableTarget(
            name: "DoxApp",
            dependencies: [
                "DocumentPortSupport",
                .product(name: "AppleCompatibility", package: "ICTKit"),
                .product(name: "DocumentObject", package: "ICTKit"),
                // DocumentText, the UTF-8 reading of a note (DocumentObject does not re-export it).
                .product(name: "DocumentFormats", package: "ICTKit"),
            ]
        ),
    ]
)
