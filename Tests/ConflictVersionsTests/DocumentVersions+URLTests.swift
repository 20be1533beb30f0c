import ConflictVersions
import Foundation
import SystemPackage
import Testing

/// The `URL` and `FilePath` forms of finding, fingerprinting, replacing and
/// removing versions, on copies of the sample documents: `Ünïcode copy.ict`
/// (Chelsea) and a Syncthing conflict copy of it (Coffee), in a folder whose
/// name holds a space and a literal `%20`. Results are checked against the
/// `String` forms and against the file system.
struct DocumentVersionsURLTests {
    static let sampleDocs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("SampleDocs")
    static let conflictName = "Ünïcode copy.sync-conflict-20261123-101500-ABCDEF7.ict"

    struct Scratch {
        let directory: TemporaryDirectory
        let folder: String
        var document: String { folder + "/Ünïcode copy.ict" }
        var conflict: String { folder + "/" + DocumentVersionsURLTests.conflictName }
        var documentURL: URL { URL(fileURLWithPath: document) }

        init() throws {
            directory = try TemporaryDirectory()
            // NSTemporaryDirectory() ends in `/`: no `//`, which a URL would collapse.
            folder = directory.appending("url overloads %20").replacingOccurrences(of: "//", with: "/")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: sampleDocs.appendingPathComponent("Chelsea.ict").path, toPath: document)
            try FileManager.default.copyItem(atPath: sampleDocs.appendingPathComponent("Coffee.ict").path, toPath: conflict)
        }
    }

    /// The bytes of `entry` in the package at `path`, read by Foundation.
    static func entry(_ entry: String, of path: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: path + "/" + entry))
    }

    @Test func currentVersionByURLAndFilePathMatchesPathAndFileSystem() throws {
        // A directory's URL, built by Foundation from the file system (trailing slash).
        #expect(URL(fileURLWithPath: Self.sampleDocs.path + "/Chelsea.ict").hasDirectoryPath)
        let scratch = try Scratch()
        defer { scratch.directory.remove() }
        let attributes = try FileManager.default.attributesOfItem(atPath: scratch.document)
        let byPath = try DocumentVersion.currentVersionOfItem(at: scratch.document)
        for version in [
            try DocumentVersion.currentVersionOfItem(at: scratch.documentURL),
            try DocumentVersion.currentVersionOfItem(at: FilePath(scratch.document)),
        ] {
            #expect(version.path == byPath.path && version.path == FilePath(scratch.document))
            #expect(version.url == scratch.documentURL && version.itemURL == scratch.documentURL)
            #expect(version.url.hasDirectoryPath)
            #expect(version.isDirectory == (attributes[.type] as? FileAttributeType == .typeDirectory))
            let modified = try #require(attributes[.modificationDate] as? Date)
            #expect(abs(try #require(version.modificationDate).timeIntervalSince(modified)) < 0.001)
        }
    }

    @Test func otherVersionsAndFingerprintByURLAndFilePathMatchPath() throws {
        let scratch = try Scratch()
        defer { scratch.directory.remove() }
        let byPath = try DocumentVersion.otherVersionsOfItem(at: scratch.document)
        #expect(byPath.map(\.path) == [FilePath(scratch.conflict)])
        for versions in [
            try DocumentVersion.otherVersionsOfItem(at: scratch.documentURL),
            try DocumentVersion.otherVersionsOfItem(at: FilePath(scratch.document)),
            try DocumentVersion.unresolvedConflictVersionsOfItem(at: scratch.documentURL),
            try DocumentVersion.unresolvedConflictVersionsOfItem(at: FilePath(scratch.document)),
        ] {
            #expect(versions.map(\.path) == byPath.map(\.path))
            #expect(versions.map(\.url) == [URL(fileURLWithPath: scratch.conflict, isDirectory: true)])
            #expect(versions.map(\.localizedNameOfSavingComputer) == ["ABCDEF7"])
        }
        let fingerprint = try VersionFingerprint.ofItem(at: scratch.document)
        #expect(try VersionFingerprint.ofItem(at: scratch.documentURL) == fingerprint)
        #expect(try VersionFingerprint.ofItem(at: FilePath(scratch.document)) == fingerprint)
    }

    @Test func percentEncodedURLStringFindsTheSameVersions() throws {
        let scratch = try Scratch()
        defer { scratch.directory.remove() }
        // Spelled out by hand: `%` as `%25`, spaces as `%20`, Ü and ï in UTF-8.
        let text = "file://" + scratch.folder.dropLast("/url overloads %20".count) + "/url%20overloads%20%2520/%C3%9Cn%C3%AFcode%20copy.ict"
        let url = try #require(URL(string: text))
        #expect(try DocumentVersion.otherVersionsOfItem(at: url).map(\.path) == [FilePath(scratch.conflict)])
        #expect(try VersionFingerprint.ofItem(at: url) == (try VersionFingerprint.ofItem(at: scratch.document)))
    }

    @Test func replaceByURLCopiesAndByFilePathMoves() throws {
        let scratch = try Scratch()
        defer { scratch.directory.remove() }
        let coffeeData = try Self.entry("ctdocument.data", of: Self.sampleDocs.appendingPathComponent("Coffee.ict").path)
        #expect(try Self.entry("ctdocument.data", of: scratch.document) != coffeeData)
        let version = try #require(try DocumentVersion.otherVersionsOfItem(at: scratch.documentURL).first)
        #expect(try version.replaceItem(at: scratch.documentURL) == scratch.documentURL)
        #expect(try Self.entry("ctdocument.data", of: scratch.document) == coffeeData)
        #expect(FileManager.default.fileExists(atPath: scratch.conflict))
        try version.replaceItem(at: FilePath(scratch.document), options: .byMoving)
        #expect(version.isResolved)
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.folder).sorted() == ["Ünïcode copy.ict"])
    }

    @Test func removeOtherVersionsByURLAndFilePath() throws {
        for useURL in [true, false] {
            let scratch = try Scratch()
            defer { scratch.directory.remove() }
            if useURL {
                try DocumentVersion.removeOtherVersionsOfItem(at: scratch.documentURL)
            } else {
                try DocumentVersion.removeOtherVersionsOfItem(at: FilePath(scratch.document))
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.folder).sorted() == ["Ünïcode copy.ict"])
        }
    }

    @Test func missingItemErrorNamesThePath() throws {
        let scratch = try Scratch()
        defer { scratch.directory.remove() }
        let missing = scratch.folder + "/Nöt here.ict"
        for attempt in [
            { _ = try DocumentVersion.currentVersionOfItem(at: URL(fileURLWithPath: missing)) },
            { _ = try DocumentVersion.otherVersionsOfItem(at: FilePath(missing)) },
            { _ = try VersionFingerprint.ofItem(at: URL(fileURLWithPath: missing)) },
        ] as [() throws -> Void] {
            let error = try #require(throws: DocumentVersionError.self, performing: attempt)
            #expect(error.code == .notFound)
            #expect(error.path == FilePath(missing))
        }
    }

    @Test func nonFileURLIsRefusedNamingIt() throws {
        let scratch = try Scratch()
        defer { scratch.directory.remove() }
        let url = try #require(URL(string: "https://example.com/Chelsea%20copy.ict"))
        let version = try #require(try DocumentVersion.otherVersionsOfItem(at: scratch.document).first)
        for attempt in [
            { _ = try DocumentVersion.currentVersionOfItem(at: url) },
            { _ = try DocumentVersion.otherVersionsOfItem(at: url) },
            { _ = try DocumentVersion.unresolvedConflictVersionsOfItem(at: url) },
            { _ = try version.replaceItem(at: url) },
            { try DocumentVersion.removeOtherVersionsOfItem(at: url) },
            { _ = try VersionFingerprint.ofItem(at: url) },
        ] as [() throws -> Void] {
            let error = try #require(throws: DocumentVersionError.self, performing: attempt)
            #expect(error.code == .io)
            #expect(error.pathText == url.absoluteString)
            #expect(error.message == "not a file URL")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.folder).count == 2)
    }
}
