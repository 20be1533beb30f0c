import Foundation
import TestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What one run of the built `ict` did.
struct ICTRun {
    var status: Int32
    var stdout: String
    var stderr: String
    /// Standard error as bytes (file names in it need not be UTF-8).
    var stderrBytes: [UInt8]
    var seconds: Double
    /// Peak resident memory of the process, in bytes.
    var peakMemory: Int
}

/// Runs the `ict` executable built beside the test bundle, with output sent
/// to files (no pipe can fill up) and the child's resource use read by `wait4`.
enum ICTRunner {
    static let executable: URL = {
        var folders = Bundle.allBundles.map { $0.bundleURL.deletingLastPathComponent() }
        folders.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        for folder in folders {
            let candidate = folder.appendingPathComponent("ict")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return Repository.root.appendingPathComponent(".build/debug/ict")
    }()

    static func run(
        _ arguments: [String], stdin: Data? = nil, stdinPath: String? = nil, stdoutPath: String? = nil, killedAfter seconds: Int? = nil,
        environment: [String: String] = [:]
    ) throws -> ICTRun {
        try run(
            rawArguments: arguments.map { Array($0.utf8) }, stdin: stdin, stdinPath: stdinPath, stdoutPath: stdoutPath, killedAfter: seconds,
            environment: environment)
    }

    /// Runs `ict` with arguments given as bytes, so a test can pass a file
    /// name that is not UTF-8. With `stdinPath`, standard input is that file
    /// opened for reading (`/dev/zero`, say) instead of `stdin`'s bytes; with
    /// `stdoutPath`, standard output is that file opened for writing
    /// (`/dev/full`, say; `stdout` is then empty). With `killedAfter`, a run
    /// still going after that many seconds (one that waits on a FIFO, say)
    /// is ended with SIGKILL (`timeout`), and its status is 137: a bounded
    /// wait for a test whose failure would be a hang.
    static func run(
        rawArguments arguments: [[UInt8]], stdin: Data? = nil, stdinPath: String? = nil, stdoutPath: String? = nil,
        killedAfter seconds: Int? = nil, environment: [String: String] = [:]
    ) throws -> ICTRun {
        let scratch = try ScratchFolder.make("run")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let inPath = scratch.appendingPathComponent("in").path
        let outPath = scratch.appendingPathComponent("out").path
        let errPath = scratch.appendingPathComponent("err").path
        try (stdin ?? Data()).write(to: URL(fileURLWithPath: inPath))

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdinPath ?? inPath, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath ?? outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        // glibc's posix_spawn shares this (large) test process's memory until
        // the child execs, and Linux then counts that in the child's peak.
        // GNU time forks from its own small process, so its figure is the
        // command's own; Darwin's wait4 figure is right as it is.
        #if canImport(Glibc)
        let memoryPath = scratch.appendingPathComponent("memory").path
        let program = "/usr/bin/time"
        let bound = seconds.map { ["/usr/bin/timeout", "-s", "KILL", String($0)] } ?? []
        let fullArguments = ([program, "-f", "%M", "-o", memoryPath] + bound + [executable.path]).map { Array($0.utf8) } + arguments
        #else
        let bound = seconds.map { ["/usr/bin/timeout", "-s", "KILL", String($0)] } ?? []
        let program = bound.first ?? executable.path
        let fullArguments = (bound + [executable.path]).map { Array($0.utf8) } + arguments
        #endif
        let argv: [UnsafeMutablePointer<CChar>?] =
            fullArguments.map { bytes in
                let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
                for (index, byte) in bytes.enumerated() { copy[index] = CChar(bitPattern: byte) }
                copy[bytes.count] = 0
                return copy
            } + [nil]
        defer { argv.forEach { $0?.deallocate() } }
        // This process's environment with `environment`'s variables set (replacing any of the same name).
        var variables = ProcessInfo.processInfo.environment
        for (name, value) in environment { variables[name] = value }
        let envp: [UnsafeMutablePointer<CChar>?] = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        var pid: pid_t = 0
        let start = ContinuousClock.now
        let spawned =
            environment.isEmpty
            ? posix_spawn(&pid, program, &actions, nil, argv, environ)
            : envp.withUnsafeBufferPointer { posix_spawn(&pid, program, &actions, nil, argv, UnsafeMutablePointer(mutating: $0.baseAddress)) }
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO) }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let elapsed = start.duration(to: .now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let exitStatus: Int32 = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        #if canImport(Glibc)
        let reported = (try? String(contentsOfFile: memoryPath, encoding: .utf8)) ?? ""
        let peak = (Int(reported.split(separator: "\n").last.map(String.init) ?? "") ?? Int.max / 2048) * 1024  // Kilobytes.
        #else
        let peak = Int(usage.ru_maxrss)  // Bytes on Darwin.
        #endif
        return ICTRun(
            status: exitStatus,
            stdout: String(decoding: (try? Data(contentsOf: URL(fileURLWithPath: outPath))) ?? Data(), as: UTF8.self),
            stderr: String(decoding: (try? Data(contentsOf: URL(fileURLWithPath: errPath))) ?? Data(), as: UTF8.self),
            stderrBytes: [UInt8]((try? Data(contentsOf: URL(fileURLWithPath: errPath))) ?? Data()),
            seconds: seconds, peakMemory: peak)
    }

    /// Starts `ict` without waiting, as a shell starts a command: no signal
    /// blocked and every signal's action the default (a test runner's worker
    /// threads block some), standard streams to /dev/null, or standard output
    /// and error to the descriptors given. Returns its pid.
    static func spawn(_ arguments: [String], standardOutput: Int32? = nil, standardError: Int32? = nil) throws -> pid_t {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t(), all = sigset_t()
        sigemptyset(&empty)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (descriptor, given): (Int32, Int32?) in [(0, nil), (1, standardOutput), (2, standardError)] {
            if let given {
                posix_spawn_file_actions_adddup2(&actions, given, descriptor)
            } else {
                posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
            }
        }
        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable.path, &actions, &attributes, argv, environ)
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO) }
        return pid
    }
}
