import Foundation
import PackageFormat
import SystemPackage
import Testing

/// `PackageSaveOptions.originalContentsPath`: saving to a new place while
/// hard-linking the unchanged files of the version read.
struct PackageSaveOriginalContentsTests {
    /// The inode and link count `lstat` gives for `path`.
    private func inode(_ path: String) throws -> (inode: UInt64, links: UInt64) {
        var status = stat()
        guard lstat(path, &status) == 0 else { throw POSIXError(.ENOENT) }
        return (UInt64(status.st_ino), UInt64(status.st_nlink))
    }

    @Test func linksUnchangedFilesOfTheOriginalAndWritesChangedOnes() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let original = directory.appending("Doc.ict")
        try writeFile(original + "/kept.txt", "kept")
        try writeFile(original + "/Sub/deep.txt", "deep")
        try writeFile(original + "/changed.txt", "old")
        let package = try PackageWrapper(readingFrom: original)
        package.child(named: "changed.txt")!.setContents(Data("new".utf8))

        let saved = directory.appending("Doc-saved.ict")
        try package.save(to: saved, options: PackageSaveOptions(originalContentsPath: FilePath(original)))

        // Unchanged files are the very inodes of the original, now linked twice.
        for name in ["kept.txt", "Sub/deep.txt"] {
            let before = try inode(original + "/" + name)
            let after = try inode(saved + "/" + name)
            #expect(after.inode == before.inode)
            #expect(after.links == 2)
        }
        #expect(try inode(saved + "/changed.txt").inode != inode(original + "/changed.txt").inode)
        #expect(try snapshot(of: saved)["changed.txt"] == .file(permissions: 0o644, bytes: Data("new".utf8)))
        // The original keeps its own bytes.
        #expect(try snapshot(of: original)["changed.txt"] == .file(permissions: 0o644, bytes: Data("old".utf8)))
    }

    @Test func withoutTheOptionAFileSavedElsewhereIsNotShared() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let original = directory.appending("Doc.ict")
        try writeFile(original + "/kept.txt", "kept")
        let saved = directory.appending("Copy.ict")
        try PackageWrapper(readingFrom: original).save(to: saved)
        #expect(try inode(saved + "/kept.txt").inode != inode(original + "/kept.txt").inode)
        #expect(try inode(original + "/kept.txt").links == 1)
    }

    @Test func anOriginalThatIsNotTheOneReadSharesNothing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let read = directory.appending("Read.ict")
        let other = directory.appending("Other.ict")
        try writeFile(read + "/kept.txt", "kept")
        try writeFile(other + "/kept.txt", "kept")
        let saved = directory.appending("Saved.ict")
        try PackageWrapper(readingFrom: read).save(to: saved, options: PackageSaveOptions(originalContentsPath: FilePath(other)))
        #expect(try inode(read + "/kept.txt").links == 1)
        #expect(try inode(other + "/kept.txt").links == 1)
        #expect(try snapshot(of: saved)["kept.txt"] == .file(permissions: 0o644, bytes: Data("kept".utf8)))
    }

    @Test func aMissingOriginalIsNoError() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let read = directory.appending("Read.ict")
        try writeFile(read + "/kept.txt", "kept")
        let saved = directory.appending("Saved.ict")
        try PackageWrapper(readingFrom: read)
            .save(to: saved, options: PackageSaveOptions(originalContentsPath: FilePath(directory.appending("Gone.ict"))))
        #expect(try snapshot(of: saved)["kept.txt"] == .file(permissions: 0o644, bytes: Data("kept".utf8)))
    }
}
