import AppleCompatibility
import Foundation
import Testing

#if !canImport(Darwin)
import PackageFormat
#endif

/// `FileWrapper` against Apple's documentation of each member.
struct FileWrapperTests {
    private func makePackage(in directory: TemporaryDirectory, _ files: [String: String]) throws -> URL {
        let package = directory.url.appendingPathComponent("Doc.pkg")
        for (name, text) in files {
            let url = package.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        return package
    }

    // MARK: Kinds and contents

    @Test func readsADirectoryWithItsFilesFoldersAndLinks() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let package = try makePackage(in: directory, ["a.txt": "A", "Sub/b.txt": "B"])
        try FileManager.default.createSymbolicLink(atPath: package.path + "/link", withDestinationPath: "Sub/b.txt")

        let wrapper = try FileWrapper(url: package)
        #expect(wrapper.isDirectory && !wrapper.isRegularFile && !wrapper.isSymbolicLink)
        #expect(wrapper.filename == "Doc.pkg")
        #expect(wrapper.regularFileContents == nil)
        let children = try #require(wrapper.fileWrappers)
        #expect(children.keys.sorted() == ["Sub", "a.txt", "link"])
        #expect(children["a.txt"]?.regularFileContents == Data("A".utf8))
        #expect(children["a.txt"]?.filename == "a.txt")
        #expect(children["a.txt"]?.preferredFilename == "a.txt")
        #expect(children["Sub"]?.fileWrappers?["b.txt"]?.regularFileContents == Data("B".utf8))
        let link = try #require(children["link"])
        #expect(link.isSymbolicLink)
        #expect(link.symbolicLinkDestinationURL?.relativePath == "Sub/b.txt")
        #expect(link.fileWrappers == nil && link.regularFileContents == nil)
    }

    @Test func readsARegularFileAndALinkAtTheTop() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("note.txt")
        try Data("note".utf8).write(to: file)
        try FileManager.default.createSymbolicLink(atPath: directory.url.path + "/alias", withDestinationPath: "/etc/passwd")
        for options: FileWrapper.ReadingOptions in [[], .immediate, .withoutMapping] {
            let wrapper = try FileWrapper(url: file, options: options)
            #expect(wrapper.isRegularFile)
            #expect(wrapper.regularFileContents == Data("note".utf8))
        }
        // A link is read as a link, never followed.
        let alias = try FileWrapper(url: directory.url.appendingPathComponent("alias"))
        #expect(alias.isSymbolicLink)
        #expect(alias.symbolicLinkDestinationURL?.path == "/etc/passwd")
    }

    @Test func aMissingItemIsACocoaReadError() {
        let error = #expect(throws: CocoaError.self) {
            try FileWrapper(url: URL(fileURLWithPath: "/nonexistent/Doc.pkg"))
        }
        #expect(error?.code == .fileReadNoSuchFile)
    }

    #if !canImport(Darwin)
    /// The errors carry ICTKit's `DocumentPackageError`, which says where.
    @Test func aDeviceOrFIFOIsRefusedSayingWhere() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let package = try makePackage(in: directory, ["a.txt": "A"])
        #expect(mkfifo(package.path + "/pipe", 0o644) == 0)
        let error = #expect(throws: CocoaError.self) { try FileWrapper(url: package) }
        #expect(error?.code == .fileReadUnknown)
        let underlying = error?.userInfo[NSUnderlyingErrorKey] as? DocumentPackageError
        #expect(underlying?.code == .unsupportedFileType)
        #expect(underlying?.pathInPackage == "pipe")
        // The FIFO itself, at the top.
        #expect(throws: CocoaError.self) { try FileWrapper(url: package.appendingPathComponent("pipe")) }
    }

    @Test func aDirectoryIsNotWrittenOverAFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("taken")
        try Data("keep".utf8).write(to: file)
        let tree = FileWrapper(directoryWithFileWrappers: ["x.txt": FileWrapper(regularFileWithContents: Data())])
        let error = #expect(throws: CocoaError.self) { try tree.write(to: file, originalContentsURL: nil) }
        #expect((error?.userInfo[NSUnderlyingErrorKey] as? DocumentPackageError)?.code == .notADirectory)
        #expect(try Data(contentsOf: file) == Data("keep".utf8))
    }
    #endif

    @Test func aFileReadLazilyThatIsRemovedHasNoContentsButOneReadImmediatelyKeepsThem() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let package = try makePackage(in: directory, ["a.txt": "A"])
        let lazy = try FileWrapper(url: package)
        let immediate = try FileWrapper(url: package, options: .immediate)
        try FileManager.default.removeItem(at: package.appendingPathComponent("a.txt"))
        // Apple: regularFileContents "may contain nil if the user modifies the file after" reading.
        #expect(lazy.fileWrappers?["a.txt"]?.regularFileContents == nil)
        #expect(immediate.fileWrappers?["a.txt"]?.regularFileContents == Data("A".utf8))
    }

    // MARK: Children

    @Test func keysAreThePreferredNamesMadeUniqueWithFoundationsPrefix() {
        let directory = FileWrapper(directoryWithFileWrappers: [:])
        #expect(directory.addRegularFile(withContents: Data("1".utf8), preferredFilename: "image.png") == "image.png")
        #expect(directory.addRegularFile(withContents: Data("2".utf8), preferredFilename: "image.png") == "1__#$!@%!#__image.png")
        #expect(directory.addRegularFile(withContents: Data("3".utf8), preferredFilename: "image.png") == "2__#$!@%!#__image.png")
        #expect(directory.fileWrappers?.count == 3)
        #expect(directory.fileWrappers?["1__#$!@%!#__image.png"]?.regularFileContents == Data("2".utf8))
    }

    #if !canImport(Darwin)
    /// ICTKit's own rule (Compatibility.md): names that differ only by case
    /// would be one file on a case-insensitive disk, so they are made unique too.
    @Test func aNameDifferingOnlyByCaseIsMadeUnique() {
        let directory = FileWrapper(directoryWithFileWrappers: ["image.png": FileWrapper(regularFileWithContents: Data())])
        #expect(directory.addRegularFile(withContents: Data(), preferredFilename: "IMAGE.png") == "1__#$!@%!#__IMAGE.png")
    }
    #endif

    @Test func keyForChildAndRemoveFindTheChildByIdentity() {
        let child = FileWrapper(regularFileWithContents: Data("x".utf8))
        child.preferredFilename = "x.txt"
        let stranger = FileWrapper(regularFileWithContents: Data("x".utf8))
        let directory = FileWrapper(directoryWithFileWrappers: ["y.txt": FileWrapper(regularFileWithContents: Data())])
        let key = directory.addFileWrapper(child)
        #expect(directory.keyForChildFileWrapper(child) == key)
        #expect(directory.keyForChildFileWrapper(stranger) == nil)
        directory.removeFileWrapper(stranger)
        #expect(directory.fileWrappers?.count == 2)
        directory.removeFileWrapper(child)
        #expect(directory.fileWrappers?.keys.sorted() == ["y.txt"])
        #expect(directory.keyForChildFileWrapper(child) == nil)
    }

    @Test func aRemovedNameIsFreeAgainAndAWrapperAddedTwiceHasItsLastKey() {
        let directory = FileWrapper(directoryWithFileWrappers: [:])
        let first = FileWrapper(regularFileWithContents: Data("1".utf8))
        first.preferredFilename = "a.txt"
        let second = FileWrapper(regularFileWithContents: Data("2".utf8))
        second.preferredFilename = "a.txt"
        #expect(directory.addFileWrapper(first) == "a.txt")
        #expect(directory.addFileWrapper(second) == "1__#$!@%!#__a.txt")
        directory.removeFileWrapper(first)
        #expect(directory.addFileWrapper(first) == "a.txt")
        #expect(directory.addFileWrapper(first) == "2__#$!@%!#__a.txt")
        #expect(directory.keyForChildFileWrapper(first) == "2__#$!@%!#__a.txt")
        directory.removeFileWrapper(first)
        #expect(directory.keyForChildFileWrapper(first) == "a.txt")
        #expect(directory.fileWrappers?.keys.sorted() == ["1__#$!@%!#__a.txt", "a.txt"])
    }

    /// A hundred thousand children, each added under its own name and then
    /// removed, leave the directory with all of them and then none.
    @Test func aHundredThousandChildrenAreAddedAndRemoved() {
        let directory = FileWrapper(directoryWithFileWrappers: [:])
        var children: [FileWrapper] = []
        for index in 0..<100_000 {
            let child = FileWrapper(regularFileWithContents: Data())
            child.preferredFilename = "file-\(index).txt"
            directory.addFileWrapper(child)
            children.append(child)
        }
        #expect(directory.fileWrappers?.count == 100_000)
        for child in children { directory.removeFileWrapper(child) }
        #expect(directory.fileWrappers?.isEmpty == true)
    }

    @Test func changingThePreferredFilenameReaddsTheChild() {
        let child = FileWrapper(regularFileWithContents: Data("x".utf8))
        child.preferredFilename = "old.txt"
        let directory = FileWrapper(directoryWithFileWrappers: [:])
        directory.addFileWrapper(child)
        child.preferredFilename = "new.txt"
        #expect(directory.fileWrappers?.keys.sorted() == ["new.txt"])
        #expect(directory.keyForChildFileWrapper(child) == "new.txt")
    }

    // MARK: Attributes

    @Test func fileAttributesHoldPermissionsDateTypeAndSizeAndAreWritten() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let package = try makePackage(in: directory, ["a.txt": "AAA"])
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: package.path + "/a.txt")
        let wrapper = try FileWrapper(url: package)
        let attributes = try #require(wrapper.fileWrappers?["a.txt"]?.fileAttributes)
        #expect((attributes[FileAttributeKey.posixPermissions.rawValue] as? NSNumber)?.intValue == 0o600)
        #expect(attributes[FileAttributeKey.type.rawValue] as? String == FileAttributeType.typeRegular.rawValue)
        #expect((attributes[FileAttributeKey.size.rawValue] as? NSNumber)?.intValue == 3)
        let onDisk = try FileManager.default.attributesOfItem(atPath: package.path + "/a.txt")
        #expect(attributes[FileAttributeKey.modificationDate.rawValue] as? Date == onDisk[.modificationDate] as? Date)

        let new = FileWrapper(regularFileWithContents: Data("new".utf8))
        let date = Date(timeIntervalSince1970: 1_000_000_000)
        new.fileAttributes = [
            FileAttributeKey.posixPermissions.rawValue: NSNumber(value: 0o640),
            FileAttributeKey.modificationDate.rawValue: date,
        ]
        new.preferredFilename = "new.txt"
        wrapper.addFileWrapper(new)
        let saved = directory.url.appendingPathComponent("Saved.pkg")
        try wrapper.write(to: saved, originalContentsURL: nil)
        let written = try FileManager.default.attributesOfItem(atPath: saved.path + "/new.txt")
        #expect((written[.posixPermissions] as? NSNumber)?.intValue == 0o640)
        #expect(written[.modificationDate] as? Date == date)
        let kept = try FileManager.default.attributesOfItem(atPath: saved.path + "/a.txt")
        #expect((kept[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    }

    // MARK: Writing

    @Test func writesRegularFilesLinksAndDirectoriesThatReadBackTheSame() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = FileWrapper(regularFileWithContents: Data("bytes".utf8))
        let fileURL = directory.url.appendingPathComponent("file.bin")
        try file.write(to: fileURL, options: .atomic, originalContentsURL: nil)
        #expect(try Data(contentsOf: fileURL) == Data("bytes".utf8))

        let link = FileWrapper(symbolicLinkWithDestinationURL: URL(fileURLWithPath: "/etc/hostname"))
        let linkURL = directory.url.appendingPathComponent("link")
        try link.write(to: linkURL, originalContentsURL: nil)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: linkURL.path) == "/etc/hostname")

        let tree = FileWrapper(directoryWithFileWrappers: [
            "top.txt": FileWrapper(regularFileWithContents: Data("top".utf8)),
            "Folder": FileWrapper(directoryWithFileWrappers: ["inner.txt": FileWrapper(regularFileWithContents: Data("in".utf8))]),
        ])
        let treeURL = directory.url.appendingPathComponent("Tree.pkg")
        try tree.write(to: treeURL, options: .withNameUpdating, originalContentsURL: nil)
        #expect(tree.filename == "Tree.pkg")
        #expect(tree.fileWrappers?["Folder"]?.fileWrappers?["inner.txt"]?.filename == "inner.txt")
        let back = try FileWrapper(url: treeURL)
        #expect(back.fileWrappers?["top.txt"]?.regularFileContents == Data("top".utf8))
        #expect(back.fileWrappers?["Folder"]?.fileWrappers?["inner.txt"]?.regularFileContents == Data("in".utf8))
    }

    @Test func withoutNameUpdatingTheFilenamesStayAsTheyWere() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let child = FileWrapper(regularFileWithContents: Data("x".utf8))
        let tree = FileWrapper(directoryWithFileWrappers: ["x.txt": child])
        try tree.write(to: directory.url.appendingPathComponent("T.pkg"), originalContentsURL: nil)
        #expect(child.filename == nil)
        #expect(tree.filename == nil)
    }

    @Test func writingWhereTheParentIsMissingThrowsACocoaError() {
        let tree = FileWrapper(directoryWithFileWrappers: ["x.txt": FileWrapper(regularFileWithContents: Data())])
        #expect(throws: CocoaError.self) {
            try tree.write(to: URL(fileURLWithPath: "/nonexistent-parent/T.pkg"), originalContentsURL: nil)
        }
        #expect(throws: CocoaError.self) {
            try FileWrapper(regularFileWithContents: Data()).write(
                to: URL(fileURLWithPath: "/nonexistent-parent/f"),
                originalContentsURL: nil)
        }
    }

    // MARK: Comparing with disk, reading again

    @Test func matchesContentsComparesDatesAndMembersNotBytes() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let package = try makePackage(in: directory, ["a.txt": "A", "Sub/b.txt": "B"])
        let wrapper = try FileWrapper(url: package)
        #expect(wrapper.matchesContents(of: package))
        #expect(!wrapper.needsToBeUpdated(fromPath: package.path))

        // Permissions: needsToBeUpdated(fromPath:) compares them, matchesContents(of:) does not.
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: package.path + "/a.txt")
        #expect(wrapper.matchesContents(of: package))
        #expect(wrapper.needsToBeUpdated(fromPath: package.path))

        // A new modification date deep inside.
        let fresh = try FileWrapper(url: package)
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSince1970: 12345)],
            ofItemAtPath: package.path + "/Sub/b.txt")
        #expect(!fresh.matchesContents(of: package))

        // A member added.
        let again = try FileWrapper(url: package)
        try Data().write(to: package.appendingPathComponent("c.txt"))
        #expect(!again.matchesContents(of: package))
        #expect(!again.matchesContents(of: directory.url.appendingPathComponent("Gone.pkg")))
        // A wrapper made in memory matches nothing on disk.
        #expect(!FileWrapper(regularFileWithContents: Data("A".utf8)).matchesContents(of: package.appendingPathComponent("a.txt")))
    }

    @Test func readFromReplacesTheContents() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let package = try makePackage(in: directory, ["a.txt": "A"])
        let wrapper = try FileWrapper(url: package)
        try Data("C".utf8).write(to: package.appendingPathComponent("c.txt"))
        #expect(!wrapper.matchesContents(of: package))
        try wrapper.read(from: package)
        #expect(wrapper.fileWrappers?.keys.sorted() == ["a.txt", "c.txt"])
        #expect(wrapper.matchesContents(of: package))
        #expect(throws: CocoaError.self) { try wrapper.read(from: directory.url.appendingPathComponent("Gone.pkg")) }
        #expect(wrapper.fileWrappers?.keys.sorted() == ["a.txt", "c.txt"])
    }
}
