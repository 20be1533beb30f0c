import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Row w (issue 22, acceptance 5): 20 processes each making 50 coordinated
/// edits of one package entry at once, against the same 1000 edits made one
/// after another by one process. Each edit is a `.forMerging` coordinated
/// write of the package `Doc.ict` (presenters asked, the item's lock taken,
/// presenters told) that reads the number in `Doc.ict/count`, adds 1 and
/// renames the new number into place (`CoordinationStress increment`, the
/// test child, built in release). Taking turns must not cost more than
/// twice the edits themselves.
struct CoordinatedEdits {
    static let processCount = 20
    static let editsPerProcess = 50
    static var totalEdits: Int { processCount * editsPerProcess }
    static let name = "w. \(processCount) processes × \(editsPerProcess) coordinated edits of one entry"
    static let peerName = "the same \(totalEdits) edits, one process"

    let processRuns: Stopwatch
    /// The `CoordinationStress` executable (`--coordination-stress PATH`).
    let coordinationStress: String?
    let workDirectory: String

    func run() throws -> Row {
        guard let tool = coordinationStress else {
            return .notMeasured(
                Self.name, peer: Self.peerName, target: .atMostSlower(by: 2),
                reason: "no CoordinationStress given (--coordination-stress PATH; swift build -c release --product CoordinationStress)")
        }
        try? FileManager.default.removeItem(atPath: workDirectory)
        let package = workDirectory + "/Doc.ict"
        try FileManager.default.createDirectory(atPath: package, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: workDirectory) }
        let count = package + "/count"

        /// Sets the count to 0, runs `commands` all at once, and checks every edit counted.
        func edits(_ commands: [[String]]) throws -> Sample {
            try Data("0\n".utf8).write(to: URL(fileURLWithPath: count))
            let sample = try runChildrenTogether(commands)
            let counted = try String(contentsOfFile: count, encoding: .utf8)
            try expect(counted == "\(Self.totalEdits)\n", "the edits counted \(counted.debugDescription), not \(Self.totalEdits)")
            return sample
        }
        let many = Array(repeating: [tool, "increment", package, String(Self.editsPerProcess)], count: Self.processCount)
        let one = [[tool, "increment", package, String(Self.totalEdits)]]
        log("w. \(Self.processCount) CoordinationStress processes × \(Self.editsPerProcess) edits vs one × \(Self.totalEdits)")
        let (ours, peer) = try processRuns.compare(reported: { try edits(many) }, { try edits(one) })
        var row = Row.timed(Self.name, ours: ours, peer: Self.peerName, peerTime: peer, target: .atMostSlower(by: 2))
        row.note =
            "wall time from the first spawn to the last exit; each edit a .forMerging FileCoordinator write of the package "
            + "(presenters asked, its ItemLock taken, presenters told) reading Doc.ict/count, renaming count+1 into place; "
            + "the count is checked to be \(Self.totalEdits) after every run; CPU is the children's user + system time"
        return row
    }
}

/// Starts every command at once (standard output and error to /dev/null)
/// and waits for all: the wall time from the first spawn to the last exit,
/// and the children's CPU time added up. Fails unless each exits with 0.
func runChildrenTogether(_ commands: [[String]]) throws -> Sample {
    #if canImport(Darwin)
    var actions: posix_spawn_file_actions_t? = nil
    #else
    var actions = posix_spawn_file_actions_t()
    #endif
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)

    let clock = ContinuousClock()
    let start = clock.now
    var children: [pid_t] = []
    var spawnFailure: String?
    for command in commands {
        let argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        let error = posix_spawnp(&pid, command[0], &actions, nil, argv, environ)
        guard error == 0 else {
            spawnFailure = "cannot start \(command[0]): \(String(cString: strerror(error)))"
            break
        }
        children.append(pid)
    }
    var cpu = Duration.zero
    var failures = 0
    for pid in children {
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) == -1 {
            guard errno == EINTR else { throw BenchmarkFailure("wait4 failed: \(String(cString: strerror(errno)))") }
        }
        if status != 0 { failures += 1 }
        func duration(_ time: timeval) -> Duration { .seconds(Int64(time.tv_sec)) + .microseconds(Int64(time.tv_usec)) }
        cpu += duration(usage.ru_utime) + duration(usage.ru_stime)
    }
    let elapsed = clock.now - start
    if let spawnFailure { throw BenchmarkFailure(spawnFailure) }
    guard failures == 0 else {
        throw BenchmarkFailure("\(failures) of \(children.count) `\(commands[0].joined(separator: " "))` did not exit with 0")
    }
    return Sample(wall: elapsed, cpu: cpu)
}
