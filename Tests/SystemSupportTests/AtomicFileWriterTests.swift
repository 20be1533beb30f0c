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

/// `AtomicFileWriter` on real files: the old file stays whole until commit,
/// keeps its permissions, a link is refused (or written through, or
/// replaced, when asked), a device is written directly (or refused), a
/// directory or a dangling link is refused, and no temporary is left
/// behind. Checked with `FileManager`.
struct AtomicFileWriterTests {
    private static func makeFolder() throws -> String {
        let folder = try ScratchFolder.make("AtomicFileWriterTests").path
        return folder
    }

    private static func write(_ text: String, to path: String, links: AtomicFileWriter.LinkHandling = .refused) throws {
        var options = AtomicFileWriter.Options()
        options.links = links
        try write(text, to: path, options: options)
    }

    @Test func replacesAFileKeepingItsPermissionsAndLeavingNoTemporary() throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/out.plist"
        #expect(FileManager.default.createFile(atPath: path, contents: Data("old".utf8), attributes: [.posixPermissions: 0o604]))
        let writer = try AtomicFileWriter(path: path)
        try Array("new contents".utf8).withUnsafeBytes { try writer.write($0) }
        // Before commit the old file is whole, and the new one is a hidden temporary beside it.
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "old")
        let during = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0 != "out.plist" }
        #expect(during.count == 1 && during[0].hasPrefix(".out.plist.ict-new-\(getpid())-"))
        try writer.commit()
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "new contents")
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o604)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["out.plist"])
    }

    @Test func abandoningLeavesTheOldFileAsItWas() throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/out.plist"
        #expect(FileManager.default.createFile(atPath: path, contents: Data("old".utf8)))
        do {
            let writer = try AtomicFileWriter(path: path)
            try Array("half".utf8).withUnsafeBytes { try writer.write($0) }
            writer.abandon()
        }
        do {
            // Dropped without commit: abandoned too.
            let writer = try AtomicFileWriter(path: path)
            try Array("half".utf8).withUnsafeBytes { try writer.write($0) }
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "old")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["out.plist"])
    }

    @Test func aLinkIsRefusedUnlessWrittenThroughOrReplaced() throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(FileManager.default.createFile(atPath: folder + "/file", contents: Data("old".utf8)))
        try FileManager.default.createSymbolicLink(atPath: folder + "/link", withDestinationPath: "file")
        // By default a link is refused: nothing is written, the file it names is untouched, no temporary is left.
        let refused = try #require(throws: AtomicFileWriter.Failure.self) { try Self.write("planted", to: folder + "/link") }
        #expect(refused.step == .symbolicLink)
        #expect(refused.description == "is a symbolic link (to \"file\"); not written through it, which would change whatever it points to")
        #expect(try String(contentsOfFile: folder + "/file", encoding: .utf8) == "old")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["file", "link"])
        try Self.write("through", to: folder + "/link", links: .followed)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: folder + "/link") == "file")
        #expect(try String(contentsOfFile: folder + "/file", encoding: .utf8) == "through")
        try Self.write("replaced", to: folder + "/link", links: .replaced)
        #expect(try FileManager.default.attributesOfItem(atPath: folder + "/link")[.type] as? FileAttributeType == .typeRegular)
        #expect(try String(contentsOfFile: folder + "/file", encoding: .utf8) == "through")
        #expect(try String(contentsOfFile: folder + "/link", encoding: .utf8) == "replaced")
    }

    @Test func aNameNotUTF8IsWrittenByteForByte() throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let name = RawFileName.decoding(Array("out".utf8) + [0xFE])
        try Self.write("raw", to: folder + "/" + name)
        let listed = try FileManager.default.contentsOfDirectory(atPath: folder)
        #expect(listed.count == 1)
        #expect(try Directory.entries(atPath: folder).map(\.name) == [name])
    }

    @Test func refusesADirectoryAndADanglingLinkAndWritesADeviceDirectly() throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(throws: AtomicFileWriter.Failure(description: "is a directory, not a file")) { try AtomicFileWriter(path: folder) }
        try FileManager.default.createSymbolicLink(atPath: folder + "/dangling", withDestinationPath: "missing")
        let failure = try #require(throws: AtomicFileWriter.Failure.self) { try AtomicFileWriter(path: folder + "/dangling", links: .followed) }
        #expect(failure.description.hasPrefix("is a symbolic link to nothing (dangling)"))
        #expect(throws: AtomicFileWriter.Failure.self) { try AtomicFileWriter(path: folder + "/dangling") }
        #expect(!FileManager.default.fileExists(atPath: folder + "/missing"))
        try Self.write("discarded", to: "/dev/null")
        #expect(try FileInfo.of(path: "/dev/null").kind == .characterDevice)
        // A link to a stream is written as the stream even when links are refused: no file changes through it.
        try FileManager.default.createSymbolicLink(atPath: folder + "/to-null", withDestinationPath: "/dev/null")
        try Self.write("discarded", to: folder + "/to-null")
        #expect(try FileInfo.of(path: "/dev/null").kind == .characterDevice)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: folder + "/to-null") == "/dev/null")
    }

    /// A path ending in `/` names a folder, never a file to write: refused (ENOTDIR, at opening) whether a
    /// file of that name exists or not, and nothing is made or changed in the folder. A name that starts with
    /// a combining mark (`/` + U+0301 is one Swift `Character`) is written in its folder like any other.
    @Test func aTrailingSlashIsRefusedAndACombiningMarkNameIsWrittenInItsFolder() throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(FileManager.default.createFile(atPath: folder + "/old.plist", contents: Data("old".utf8)))
        let before = try FolderSnapshot.take(folder)
        for path in [folder + "/new.plist/", folder + "/old.plist/"] {
            let failure = try #require(throws: AtomicFileWriter.Failure.self) { try AtomicFileWriter(path: path) }
            #expect(failure.systemError == ENOTDIR, "\(path): \(failure.description)")
        }
        #expect(try FolderSnapshot.take(folder) == before)

        try FileManager.default.createDirectory(atPath: folder + "/d", withIntermediateDirectories: false)
        let name = "\u{301}x.plist"
        try Self.write("marked", to: folder + "/d/" + name)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/d").map { Array($0.utf8) } == [Array(name.utf8)])
        #expect(try String(contentsOfFile: folder + "/d/" + name, encoding: .utf8) == "marked")
    }

    @Test func aFileChangedSinceItWasReadIsNotReplaced() throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/out.plist"
        #expect(FileManager.default.createFile(atPath: path, contents: Data("read".utf8)))
        let stamp = try #require(FileStamp(path: path))
        // Another program replaces the file after it was read.
        try Data("other program".utf8).write(to: URL(fileURLWithPath: path))
        let writer = try AtomicFileWriter(path: path)
        try Array("mine".utf8).withUnsafeBytes { try writer.write($0) }
        let failure = try #require(throws: AtomicFileWriter.Failure.self) { try writer.commit(expecting: stamp) }
        #expect(failure.changedSinceRead)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "other program")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["out.plist"])
    }

    /// The process's umask as the kernel reports it (`/proc/self/status`), read without changing it.
    private static func currentUmask() throws -> UInt16 {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("Umask:") })
        return try #require(UInt16(line.dropFirst("Umask:".count).trimmingCharacters(in: .whitespaces), radix: 8))
    }

    private static func write(_ text: String, to path: String, options: AtomicFileWriter.Options) throws {
        let writer = try AtomicFileWriter(path: path, options: options)
        try Array(text.utf8).withUnsafeBytes { try writer.write($0) }
        try writer.commit()
    }

    @Test func permissionsAreExactlyTheGivenOnesOrThemLessTheUmask() throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(FileManager.default.createFile(atPath: folder + "/old", contents: Data("old".utf8), attributes: [.posixPermissions: 0o604]))
        var options = AtomicFileWriter.Options()
        options.permissions = .exactly(0o666)
        try Self.write("exact", to: folder + "/old", options: options)
        // Not the old file's 0604, and not masked: 0666 whatever the umask.
        #expect(try FileManager.default.attributesOfItem(atPath: folder + "/old")[.posixPermissions] as? Int == 0o666)
        options.permissions = .lessUmask(0o666)
        try Self.write("masked", to: folder + "/new", options: options)
        let expected = 0o666 & ~(try Self.currentUmask())
        #expect(try FileManager.default.attributesOfItem(atPath: folder + "/new")[.posixPermissions] as? Int == Int(expected))
        #expect(try String(contentsOfFile: folder + "/new", encoding: .utf8) == "masked")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["new", "old"])
    }

    @Test func aPipeOrDeviceIsRefusedWhenSpecialFilesAreRefused() throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/pipe"
        #expect(mkfifo(path, 0o644) == 0)
        var options = AtomicFileWriter.Options()
        options.specialFiles = .refused
        // Opened for writing, the pipe would wait for a reader; replaced, what was there is gone: refused, neither happens.
        let failure = try #require(throws: AtomicFileWriter.Failure.self) { try Self.write("a document", to: path, options: options) }
        #expect(failure.step == .specialFile)
        #expect(failure.description == "is a FIFO (named pipe), not a regular file; it is left as it is")
        #expect(try FileInfo.of(path: path, followingLink: false).kind == .fifo)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["pipe"])
        let device = try #require(throws: AtomicFileWriter.Failure.self) { try Self.write("a document", to: "/dev/null", options: options) }
        #expect(device.description == "is a character device, not a regular file; it is left as it is")
        // A link to a device is refused too, as a link.
        try FileManager.default.createSymbolicLink(atPath: folder + "/to-null", withDestinationPath: "/dev/null")
        #expect(throws: AtomicFileWriter.Failure.self) { try Self.write("a document", to: folder + "/to-null", options: options) }
    }

    @Test func aWriterListingTheFolderItselfRemovesATemporaryLeftSinceTheLastListing() throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/out.plist"
        try Self.write("first", to: path)
        // A temporary of a process that has ended, left after the folder was listed.
        let ended = Process()
        ended.executableURL = URL(fileURLWithPath: "/bin/true")
        try ended.run()
        ended.waitUntilExit()
        let stale = ".out.plist.ict-new-\(ended.processIdentifier)-0000abcd"
        #expect(FileManager.default.createFile(atPath: folder + "/" + stale, contents: Data("half".utf8)))
        var options = AtomicFileWriter.Options()
        options.listingFolderOnce = false
        try Self.write("second", to: path, options: options)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["out.plist"])
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "second")
    }

    @Test func aFailureSaysItsStepAndTheSystemError() throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let failure = try #require(throws: AtomicFileWriter.Failure.self) { try AtomicFileWriter(path: folder + "/missing/out.plist") }
        #expect(failure.step == .openFolder)
        #expect(failure.systemError == ENOENT)
        #expect(failure.description == "cannot open the folder to write into: No such file or directory")
    }
}
