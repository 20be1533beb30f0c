import Foundation
import PackageFormat
import SystemPackage
import Testing

struct PackageReaderTests {
    /// A package with a file, a read-only file, a subdirectory and a link.
    private func makePackage(in directory: TemporaryDirectory) throws -> String {
        let package = directory.appending("Friend.ict")
        try writeFile(package + "/ctdocument.data", "data")
        try writeFile(package + "/Contents/Resources/x.nib", "nib", permissions: 0o444)
        try FileManager.default.createSymbolicLink(atPath: package + "/alias", withDestinationPath: "Contents/Resources/x.nib")
        return package
    }

    @Test func readsTheTreeWithKindsPermissionsAndDates() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try makePackage(in: directory)
        let package = try PackageWrapper(readingFrom: path)
        #expect(package.kind == .directory)
        #expect(package.fileName == "Friend.ict")
        #expect(package.children.map(\.fileName) == ["Contents", "alias", "ctdocument.data"])
        let nib = try #require(package.descendant(atPath: "Contents/Resources/x.nib"))
        #expect(nib.kind == .regularFile)
        #expect(nib.permissions == 0o444)
        #expect(nib.fileSize == 3)
        #expect(try nib.contents() == Data("nib".utf8))
        let attributes = try FileManager.default.attributesOfItem(atPath: path + "/Contents/Resources/x.nib")
        let date = try #require(attributes[.modificationDate] as? Date)
        #expect(abs(nib.modificationDate!.timeIntervalSince(date)) < 1e-5)
        #expect(package.child(named: "alias")?.symbolicLinkDestination == "Contents/Resources/x.nib")
    }

    @Test func lazyReadingReadsAFileOnlyWhenAskedAndNoticesItChanged() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try makePackage(in: directory)
        let lazy = try PackageWrapper(readingFrom: path, mode: .lazy)
        let eager = try PackageWrapper(readingFrom: path, mode: .eager)
        // Replace the file after opening: the eager read already holds the old
        // bytes; the lazy one must not hand out bytes of another file.
        try FileManager.default.removeItem(atPath: path + "/ctdocument.data")
        try writeFile(path + "/ctdocument.data", "replaced")
        #expect(try eager.child(named: "ctdocument.data")?.contents() == Data("data".utf8))
        let error = packageError { _ = try lazy.child(named: "ctdocument.data")!.contents() }
        #expect(error?.code == .changedOnDisk)
        #expect(error?.pathInPackage == "ctdocument.data")
        #expect(error?.fileSystemPath == FilePath(path + "/ctdocument.data"))
    }

    @Test func aLinkToEtcPasswdIsReadAsALinkAndNeverFollowed() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try makePackage(in: directory)
        try FileManager.default.createSymbolicLink(atPath: path + "/passwd", withDestinationPath: "/etc/passwd")
        try FileManager.default.createSymbolicLink(atPath: path + "/etc", withDestinationPath: "/etc")
        let package = try PackageWrapper(readingFrom: path, mode: .eager)
        let link = try #require(package.child(named: "passwd"))
        #expect(link.kind == .symbolicLink)
        #expect(link.symbolicLinkDestination == "/etc/passwd")
        #expect(link.fileSize == nil)
        let directoryLink = try #require(package.child(named: "etc"))
        #expect(directoryLink.kind == .symbolicLink)
        #expect(package.descendant(atPath: "etc/passwd") == nil)
    }

    @Test func aPackageThatIsNotADirectoryIsAnErrorNamingIt() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.appending("Flat.ict")
        try writeFile(path, "not a package")
        let error = packageError { _ = try PackageWrapper(readingFrom: path) }
        #expect(error?.code == .notADirectory)
        #expect(error?.fileSystemPath == FilePath(path))
        #expect(error?.description.hasPrefix(path + ":") == true)
        let missing = packageError { _ = try PackageWrapper(readingFrom: directory.appending("Missing.ict")) }
        #expect(missing?.code == .notFound)
        #expect(missing?.fileSystemPath == FilePath(directory.appending("Missing.ict")))
    }

    @Test(.enabled(if: geteuid() != 0, "root reads every directory, so none is unreadable"))
    func anUnreadableDirectoryIsAnErrorNamingIt() throws {
        let directory = try TemporaryDirectory()
        defer { chmod(directory.appending("P.ict/Locked"), 0o755); directory.remove() }
        try writeFile(directory.appending("P.ict/Locked/secret"), "x")
        chmod(directory.appending("P.ict/Locked"), 0)
        let error = packageError { _ = try PackageWrapper(readingFrom: directory.appending("P.ict")) }
        #expect(error?.code == .io)
        #expect(error?.pathInPackage == "Locked")
        #expect(error?.fileSystemPath == FilePath(directory.appending("P.ict/Locked")))
    }

    @Test func refusesDevicesFifosAndSockets() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try makePackage(in: directory)
        #expect(mkfifo(path + "/Contents/pipe", 0o644) == 0)
        let error = packageError { _ = try PackageWrapper(readingFrom: path) }
        #expect(error?.code == .unsupportedFileType)
        #expect(error?.pathInPackage == "Contents/pipe")
    }

    @Test func refusesNamesOnDiskThatDifferOnlyByCase() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try makePackage(in: directory)
        try writeFile(path + "/CTDOCUMENT.DATA", "shadow")
        #expect(packageError { _ = try PackageWrapper(readingFrom: path) }?.code == .duplicateName)
    }

    /// Names are bytes: `bad-` + 0xFF 0xFE is read (each byte carried as
    /// U+10FF00 + byte), saved elsewhere and zipped and restored under the
    /// same bytes, with its contents.
    @Test func namesThatAreNotUTF8AreKeptByteForByte() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try makePackage(in: directory)
        let raw = Array("bad-".utf8) + [0xFF, 0xFE]
        let descriptor = open((Array((path + "/").utf8) + raw).map { CChar(bitPattern: $0) } + [0], O_CREAT | O_WRONLY, 0o644)
        #expect(descriptor >= 0)
        #expect(write(descriptor, "raw", 3) == 3)
        close(descriptor)
        let carried = "bad-" + String(String.UnicodeScalarView([Unicode.Scalar(0x10FFFF)!, Unicode.Scalar(0x10FFFE)!]))
        let package = try PackageWrapper(readingFrom: path)
        #expect(try package.child(named: carried)?.contents() == Data("raw".utf8))

        let copy = directory.appending("Copy.ict")
        try package.save(to: copy)
        let zip = directory.appending("Copy.zip")
        try PackageZipArchive.write(try PackageWrapper(readingFrom: copy), to: zip, rootName: "Copy.ict")
        let back = directory.appending("Back.ict")
        try PackageZipArchive.read(at: zip).save(to: back)
        for saved in [copy, back] {
            let reopened = open((Array((saved + "/").utf8) + raw).map { CChar(bitPattern: $0) } + [0], O_RDONLY)
            #expect(reopened >= 0, "\(saved) has no entry named bad-\\xFF\\xFE")
            var buffer = [UInt8](repeating: 0, count: 8)
            #expect(read(reopened, &buffer, 8) == 3 && buffer.prefix(3).elementsEqual("raw".utf8))
            close(reopened)
            let names = try PackageWrapper(readingFrom: saved).children.map { $0.fileName! }
            #expect(names == package.children.map { $0.fileName! })
        }
    }

    /// A package named with 255 bytes is saved: its temporary's name stays within the limit.
    @Test func aPackageWithA255ByteNameIsSaved() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.appending(String(repeating: "\u{E9}", count: 125) + "a.ict")
        let package = try PackageWrapper(directoryWithChildren: ["data": PackageWrapper(regularFileWithContents: Data("v1".utf8))])
        try package.save(to: path)
        try package.replaceChild(named: "data", with: PackageWrapper(regularFileWithContents: Data("v2".utf8)))
        try package.save(to: path)
        #expect(try String(contentsOfFile: path + "/data", encoding: .utf8) == "v2")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).count == 1)
    }

    @Test func enforcesEntryCountDepthAndTotalSizeLimitsByName() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try makePackage(in: directory)  // 5 entries, 2 levels deep, 7 bytes
        let count = packageError { _ = try PackageWrapper(readingFrom: path, limits: .init(maximumEntryCount: 4)) }
        #expect(count?.code == .limitExceeded(.entryCount))
        let depth = packageError { _ = try PackageWrapper(readingFrom: path, limits: .init(maximumDepth: 1)) }
        #expect(depth?.code == .limitExceeded(.depth))
        #expect(depth?.pathInPackage == "Contents/Resources")
        let size = packageError { _ = try PackageWrapper(readingFrom: path, limits: .init(maximumTotalSize: 6)) }
        #expect(size?.code == .limitExceeded(.totalSize))
        _ = try PackageWrapper(readingFrom: path, limits: .init(maximumEntryCount: 5, maximumDepth: 2, maximumTotalSize: 7))
    }

    @Test func tellsWhetherEntriesChangedOnDisk() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try makePackage(in: directory)
        let package = try PackageWrapper(readingFrom: path)
        #expect(!package.hasChangedOnDisk())
        #expect(PackageWrapper(regularFileWithContents: Data()).hasChangedOnDisk())
        let data = try #require(package.child(named: "ctdocument.data"))
        // A later modification time, as an edit by another program leaves.
        var times = [timespec(tv_sec: 1_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, path + "/ctdocument.data", &times, 0) == 0)
        #expect(data.hasChangedOnDisk())
        #expect(package.hasChangedOnDisk())
        #expect(!package.child(named: "Contents")!.hasChangedOnDisk())
        let reread = try PackageWrapper(readingFrom: path)
        try writeFile(path + "/Contents/new", "added")
        #expect(reread.child(named: "Contents")!.hasChangedOnDisk())
    }

    /// Acceptance 3: opening a package with a 50 MB entry and reading a 2 KB
    /// sibling reads (per the thread's `rchar`) under 2 × 2 KB plus 4 KB for
    /// directories and the counter file itself.
    @Test(
        .enabled(
            if: FileManager.default.fileExists(atPath: "/proc/thread-self/io"),
            "needs Linux's /proc/thread-self/io to count the bytes read"))
    func lazyReadingReadsOnlyTheEntryAskedFor() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.appending("Big.ict")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let big = open(path + "/movie.mov", O_CREAT | O_WRONLY, 0o644)
        let chunk = [UInt8](repeating: 0x5A, count: 1 << 20)
        for _ in 0..<50 { _ = chunk.withUnsafeBytes { write(big, $0.baseAddress, $0.count) } }
        close(big)
        let small = Data((0..<2048).map { UInt8(truncatingIfNeeded: $0) })
        try small.write(to: URL(fileURLWithPath: path + "/metadata.plist"))
        for index in 0..<20 { try writeFile(path + "/Resources/r\(index).txt", String(repeating: "r", count: 10_000)) }

        // Synchronous from here to the second reading: one thread, so its counter is ours alone.
        let before = try bytesReadByThisThread()
        let package = try PackageWrapper(readingFrom: path)
        let contents = try package.child(named: "metadata.plist")!.contents()
        let after = try bytesReadByThisThread()
        #expect(contents == small)
        #expect(package.child(named: "movie.mov")?.fileSize == 50 << 20)
        #expect(after - before < 2 * 2048 + 4096, "read \(after - before) bytes")
    }

    private func bytesReadByThisThread() throws -> Int {
        let text = try String(contentsOfFile: "/proc/thread-self/io", encoding: .utf8)
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("rchar:") })
        return try #require(Int(line.dropFirst("rchar:".count).trimmingCharacters(in: .whitespaces)))
    }
}
