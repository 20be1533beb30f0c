import Foundation
import LiveQuery
import SystemPackage
import TestSupport
import Testing

/// Document kinds reach the query only through `MetadataDocumentKinds`: an
/// app's own kind names its packages and gives their display names, and a
/// query given no kinds reads nothing from any document. The expected names
/// are written by hand beside each case.
@Suite struct MetadataDocumentKindTests {
    /// A package kind of a test app: `.trip` folders, whose display name is
    /// the first line of their `title` entry (nil when it has none).
    struct TripKind: MetadataDocumentKind {
        var fileExtension: String { "trip" }
        var isPackage: Bool { true }
        func displayName(ofDocumentAt path: FilePath) -> String? {
            (try? String(contentsOfFile: path.string + "/title", encoding: .utf8))?.split(separator: "\n").first.map(String.init)
        }
        func thumbnailPNG(ofDocumentAt path: FilePath) -> Data? { try? Data(contentsOf: URL(fileURLWithPath: path.string + "/thumb.png")) }
    }

    /// A one-file kind that would rename every `.memo` file, to show that a
    /// kind is asked only about items of its shape (never about a folder).
    struct MemoKind: MetadataDocumentKind {
        var fileExtension: String { "MEMO" }
        var isPackage: Bool { false }
        func displayName(ofDocumentAt path: FilePath) -> String? { "memo at " + (path.lastComponent?.string ?? "") }
        func thumbnailPNG(ofDocumentAt path: FilePath) -> Data? { nil }
    }

    @Test func anAppsPackageKindIsAnItemWithTheNameItGives() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try scratch.write("Lisbon in May\nday 1", to: "scope/Holiday.TRIP/title")
        try scratch.write("PNG", to: "scope/Holiday.TRIP/thumb.png")
        try scratch.write("x", to: "scope/Untitled.trip/days")  // No title entry.
        try scratch.write("a", to: "scope/Plain/title")  // Not a package: searched as a folder.
        try scratch.write("b", to: "scope/Draft.memo")
        try scratch.write("c", to: "scope/Folder.memo/inside.txt")  // A folder named as a file kind: searched.
        let (query, _, gathering) = try startedQuery(scratch.at("scope"), kinds: MetadataDocumentKinds([TripKind(), MemoKind()]))
        defer { query.stop() }
        let items = try #require(gathering?.results)
        #expect(names(items) == ["Draft.memo", "Holiday.TRIP", "Untitled.trip", "inside.txt", "title"])
        #expect(items.map(\.displayName) == ["memo at Draft.memo", "Lisbon in May", "Untitled", "inside", "title"])
        #expect(items.map { $0.thumbnailPNG() } == [nil, Data("PNG".utf8), nil, nil, nil])
    }

    /// Without kinds (the default) a package the type registry knows is
    /// still an item, but nothing is read from it: an `.ict` shows its file
    /// name, whatever its metadata entry says, and has no thumbnail.
    @Test func aQueryWithoutKindsReadsNothingFromADocument() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try FileManager.default.copyItem(atPath: Repository.path("SampleDocs/Astronaut.ict"), toPath: scratch.at("scope/Renamed.ict"))
        try scratch.write("x", to: "scope/Holiday.trip/title")
        let (query, _, gathering) = try startedQuery(scratch.at("scope"), kinds: MetadataDocumentKinds())
        defer { query.stop() }
        let items = try #require(gathering?.results)
        // Holiday.trip is no package here: its entry is the item.
        #expect(names(items) == ["Renamed.ict", "title"])
        #expect(items[0].displayName == "Renamed" && items[0].thumbnailPNG() == nil)
    }

    @Test func theRegistryFindsAKindByExtensionInAnyCaseAndTheLaterRegistrationWins() {
        var kinds = MetadataDocumentKinds([MemoKind()])
        #expect(kinds.kind(forExtension: "memo")?.isPackage == false)
        #expect(kinds.kind(forExtension: "Memo") != nil && kinds.kind(forExtension: "trip") == nil)
        struct PackagedMemo: MetadataDocumentKind {
            var fileExtension: String { "memo" }
            var isPackage: Bool { true }
            func displayName(ofDocumentAt path: FilePath) -> String? { nil }
            func thumbnailPNG(ofDocumentAt path: FilePath) -> Data? { nil }
        }
        kinds.register(PackagedMemo())
        #expect(kinds.kind(forExtension: "MEMO")?.isPackage == true)
    }
}
