import Foundation
import TestSupport
import Testing

/// The progress line of long `ict validate` runs: on a terminal only, after a second, cleared at the end.
/// Each run sets the quiet period (`ICT_PROGRESS_QUIET_MS`): 0 for a line from the first step, an hour
/// for none, so that no outcome depends on how fast the machine is.
struct ProgressReporterTests {
    static let fileCount = 200
    static let shownAtOnce = ["ICT_PROGRESS_QUIET_MS": "0"]
    static let neverShown = ["ICT_PROGRESS_QUIET_MS": "3600000"]

    /// A fresh folder of `count` valid XML property lists, each an array of 3000 integers (67 KB).
    private func files(_ count: Int) throws -> (folder: URL, paths: [String]) {
        let folder = try ScratchFolder.make("progress")
        let body = Data(
            ("<?xml version=\"1.0\"?>\n<plist version=\"1.0\"><array>"
                + (0..<3000).map { "<integer>\($0)</integer>" }.joined() + "</array></plist>\n").utf8)
        let paths = try (0..<count).map { index in
            let file = folder.appendingPathComponent("f\(index).plist")
            try body.write(to: file)
            return file.path
        }
        return (folder, paths)
    }

    /// Runs `ict` with standard error on a new pseudo-terminal (python3's `pty`)
    /// and standard output in a file; returns what the terminal received.
    private func runOnTerminal(_ arguments: [String], environment: [String: String]) throws -> (
        status: Int32, terminal: String, stdout: String
    ) {
        let outFile = URL(fileURLWithPath: ScratchFolder.filePath("ict-progress-out", extension: "txt"))
        defer { try? FileManager.default.removeItem(at: outFile) }
        let script = """
            import os, pty, sys
            out_path, program = sys.argv[1], sys.argv[2]
            pid, terminal = pty.fork()
            if pid == 0:
                for assignment in sys.argv[3].split("\\n") if sys.argv[3] else []:
                    name, value = assignment.split("=", 1)
                    os.environ[name] = value
                os.dup2(os.open(out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644), 1)
                os.execv(program, [program] + sys.argv[4:])
            received = bytearray()
            while True:
                try:
                    chunk = os.read(terminal, 65536)
                except OSError:  # EIO once the child has closed the terminal
                    break
                if not chunk:
                    break
                received += chunk
            _, status = os.waitpid(pid, 0)
            sys.stdout.buffer.write(received)
            sys.exit(os.waitstatus_to_exitcode(status))
            """
        let assignments = environment.map { "\($0.key)=\($0.value)" }.joined(separator: "\n")
        let run = try ProgramRunner.run(
            "python3", ["-c", script, outFile.path, ICTRunner.executable.path, assignments] + arguments)
        return (run.status, run.stdout, (try? String(contentsOf: outFile, encoding: .utf8)) ?? "")
    }

    @Test func longValidateShowsProgressOnATerminalAndClearsIt() throws {
        let (folder, paths) = try files(Self.fileCount)
        defer { try? FileManager.default.removeItem(at: folder) }
        let start = ContinuousClock.now
        let run = try runOnTerminal(["validate"] + paths, environment: Self.shownAtOnce)
        let seconds = Double((ContinuousClock.now - start).components.seconds) + 1
        #expect(run.status == 0)
        #expect(run.terminal.contains("\rvalidate: "), "no progress line")
        #expect(run.terminal.contains("/\(Self.fileCount) files"))
        #expect(run.terminal.hasSuffix("\r\u{1B}[K"), "the line is cleared at the end")
        // The line is put back after each file's output, but its count changes at most ten times a second.
        let counts = Set(run.terminal.matches(of: /validate: (\d+)\//).map { String($0.1) })
        #expect(counts.count <= Int(seconds * 10), "\(counts.count) counts shown in under \(seconds) s")
        #expect(run.stdout.split(separator: "\n").count == Self.fileCount)
        #expect(!run.stdout.contains("validate: "))
    }

    @Test func shortValidateOnATerminalPrintsNoProgress() throws {
        let (folder, paths) = try files(10)
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try runOnTerminal(["validate"] + paths, environment: Self.neverShown)
        #expect(run.status == 0)
        #expect(run.terminal.isEmpty)
    }

    @Test func longValidateWithStandardErrorInAFilePrintsNothingExtra() throws {
        let (folder, paths) = try files(Self.fileCount)
        defer { try? FileManager.default.removeItem(at: folder) }
        // Standard error is a file here (ProgramRunner): no line, even with no quiet period.
        let run = try ProgramRunner.run(
            ICTRunner.executable.path, ["validate"] + paths,
            environment: ProcessInfo.processInfo.environment.merging(Self.shownAtOnce) { $1 })
        #expect(run.status == 0)
        #expect(run.stderr.isEmpty)
        #expect(run.stdout.split(separator: "\n").count == Self.fileCount)
    }

    /// Zipping a package and restoring it each show their count, and clear the line.
    @Test func zipAndRestoreShowProgressOnATerminalAndClearIt() throws {
        let folder = try ScratchFolder.make("ict-progress-zip")
        defer { try? FileManager.default.removeItem(at: folder) }
        let package = folder.appendingPathComponent("Many.pkg")
        try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
        var generator = SeededBytes(seed: 20)
        let fileCount = 300
        // Hex text of random bytes: half compressible, so deflate has work to do. Each file is another window of it.
        let digits = Array("0123456789abcdef".utf8)
        let text = (0..<(fileCount + 8000) / 2).flatMap { _ in
            let byte = generator.next()
            return [digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]]
        }
        for index in 0..<fileCount {
            try Data(text[index..<(index + 8000)]).write(to: package.appendingPathComponent("f\(index).txt"))
        }
        let zip = folder.appendingPathComponent("Many.zip").path
        let zipped = try runOnTerminal(["convert", package.path, "--format", "zip", "-o", zip], environment: Self.shownAtOnce)
        #expect(zipped.status == 0)
        #expect(zipped.terminal.contains("\rzip: "), "no progress line")
        #expect(zipped.terminal.contains("/\(fileCount + 1) entries"), "the files and the package's own directory")
        #expect(zipped.terminal.hasSuffix("\r\u{1B}[K"), "the line is cleared at the end")
        let restored = folder.appendingPathComponent("Restored.pkg").path
        let restore = try runOnTerminal(["convert", zip, "--format", "package", "-o", restored], environment: Self.shownAtOnce)
        #expect(restore.status == 0)
        #expect(restore.terminal.contains("\rrestore: "), "no progress line")
        #expect(restore.terminal.contains("/\(fileCount) files"))
        #expect(restore.terminal.hasSuffix("\r\u{1B}[K"))
        // The files, and the manifest the restore's save writes.
        #expect(try FileManager.default.contentsOfDirectory(atPath: restored).filter { $0 != ".ictkit-manifest.plist" }.count == fileCount)
        let first = try Data(contentsOf: package.appendingPathComponent("f0.txt"))
        #expect(FileManager.default.contents(atPath: restored + "/f0.txt") == first)
    }
}

/// A small seeded byte generator (xorshift), so the test's files are the same every run.
private struct SeededBytes {
    private var state: UInt64

    init(seed: UInt64) { state = seed &* 0x9E37_79B9_7F4A_7C15 | 1 }

    mutating func next() -> UInt8 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return UInt8(truncatingIfNeeded: state >> 32)
    }
}
