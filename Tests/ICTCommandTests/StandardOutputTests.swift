import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `StandardOutput`, the one writer of standard output (issue 38 item 6):
/// every command that prints there, with standard output on `/dev/full`,
/// exits 1 with `ict: error: cannot write to standard output: No space left
/// on device` (the reason as `strerror(ENOSPC)` gives it); with standard
/// output a pipe whose reader is gone, it stops cleanly: exit status 0 (or
/// 141, SIGPIPE's, as `cat` ends) and nothing on standard error. Nothing on
/// disk changes either way.
@Suite struct StandardOutputTests {
    private let folder: String
    /// The message, its reason from the C library rather than from the code under test.
    private static let fullMessage = "ict: error: cannot write to standard output: \(String(cString: strerror(ENOSPC)))\n"

    init() throws {
        folder = try ScratchFolder.make("ict-stdout").path
        try FileManager.default.createDirectory(atPath: folder + "/Docs", withIntermediateDirectories: true)
        try Data("<plist><dict><key>a</key><string>x</string></dict></plist>".utf8).write(to: URL(fileURLWithPath: folder + "/a.plist"))
        try Data("<plist><dict><key>a</key><string>y</string></dict></plist>".utf8).write(to: URL(fileURLWithPath: folder + "/b.plist"))
        try FileManager.default.copyItem(atPath: Repository.path("SampleDocs/Coffee.ict"), toPath: folder + "/Docs/Coffee.ict")
    }

    /// Every command that prints on standard output, with the arguments a user
    /// would give it (paths below the scratch folder, which `$F` stands for).
    static let commands: [[String]] = [
        ["inspect", "$F/a.plist"],
        ["inspect", "--json", "$F/a.plist"],
        ["inspect", "$F/Docs/Coffee.ict"],
        ["list", "$F/Docs"],
        ["list", "--jsonl", "$F/Docs"],
        ["validate", "$F/a.plist"],
        ["validate", "--json", "$F/a.plist"],
        ["get", "$F/a.plist", "a"],
        ["get", "$F/a.plist", "a", "--format", "xml1"],
        ["versions", "$F/Docs/Coffee.ict"],
        ["types", "identify", "$F/a.plist"],
        ["types", "show", "public.xml"],
        ["types", "lookup", "--extension", "plist"],
        ["type", "$F/a.plist", "a"],
        ["diff", "$F/a.plist", "$F/b.plist"],
        ["convert", "$F/a.plist", "--format", "json", "-o", "-"],
        ["plutil", "-p", "$F/a.plist"],
        ["plutil", "-convert", "xml1", "-o", "-", "$F/a.plist"],
        ["--help"],
        ["inspect", "--help"],
        ["help", "list"],
        ["--version"],
    ]

    private func arguments(_ command: [String]) -> [String] {
        command.map { $0.replacingOccurrences(of: "$F", with: folder) }
    }

    @Test(arguments: commands)
    func aFullDiskIsAnErrorNamingStandardOutput(_ command: [String]) throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let before = try FolderSnapshot.take(folder)
        let run = try ICTRunner.run(arguments(command), stdoutPath: "/dev/full")
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.hasSuffix(Self.fullMessage), "\(run.stderr)")
        // Said once: the command stops at the first failed write.
        #expect(run.stderr.components(separatedBy: "cannot write").count == 2, "\(run.stderr)")
        #expect(try FolderSnapshot.take(folder) == before)
    }

    /// The reader of the pipe is gone before the first write: the process
    /// must neither spew a message nor fail.
    @Test(arguments: commands)
    func aClosedPipeIsACleanStop(_ command: [String]) throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let before = try FolderSnapshot.take(folder)
        let (status, stderr) = try Self.runWithClosedPipe(arguments(command))
        #expect(status == 0 || status == 128 + SIGPIPE, "exit status \(status); \(stderr)")
        #expect(stderr == "")
        #expect(try FolderSnapshot.take(folder) == before)
    }

    /// A command that saves and then says so (`set`): the save stands, and a
    /// full standard output is still reported, after it.
    @Test func aSaveThenAFullStandardOutputSaysSoAfterSaving() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let run = try ICTRunner.run(["set", folder + "/a.plist", "a", "-string", "z"], stdoutPath: "/dev/full")
        #expect(run.status == 1)
        #expect(run.stderr == Self.fullMessage)
        let saved = try ICTRunner.run(["get", folder + "/a.plist", "a"])
        #expect(saved.stdout == "z\n")
    }

    /// Runs `ict` with standard output the write end of a pipe whose read
    /// end is closed (so its first write fails with EPIPE), as `runBounded`.
    static func runWithClosedPipe(_ arguments: [String]) throws -> (status: Int32, stderr: String) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        close(ends[0])
        defer { close(ends[1]) }
        return try runBounded(arguments, standardOutput: ends[1])
    }

    /// Runs `ict` with standard output `standardOutput` and standard error a
    /// pipe read to its end, which comes when the process ends: waited for
    /// at most 30 seconds (a command that goes on, as `list --watch` would
    /// after its output failed, is then killed and the test fails). Returns
    /// the exit status (128 + N for a signal) and standard error.
    static func runBounded(_ arguments: [String], standardOutput: Int32) throws -> (status: Int32, stderr: String) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let pid: pid_t
        do {
            defer { close(ends[1]) }
            pid = try ICTRunner.spawn(arguments, standardOutput: standardOutput, standardError: ends[1])
        }
        defer { close(ends[0]) }
        var stderr: [UInt8] = []
        let deadline = ContinuousClock.now + .seconds(30)
        var ended = false
        while !ended {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { break }
            var ready = pollfd(fd: ends[0], events: Int16(POLLIN), revents: 0)
            let milliseconds = left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000
            guard poll(&ready, 1, Int32(max(1, milliseconds))) > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = read(ends[0], &buffer, buffer.count)
            if count > 0 { stderr += buffer[..<count] } else if count == 0 || errno != EINTR { ended = true }
        }
        if !ended { kill(pid, SIGKILL) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        #expect(ended, "\(arguments) did not end within 30 seconds")
        let exit = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return (exit, String(decoding: stderr, as: UTF8.self))
    }
}
