import Foundation
import PackageFormat
import SystemPackage
import TestSupport
import Testing

/// One entry of a hand-made zip: what an attacker can put in one.
struct CraftedEntry: Sendable {
    enum Kind: Sendable { case file, directory, symlink }
    var path: String
    var type = Kind.file
    var contents = "x"

    var zipKind: PythonZip.Kind {
        switch type {
        case .file: .file
        case .directory: .directory
        case .symlink: .symlink
        }
    }
}

/// Writes a zip holding exactly `entries`, paths as given (no checks), with Python's zipfile.
private func craftZip(_ path: String, _ entries: [CraftedEntry]) throws {
    try PythonZip.create(path, entries: entries.map { ($0.path, $0.zipKind, $0.contents) })
}

/// Makes the zip's records for `entryPath` declare `size` uncompressed
/// bytes: in the local header (offset 22) and the central directory record
/// (offset 24) that name it. What a zip bomb that lies about its size does.
func understateSize(of entryPath: String, in zip: String, as size: UInt32) throws {
    var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: zip)))
    let name = Array(entryPath.utf8)
    var patched = 0
    for offset in 0..<(bytes.count - 46 - name.count) where bytes[offset] == 0x50 && bytes[offset + 1] == 0x4B {
        let (headerSize, sizeField) =
            switch (bytes[offset + 2], bytes[offset + 3]) {
            case (3, 4): (30, 22)
            case (1, 2): (46, 24)
            default: (0, 0)
            }
        guard headerSize > 0, Array(bytes[offset + headerSize..<offset + headerSize + name.count]) == name else { continue }
        withUnsafeBytes(of: size.littleEndian) { bytes.replaceSubrange(offset + sizeField..<offset + sizeField + 4, with: $0) }
        patched += 1
    }
    #expect(patched == 2, "the local header and the central record of \(entryPath)")
    try Data(bytes).write(to: URL(fileURLWithPath: zip))
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
        #expect(error?.code == .unsafePath)
        #expect(error?.pathInPackage == path)
        #expect(error?.message.contains(reason) == true, "\(error?.message ?? "")")
        #expect(try snapshot(of: directory.path) == before)
        #expect(!FileManager.default.fileExists(atPath: directory.appending("escape")))
        #expect(!FileManager.default.fileExists(atPath: "/tmp/escape"))
    }

    @Test(arguments: [
        ([CraftedEntry(path: "P.ict/passwd", type: .symlink, contents: "/etc/passwd")], "absolute"),
        ([CraftedEntry(path: "P.ict/up", type: .symlink, contents: "../../outside")], "outside"),
        // One step up from the package's root: beside the restored package, not inside it.
        ([CraftedEntry(path: "P.ict/up", type: .symlink, contents: "../outside")], "outside"),
        (
            [
                CraftedEntry(path: "P.ict/here", type: .symlink, contents: "."),
                CraftedEntry(path: "P.ict/climb", type: .symlink, contents: "here/.."),
            ], "after a name"
        ),
    ])
    func refusesLinksPointingOutside(_ entries: [CraftedEntry], _ reason: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let zip = directory.appending("links.zip")
        try craftZip(zip, [CraftedEntry(path: "P.ict/data")] + entries)
        let error = packageError { _ = try PackageZipArchive.read(at: zip) }
        #expect(error?.code == .unsafePath)
        #expect(error?.message.contains(reason) == true, "\(error?.message ?? "")")
    }

    /// A link entry whose destination is empty, or holds a NUL byte (no
    /// path can), is refused naming the entry, and nothing is written.
    @Test(arguments: [("", "the link's destination is empty"), ("a\u{0}b", "the link's destination is not a path (it holds a NUL byte)")])
    func refusesALinkWhoseDestinationIsNoPath(_ destination: String, _ message: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let zip = directory.appending("bad-link.zip")
        try craftZip(zip, [CraftedEntry(path: "P.ict/data"), CraftedEntry(path: "P.ict/bad", type: .symlink, contents: destination)])
        let before = try Data(contentsOf: URL(fileURLWithPath: zip))
        let error = packageError { _ = try PackageZipArchive.read(at: zip) }
        #expect(error?.code == .unsafePath)
        #expect(error?.pathInPackage == "P.ict/bad", "\(error?.pathInPackage ?? "")")
        #expect(error?.message == message, "\(error?.message ?? "")")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["bad-link.zip"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: zip)) == before)
    }

    /// Writing refuses, naming the entry and before anything is written,
    /// every link that reading would refuse: each zip written reads back.
    @Test(arguments: [
        ("passwd", "/etc/passwd", "absolute"), ("up", "../outside", "outside"), ("Contents/up", "../../outside", "outside"),
        ("Contents/climb", "x/../..", "after a name"),
    ])
    func writingRefusesTheLinksReadingRefuses(_ name: String, _ destination: String, _ reason: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let source = directory.appending("P.ict")
        try writeFile(source + "/Contents/data", "data")
        try FileManager.default.createSymbolicLink(atPath: source + "/" + name, withDestinationPath: destination)
        let zip = directory.appending("P.zip")
        let error = packageError { try PackageZipArchive.write(try PackageWrapper(readingFrom: source), to: zip, rootName: "P.ict") }
        #expect(error?.code == .unsafePath)
        #expect(error?.pathInPackage == name)
        #expect(error?.fileSystemPath == FilePath(source))
        #expect(error?.message.contains(reason) == true, "\(error?.message ?? "")")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["P.ict"])
    }

    @Test func refusesAnEntryBelowALink() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let zip = directory.appending("through-link.zip")
        try craftZip(
            zip,
            [
                CraftedEntry(path: "P.ict/dir", type: .symlink, contents: "sub"),
                CraftedEntry(path: "P.ict/sub/", type: .directory),
                CraftedEntry(path: "P.ict/dir/file"),
            ])
        let error = packageError { _ = try PackageZipArchive.read(at: zip) }
        #expect(error?.code == .unsafePath)
        #expect(error?.pathInPackage == "P.ict/dir/file")
    }

    @Test func refusesDuplicateNamesAndLimits() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let zip = directory.appending("dup.zip")
        try craftZip(zip, [CraftedEntry(path: "P.ict/Data"), CraftedEntry(path: "P.ict/DATA")])
        #expect(packageError { _ = try PackageZipArchive.read(at: zip) }?.code == .duplicateName)
        let big = directory.appending("big.zip")
        try craftZip(big, [CraftedEntry(path: "P.ict/a", contents: String(repeating: "a", count: 100))])
        let error = packageError { _ = try PackageZipArchive.read(at: big, limits: .init(maximumTotalSize: 99)) }
        #expect(error?.code == .limitExceeded(.totalSize))
    }

    @Test func aFileThatIsNotAZipIsAnInvalidArchive() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try writeFile(directory.appending("not.zip"), "plain text")
        let error = packageError { _ = try PackageZipArchive.read(at: directory.appending("not.zip")) }
        #expect(error?.code == .invalidArchive)
        #expect(error?.fileSystemPath == FilePath(directory.appending("not.zip")))
    }

    /// A zip whose entry declares more than the per-entry limit: refused
    /// from the central directory, before a byte is inflated or written.
    @Test func refusesAnEntryDeclaredOverTheEntrySizeLimitAndLeavesTheTargetUnchanged() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let source = try PackageWrapper(directoryWithChildren: [
            "zeros": PackageWrapper(regularFileWithContents: Data(count: 1 << 20))
        ])
        let zip = directory.appending("Bomb.zip")
        try PackageZipArchive.write(source, to: zip, rootName: "Bomb.ict")
        let zipSize = try #require(try FileManager.default.attributesOfItem(atPath: zip)[.size] as? Int)
        #expect(zipSize < 8192, "1 MB of zeros deflates to a few KB")
        let target = directory.appending("Bomb.ict")
        try writeFile(target + "/old", "kept")
        let before = try snapshot(of: directory.path)

        let limits = DocumentPackageLimits(maximumEntrySize: 64 << 10)
        let error = packageError { try PackageZipArchive.read(at: zip, limits: limits).save(to: target) }
        #expect(error?.code == .limitExceeded(.entrySize))
        #expect(error?.pathInPackage == "Bomb.ict/zeros")
        #expect(error?.fileSystemPath == FilePath(zip))
        #expect(error?.message == "the zip entry declares 1048576 bytes, over the limit of 65536 per entry", "\(error?.message ?? "")")
        #expect(try snapshot(of: directory.path) == before)
        // Within the limit, the same zip restores.
        try PackageZipArchive.read(at: zip, limits: DocumentPackageLimits(maximumEntrySize: 1 << 20))
            .save(to: directory.appending("Restored.ict"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.appending("Restored.ict/zeros"))) == Data(count: 1 << 20))
    }

    /// The declared size is a claim: an entry that inflates to more is
    /// stopped while saving, and the half-written package is removed.
    @Test func refusesAnEntryThatInflatesToMoreThanItDeclaresAndLeavesNothing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let source = try PackageWrapper(directoryWithChildren: [
            "a.txt": PackageWrapper(regularFileWithContents: Data("first".utf8)),
            "zeros": PackageWrapper(regularFileWithContents: Data(count: 4 << 20)),
        ])
        let zip = directory.appending("Liar.zip")
        try PackageZipArchive.write(source, to: zip, rootName: "Liar.ict")
        try understateSize(of: "Liar.ict/zeros", in: zip, as: 1000)
        let before = try snapshot(of: directory.path)

        let package = try PackageZipArchive.read(at: zip, limits: DocumentPackageLimits(maximumTotalSize: 4096, maximumEntrySize: 1000))
        #expect(package.child(named: "zeros")?.fileSize == 1000)
        let target = directory.appending("Liar.ict")
        let error = packageError { try package.save(to: target) }
        #expect(error?.code == .invalidArchive)
        #expect(error?.pathInPackage == "Liar.ict/zeros")
        #expect(error?.message == "the zip entry holds more bytes than the 1000 it declares", "\(error?.message ?? "")")
        #expect(try snapshot(of: directory.path) == before, "no package, no temporary")
        #expect(packageError { _ = try package.child(named: "zeros")!.contents() }?.code == .invalidArchive)
    }

    @Test func refusesAnEntryWhoseBytesDoNotMatchTheirChecksum() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let source = try PackageWrapper(directoryWithChildren: ["note.txt": PackageWrapper(regularFileWithContents: Data("abc".utf8))])
        let zip = directory.appending("Flip.zip")
        try PackageZipArchive.write(source, to: zip, rootName: "Flip.ict")
        // "abc" does not deflate smaller, so it is stored as is: change one of its bytes.
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: zip)))
        let at = try #require(bytes.indices.first { bytes[$0...].starts(with: Array("abc".utf8)) })
        bytes[at] = UInt8(ascii: "x")
        try Data(bytes).write(to: URL(fileURLWithPath: zip))
        let error = packageError { try PackageZipArchive.read(at: zip).save(to: directory.appending("Flip.ict")) }
        #expect(error?.code == .invalidArchive)
        #expect(error?.pathInPackage == "Flip.ict/note.txt")
        #expect(error?.message.contains("checksum") == true, "\(error?.message ?? "")")
        #expect(!FileManager.default.fileExists(atPath: directory.appending("Flip.ict")))
    }

    /// A package with exactly as many entries and levels as the limits
    /// allow is zipped and restored with those limits; one entry more is
    /// refused when zipping, and no zip is left.
    @Test func restoresItsOwnZipOfAPackageAtTheLimits() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let limits = DocumentPackageLimits(maximumEntryCount: 40, maximumDepth: 3)
        let source = directory.appending("Full.ict")
        // 3 nested directories, then 37 files: 40 entries, 3 levels.
        for index in 0..<37 {
            try writeFile(source + "/a/b/c/file-\(index).txt", "entry \(index)")
        }
        let zip = directory.appending("Full.zip")
        try PackageZipArchive.write(
            try PackageWrapper(readingFrom: source, limits: limits), to: zip, rootName: "Full.ict",
            limits: limits)
        let restored = directory.appending("Restored.ict")
        try PackageZipArchive.read(at: zip, limits: limits).save(to: restored)
        #expect(try snapshot(of: restored) == snapshot(of: source))

        try writeFile(source + "/one-more.txt", "over")
        let package = try PackageWrapper(readingFrom: source)
        let bigZip = directory.appending("Over.zip")
        let error = packageError { try PackageZipArchive.write(package, to: bigZip, rootName: "Full.ict", limits: limits) }
        #expect(error?.code == .limitExceeded(.entryCount))
        #expect(error?.fileSystemPath == FilePath(source))
        #expect(error?.message == "the package has more than 40 entries; a zip of it could not be read back", "\(error?.message ?? "")")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["Full.ict", "Full.zip", "Restored.ict"])
    }

    /// A zip with more than 65,535 entries needs ZIP64 end records; the
    /// writer makes them and the reader reads them (and so does Python's zipfile).
    @Test func aZipOfMoreThan65535EntriesUsesZip64EndRecords() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let root = try PackageWrapper(directoryWithChildren: [:])
        for group in 0..<66 {
            var children: [String: PackageWrapper] = [:]
            for index in 0..<1000 {
                children["f\(index)"] = PackageWrapper(regularFileWithContents: Data())
            }
            try root.addChild(try PackageWrapper(directoryWithChildren: children), named: "g\(group)")
        }
        let zip = directory.appending("Many.zip")
        try PackageZipArchive.write(root, to: zip, rootName: "Many.pkg")
        let restored = try PackageZipArchive.read(at: zip)
        #expect(restored.children.count == 66)
        #expect(restored.child(named: "g65")?.children.count == 1000)
        #expect(try PythonZip.entries(of: zip).count == 66 * 1001 + 1)
    }

    /// An end record that declares one entry more than the central
    /// directory holds: refused as a whole, not read as far as it goes.
    @Test func refusesACentralDirectoryShorterThanItsEndRecordSays() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let source = try PackageWrapper(directoryWithChildren: [
            "a.txt": PackageWrapper(regularFileWithContents: Data("a".utf8)),
            "b.txt": PackageWrapper(regularFileWithContents: Data("b".utf8)),
        ])
        let zip = directory.appending("Short.zip")
        try PackageZipArchive.write(source, to: zip, rootName: "Short.ict")
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: zip)))
        // The end record is the last 22 bytes: its two entry counts (offsets 8 and 10) say 3; make them 4.
        let end = bytes.count - 22
        #expect(bytes[end + 8] == 3 && bytes[end + 10] == 3)
        bytes[end + 8] = 4
        bytes[end + 10] = 4
        try Data(bytes).write(to: URL(fileURLWithPath: zip))
        let error = packageError { _ = try PackageZipArchive.read(at: zip) }
        #expect(error?.code == .invalidArchive)
        #expect(error?.fileSystemPath == FilePath(zip))
        #expect(error?.message.hasPrefix("not a readable zip archive") == true, "\(error?.message ?? "")")
    }
}

/// Found by the zip fuzz target (out of memory, with ZIPFoundation): a link
/// whose local header declares 0xFFFFFF0D bytes (the central directory says
/// 13). ICTKit's own zip reader checks a link's declared size against the
/// longest destination before it reads anything, so the zip is refused at
/// once (`ict` peaks at about 24 MB on it, measured with /usr/bin/time).
@Test func refusesALinkWhoseLocalHeaderDeclaresFourGigabytes() throws {
    let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/fuzz/oom-symlink-local-header-size.zip")
    let error = #expect(throws: DocumentPackageError.self) {
        try PackageZipArchive.read(at: fixture.path).save(to: ScratchFolder.filePath("oom", extension: "pkg"))
    }
    #expect(error?.message == "the link's destination is longer than 4096 bytes", "\(String(describing: error))")
}
