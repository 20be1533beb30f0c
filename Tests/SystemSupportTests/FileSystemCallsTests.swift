import Foundation
import TestSupport
import Testing

@testable import SystemSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The stat, open, readdir, readlink and realpath wrappers on real
/// file-system objects (a file, a folder, a FIFO, a link, a dangling link,
/// a name that is not UTF-8), checked against Foundation's `FileManager`
/// and Python's `os` module; errors name the path as given.
struct FileSystemCallsTests {
    /// A fresh folder holding `file` (5 bytes, mode 0640), `folder/`, `fifo`,
    /// `link` → `file`, `dangling` → `missing`, and a file named by the bytes
    /// `6E 6F FF 6E` ("no", 0xFF, "n": not UTF-8).
    private static func makeTree() throws -> String {
        let root = try ScratchFolder.make("FileSystemCallsTests").path
        try FileManager.default.createDirectory(atPath: root + "/folder", withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: root + "/file", contents: Data("hello".utf8), attributes: [.posixPermissions: 0o640]))
        #expect(mkfifo(root + "/fifo", 0o600) == 0)
        try FileManager.default.createSymbolicLink(atPath: root + "/link", withDestinationPath: "file")
        try FileManager.default.createSymbolicLink(atPath: root + "/dangling", withDestinationPath: "missing")
        let raw = Array((root + "/no").utf8) + [0xFF] + Array("n".utf8)
        let descriptor = (raw.map { CChar(bitPattern: $0) } + [0]).withUnsafeBufferPointer { open($0.baseAddress!, O_WRONLY | O_CREAT | O_EXCL, 0o600) }
        #expect(descriptor >= 0)
        close(descriptor)
        return root
    }

    /// The non-UTF-8 name as `RawFileName` carries it.
    private static let rawName = RawFileName.decoding(Array("no".utf8) + [0xFF] + Array("n".utf8))

    @Test func infoTellsKindSizeAndPermissionsOfEachObject() throws {
        let root = try Self.makeTree()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let attributes = try FileManager.default.attributesOfItem(atPath: root + "/file")
        let file = try FileInfo.of(path: root + "/file")
        #expect(file.kind == .regular)
        #expect(file.size == (attributes[.size] as? NSNumber)?.int64Value)
        #expect(file.size == 5)
        #expect(file.permissions == 0o640)
        #expect(file.inode == (attributes[.systemFileNumber] as? NSNumber)?.uint64Value)
        #expect(try FileInfo.of(path: root + "/folder").kind == .directory)
        #expect(try FileInfo.of(path: root + "/fifo").kind == .fifo)
        #expect(try FileInfo.of(path: "/dev/null").kind == .characterDevice)
        // A link followed describes its file; not followed, the link itself.
        #expect(try FileInfo.of(path: root + "/link") == file)
        #expect(try FileInfo.of(path: root + "/link", followingLink: false).kind == .symbolicLink)
        #expect(try FileInfo.of(path: root + "/dangling", followingLink: false).kind == .symbolicLink)
        #expect(try FileInfo.of(path: root + "/" + Self.rawName).kind == .regular)
        let directory = try OpenFile(path: root, options: .directory)
        #expect(try FileInfo.of("link", in: directory.descriptor, followingLink: false).kind == .symbolicLink)
        #expect(try FileInfo.of(Self.rawName, in: directory.descriptor).size == 0)
    }

    @Test func failuresNameThePathAndCarryErrno() throws {
        let root = try Self.makeTree()
        defer { try? FileManager.default.removeItem(atPath: root) }
        // A dangling link followed: ENOENT, the path as given.
        let dangling = root + "/dangling"
        let error = try #require(throws: SystemCallError.self) { try FileInfo.of(path: dangling) }
        #expect(error.code == ENOENT)
        #expect(error.path == dangling)
        #expect(error.description == "\(dangling): No such file or directory")
        #expect(error.isMissing && !error.isPermissionDenied)
        // A file where a folder should be: ENOTDIR, missing too, as Foundation says of it.
        let underFile = try #require(throws: SystemCallError.self) { try FileInfo.of(path: root + "/file/inside") }
        #expect(underFile.code == ENOTDIR && underFile.isMissing)
        #expect(SystemCallError(path: "x", code: EACCES).isPermissionDenied && SystemCallError(path: "x", code: EPERM).isPermissionDenied)
        // Opening a file as a directory: ENOTDIR; a link with noFollow: ELOOP.
        #expect(throws: SystemCallError(path: root + "/file", code: ENOTDIR)) { try OpenFile(path: root + "/file", options: .directory) }
        #expect(throws: SystemCallError(path: root + "/link", code: ELOOP)) { try OpenFile(path: root + "/link", options: .noFollow) }
        #expect(throws: SystemCallError(path: root + "/file", code: ENOTDIR)) { try Directory.entries(atPath: root + "/file") }
        #expect(throws: SystemCallError(path: root + "/file", code: EINVAL)) { try SymbolicLink.destination(ofLinkAt: root + "/file") }
        // A name not UTF-8 is printed back byte for byte, as the user typed it; a control character is escaped.
        let missing = root + "/" + Self.rawName + "x"
        let rawError = try #require(throws: SystemCallError.self) { try FileInfo.of(path: missing) }
        #expect(RawFileName.bytes(rawError.description) == Array("\(root)/no".utf8) + [0xFF] + Array("nx: No such file or directory".utf8))
        let control = try #require(throws: SystemCallError.self) { try FileInfo.of(path: root + "/new\nline") }
        #expect(control.description == "\(root)/new\\nline: No such file or directory")
    }

    @Test func openFileReadsAFileAndAFIFO() throws {
        let root = try Self.makeTree()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let file = try OpenFile(path: root + "/link")
        #expect(try file.info().kind == .regular)
        #expect(try file.readToEnd() == Array("hello".utf8))
        #expect(try OpenFile(path: root + "/file").readToEnd(limit: 4) == nil)
        // A FIFO opens without waiting for a writer, then reads what one writes.
        let fifo = try OpenFile(path: root + "/fifo", options: [.nonBlocking, .noControllingTerminal])
        #expect(try fifo.info().kind == .fifo)
        let writer = open(root + "/fifo", O_WRONLY | O_NONBLOCK)
        #expect(writer >= 0)
        try fifo.makeBlocking()
        #expect(write(writer, "piped", 5) == 5)
        close(writer)
        #expect(try fifo.readToEnd() == Array("piped".utf8))
    }

    /// `FileReading.read` on a descriptor the caller holds (a pipe, as
    /// standard input is): what the writer wrote, then 0 at the end; with
    /// no data yet and `O_NONBLOCK`, `EAGAIN` naming the path given.
    @Test func fileReadingReadsAHeldDescriptor() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]) }
        #expect(fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) | O_NONBLOCK) == 0)
        var buffer = [UInt8](repeating: 0, count: 16)
        let empty = try #require(throws: SystemCallError.self) {
            try buffer.withUnsafeMutableBytes { try FileReading.read(ends[0], into: $0, path: "<pipe>") }
        }
        #expect(empty.code == EAGAIN)
        #expect(empty.path == "<pipe>")
        #expect(write(ends[1], "piped", 5) == 5)
        close(ends[1])
        let count = try buffer.withUnsafeMutableBytes { try FileReading.read(ends[0], into: $0, path: "<pipe>") }
        #expect(Array(buffer[..<count]) == Array("piped".utf8))
        #expect(try buffer.withUnsafeMutableBytes { try FileReading.read(ends[0], into: $0, path: "<pipe>") } == 0)
    }

    @Test func directoryEntriesMatchPythonsListing() throws {
        let root = try Self.makeTree()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let entries = try Directory.entries(atPath: root)
        // Python lists the names as bytes, hex-encoded one a line.
        let output = try PythonScript.text("import os,sys\nfor n in os.listdir(sys.argv[1].encode()): print(n.hex())", arguments: [root])
        let expected = output.split(separator: "\n").map { hex in
            RawFileName.decoding(stride(from: 0, to: hex.count, by: 2).map { UInt8(hex.dropFirst($0).prefix(2), radix: 16)! })
        }
        #expect(entries.map(\.name).sorted() == expected.sorted())
        #expect(expected.contains(Self.rawName))
        let kinds = Dictionary(uniqueKeysWithValues: entries.map { ($0.name, $0.kind) })
        // readdir may not say (DT_UNKNOWN on some file systems); where it does, it agrees with lstat.
        for (name, kind) in kinds {
            if let kind { #expect(kind == (try FileInfo.of(path: root + "/" + name, followingLink: false).kind), "\(name)") }
        }
    }

    @Test func linksReadAndResolve() throws {
        let root = try Self.makeTree()
        defer { try? FileManager.default.removeItem(atPath: root) }
        #expect(try SymbolicLink.destination(ofLinkAt: root + "/dangling") == "missing")
        let resolved = try SymbolicLink.resolvedPath(root + "/link")
        #expect(resolved == URL(fileURLWithPath: root + "/file").resolvingSymlinksInPath().path)
        #expect(throws: SystemCallError(path: root + "/dangling", code: ENOENT)) { try SymbolicLink.resolvedPath(root + "/dangling") }
    }

    @Test func makingADirectoryTellsWhatWasInTheWay() throws {
        let root = try Self.makeTree()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try Directory.make(atPath: root + "/new")
        #expect(try FileInfo.of(path: root + "/new").kind == .directory)
        let again = #expect(throws: SystemCallError.self) { try Directory.make(atPath: root + "/new") }
        #expect(again?.isAlreadyExisting == true)
        #expect(again?.path == root + "/new")
        let overFile = #expect(throws: SystemCallError.self) { try Directory.make(atPath: root + "/file") }
        #expect(overFile?.isAlreadyExisting == true)
        let inMissing = #expect(throws: SystemCallError.self) { try Directory.make(atPath: root + "/missing/new") }
        #expect(inMissing?.isNoSuchEntry == true)
        #expect(inMissing?.isAlreadyExisting == false)
        // A folder on the way that is a file: missing, but not "no such entry" (ENOTDIR).
        let underFile = #expect(throws: SystemCallError.self) { try Directory.make(atPath: root + "/file/new") }
        #expect(underFile?.isMissing == true)
        #expect(underFile?.isNoSuchEntry == false)
    }

    @Test func aFIFOIsReadableOnceAWriterWrites() throws {
        let root = try Self.makeTree()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let reader = try OpenFile(path: root + "/fifo", options: [.nonBlocking])
        // The reader is open, so opening the writer does not wait.
        let writer = try #require(FileHandle(forWritingAtPath: root + "/fifo"))
        defer { try? writer.close() }
        // A writer with nothing written: nothing to read, at once (a zero wait, no sleeping).
        #expect(try reader.waitUntilReadable(milliseconds: 0) == false)
        var buffer = [UInt8](repeating: 0, count: 8)
        let early = #expect(throws: SystemCallError.self) {
            try buffer.withUnsafeMutableBytes { bytes in _ = try reader.read(into: bytes) }
        }
        #expect(early?.isWouldBlock == true)
        writer.write(Data("abc".utf8))
        #expect(try reader.waitUntilReadable(milliseconds: -1))
        let count = try buffer.withUnsafeMutableBytes { try reader.read(into: $0) }
        #expect(Array(buffer[..<count]) == Array("abc".utf8))
    }

    @Test func writableIsWhatAccessSays() throws {
        let root = try Self.makeTree()
        defer { try? FileManager.default.removeItem(atPath: root) }
        #expect(FileAccess.isWritable(root + "/file"))
        #expect(FileAccess.isWritable(root + "/folder"))
        #expect(!FileAccess.isWritable(root + "/missing"))
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: root + "/file")
        // Root may write whatever the mode says; anyone else may not write a 0444 file.
        #expect(FileAccess.isWritable(root + "/file") == (geteuid() == 0))
    }

    @Test func positionalReadsAndWritesLeaveThePositionAlone() throws {
        let root = try Self.makeTree()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let descriptor = open(root + "/file", O_RDWR)
        #expect(descriptor >= 0)
        defer { close(descriptor) }
        try Array("EL".utf8).withUnsafeBytes { try PositionalIO.write(descriptor, $0, at: 1, path: root + "/file") }
        var buffer = [UInt8](repeating: 0, count: 8)
        // From byte 3 of "hELlo": two bytes, then the end.
        let count = try buffer.withUnsafeMutableBytes { try PositionalIO.read(descriptor, into: $0, at: 3, path: root + "/file") }
        #expect(Array(buffer[..<count]) == Array("lo".utf8))
        #expect(lseek(descriptor, 0, SEEK_CUR) == 0)
        #expect(try String(contentsOfFile: root + "/file", encoding: .utf8) == "hELlo")
        let folder = open(root + "/folder", O_RDONLY | O_DIRECTORY)
        defer { close(folder) }
        let failure = #expect(throws: SystemCallError.self) {
            try buffer.withUnsafeMutableBytes { _ = try PositionalIO.read(folder, into: $0, at: 0, path: "the folder") }
        }
        #expect(failure == SystemCallError(path: "the folder", code: EISDIR))
    }

    @Test func aNewFilesPermissionsAreWhatOpenGivesA0666File() throws {
        let root = try Self.makeTree()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let descriptor = open(root + "/made", O_WRONLY | O_CREAT | O_EXCL, 0o666)
        #expect(descriptor >= 0)
        defer { close(descriptor) }
        #expect(try FileInfo.of(path: root + "/made").permissions == FilePermissions.forNewFile())
        try FilePermissions.set(0o604, on: descriptor, path: root + "/made")
        #expect(try FileInfo.of(path: root + "/made").permissions == 0o604)
        let directory = try Directory.openDescriptor(atPath: root + "/folder")
        defer { close(directory) }
        #expect(try FileInfo.of(descriptor: directory, path: "folder").kind == .directory)
        #expect(throws: SystemCallError(path: root + "/file", code: ENOTDIR)) { try Directory.openDescriptor(atPath: root + "/file") }
    }

    @Test func removeTreeRemovesEverythingButWhatLinksPointTo() throws {
        let root = try Self.makeTree()
        defer { try? FileManager.default.removeItem(atPath: root) }
        // Inside the tree: nested folders, one read-only, a link out of the tree, a FIFO, a name not UTF-8.
        try FileManager.default.createDirectory(atPath: root + "/tree/a/b/c", withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: root + "/tree/a/b/c/deep", contents: Data("x".utf8)))
        #expect(FileManager.default.createFile(atPath: root + "/tree/a/sibling", contents: Data("y".utf8)))
        try FileManager.default.createSymbolicLink(atPath: root + "/tree/a/out", withDestinationPath: root + "/file")
        try FileManager.default.createSymbolicLink(atPath: root + "/tree/folderLink", withDestinationPath: root + "/folder")
        #expect(mkfifo(root + "/tree/a/b/fifo", 0o600) == 0)
        #expect(FileManager.default.createFile(atPath: root + "/tree/" + Self.rawName, contents: nil))
        try FileManager.default.setAttributes([.posixPermissions: 0o500], ofItemAtPath: root + "/tree/a/b")
        try Directory.removeTree(root + "/tree", in: CurrentDirectory.descriptor)
        #expect(!FileManager.default.fileExists(atPath: root + "/tree"))
        // What the links named is untouched, its permissions too.
        #expect(try String(contentsOfFile: root + "/file", encoding: .utf8) == "hello")
        #expect(try FileManager.default.attributesOfItem(atPath: root + "/file")[.posixPermissions] as? Int == 0o640)
        #expect(FileManager.default.fileExists(atPath: root + "/folder"))
        // A file alone, a link alone (not what it names) and nothing at all.
        try Directory.removeTree(root + "/link", in: CurrentDirectory.descriptor)
        #expect(FileManager.default.fileExists(atPath: root + "/file"))
        try Directory.removeTree(root + "/missing", in: CurrentDirectory.descriptor)
        try Directory.removeTree(root + "/fifo", in: CurrentDirectory.descriptor)
        #expect(try Directory.entries(atPath: root).map(\.name).sorted() == ["dangling", "file", "folder", Self.rawName].sorted())
    }

    @Test func removeTreeSaysWhatStayedAndWhy() throws {
        let root = try Self.makeTree()
        defer { try? FileManager.default.removeItem(atPath: root) }
        // One level deeper than the remover goes: the deepest folder stays, and so does every folder above it.
        let levels = Int(Directory.maximumRemovalDepth) + 2
        var path = root + "/deep"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        let top = open(path, O_RDONLY | O_DIRECTORY)
        #expect(top >= 0)
        var current = top
        for _ in 1..<levels {
            #expect(mkdirat(current, "d", 0o700) == 0)
            let next = openat(current, "d", O_RDONLY | O_DIRECTORY)
            if current != top { close(current) }
            current = next
        }
        #expect(FileManager.default.createFile(atPath: "/proc/self/fd/\(current)/last", contents: Data("z".utf8)))
        if current != top { close(current) }
        close(top)
        let error = try #require(throws: SystemCallError.self) { try Directory.removeTree(path, in: CurrentDirectory.descriptor) }
        #expect(error.code == ENOTEMPTY)
        #expect(error.path == path)
        #expect(FileManager.default.fileExists(atPath: path))
        // Below the limit, every file the remover reached is gone.
        path += "/d"
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: path) == ["d"])
    }
}
