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
    /// Minor page faults of the child, from `wait4`'s resource usage.
    let minorPageFaults: Int
    /// The child's I/O counters (`rchar`, `syscr`, …) from `/proc/PID/io` as
    /// it stood at exit, when asked for; nil otherwise.
    let ioCounters: [String: Int]?
}

/// Runs `arguments` (the program is looked up in PATH) with standard output
/// and standard error sent to the named files (standard error inherited
/// when nil), and waits for it.
///
/// `posix_spawnp` and `wait4` directly, with no pipes or threads in between,
/// so the wall time is the child's own plus one spawn, the same for every
/// command timed this way.
///
/// With `readingIOCounters`, the child is first waited for without being
/// reaped (`waitid` with `WNOWAIT`): it has exited, its counters are final,
/// and `/proc/PID/io` still answers for the zombie. Then `wait4` reaps it.
/// (The read of `/proc` adds to the wall time; rows that use it do not time.)
func runChild(
    _ arguments: [String], standardOutput: String, standardError: String?,
    readingIOCounters: Bool = false
) throws -> ChildOutcome {
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
    // A failure is thrown only once the child is reaped.
    let ioCounters = readingIOCounters ? Result { try exitedChildIOCounters(pid) } : nil
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
    return ChildOutcome(
        exitStatus: exited ? (status >> 8) & 0xff : nil, wallTime: elapsed,
        cpuTime: duration(usage.ru_utime) + duration(usage.ru_stime),
        peakResidentBytes: peakResidentBytes, minorPageFaults: Int(usage.ru_minflt),
        ioCounters: try ioCounters?.get())
}

/// Waits until child `pid` has exited, leaving it unreaped, and reads its
/// `/proc/PID/io`. The corresponding C function is `waitid`.
private func exitedChildIOCounters(_ pid: pid_t) throws -> [String: Int] {
    #if os(Linux)
    var information = siginfo_t()
    while waitid(P_PID, id_t(pid), &information, WEXITED | WNOWAIT) == -1 {
        guard errno == EINTR else { throw BenchmarkFailure("waitid failed: \(String(cString: strerror(errno)))") }
    }
    let text = try String(contentsOfFile: "/proc/\(pid)/io", encoding: .utf8)
    var counters: [String: Int] = [:]
    for line in text.split(separator: "\n") {
        let parts = line.split(separator: ":")
        if parts.count == 2, let value = Int(parts[1].trimmingCharacters(in: .whitespaces)) {
            counters[String(parts[0])] = value
        }
    }
    return counters
    #else
    throw BenchmarkFailure("/proc/PID/io is Linux's")
    #endif
}

/// Runs `arguments` once and fails unless it exits with status 0; its
/// standard error goes into the failure's message.
func runChildChecked(_ arguments: [String], standardOutput: String, readingIOCounters: Bool = false) throws -> ChildOutcome {
    let errorFile = temporaryPath("stderr")
    defer { unlink(errorFile) }
    let outcome = try runChild(
        arguments, standardOutput: standardOutput, standardError: errorFile,
        readingIOCounters: readingIOCounters)
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
