import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How a child process ended, how long it took from spawn to reaped, and
/// the most memory it held.
struct ChildOutcome {
    /// The exit status, or nil when a signal ended it.
    let exitStatus: Int32?
    let wallTime: Duration
    /// User plus system time of the child.
    let cpuTime: Duration
    /// The child's peak resident set size, from `wait4`'s resource usage.
    let peakResidentBytes: Int
}

/// Runs `arguments` (the program is looked up in PATH) with standard output
/// and standard error sent to the named files (standard error inherited
/// when nil), and waits for it.
///
/// `posix_spawnp` and `wait4` directly, with no pipes or threads in between,
/// so the wall time is the child's own plus one spawn, the same for every
/// command timed this way.
func runChild(_ arguments: [String], standardOutput: String, standardError: String?) throws -> ChildOutcome {
#if canImport(Darwin)
    var actions: posix_spawn_file_actions_t? = nil
#else
    var actions = posix_spawn_file_actions_t()
#endif
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, standardOutput, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    if let standardError {
        posix_spawn_file_actions_addopen(&actions, 2, standardError, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    }

    let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }

    let clock = ContinuousClock()
    let start = clock.now
    var pid = pid_t()
    let spawnError = posix_spawnp(&pid, arguments[0], &actions, nil, argv, environ)
    guard spawnError == 0 else {
        throw BenchmarkFailure("cannot start \(arguments[0]): \(String(cString: strerror(spawnError)))")
    }
    var status: Int32 = 0
    var usage = rusage()
    while wait4(pid, &status, 0, &usage) == -1 {
        guard errno == EINTR else { throw BenchmarkFailure("wait4 failed: \(String(cString: strerror(errno)))") }
    }
    let elapsed = clock.now - start

    let exited = status & 0x7f == 0  // WIFEXITED
#if canImport(Darwin)
    let peakResidentBytes = Int(usage.ru_maxrss)  // bytes on Darwin
#else
    let peakResidentBytes = Int(usage.ru_maxrss) * 1024  // kilobytes on Linux
#endif
    func duration(_ time: timeval) -> Duration {
        .seconds(Int64(time.tv_sec)) + .microseconds(Int64(time.tv_usec))
    }
    return ChildOutcome(exitStatus: exited ? (status >> 8) & 0xff : nil, wallTime: elapsed,
                        cpuTime: duration(usage.ru_utime) + duration(usage.ru_stime),
                        peakResidentBytes: peakResidentBytes)
}

/// Runs `arguments` once and fails unless it exits with status 0; its
/// standard error goes into the failure's message.
func runChildChecked(_ arguments: [String], standardOutput: String) throws -> ChildOutcome {
    let errorFile = temporaryPath("stderr")
    defer { unlink(errorFile) }
    let outcome = try runChild(arguments, standardOutput: standardOutput, standardError: errorFile)
    guard outcome.exitStatus == 0 else {
        let message = (try? String(contentsOfFile: errorFile, encoding: .utf8)) ?? ""
        let how = outcome.exitStatus.map { "exited with status \($0)" } ?? "was killed by a signal"
        throw BenchmarkFailure("`\(arguments.joined(separator: " "))` \(how): \(message.trimmingCharacters(in: .whitespacesAndNewlines))")
    }
    return outcome
}

extension ChildOutcome {
    /// This run as a timing sample.
    var sample: Sample { Sample(wall: wallTime, cpu: cpuTime) }
}

/// A fresh path in the temporary directory.
func temporaryPath(_ purpose: String) -> String {
    FileManager.default.temporaryDirectory
        .appendingPathComponent("ictkit-bench-\(getpid())-\(purpose)-\(UUID().uuidString)").path
}

/// This executable, for re-running it in a child mode.
var currentExecutable: String {
    Bundle.main.executablePath ?? CommandLine.arguments[0]
}
