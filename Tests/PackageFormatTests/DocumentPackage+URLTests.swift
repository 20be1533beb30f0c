import Foundation
import PackageFormat
import SystemPackage
import TestSupport
import Testing

/// The `URL` and `FilePath` forms of reading, saving and zipping packages,
/// on a copy of the sample document `SampleDocs/Chelsea.ict` under a folder
/// whose name holds a space and a literal `%20`, named `Ünïcode copy.ict`:
/// the same trees as the `String` forms, the names and sizes the file system
/// reports, and errors that name what was asked for.
struct DocumentPackageURLTests {
    static let sample = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("SampleDocs/Chelsea.ict")

    /// A scratch folder `url overloads %20 XXXXXX` holding a copy of the sample as `Ünïcode copy.ict`.
    struct Scratch {
        let directory: TemporaryDirectory
        let folder: String
        var package: String { folder + "/Ünïcode copy.ict" }
        var packageURL: URL { URL(fileURLWithPath: package) }

        init() throws {
            directory = try TemporaryDirectory()
            // NSTemporaryDirectory() ends in `/`: no `//`, which a URL would collapse.
            folder = directory.appending("url overloads %20").replacingOccurrences(of: "//", with: "/")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: sample.path, toPath: package)
        }
    }

    /// Each file's name and size, from the file system.
    static func listing(of directory: String) throws -> [String: Int64] {
        var result: [String: Int64] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
            let size = try FileManager.default.attributesOfItem(atPath: directory + "/" + name)[.size] as? Int
            result[name] = Int64(try #require(size))
        }
        return result
    }

    /// Each child's name and size, from the wrapper.
    static func listing(of package: PackageWrapper) -> [String: Int64] {
        Dictionary(uniqueKeysWithValues: package.children.map { ($0.fileName!, $0.fileSize ?? -1) })
    }

    @Test func readingFromURLAndFilePathMatchesPathAndFileSystem() throws {
        let scratch = try Scratch()
        defer { scratch.directory.remove() }
        let expected = try Self.listing(of: scratch.package)
        #expect(expected.keys.sorted() == ["ctdocument.data", "ctdocument.metadata"])
        let byPath = try PackageWrapper(readingFrom: scratch.package)
        #expect(Self.listing(of: byPath) == expected)
        for package in [try PackageWrapper(readingFrom: scratch.packageURL), try PackageWrapper(readingFrom: FilePath(scratch.package))] {
            #expect(package.fileName == "Ünïcode copy.ict")
            #expect(Self.listing(of: package) == expected)
            #expect(try package.child(named: "ctdocument.metadata")!.contents() == (try byPath.child(named: "ctdocument.metadata")!.contents()))
        }
    }

    @Test func readingFromAPercentEncodedURLString() throws {
        let scratch = try Scratch()
        defer { scratch.directory.remove() }
        // Spelled out by hand: `%` as `%25`, spaces as `%20`, Ü and ï in UTF-8.
        let text = "file://" + scratch.folder.dropLast("/url overloads %20".count) + "/url%20overloads%20%2520/%C3%9Cn%C3%AFcode%20copy.ict"
        let package = try PackageWrapper(readingFrom: try #require(URL(string: text)))
        #expect(Self.listing(of: package) == (try Self.listing(of: scratch.package)))
    }

    @Test func savingToURLAndFilePathWritesTheSameTree() throws {
        let scratch = try Scratch()
        defer { scratch.directory.remove() }
        let original = try snapshot(of: scratch.package)
        let package = try PackageWrapper(readingFrom: scratch.packageURL)
        let byURL = scratch.folder + "/Saved by URL ü.ict"
        try package.save(to: URL(fileURLWithPath: byURL))
        #expect(try snapshot(of: byURL) == original)
        let byFilePath = scratch.folder + "/Saved by FilePath ü.ict"
        try package.save(to: FilePath(byFilePath))
        #expect(try snapshot(of: byFilePath) == original)
    }

    @Test func zipWrittenAndReadByURLAndFilePath() throws {
        let scratch = try Scratch()
        defer { scratch.directory.remove() }
        let package = try PackageWrapper(readingFrom: scratch.packageURL)
        let zip = scratch.folder + "/Ünïcode copy.zip"
        try PackageZipArchive.write(package, to: URL(fileURLWithPath: zip), rootName: "Ünïcode copy.ict")
        // Python's zipfile as the outside reader: names and sizes as the file system gave them.
        let script = "import sys, zipfile; [print(i.filename, i.file_size) for i in zipfile.ZipFile(sys.argv[1]).infolist() if not i.is_dir()]"
        let listed = try runPython(script, zip).split(separator: "\n").sorted()
        let expected = try Self.listing(of: scratch.package).map { "Ünïcode copy.ict/\($0.key) \($0.value)" }.sorted()
        #expect(listed.map(String.init) == expected)
        let byPath = try PackageZipArchive.read(at: zip)
        for read in [try PackageZipArchive.read(at: URL(fileURLWithPath: zip)), try PackageZipArchive.read(at: FilePath(zip))] {
            #expect(Self.listing(of: read) == Self.listing(of: byPath))
            #expect(Self.listing(of: read) == (try Self.listing(of: scratch.package)))
        }
        let secondZip = scratch.folder + "/second.zip"
        try PackageZipArchive.write(package, to: FilePath(secondZip), rootName: "x.ict")
        #expect(Self.listing(of: try PackageZipArchive.read(at: secondZip)) == Self.listing(of: byPath))
    }

    @Test func originalContentsURLLinksUnchangedFiles() throws {
        let scratch = try Scratch()
        defer { scratch.directory.remove() }
        var options = PackageSaveOptions()
        // Spelled out by hand: `%` as `%25`, spaces as `%20`, Ü and ï in UTF-8.
        let text = "file://" + scratch.folder.dropLast("/url overloads %20".count) + "/url%20overloads%20%2520/%C3%9Cn%C3%AFcode%20copy.ict"
        let url = try #require(URL(string: text))
        options.originalContentsURL = url
        #expect(options.originalContentsPath == FilePath(scratch.package))
        #expect(options.originalContentsURL == URL(fileURLWithPath: scratch.package, isDirectory: true))
        let copy = scratch.folder + "/Linked copy.ict"
        try PackageWrapper(readingFrom: scratch.packageURL).save(to: URL(fileURLWithPath: copy), options: options)
        // Hard-linked: the same inode as the original's file, by lstat.
        #expect(inode(copy + "/ctdocument.data") == inode(scratch.package + "/ctdocument.data"))
        options.originalContentsURL = nil
        #expect(options.originalContentsPath == nil)
    }

    @Test func nonFileOriginalContentsURLIsAPreconditionFailure() async {
        await #expect(processExitsWith: .failure) {
            var options = PackageSaveOptions()
            options.originalContentsURL = URL(string: "https://example.com/Old.ict")
        }
    }

    @Test func missingPackageErrorNamesThePath() throws {
        let scratch = try Scratch()
        defer { scratch.directory.remove() }
        let missing = scratch.folder + "/Nöt here.ict"
        for attempt in [
            { _ = try PackageWrapper(readingFrom: URL(fileURLWithPath: missing)) },
            { _ = try PackageWrapper(readingFrom: FilePath(missing)) },
            { _ = try PackageZipArchive.read(at: URL(fileURLWithPath: missing)) },
            { _ = try PackageZipArchive.read(at: FilePath(missing)) },
        ] as [() throws -> Void] {
            let error = try #require(packageError(attempt))
            #expect(error.fileSystemPath == FilePath(missing), "\(error)")
        }
    }

    /// The `FilePath` forms name a package whose name is not UTF-8 (`bad` 0xFF `.ict`) byte for byte, not with
    /// U+FFFD in its place: Python makes it and lists what was saved and zipped by the bytes of its names.
    @Test func filePathFormsNameAPackageThatIsNotUTF8ByteForByte() throws {
        let scratch = try Scratch()
        defer { scratch.directory.remove() }
        let folderBytes = Array(scratch.folder.utf8) + [UInt8(ascii: "/")]
        func filePath(_ name: [UInt8]) -> FilePath {
            FilePath(platformString: (folderBytes + name).map { CChar(bitPattern: $0) } + [0])
        }
        _ = try runPython(
            "import os, shutil, sys; f = os.fsencode(sys.argv[1]); shutil.copytree(f + '/\u{00DC}n\u{00EF}code copy.ict'.encode(), f + b'/bad\\xff.ict')",
            scratch.folder)
        let bad = filePath(Array("bad".utf8) + [0xFF] + Array(".ict".utf8))
        let package = try PackageWrapper(readingFrom: bad)
        #expect(Self.listing(of: package) == (try Self.listing(of: scratch.package)))
        #expect(try PackageManifest.read(fromPackageAt: bad) == nil)  // The sample was saved without a manifest.
        let entry = try #require(try PackageManifest.entryOnDisk(bad.appending("ctdocument.data"), pathInPackage: "ctdocument.data", digesting: false))
        #expect(entry.size == (try Self.listing(of: scratch.package))["ctdocument.data"])
        let saved = filePath(Array("saved".utf8) + [0xFE] + Array(".ict".utf8))
        try package.save(to: saved)
        // The save writes a manifest listing the two entries; both readers find it by the package's bytes.
        #expect(try #require(try PackageManifest.read(fromPackageAt: saved)).entries.keys.sorted() == ["ctdocument.data", "ctdocument.metadata"])
        #expect(try PackageManifest.read(fromPackageAt: saved, pathInPackage: ".ictkit-manifest.plist") != nil)
        try PackageZipArchive.write(package, to: filePath(Array("zipped".utf8) + [0xFD] + Array(".zip".utf8)), rootName: "x.ict")
        let zipped = try PackageZipArchive.read(at: filePath(Array("zipped".utf8) + [0xFD] + Array(".zip".utf8)))
        #expect(zipped.preferredFileName == "x.ict")
        #expect(Self.listing(of: zipped) == Self.listing(of: package))
        let listed = try runPython(
            "import os, sys; f = os.fsencode(sys.argv[1]); print(sorted(n.hex() for n in os.listdir(f)), sorted(os.listdir(f + b'/saved\\xfe.ict')))",
            scratch.folder)
        // "bad" ff ".ict", "saved" fe ".ict", "zipped" fd ".zip" and the sample, in hexadecimal by hand.
        let sample = Array("Ünïcode copy.ict".utf8).map { String(format: "%02x", $0) }.joined()
        let names = ["626164ff2e696374", "7361766564fe2e696374", sample, "7a6970706564fd2e7a6970"]
        let expected = "[" + names.sorted().map { "'\($0)'" }.joined(separator: ", ") + "]"
        #expect(listed == expected + " [b'.ictkit-manifest.plist', b'ctdocument.data', b'ctdocument.metadata']\n")
    }

    /// `descendant(at:)` steps through a `FilePath`'s components, as the package's folders are.
    @Test func descendantAtFilePathStepsThroughFolders() throws {
        let leaf = PackageWrapper(regularFileWithContents: Data("x".utf8))
        let resources = try PackageWrapper(directoryWithChildren: ["x.nib": leaf])
        let package = try PackageWrapper(directoryWithChildren: ["Contents": try PackageWrapper(directoryWithChildren: ["Resources": resources])])
        #expect(package.descendant(at: "Contents/Resources/x.nib") === leaf)
        #expect(package.descendant(at: "Contents/Missing/x.nib") == nil)
        #expect(package.descendant(at: "Contents/Resources/x.nib/deeper") == nil)
        #expect(package.descendant(at: "") === package)
    }

    @Test func nonFileURLIsRefusedNamingIt() throws {
        let scratch = try Scratch()
        defer { scratch.directory.remove() }
        let url = try #require(URL(string: "https://example.com/Chelsea.ict"))
        let package = try PackageWrapper(readingFrom: scratch.package)
        let before = try FileManager.default.contentsOfDirectory(atPath: scratch.folder)
        for attempt in [
            { _ = try PackageWrapper(readingFrom: url) }, { try package.save(to: url) },
            { try PackageZipArchive.write(package, to: url, rootName: "Chelsea.ict") },
            { _ = try PackageZipArchive.read(at: url) },
        ] as [() throws -> Void] {
            let error = try #require(packageError(attempt))
            #expect(error.code == .io)
            #expect(error.fileSystemPath == "https://example.com/Chelsea.ict")
            #expect(error.description == "https://example.com/Chelsea.ict: not a file URL")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.folder) == before)
    }
}

/// What `python3 -c script argument` prints; fails the test when Python fails.
private func runPython(_ script: String, _ argument: String) throws -> String {
    try PythonScript.text(script, arguments: [argument])
}
