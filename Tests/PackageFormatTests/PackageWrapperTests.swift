import Foundation
import PackageFormat
import SystemPackage
import TestSupport
import Testing

struct PackageWrapperTests {
    private func file(_ text: String) -> PackageWrapper { PackageWrapper(regularFileWithContents: Data(text.utf8)) }

    @Test(arguments: ["", ".", "..", "a/b", "/", "nul\u{0}byte", String(repeating: "é", count: 128)])
    func refusesInvalidChildNames(_ name: String) throws {
        let directory = try PackageWrapper(directoryWithChildren: [:])
        let error = packageError { try directory.addChild(file("x"), named: name) }
        #expect(error?.code == .invalidName)
        #expect(directory.children.isEmpty)
    }

    @Test func acceptsANameOfExactly255Bytes() throws {
        let directory = try PackageWrapper(directoryWithChildren: [:])
        let name = String(repeating: "a", count: 255)
        try directory.addChild(file("x"), named: name)
        #expect(directory.child(named: name) != nil)
        #expect(packageError { try directory.addChild(file("y"), named: name + "b") }?.code == .invalidName)
    }

    @Test func refusesNamesThatDifferOnlyByCase() throws {
        let directory = try PackageWrapper(directoryWithChildren: ["Read Me.txt": file("one")])
        let error = packageError { try directory.addChild(file("two"), named: "READ ME.TXT") }
        #expect(error?.code == .duplicateName)
        #expect(error?.pathInPackage == "READ ME.TXT")
        #expect(try directory.child(named: "Read Me.txt")?.contents() == Data("one".utf8))
        #expect(directory.child(named: "READ ME.TXT") == nil)
    }

    @Test func refusesRenamingOntoAnotherChildsNameInAnyCase() throws {
        let directory = try PackageWrapper(directoryWithChildren: ["a": file("a"), "b": file("b")])
        #expect(packageError { try directory.renameChild(named: "a", to: "B") }?.code == .duplicateName)
        #expect(packageError { try directory.renameChild(named: "missing", to: "c") }?.code == .notFound)
        #expect(packageError { try directory.renameChild(named: "a", to: "..") }?.code == .invalidName)
        try directory.renameChild(named: "a", to: "A")
        #expect(directory.children.map(\.fileName) == ["A", "b"])
    }

    @Test func addsReplacesRenamesAndRemovesChildren() throws {
        let directory = try PackageWrapper(directoryWithChildren: [:])
        let added = file("1")
        added.preferredFileName = "one.txt"
        #expect(try directory.addChild(added) == "one.txt")
        #expect(added.fileName == "one.txt")
        let replaced = try directory.replaceChild(named: "ONE.txt", with: file("2"))
        #expect(replaced === added)
        #expect(directory.children.map(\.fileName) == ["ONE.txt"])
        try directory.renameChild(named: "ONE.txt", to: "two.txt")
        #expect(try directory.child(named: "two.txt")?.contents() == Data("2".utf8))
        #expect(directory.removeChild(named: "TWO.txt") == nil)
        #expect(directory.removeChild(named: "two.txt") != nil)
        #expect(directory.children.isEmpty)
    }

    @Test func findsDescendantsByPathInPackage() throws {
        let nib = file("nib")
        let package = try PackageWrapper(directoryWithChildren: [
            "Contents": PackageWrapper(directoryWithChildren: [
                "Resources": PackageWrapper(directoryWithChildren: ["x.nib": nib])
            ])
        ])
        #expect(package.descendant(atPath: "Contents/Resources/x.nib") === nib)
        #expect(package.descendant(atPath: "Contents/Resources/x.nib/deeper") == nil)
        #expect(package.descendant(atPath: "Contents/Missing") == nil)
    }

    @Test func keepsModificationDatesToTheMicrosecond() throws {
        let wrapper = file("x")
        #expect(wrapper.modificationDate == nil)
        let date = Date(timeIntervalSince1970: 1_700_000_000.123456)
        wrapper.modificationDate = date
        #expect(abs(wrapper.modificationDate!.timeIntervalSince1970 - date.timeIntervalSince1970) < 1e-6)
    }

    @Test func reportsSizeAndLinkDestinationByKind() throws {
        #expect(file("four").fileSize == 4)
        let link = PackageWrapper(symbolicLinkWithDestination: "/etc/passwd")
        #expect(link.kind == .symbolicLink)
        #expect(link.symbolicLinkDestination == "/etc/passwd")
        #expect(link.fileSize == nil)
        let changed = file("four")
        changed.setContents(Data("eight!!!".utf8))
        #expect(changed.fileSize == 8)
        #expect(try changed.contentsPrefix(maximumCount: 5) == Data("eight".utf8))
    }

    /// A link's destination is bytes: Python makes a link to `Caf` 0xE9 `.txt`
    /// (not UTF-8), the reader gives it byte for byte as a `FilePath`, the
    /// manifest records it, and a new link made from that `FilePath`, saved,
    /// zipped and restored, points at the same bytes, as Python reads them.
    @Test func aLinkDestinationThatIsNotUTF8IsKeptByteForByte() throws {
        let scratch = try ScratchFolder("link-bytes")
        let package = scratch.path + "/Links.ict"
        _ = try PythonScript.run(
            "import os, sys; os.makedirs(sys.argv[1]); os.symlink(b'Caf\\xe9.txt', os.fsencode(sys.argv[1]) + b'/link')", arguments: [package])
        let raw: [UInt8] = Array("Caf".utf8) + [0xE9] + Array(".txt".utf8)
        let expected = FilePath(platformString: raw.map { CChar(bitPattern: $0) } + [0])
        let read = try PackageWrapper(readingFrom: FilePath(package))
        #expect(read.child(named: "link")?.symbolicLinkDestination == expected)
        try read.save(to: FilePath(scratch.path + "/Copy.ict"))
        #expect(try PackageManifest.read(fromPackageAt: FilePath(scratch.path + "/Copy.ict"))?.entries["link"]?.destination == expected)

        let made = try PackageWrapper(directoryWithChildren: ["again": PackageWrapper(symbolicLinkWithDestination: expected)])
        try made.save(to: FilePath(scratch.path + "/Made.ict"))
        try PackageZipArchive.write(made, to: FilePath(scratch.path + "/Made.zip"), rootName: "Made.ict")
        try PackageZipArchive.read(at: FilePath(scratch.path + "/Made.zip")).save(to: FilePath(scratch.path + "/Back.ict"))
        let hex = try PythonScript.run(
            "import os, sys; print(' '.join(os.readlink(os.fsencode(p) + b'/again').hex() for p in sys.argv[1:]))",
            arguments: [scratch.path + "/Made.ict", scratch.path + "/Back.ict"])
        // "Caf\xe9.txt" in hex, by hand: 43 61 66 e9 2e 74 78 74.
        #expect(String(decoding: hex, as: UTF8.self) == "436166e92e747874 436166e92e747874\n")
    }

    @Test func describesErrorsWithBothPaths() {
        let error = DocumentPackageError(
            .notADirectory, pathInPackage: "Contents/x.nib", fileSystemPath: "/tmp/A.ict/Contents/x.nib",
            "not a directory")
        #expect(error.description == "/tmp/A.ict/Contents/x.nib: not a directory (at Contents/x.nib)")
    }

    @Test func aModificationDateReadFromDiskEqualsFileManagersDate() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.appending("Doc.ict")
        try writeFile(path + "/a.txt", "a")
        // A time whose two conversions to a Double differ in the last bit (checked with python3: (s + ns/1e9) − 978307200
        // ≠ (s − 978307200) + ns/1e9 for s = 1763900000, ns = 123456789).
        let times = [timespec(tv_sec: 1_763_900_000, tv_nsec: 123_456_789), timespec(tv_sec: 1_763_900_000, tv_nsec: 123_456_789)]
        #expect(utimensat(AT_FDCWD, path + "/a.txt", times, 0) == 0)
        let package = try PackageWrapper(readingFrom: path)
        let attributes = try FileManager.default.attributesOfItem(atPath: path + "/a.txt")
        // Equal as Dates, not only within a rounding error: code compares the two.
        #expect(package.child(named: "a.txt")?.modificationDate == attributes[.modificationDate] as? Date)
    }
}

/// Issue 20, links: a wrapper's kind comes from the disk, where a link or a
/// folder can stand where a file is expected; asking it for what it is not
/// throws or answers nothing, never stops the process.
struct PackageWrapperKindFromDiskTests {
    @Test func aLinkOrAFolderReadFromDiskThrowsWhenAskedForBytes() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let package = folder.appending("Doc.pkg")
        try writeFile(folder.appending("outside.txt"), "outside")
        try FileManager.default.createDirectory(atPath: package + "/folder", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: package + "/link", withDestinationPath: "../outside.txt")
        let wrapper = try PackageWrapper(readingFrom: package)

        let link = try #require(wrapper.child(named: "link"))
        #expect(link.kind == .symbolicLink)
        let linkError = packageError { _ = try link.contents() }
        #expect(linkError?.code == .wrongKind)
        #expect(linkError?.pathInPackage == "link")
        #expect(linkError?.message == "a symbolic link (to \"../outside.txt\"), not a regular file; its bytes are not read through it")
        #expect(packageError { _ = try link.contentsPrefix(maximumCount: 4) }?.code == .wrongKind)
        #expect(link.children.isEmpty)
        #expect(link.child(named: "x") == nil)
        let adding = packageError { try link.addChild(PackageWrapper(regularFileWithContents: Data()), named: "x") }
        #expect(adding?.code == .wrongKind)
        #expect(adding?.message == "a symbolic link, not a folder; it has no children")
        #expect(packageError { try link.replaceChild(named: "x", with: PackageWrapper(regularFileWithContents: Data())) }?.code == .wrongKind)
        #expect(packageError { try link.renameChild(named: "x", to: "y") }?.code == .wrongKind)

        let directory = try #require(wrapper.child(named: "folder"))
        let directoryError = packageError { _ = try directory.contents() }
        #expect(directoryError?.code == .wrongKind)
        #expect(directoryError?.pathInPackage == "folder")
        #expect(directoryError?.message == "a folder, not a regular file; its bytes are not read through it")
        #expect(try String(contentsOfFile: folder.appending("outside.txt"), encoding: .utf8) == "outside")
    }
}
