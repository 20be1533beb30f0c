import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `ict` through the file coordinator (issue 22, item 5): a presenter of
/// the document in another process (`CoordinationStress present`) is asked
/// to save before `ict set` writes, and told of the change; `ict versions`
/// reports the document's state.
struct CoordinatedCommandTests {
    static func folder() throws -> String {
        let folder = try ScratchFolder.make("coordinated").path
        return folder
    }

    static let presenterTool = ICTRunner.executable.deletingLastPathComponent().appendingPathComponent("CoordinationStress")

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: presenterTool.path), "CoordinationStress is not built beside ict"))
    func aPresenterIsAskedToSaveAndToldOfAnEdit() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/p.plist"
        // Written through a descriptor closed on exec: one inherited by a child another test spawns
        // meanwhile would be closed later, and the presenter told of that (IN_CLOSE_WRITE) as a change.
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        try #require(descriptor >= 0)
        let bytes = Array(#"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict/></plist>"#.utf8)
        #expect(bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) } == bytes.count)
        close(descriptor)
        let presenter = Process()
        presenter.executableURL = Self.presenterTool
        presenter.arguments = ["present", path]
        let input = Pipe()
        let output = Pipe()
        presenter.standardInput = input
        presenter.standardOutput = output
        try presenter.run()
        defer {
            try? input.fileHandleForWriting.close()
            presenter.waitUntilExit()
        }
        let reader = LineReader(output.fileHandleForReading)
        try #require(reader.next() == "ready")
        let run = try ICTRunner.run(["set", path, "k", "-integer", "1"])
        #expect(run.status == 0, "\(run.stderr)")
        // Asked before the edit was written, and told of it after.
        var said: [String] = []
        var toldAfterAsking = false
        while let line = reader.next() {
            if line == "changed", said.contains("asked") {
                toldAfterAsking = true
                break
            }
            said.append(line)
        }
        #expect(said.filter { $0 == "asked" }.count == 1, "\(said)")
        #expect(toldAfterAsking, "\(said)")
    }

    @Test func versionsReportsTheDocumentState() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/notes.txt"
        try Data("mine".utf8).write(to: URL(fileURLWithPath: path))
        let normal = try ICTRunner.run(["versions", path])
        #expect(normal.status == 0, "\(normal.stderr)")
        #expect(normal.stdout.contains("\nstate: normal\n"), "\(normal.stdout)")
        try Data("theirs".utf8).write(to: URL(fileURLWithPath: folder + "/notes.sync-conflict-20261125-101500-ABCDEF7.txt"))
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: path)
        let conflicted = try ICTRunner.run(["versions", path])
        #expect(conflicted.stdout.contains("\nstate: inConflict, editingDisabled\n"), "\(conflicted.stdout)")
        let json = try ICTRunner.run(["versions", "--json", path])
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(object?["state"] as? [String] == ["inConflict", "editingDisabled"])
    }
}

/// Lines of a pipe, each waited for with a bound (60 s: a presenter that
/// says nothing fails the test rather than hanging it).
final class LineReader: @unchecked Sendable {
    // @unchecked: `lines` is only touched under `lock`.
    private let lock = NSCondition()
    private var lines: [String] = []
    private var ended = false

    init(_ handle: FileHandle) {
        Thread { [self] in
            var pending = Data()
            while true {
                let chunk = handle.availableData
                lock.lock()
                if chunk.isEmpty {
                    ended = true
                } else {
                    pending += chunk
                    while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                        lines.append(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                        pending = Data(pending[(newline + 1)...])
                    }
                }
                lock.broadcast()
                lock.unlock()
                if chunk.isEmpty { return }
            }
        }.start()
    }

    /// The next line, or nil when the pipe ended or none came within 60 s.
    func next() -> String? {
        lock.lock()
        defer { lock.unlock() }
        let deadline = Date().addingTimeInterval(60)
        while lines.isEmpty, !ended, lock.wait(until: deadline) {}
        return lines.isEmpty ? nil : lines.removeFirst()
    }
}
