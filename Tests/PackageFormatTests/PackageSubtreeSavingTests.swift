import Foundation
import PackageFormat
import Testing

/// Re-saving a package whose changes all lie in one folder below the root:
/// that folder alone is written anew and swapped in; the package is the
/// same tree as a whole save would make.
struct PackageSubtreeSavingTests {
    /// A package with `Media/` and `Pages/00`, `Pages/07`, saved from memory at `path`.
    static func makePackage(at path: String) throws {
        try writeFile(path + "/top.txt", "top")
        try writeFile(path + "/Media/clip.bin", String(repeating: "m", count: 50_000))
        try writeFile(path + "/Pages/00/a.bin", "a0")
        try writeFile(path + "/Pages/07/b.bin", "b7")
        try writeFile(path + "/Pages/07/c.bin", "c7")
        try PackageWrapper(readingFrom: path, mode: .eager).save(to: path)
    }

    static func modificationTime(_ path: String) throws -> Date {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date)
    }

    @Test func aChangeInOneFolderSwapsInThatFolderAlone() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.appending("Doc.pkg")
        try Self.makePackage(at: path)
        let before = (
            root: inode(path), media: inode(path + "/Media"), pages: inode(path + "/Pages"),
            folder: inode(path + "/Pages/07"), sibling: inode(path + "/Pages/07/c.bin")
        )
        let pagesTime = try Self.modificationTime(path + "/Pages")

        let package = try PackageWrapper(readingFrom: path)
        package.descendant(atPath: "Pages/07/b.bin")!.setContents(Data("b7 v2".utf8))
        try package.save(to: path)

        #expect(try Data(contentsOf: URL(fileURLWithPath: path + "/Pages/07/b.bin")) == Data("b7 v2".utf8))
        #expect(inode(path) == before.root)
        #expect(inode(path + "/Media") == before.media)
        #expect(inode(path + "/Pages") == before.pages)
        #expect(inode(path + "/Pages/07") != before.folder, "the changed folder is made anew")
        #expect(inode(path + "/Pages/07/c.bin") == before.sibling, "its unchanged file is linked")
        #expect(try Self.modificationTime(path + "/Pages") == pagesTime, "the folder holding it keeps its time")
        #expect(try strayTemporaries(of: path).isEmpty)
        #expect(try snapshot(of: path).count == 9)
        // The wrappers now describe what is on disk: nothing has changed, and a second change saves the same way.
        #expect(!package.hasChangedOnDisk())
        package.descendant(atPath: "Pages/07/c.bin")!.setContents(Data("c7 v2".utf8))
        try package.save(to: path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path + "/Pages/07/c.bin")) == Data("c7 v2".utf8))
        #expect(inode(path + "/Pages") == before.pages)
        #expect(try PackageWrapper(readingFrom: path).descendant(atPath: "Pages/07/b.bin")!.contents() == Data("b7 v2".utf8))
    }

    /// Changes in two folders: their common folder is swapped in; children
    /// added, removed and renamed are as a whole save makes them.
    @Test func changesInTwoFoldersSwapInTheirCommonFolder() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.appending("Doc.pkg")
        try Self.makePackage(at: path)
        let media = inode(path + "/Media")
        let pages = inode(path + "/Pages")
        let package = try PackageWrapper(readingFrom: path)
        try package.descendant(atPath: "Pages/00")!.renameChild(named: "a.bin", to: "A.bin")
        package.descendant(atPath: "Pages/07")!.removeChild(named: "c.bin")
        try package.descendant(atPath: "Pages/07")!.addChild(
            PackageWrapper(regularFileWithContents: Data("d".utf8), permissions: 0o600),
            named: "d.bin")
        try package.save(to: path)
        #expect(inode(path + "/Media") == media)
        #expect(inode(path + "/Pages") != pages)
        let tree = try snapshot(of: path)
        #expect(tree["Pages/00/A.bin"] == .file(permissions: 0o644, bytes: Data("a0".utf8)))
        #expect(tree["Pages/00/a.bin"] == nil)
        #expect(tree["Pages/07/c.bin"] == nil)
        #expect(tree["Pages/07/d.bin"] == .file(permissions: 0o600, bytes: Data("d".utf8)))
        #expect(tree.count == 9)
        #expect(try strayTemporaries(of: path).isEmpty)
    }

    /// A folder's own permissions changed: it is written anew with them.
    @Test func aFolderWithNewPermissionsIsWrittenAnew() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.appending("Doc.pkg")
        try Self.makePackage(at: path)
        let package = try PackageWrapper(readingFrom: path)
        package.descendant(atPath: "Pages/07")!.permissions = 0o700
        try package.save(to: path)
        #expect(try snapshot(of: path)["Pages/07"] == .directory(permissions: 0o700))
        #expect(try snapshot(of: path)["Pages/07/b.bin"] == .file(permissions: 0o644, bytes: Data("b7".utf8)))
    }

    /// The folder holding the changed one may not be changed (read-only):
    /// the whole package is saved instead, its folders' permissions kept.
    @Test func aReadOnlyHoldingFolderFallsBackToTheWholeSave() throws {
        let directory = try TemporaryDirectory()
        defer {
            chmod(directory.appending("Doc.pkg/Pages"), 0o755)
            directory.remove()
        }
        let path = directory.appending("Doc.pkg")
        try Self.makePackage(at: path)
        let package = try PackageWrapper(readingFrom: path)
        let pages = package.child(named: "Pages")!
        pages.permissions = 0o555
        try package.save(to: path)
        let root = inode(path)
        let reread = try PackageWrapper(readingFrom: path)
        reread.descendant(atPath: "Pages/07/b.bin")!.setContents(Data("b7 v2".utf8))
        try reread.save(to: path)
        #expect(try snapshot(of: path)["Pages"] == .directory(permissions: 0o555))
        #expect(try snapshot(of: path)["Pages/07/b.bin"] == .file(permissions: 0o644, bytes: Data("b7 v2".utf8)))
        if getuid() != 0 { #expect(inode(path) != root, "saved whole") }  // root may change any folder
        #expect(try strayTemporaries(of: path).isEmpty)
    }

    /// Another writer changed the package outside the changed folder after
    /// it was read: by default the save is refused (`.changedOnDisk`); when
    /// told to overwrite, the whole package is saved, as before — the
    /// wrappers' tree when they hold every byte, an error (and nothing
    /// changed) when a file never read is gone.
    @Test func anotherWritersChangeOutsideTheFolderMakesAWholeSave() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.appending("Doc.pkg")
        try Self.makePackage(at: path)
        let eager = try PackageWrapper(readingFrom: path, mode: .eager)
        let lazy = try PackageWrapper(readingFrom: path)
        try FileManager.default.removeItem(atPath: path + "/Media/clip.bin")
        try writeFile(path + "/Media/intruder.bin", "someone else's")
        lazy.descendant(atPath: "Pages/07/b.bin")!.setContents(Data("lazy".utf8))
        #expect(throws: DocumentPackageError.self) { try lazy.save(to: path) }
        #expect(try snapshot(of: path)["Media/intruder.bin"] != nil, "a failed save changes nothing")
        #expect(try snapshot(of: path)["Pages/07/b.bin"] == .file(permissions: 0o644, bytes: Data("b7".utf8)))

        eager.descendant(atPath: "Pages/07/b.bin")!.setContents(Data("eager".utf8))
        // By default the other writer's change is not overwritten without a word.
        let refused = #expect(throws: DocumentPackageError.self) { try eager.save(to: path) }
        #expect(refused?.code == .changedOnDisk)
        #expect(try snapshot(of: path)["Media/intruder.bin"] != nil, "a refused save changes nothing")
        try eager.save(to: path, options: PackageSaveOptions(overwritingChangesOnDisk: true))
        let tree = try snapshot(of: path)
        #expect(tree["Media/clip.bin"] == .file(permissions: 0o644, bytes: Data(String(repeating: "m", count: 50_000).utf8)))
        #expect(tree["Media/intruder.bin"] == nil)
        #expect(tree["Pages/07/b.bin"] == .file(permissions: 0o644, bytes: Data("eager".utf8)))
        #expect(try strayTemporaries(of: path).isEmpty)
    }

    /// Names that are not plain ASCII inside the changed folder, one
    /// starting with a combining mark: written and flushed by their bytes.
    @Test func namesStartingWithACombiningMarkAreWrittenAndFlushed() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.appending("Doc.pkg")
        try Self.makePackage(at: path)
        try writeFile(path + "/Pages/07/\u{301}x.bin", "accent")
        try PackageWrapper(readingFrom: path).save(to: path)
        let package = try PackageWrapper(readingFrom: path)
        package.descendant(atPath: "Pages/07")!.child(named: "\u{301}x.bin")!.setContents(Data("accent v2".utf8))
        let pages = inode(path + "/Pages")
        try package.save(to: path)
        #expect(inode(path + "/Pages") == pages)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path + "/Pages/07/\u{301}x.bin")) == Data("accent v2".utf8))
    }

    /// A link made through the API (0o755 asked, the system's 0o777 on disk)
    /// counts as unchanged once saved: later saves still swap one folder.
    @Test func aLinkMadeInMemoryDoesNotForceWholeSaves() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.appending("Doc.pkg")
        try Self.makePackage(at: path)
        let package = try PackageWrapper(readingFrom: path)
        try package.addChild(PackageWrapper(symbolicLinkWithDestination: "Pages/07/b.bin"), named: "shortcut")
        try package.save(to: path)
        let root = inode(path)
        package.descendant(atPath: "Pages/07/b.bin")!.setContents(Data("b7 v2".utf8))
        try package.save(to: path)
        #expect(inode(path) == root)
        #expect(try snapshot(of: path)["shortcut"] == .link(destination: "Pages/07/b.bin"))
    }

    /// A change at the top, or a save elsewhere, writes the whole package.
    @Test func aChangeAtTheTopSavesTheWholePackage() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.appending("Doc.pkg")
        try Self.makePackage(at: path)
        let root = inode(path)
        let package = try PackageWrapper(readingFrom: path)
        package.child(named: "top.txt")!.setContents(Data("top v2".utf8))
        package.descendant(atPath: "Pages/07/b.bin")!.setContents(Data("b7 v2".utf8))
        try package.save(to: path)
        #expect(inode(path) != root)
        #expect(try snapshot(of: path)["top.txt"] == .file(permissions: 0o644, bytes: Data("top v2".utf8)))
        #expect(try snapshot(of: path)["Pages/07/b.bin"] == .file(permissions: 0o644, bytes: Data("b7 v2".utf8)))
    }

    /// The folder on disk was replaced after reading: not swapped blindly;
    /// the whole save finds the file it never read gone and says so.
    @Test func aFolderReplacedOnDiskIsNotSwappedBlindly() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.appending("Doc.pkg")
        try Self.makePackage(at: path)
        let package = try PackageWrapper(readingFrom: path)
        package.descendant(atPath: "Pages/07/b.bin")!.setContents(Data("b7 v2".utf8))
        try FileManager.default.moveItem(atPath: path + "/Pages/07", toPath: directory.appending("moved"))
        try writeFile(path + "/Pages/07/other.bin", "someone else's")
        #expect(throws: DocumentPackageError.self) { try package.save(to: path) }
        // Nothing was lost: the package is as the other writer left it.
        #expect(try snapshot(of: path)["Pages/07/other.bin"] != nil)
        #expect(try strayTemporaries(of: path).isEmpty)
    }
}
