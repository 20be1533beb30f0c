import Dispatch
import Foundation
import LiveQuery
import SystemPackage
import UbiquityContainers

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The metadata-query rows (issue 23, acceptance 5), over the folder of
/// 10,000 generated `.ict` documents that rows l–n list:
///
/// - q1. a `MetadataQuery` gathering the folder (items made and watched;
///   display names are lazy, read when asked) against `ict list` of it;
/// - q2. the median time from a package renamed into a watched folder to the
///   query's update arriving, against a bare inotify watch seeing the same
///   rename (shown for scale; the target is the 50 ms budget);
/// - q3. the peak memory of a process watching the 10,000 documents.
struct MetadataQueryRows {
    let processRuns: Stopwatch
    /// The release build of `ict`, or nil when none was given.
    let ict: String?
    let folder: DocumentFolder
    let workDirectory: String
    static let renames = 41
    static let memoryBudget = 64 * 1_048_576

    func run() throws -> [Row] {
        try folder.generateUnlessPresent()
        return [gathering(), renameLatency(), watchingMemory()]
    }

    // MARK: q1. gathering against ict list

    private func gathering() -> Row {
        let count = DocumentFolder.documentCount
        let benchmark = "q1. MetadataQuery gathers \(count) documents"
        let peer = "ict list (whole process)"
        let target = Target.atMostSlower(by: 1.5)
        guard let ict else { return .notMeasured(benchmark, peer: peer, target: target, reason: "no `ict` given (--ict PATH)") }
        do {
            log("q1. MetadataQuery gathering vs ict list")
            var found = 0
            let (ours, theirs) = try processRuns.compare(
                reported: {
                    let (sample, items) = try Self.gather(folder.path)
                    found = items.count
                    return sample
                },
                { try runChildChecked([ict, "list", folder.path], standardOutput: "/dev/null").sample })
            try expect(found == count, "the query gathered \(found) documents, not \(count)")
            var row = Row.timed(benchmark, ours: ours, peer: peer, peerTime: theirs, target: target)
            row.note =
                "in this process: a MetadataQuery over the folder (name predicate *.ict) from start() to its gathering update "
                + "(each item stat'ed with its entries, typed, one inotify watch per package; display names are read lazily, "
                + "on demand, not here); "
                + "the peer is `ict list DIR` from spawn to exit, standard output to /dev/null; page cache warm; "
                + "CPU is the whole process's user + system time on both sides"
            return row
        } catch {
            return .notMeasured(benchmark, peer: peer, target: target, reason: "\(error)")
        }
    }

    /// One gathering of `path` (start to the gathering update; display names
    /// are read lazily, not here): its wall time, this process's CPU time (the
    /// query reads on a thread of its own), and the items it found. With
    /// `containers`, the query follows their engines (rows G: each item's sync state).
    static func gather(_ path: String, containers: UbiquityContainers? = nil, seconds: Int = 60) throws -> (Sample, [MetadataItem]) {
        let clock = ContinuousClock()
        let startCPU = processCPUTime()
        let start = clock.now
        let query = MetadataQuery(scopes: [path], predicate: MetadataQueryPredicate(namePattern: "*.ict"))
        if let containers { query.ubiquityContainers = containers }
        // With containers, until every item carries the engine's state: the gathering comes first, the
        // states in the update after it (the gathering does not wait for the engine).
        let first = try (containers == nil ? firstUpdate(of: query, seconds: seconds) : updateWithStates(of: query, seconds: seconds))
        let sample = Sample(wall: clock.now - start, cpu: processCPUTime() - startCPU)
        query.stop()
        return (sample, first.results)
    }

    /// The first update (the gathering or one after it) whose every result has a known sync state, waited for at most `seconds`.
    static func updateWithStates(of query: MetadataQuery, seconds: Int = 60) throws -> MetadataQueryUpdate {
        let arrived = DispatchSemaphore(value: 0)
        let box = UpdateBox()
        try query.start(on: DispatchQueue(label: "q.states")) { update in
            if !update.results.isEmpty, update.results.allSatisfy({ $0.syncState.status != nil }), box.set(update) { arrived.signal() }
        }
        guard arrived.wait(timeout: .now() + .seconds(seconds)) == .success, let update = box.first else {
            query.stop()
            throw BenchmarkFailure("no update with every item's sync state within \(seconds) s")
        }
        return update
    }

    /// The query's first update (its gathering), waited for at most `seconds`.
    static func firstUpdate(of query: MetadataQuery, seconds: Int = 60) throws -> MetadataQueryUpdate {
        let arrived = DispatchSemaphore(value: 0)
        let box = UpdateBox()
        try query.start(on: DispatchQueue(label: "q.gathering")) { update in
            if box.set(update) { arrived.signal() }
        }
        guard arrived.wait(timeout: .now() + .seconds(seconds)) == .success, let update = box.first else {
            query.stop()
            throw BenchmarkFailure("no gathering update within \(seconds) s")
        }
        try expect(update.phase == .gatheringFinished, "the first update is not the gathering")
        return update
    }

    // MARK: q2. rename into place → update

    private func renameLatency() -> Row {
        let benchmark = "q2. package renamed into place → update (median of \(Self.renames))"
        let peer = "bare inotify watch, same rename"
        let target = Target.atMost(milliseconds: 50)
        do {
            try? FileManager.default.removeItem(atPath: workDirectory)
            try FileManager.default.createDirectory(atPath: workDirectory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: workDirectory) }
            log("q2. rename into place → MetadataQuery update, and → a bare inotify event")
            let ours = try Timing(queryLatencies(), asked: Self.renames)
            let bare = try Timing(inotifyLatencies(), asked: Self.renames)
            var row = Row.timed(benchmark, ours: ours, peer: peer, peerTime: bare, target: target)
            row.note =
                "a package (two small entries) made under a Syncthing temporary name `.syncthing.DocN.ict.tmp` in the watched "
                + "folder, then renamed to `DocN.ict`: the time from just before rename(2) to the query's handler receiving the "
                + "update that adds it (default settle interval); the peer reads the IN_MOVED_TO event from its own inotify "
                + "descriptor; CPU columns are not meaningful here (waiting)"
            return row
        } catch {
            return .notMeasured(benchmark, peer: peer, target: target, reason: "\(error)")
        }
    }

    /// Makes `.syncthing.Doc<index>.ict.tmp` with two entries, ready to rename.
    private func makeTemporaryPackage(_ index: Int) throws -> (temporary: String, final: String) {
        let temporary = "\(workDirectory)/.syncthing.Doc\(index).ict.tmp"
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: false)
        try Data("metadata \(index)".utf8).write(to: URL(fileURLWithPath: temporary + "/ctdocument.metadata"))
        try Data("data \(index)".utf8).write(to: URL(fileURLWithPath: temporary + "/ctdocument.data"))
        return (temporary, "\(workDirectory)/Doc\(index).ict")
    }

    private func queryLatencies() throws -> [Sample] {
        let query = MetadataQuery(scopes: [workDirectory], predicate: MetadataQueryPredicate(namePattern: "*.ict"))
        defer { query.stop() }
        let arrived = DispatchSemaphore(value: 0)
        let box = UpdateBox()
        try query.start(on: DispatchQueue(label: "q.latency")) { update in
            box.append(update)
            arrived.signal()
        }
        guard arrived.wait(timeout: .now() + 10) == .success else { throw BenchmarkFailure("no gathering update within 10 s") }
        var samples: [Sample] = []
        let clock = ContinuousClock()
        for index in 0..<Self.renames {
            let (temporary, final) = try makeTemporaryPackage(index)
            let start = clock.now
            guard rename(temporary, final) == 0 else { throw BenchmarkFailure("rename \(temporary): errno \(errno)") }
            // Updates for the temporary name (there should be none) are skipped; the one adding DocN.ict ends the wait.
            while true {
                guard arrived.wait(timeout: .now() + 10) == .success else {
                    throw BenchmarkFailure("no update adding \(final) within 10 s")
                }
                if box.takeAll().contains(where: { $0.added.contains { $0.path == FilePath(final) } || $0.changed.contains { $0.path == FilePath(final) } }) {
                    break
                }
            }
            samples.append(Sample(wall: clock.now - start, cpu: .zero))
        }
        return samples
    }

    private func inotifyLatencies() throws -> [Sample] {
        let watch = try InotifyWatch(folder: workDirectory)
        var samples: [Sample] = []
        let clock = ContinuousClock()
        for index in Self.renames..<(2 * Self.renames) {
            let (temporary, final) = try makeTemporaryPackage(index)
            // What making the temporary package queued is read first, so the wait below is for the rename alone.
            watch.drain()
            let start = clock.now
            guard rename(temporary, final) == 0 else { throw BenchmarkFailure("rename \(temporary): errno \(errno)") }
            try watch.waitForMove(of: (final as NSString).lastPathComponent, seconds: 10)
            samples.append(Sample(wall: clock.now - start, cpu: .zero))
        }
        return samples
    }

    // MARK: q3. peak memory while watching

    private func watchingMemory() -> Row {
        let count = DocumentFolder.documentCount
        let benchmark = "q3. watching \(count) documents: peak memory"
        let peer = "ict list of the same folder"
        let target = Target.memoryAtMostMegabytes(64)
        guard let ict else { return .notMeasured(benchmark, peer: peer, target: target, reason: "no `ict` given (--ict PATH)") }
        do {
            log("q3. peak memory of a process watching the documents")
            let watching = try Self.peakMemory(of: [currentExecutable, ChildMode.watch.rawValue, folder.path])
            let listing = try Self.peakMemory(of: [ict, "list", folder.path])
            var row = Row.memory(benchmark, ours: watching, peer: peer, peerBytes: listing, target: target)
            row.note =
                "peak resident set (wait4, the child spawned from a small intermediate) of this harness's `child-watch` mode (a MetadataQuery over the folder, gathered, "
                + "every display name read, one inotify watch per folder and package) against `ict list DIR`'s"
            return row
        } catch {
            return .notMeasured(benchmark, peer: peer, target: target, reason: "\(error)")
        }
    }

    /// The peak RSS of `command`, spawned from a small intermediate copy of
    /// this executable (`ChildMode.measure`): Linux carries the peak RSS of the
    /// address space a process execs from into the new program's `ru_maxrss`,
    /// and this process is large by now (row f does the same). With
    /// `.measureRefusal`, the command must exit with status 1 (rows x).
    static func peakMemory(of command: [String], mode: ChildMode = .measure) throws -> Int {
        let output = temporaryPath("peak")
        defer { unlink(output) }
        _ = try runChildChecked([currentExecutable, mode.rawValue] + command, standardOutput: output)
        let text = try String(contentsOfFile: output, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let peak = Int(text) else { throw BenchmarkFailure("the measuring child printed \(text.debugDescription)") }
        return peak
    }

    /// The child of rows q3 and G2: gathers `path` with every display name
    /// read (with `containers`, following their engines: every item's sync
    /// state, items without one said on standard error), then exits with the
    /// query still watching.
    static func watchAndExit(_ path: String, containers: UbiquityContainers? = nil) -> Int32 {
        do {
            let query = MetadataQuery(scopes: [path], predicate: MetadataQueryPredicate(namePattern: "*.ict"))
            if let containers { query.ubiquityContainers = containers }
            let update =
                try containers == nil ? firstUpdate(of: query) : updateWithStates(of: query, seconds: SyncRows.gatheringSeconds)
            if containers != nil {
                // Row G1 says whether the states were known: told here too, for a run of this child alone.
                let unknown = update.results.filter { $0.syncState.status == nil }
                if let first = unknown.first { log("\(unknown.count) items without a sync state from the engine, as \(first.syncState)") }
            }
            keep(update.results.map(\.displayName))
            keep(query)
            exit(0)
        } catch {
            log("error: \(error)")
            return 1
        }
    }
}

/// Updates handed from the query's queue to the waiting thread.
private final class UpdateBox: @unchecked Sendable {
    private let lock = NSLock()
    private var updates: [MetadataQueryUpdate] = []
    private(set) var first: MetadataQueryUpdate?

    /// Keeps the first update; true when `update` was it.
    func set(_ update: MetadataQueryUpdate) -> Bool {
        lock.withLock {
            guard first == nil else { return false }
            first = update
            return true
        }
    }

    func append(_ update: MetadataQueryUpdate) { lock.withLock { updates.append(update) } }

    func takeAll() -> [MetadataQueryUpdate] {
        lock.withLock {
            defer { updates = [] }
            return updates
        }
    }
}

/// This process's CPU time (user + system, every thread).
func processCPUTime() -> Duration {
    var usage = rusage()
    #if os(Linux)
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    #else
    getrusage(RUSAGE_SELF, &usage)
    #endif
    func duration(_ time: timeval) -> Duration { .seconds(time.tv_sec) + .microseconds(Int64(time.tv_usec)) }
    return duration(usage.ru_utime) + duration(usage.ru_stime)
}
