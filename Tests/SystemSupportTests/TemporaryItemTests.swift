import Foundation
import TestSupport
import Testing

@testable import SystemSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one temporary-name scheme: names within `NAME_MAX` whatever the
/// target, recognised by target and owner, and stale ones removed from a
/// real folder (nested, read-only) while live ones stay.
struct TemporaryItemTests {
    /// A target of `length` bytes: ASCII, two-byte characters, or bytes that are not UTF-8.
    private static func target(_ length: Int, _ kind: Int) -> String {
        switch kind {
        case 0: return String(repeating: "a", count: length)
        case 1: return String(repeating: "é", count: length / 2) + String(repeating: "a", count: length % 2)
        default: return RawFileName.decoding([UInt8](repeating: 0xFF, count: length))
        }
    }

    @Test(arguments: [1, 200, 226, 227, 250, 255], [0, 1, 2])
    func namesStayWithin255BytesAndAreRecognised(length: Int, kind: Int) {
        let target = Self.target(length, kind)
        #expect(RawFileName.bytes(target).count == length)
        for role in [TemporaryItem.Role.new, .old] {
            let name = TemporaryItem.name(for: target, role: role)
            let bytes = RawFileName.bytes(name)
            #expect(bytes.count <= 255, "\(bytes.count) bytes for a target of \(length)")
            #expect(bytes.first == UInt8(ascii: "."))
            let owner = TemporaryItem.owner(of: bytes, target: target)
            #expect(owner?.role == role && owner?.processID == getpid())
            // Another target, even one sharing all but the last byte, does not claim it.
            #expect(TemporaryItem.owner(of: bytes, target: target + "x") == nil)
            #expect(TemporaryItem.target(of: bytes) == (length <= 226 ? target : nil))
        }
        // Short names are kept whole; long ones keep apart by their hash.
        let other = String(target.dropLast()) + "b"
        #expect(TemporaryItem.embeddedName(RawFileName.bytes(target)) != TemporaryItem.embeddedName(RawFileName.bytes(other)))
    }

    /// A real folder: stale temporaries of `Doc.ict` (a read-only nested
    /// folder, a file, one of the names `ict` used before) are removed, an
    /// old version aside is put back where the target is missing, and the
    /// temporaries of live processes and of another target stay.
    @Test func staleTemporariesAreRemovedAndAnOldVersionPutBack() throws {
        let folder = try ScratchFolder.make("TemporaryItemTests").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // A process that has ended, waited for: its id is gone.
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/true")
        try child.run()
        child.waitUntilExit()
        let dead = child.processIdentifier
        let stale = [".Doc.ict.ict-new-\(dead)-0000abcd", ".Doc.ict.saving-\(dead)-1f"]
        let aside = ".Doc.ict.ict-old-\(dead)-12345678"
        let kept = [".Doc.ict.ict-new-1-0000abcd", ".Other.ict.ict-new-\(dead)-0000abcd"]
        try FileManager.default.createDirectory(atPath: "\(folder)/\(stale[0])/deep/er", withIntermediateDirectories: true)
        try Data("x".utf8).write(to: URL(fileURLWithPath: "\(folder)/\(stale[0])/deep/er/file"))
        chmod("\(folder)/\(stale[0])/deep/er", 0o500)
        chmod("\(folder)/\(stale[0])/deep", 0o500)
        try Data("half".utf8).write(to: URL(fileURLWithPath: "\(folder)/\(stale[1])"))
        try FileManager.default.createDirectory(atPath: "\(folder)/\(aside)", withIntermediateDirectories: true)
        try Data("old version".utf8).write(to: URL(fileURLWithPath: "\(folder)/\(aside)/data"))
        for name in kept { try Data().write(to: URL(fileURLWithPath: "\(folder)/\(name)")) }

        let directory = open(folder, O_RDONLY | O_DIRECTORY)
        #expect(directory >= 0)
        defer { close(directory) }
        let handled = TemporaryItem.removeStale(of: "Doc.ict", in: directory)
        #expect(Set(handled.map { String(decoding: $0, as: UTF8.self) }) == Set(stale + [aside]))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == (kept + ["Doc.ict"]).sorted())
        #expect(try String(contentsOfFile: folder + "/Doc.ict/data", encoding: .utf8) == "old version")
    }

    /// `makeFile` and `makeFolder` make items under fresh names beside a
    /// 255-byte target, which `finished` lets go of.
    @Test func itemsAreMadeBesideA255ByteTarget() throws {
        let folder = try ScratchFolder.make("TemporaryItemTests").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let directory = open(folder, O_RDONLY | O_DIRECTORY)
        defer { close(directory) }
        let target = Self.target(255, 2)
        let file = try #require(TemporaryItem.makeFile(for: target, in: directory, folder: folder))
        close(file.descriptor)
        let made = try #require(TemporaryItem.makeFolder(for: target, in: directory, folder: folder))
        #expect(file.name != made)
        for name in [file.name, made] {
            var status = stat()
            #expect(RawFileName.withPath(TemporaryItem.path(name, in: folder)) { lstat($0, &status) } == 0)
            #expect(TemporaryItem.owner(of: RawFileName.bytes(name), target: target)?.processID == getpid())
            TemporaryItem.finished(name, folder: folder)
        }
        // This process is alive: nothing of its own is stale.
        #expect(TemporaryItem.removeStale(of: target, in: directory).isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).count == 2)
    }
    /// A writer's process ID given again to another process: a live process
    /// that started after the temporary last changed cannot have written it,
    /// so the temporary is stale; one that started before may be writing it.
    /// The start time is checked against `ps`'s elapsed seconds.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self/stat"), "process start times are read from /proc"))
    func aProcessIDGivenAgainIsToldFromTheWriterByItsStartTime() throws {
        let sleeper = Process()
        sleeper.executableURL = URL(fileURLWithPath: "/bin/sleep")
        sleeper.arguments = ["30"]
        try sleeper.run()
        defer {
            // SIGKILL: a child of a test runner's thread may have SIGTERM blocked.
            kill(sleeper.processIdentifier, SIGKILL)
            sleeper.waitUntilExit()
        }
        let started = try #require(ProcessStart.seconds(of: sleeper.processIdentifier))
        let now = Date().timeIntervalSince1970
        #expect(started <= now + 0.02 && started > now - 30, "started \(now - started) s ago")
        let ps = try ProgramRunner.run("/bin/ps", ["-o", "etimes=", "-p", String(getpid())])
        let elapsed = try #require(Double(ps.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        let ownStart = try #require(ProcessStart.seconds(of: getpid()))
        #expect(abs((Date().timeIntervalSince1970 - ownStart) - elapsed) < 2, "ps says this process has run \(elapsed) s")

        // Changed three seconds before the sleeper started: the sleeper is not its writer.
        #expect(TemporaryItem.writerIsGone(sleeper.processIdentifier, changedAt: started - 3))
        // Changed after it started, or within the two seconds of margin before: it may be the writer.
        #expect(!TemporaryItem.writerIsGone(sleeper.processIdentifier, changedAt: started + 1))
        #expect(!TemporaryItem.writerIsGone(sleeper.processIdentifier, changedAt: started - 1))
        #expect(!TemporaryItem.writerIsGone(getpid(), changedAt: 0), "never this process")
    }
}
