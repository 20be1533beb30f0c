import DocumentPackage
import Foundation
import Testing
import ZIPFoundation

/// One entry of a hand-made zip: what an attacker can put in one.
struct CraftedEntry: Sendable {
    enum Kind: Sendable { case file, directory, symlink }
    var path: String
    var type = Kind.file
    var contents = "x"

    var entryType: Entry.EntryType {
        switch type {
        case .file: .file
        case .directory: .directory
        case .symlink: .symlink
        }
    }
}

/// Writes a zip holding exactly `entries`, paths as given (no checks).
private func craftZip(_ path: String, _ entries: [CraftedEntry]) throws {
    let archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .create)
    for entry in entries {
        let bytes = Data(entry.contents.utf8)
        try archive.addEntry(with: entry.path, type: entry.entryType, uncompressedSize: Int64(entry.type == .directory ? 0 : bytes.count),
                             provider: { (position: Int64, count: Int) in bytes.subdata(in: Int(position)..<Int(position) + count) })
    }
}

struct PackageZipArchiveTests {
    @Test func aPackageRoundTripsThroughAZip() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let source = directory.appending("Friend.ict")
        try writeFile(source + "/ctdocument.data", String(repeating: "data ", count: 10_000))
        try writeFile(source + "/Contents/Resources/x.nib", "nib", permissions: 0o444)
        try writeFile(source + "/Contents/tool", "#!/bin/sh", permissions: 0o755)
        try FileManager.default.createSymbolicLink(atPath: source + "/alias", withDestinationPath: "Contents/Resources/x.nib")
        try FileManager.default.createSymbolicLink(atPath: source + "/Contents/up", withDestinationPath: "../ctdocument.data")
        try FileManager.default.createDirectory(atPath: source + "/Empty", withIntermediateDirectories: false)
        let zip = directory.appending("Friend.zip")
        try PackageZipArchive.write(try PackageWrapper(readingFrom: source), to: zip, rootName: "Friend.ict")

        let restored = try PackageZipArchive.read(at: zip)
        #expect(restored.preferredFileName == "Friend.ict")
        let target = directory.appending("Restored.ict")
        try restored.save(to: target, options: PackageSaveOptions(replacingExisting: false))
        #expect(try snapshot(of: target) == snapshot(of: source))
    }

    @Test func aZipWithoutOneTopLevelPackageIsThePackageItself() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let zip = directory.appending("loose.zip")
        try craftZip(zip, [CraftedEntry(path: "a.txt"), CraftedEntry(path: "b/c.txt")])
        let package = try PackageZipArchive.read(at: zip)
        #expect(package.preferredFileName == nil)
        #expect(package.children.map(\.fileName) == ["a.txt", "b"])
    }

    @Test(arguments: [
        ("../escape", "\"..\""),
        ("Friend.ict/../../escape", "\"..\""),
        ("/tmp/escape", "absolute"),
        ("..\\escape", "backslash"),
        ("C:/escape", "drive letter"),
    ])
    func refusesEntriesThatLeaveTheTargetAndWritesNothing(_ path: String, _ reason: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try FileManager.default.createDirectory(atPath: directory.appending("work"), withIntermediateDirectories: false)
        let zip = directory.appending("work/evil.zip")
        try craftZip(zip, [CraftedEntry(path: "Friend.ict/ctdocument.data"), CraftedEntry(path: path, contents: "pwned")])
        let before = try snapshot(of: directory.path)
        let error = packageError { _ = try PackageZipArchive.read(at: zip) }
        #expect(error?.kind == .unsafePath)
        #expect(error?.pathInPackage == path)
        #expect(error?.message.contains(reason) == true, "\(error?.message ?? "")")
        #expect(try snapshot(of: directory.path) == before)
        #expect(!FileManager.default.fileExists(atPath: directory.appending("escape")))
        #expect(!FileManager.default.fileExists(atPath: "/tmp/escape"))
    }

    @Test(arguments: [
        ([CraftedEntry(path: "P.ict/passwd", type: .symlink, contents: "/etc/passwd")], "absolute"),
        ([CraftedEntry(path: "P.ict/up", type: .symlink, contents: "../../outside")], "outside"),
        ([CraftedEntry(path: "P.ict/here", type: .symlink, contents: "."),
          CraftedEntry(path: "P.ict/climb", type: .symlink, contents: "here/..")], "after a name"),
    ])
    func refusesLinksPointingOutside(_ entries: [CraftedEntry], _ reason: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let zip = directory.appending("links.zip")
        try craftZip(zip, [CraftedEntry(path: "P.ict/data")] + entries)
        let error = packageError { _ = try PackageZipArchive.read(at: zip) }
        #expect(error?.kind == .unsafePath)
        #expect(error?.message.contains(reason) == true, "\(error?.message ?? "")")
    }

    @Test func refusesAnEntryBelowALink() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let zip = directory.appending("through-link.zip")
        try craftZip(zip, [
            CraftedEntry(path: "P.ict/dir", type: .symlink, contents: "sub"),
            CraftedEntry(path: "P.ict/sub/", type: .directory),
            CraftedEntry(path: "P.ict/dir/file"),
        ])
        let error = packageError { _ = try PackageZipArchive.read(at: zip) }
        #expect(error?.kind == .unsafePath)
        #expect(error?.pathInPackage == "P.ict/dir/file")
    }

    @Test func refusesDuplicateNamesAndLimits() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let zip = directory.appending("dup.zip")
        try craftZip(zip, [CraftedEntry(path: "P.ict/Data"), CraftedEntry(path: "P.ict/DATA")])
        #expect(packageError { _ = try PackageZipArchive.read(at: zip) }?.kind == .duplicateName)
        let big = directory.appending("big.zip")
        try craftZip(big, [CraftedEntry(path: "P.ict/a", contents: String(repeating: "a", count: 100))])
        let error = packageError { _ = try PackageZipArchive.read(at: big, limits: .init(maximumTotalSize: 99)) }
        #expect(error?.kind == .limitExceeded(.totalSize))
    }

    @Test func aFileThatIsNotAZipIsAnInvalidArchive() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try writeFile(directory.appending("not.zip"), "plain text")
        let error = packageError { _ = try PackageZipArchive.read(at: directory.appending("not.zip")) }
        #expect(error?.kind == .invalidArchive)
        #expect(error?.fileSystemPath == directory.appending("not.zip"))
    }
}

/// Found by the zip fuzz target (out of memory): a link whose local header
/// declares 0xFFFFFF0D bytes (the central directory says 13). The zip is
/// refused, but only after ZIPFoundation has allocated 4 GB for the link,
/// which the fuzzer's malloc limit catches and this test cannot see: it is a
/// known issue until the local header's size is checked before extracting.
@Test func refusesALinkWhoseLocalHeaderDeclaresFourGigabytes() throws {
    let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/fuzz/oom-symlink-local-header-size.zip")
    #expect(throws: DocumentPackageError.self) { try PackageZipArchive.read(at: fixture.path) }
    withKnownIssue("ZIPFoundation allocates the local header's 4 GB before the zip is refused") {
        Issue.record("the link's local header size is not checked before ZIPFoundation reads it")
    }
}
