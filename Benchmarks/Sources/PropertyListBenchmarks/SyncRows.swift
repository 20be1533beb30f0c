import Dispatch
import DocumentFormats
import FileCoordination
import Foundation
import LiveQuery
import SyncthingHarness
import SystemPackage
import UbiquityContainers

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The sync rows (issue 39, acceptance 4), on real Syncthing devices on
/// loopback (`SyncthingDevices`, the tests' harness):
///
/// - P. a coordinated note save on device 1 until the `MetadataQuery` on
///   device 2 tells it added, against Syncthing's own propagation of the
///   same bytes written plainly, seen by a bare inotify watch on device 2;
/// - G1, G2. a query with sync status over the 10,000 documents of rows
///   l–n as a container kept by one device: gathering time against `ict
///   list` of the folder, and the peak memory of a process doing it;
/// - I1, I2. a process holding 100 presenters and 10 queries while nothing
///   changes: wake-ups per second and threads, against an idle python3.
struct SyncRows {
    /// For row P (in process, waiting on the devices).
    let stopwatch: Stopwatch
    /// For row G1 (the peer is a whole process).
    let processRuns: Stopwatch
    /// The release build of `ict`, or nil when none was given.
    let ict: String?
    let folder: DocumentFolder
    /// Scratch space for row I's files.
    let workDirectory: String
    /// The letters of the rows to run.
    let only: Set<Character>

    /// Row P's median is of at least this many saves on each side.
    static let propagationRuns = 21
    /// How long row G waits for a gathering with sync status (a bound
    /// on the wait, not a target: a slow gathering is measured, not cut off).
    static let gatheringSeconds = 900
    static let presenterCount = 100
    static let queryCount = 10
    static let idleSeconds = 10
    /// How long rows I wait after the child is ready before the window starts.
    static let settleSeconds = 10
    /// The container identifier of the containers.plist rows P and G write.
    static let containerIdentifier = "iCloud.com.ictkit.bench"

    func run() -> [Row] {
        var rows: [Row] = []
        if only.contains("P") { rows.append(propagation()) }
        if only.contains("G") { rows += gatheringWithStatus() }
        if only.contains("I") { rows += idleProcess() }
        return rows
    }

    /// Writes a containers.plist in `directory` making `device`'s folder a
    /// container kept by it, and returns the containers it configures.
    private static func containers(keptBy device: SyncthingDevices.Device, in directory: String) throws -> (UbiquityContainers, String) {
        let path = directory + "/containers.plist"
        let container = UbiquityContainer(
            identifier: containerIdentifier, folder: .init(device.folder),
            engine: .syncthing(home: device.home, folderID: SyncthingDevices.folderID))
        try UbiquityContainerConfiguration(containers: [container], defaultIdentifier: containerIdentifier).write(to: .init(path))
        return (UbiquityContainers(configurationPath: .init(path), environmentFolder: nil), path)
    }

    // MARK: P. coordinated save → update on the other device

    /// The note both sides save: about 1 KB of text.
    static let noteText = String(repeating: "Shopping list: bread, milk, apples, coffee, rice, lentils. ", count: 18)

    private func propagation() -> Row {
        let benchmark = "P. coordinated note save, device 1 → query update on device 2 (median of \(stopwatch.repetitions))"
        let peer = "plain write → bare inotify IN_MOVED_TO on device 2"
        let target = Target.atMostSlower(by: 1.1)
        guard SyncthingDevices.isInstalled else {
            return .notMeasured(benchmark, peer: peer, target: target, reason: "syncthing is not installed (scripts/bench.sh installs it)")
        }
        do {
            log("P. two Syncthing devices: coordinated save → MetadataQuery update, against plain write → inotify")
            let devices = try SyncthingDevices(count: 2)
            defer { devices.stop() }
            let sender = devices.devices[0], receiver = devices.devices[1]
            let (containers, _) = try Self.containers(keptBy: receiver, in: devices.root)
            let query = MetadataQuery(scopes: [receiver.folder], predicate: MetadataQueryPredicate(namePattern: "*.icfnote"))
            query.ubiquityContainers = containers
            let updates = QueryUpdates()
            try query.start(on: DispatchQueue(label: "P.query")) { updates.append($0) }
            defer { query.stop() }
            try updates.waitForGathering(seconds: 60)
            let watch = try InotifyWatch(folder: receiver.folder)
            // The scan that starts propagation, asked the same way on both sides.
            let peers = SyncPeers(sender: sender)
            let bytes = Array(Self.noteText.utf8)
            let ourCount = Counter(), peerCount = Counter()
            let ourSteps = Steps(), peerSteps = Steps()
            let clock = ContinuousClock()
            let (ours, theirs) = try stopwatch.compare(
                reported: {
                    let name = "Note \(ourCount.next()).icfnote"
                    updates.discard()
                    let start = clock.now
                    try FileCoordinator().coordinate(writing: .init(sender.folder + "/" + name)) { path in
                        try TextNoteFile.write(Self.noteText, to: path, replacingExisting: false)
                    }
                    let saved = clock.now
                    try peers.scan(name)
                    let scanned = clock.now
                    try updates.waitForItem(at: receiver.folder + "/" + name, seconds: 30)
                    let end = clock.now
                    ourSteps.add(saved - start, scanned - saved, end - scanned)
                    return Sample(wall: end - start, cpu: .zero)
                },
                {
                    let name = "Plain \(peerCount.next()).icfnote"
                    watch.drain()
                    let start = clock.now
                    try SyncPeers.writePlainly(bytes, to: sender.folder + "/" + name)
                    let saved = clock.now
                    try peers.scan(name)
                    let scanned = clock.now
                    try watch.waitForMove(of: name, seconds: 30)
                    let end = clock.now
                    peerSteps.add(saved - start, scanned - saved, end - scanned)
                    return Sample(wall: end - start, cpu: .zero)
                })
            var row = Row.timed(benchmark, ours: ours, peer: peer, peerTime: theirs, target: target)
            row.cpuRatio = nil
            row.note =
                "two `syncthing serve` devices on loopback (Debian's \(Self.syncthingVersion()), the tests' SyncthingDevices: watcher delay 1 s, "
                + "discovery and relays off); device 2's folder is a container (containers.plist naming device 2's Syncthing), "
                + "watched by a MetadataQuery (*.icfnote, following the engine's events) and by a bare inotify descriptor at once; "
                + "ours: `FileCoordinator` write of `Note N.icfnote` (\(bytes.count) bytes, `TextNoteFile.write`: a new file "
                + "renamed into place) on device 1, then POST /rest/db/scan?sub=NAME to device 1, until the query's handler gets the "
                + "update adding it on device 2; peer: the same bytes written plainly (open, write, close) as `Plain N.icfnote`, "
                + "the same scan, until the bare watch reads IN_MOVED_TO of the name (Syncthing renames its temporary file into "
                + "place); a note rather than a package: a package reaches the other device entry by entry, with no rename "
                + "of the package for a bare watch of the folder to see; CPU columns are not meaningful (waiting); "
                + "medians of the steps (warm-up included), ours: \(ourSteps) until the update; the peer's: \(peerSteps) until IN_MOVED_TO"
            return row
        } catch {
            return .notMeasured(benchmark, peer: peer, target: target, reason: "\(error)")
        }
    }

    /// Writes `bytes` to a new file at `path` with open, write and close: no
    /// temporary name, no flush.
    /// `syncthing --version`'s version word, or "syncthing".
    private static func syncthingVersion() -> String {
        let output = temporaryPath("syncthing-version")
        defer { unlink(output) }
        guard (try? runChildChecked(["syncthing", "--version"], standardOutput: output)) != nil,
            let text = try? String(contentsOfFile: output, encoding: .utf8)
        else { return "syncthing" }
        return text.split(separator: " ").prefix(2).joined(separator: " ")
    }

    // MARK: G. a query with status over a 10,000-document container

    private func gatheringWithStatus() -> [Row] {
        let count = DocumentFolder.documentCount
        let timeBenchmark = "G1. query with sync status gathers \(count) documents"
        let memoryBenchmark = "G2. query with sync status, \(count) documents: peak memory"
        let timePeer = "ict list (whole process)"
        let memoryPeer = "ict list of the same folder"
        let timeTarget = Target.atMostSlower(by: 1.5)
        let memoryTarget = Target.memoryAtMostMegabytes(64)
        func neither(_ reason: String) -> [Row] {
            [
                .notMeasured(timeBenchmark, peer: timePeer, target: timeTarget, reason: reason),
                .notMeasured(memoryBenchmark, peer: memoryPeer, target: memoryTarget, reason: reason),
            ]
        }
        guard let ict else { return neither("no `ict` given (--ict PATH)") }
        guard SyncthingDevices.isInstalled else { return neither("syncthing is not installed (scripts/bench.sh installs it)") }
        do {
            try folder.generateUnlessPresent()
            let devices = try SyncthingDevices(count: 1)
            defer { devices.stop() }
            let device = devices.devices[0]
            try Self.linkDocuments(of: folder, into: device.folder)
            log("G. Syncthing indexing the \(count) documents (it hashes every byte: minutes)")
            let clock = ContinuousClock()
            let indexingStart = clock.now
            try devices.rest(0, "/rest/db/scan?folder=\(SyncthingDevices.folderID)", method: "POST", timeout: 3600)
            try devices.waitUntil("the device's folder scanned and idle", deadline: 3600) { try devices.isIdleAndComplete(0) }
            log("G. indexed in \(format((clock.now - indexingStart).milliseconds / 1000)) s")
            let (containers, configurationPath) = try Self.containers(keptBy: device, in: devices.root)

            log("G1. MetadataQuery with sync status gathering vs ict list")
            var found = 0
            var withoutState: [MetadataItem] = []
            var summaries: [String: Int] = [:]
            let (ours, theirs) = try processRuns.compare(
                reported: {
                    let (sample, items) = try MetadataQueryRows.gather(device.folder, containers: containers, seconds: Self.gatheringSeconds)
                    found = items.count
                    withoutState = items.filter { $0.syncState.status == nil }
                    summaries = Dictionary(grouping: items, by: \.syncState.summary).mapValues(\.count)
                    return sample
                },
                { try runChildChecked([ict, "list", device.folder], standardOutput: "/dev/null").sample })
            try expect(found == count, "the query gathered \(found) documents, not \(count)")
            // For scale: the whole folder's tree, which the query no longer asks for (it browses the items' folders one level deep).
            let browseStart = clock.now
            let tree = try devices.rest(0, "/rest/db/browse?folder=\(SyncthingDevices.folderID)", timeout: 600)
            let browse = "Syncthing answered GET /rest/db/browse (\(megabytes(tree.count))) in \(milliseconds((clock.now - browseStart).milliseconds))"
            var timeRow = Row.timed(timeBenchmark, ours: ours, peer: timePeer, peerTime: theirs, target: timeTarget)
            let states = summaries.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
            timeRow.note =
                "the documents of rows l–n, hard-linked into the folder of one `syncthing serve` device (indexed first), "
                + "a container by a containers.plist naming that device (`MetadataQuery.ubiquityContainers`); in this process: "
                + "a MetadataQuery (*.ict) from start() to the update after which every item carries its sync state (the engine's "
                + "folder state — status, need, remote need, errors, events — and the browse of the items' folder one level deep asked "
                + "over REST before the gathering scan, their answers read after it) "
                + "(\(states)); the peer is `ict list DIR` from spawn to exit, standard output to /dev/null; "
                + "CPU is the whole process's user + system time on both sides (Syncthing's own CPU time answering is in neither); "
                + browse
            if let unknown = withoutState.first {
                // Gathered, but not with status: the row's promise is not kept, whatever the time.
                timeRow.met = false
                timeRow.note! += "; FAIL: \(withoutState.count) documents have no sync state from the engine, as \(unknown.syncState)"
            }

            log("G2. peak memory of a process gathering with sync status")
            let watching = try MetadataQueryRows.peakMemory(
                of: [currentExecutable, ChildMode.watchSynced.rawValue, configurationPath, device.folder])
            let listing = try MetadataQueryRows.peakMemory(of: [ict, "list", device.folder])
            var memoryRow = Row.memory(memoryBenchmark, ours: watching, peer: memoryPeer, peerBytes: listing, target: memoryTarget)
            memoryRow.note =
                "peak resident set (wait4, the child spawned from a small intermediate) of this harness's `child-watch-synced` mode "
                + "(as q3's child, with the container: every item's sync state from the engine, every display name read) against `ict list DIR`'s"
            if !withoutState.isEmpty {
                memoryRow.met = false
                memoryRow.note! += "; FAIL: the items had no sync state (see G1), so this is the memory of a query without it"
            }
            return [timeRow, memoryRow]
        } catch {
            return neither("\(error)")
        }
    }

    /// Hard-links every document of `folder` (its packages' entries) into
    /// `destination`: the same files, nothing copied.
    private static func linkDocuments(of folder: DocumentFolder, into destination: String) throws {
        for document in try folder.documentPaths() {
            let copy = destination + "/" + (document as NSString).lastPathComponent
            guard mkdir(copy, 0o755) == 0 else { throw BenchmarkFailure("cannot make \(copy): errno \(errno)") }
            for entry in try FileManager.default.contentsOfDirectory(atPath: document) {
                guard link(document + "/" + entry, copy + "/" + entry) == 0 else {
                    throw BenchmarkFailure("cannot link \(document)/\(entry): errno \(errno)")
                }
            }
        }
    }

    /// The child of row G2: `watchAndExit` with the containers of the
    /// configuration at `configurationPath`.
    static func watchSyncedAndExit(configurationPath: String, folder: String) -> Int32 {
        MetadataQueryRows.watchAndExit(folder, containers: UbiquityContainers(configurationPath: .init(configurationPath), environmentFolder: nil))
    }

    // MARK: I. an idle process holding presenters and queries

    private func idleProcess() -> [Row] {
        let wakeUpBenchmark = "I1. idle, \(Self.presenterCount) presenters + \(Self.queryCount) queries: wake-ups"
        let threadBenchmark = "I2. idle, \(Self.presenterCount) presenters + \(Self.queryCount) queries: threads"
        let peer = "python3 blocked in select()"
        let wakeUpTarget = Target.countAtMost(1, unit: "wake-ups/s")
        let threadTarget = Target.countAtMost(4, unit: "threads")
        do {
            try? FileManager.default.removeItem(atPath: workDirectory)
            try FileManager.default.createDirectory(atPath: workDirectory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: workDirectory) }
            log("I. an idle process holding presenters and queries, and an idle python3, over \(Self.idleSeconds) s")
            let ours = try IdleChild(arguments: [currentExecutable, ChildMode.idle.rawValue, workDirectory])
            defer { ours.end() }
            let theirs = try IdleChild(arguments: [
                "python3", "-c", "import select, sys; sys.stdout.write('ready\\n'); sys.stdout.flush(); select.select([], [], [])",
            ])
            defer { theirs.end() }
            try ours.waitUntilReady(seconds: 120)
            try theirs.waitUntilReady(seconds: 30)
            // The window starts once the setting-up is over: libdispatch lets a worker thread that has had
            // nothing to do for about 5 s go, and the threads the set-up used are not "while nothing changes".
            let threadsWhenReady = try ours.threads().count
            Thread.sleep(forTimeInterval: Double(Self.settleSeconds))
            // Both are watched over the same seconds.
            let (ourStart, theirStart) = (try ours.threads(), try theirs.threads())
            Thread.sleep(forTimeInterval: Double(Self.idleSeconds))
            let (ourEnd, theirEnd) = (try ours.threads(), try theirs.threads())
            let ourRate = Double(IdleChild.switches(from: ourStart, to: ourEnd)) / Double(Self.idleSeconds)
            let theirRate = Double(IdleChild.switches(from: theirStart, to: theirEnd)) / Double(Self.idleSeconds)
            let ended = Set(ourStart.map(\.id)).subtracting(ourEnd.map(\.id)).count
            let ourThreads = max(ourStart.count, ourEnd.count), theirThreads = max(theirStart.count, theirEnd.count)
            var wakeUps = Row.count(wakeUpBenchmark, ours: ourRate, peer: peer, peerCount: theirRate, decimals: 1, target: wakeUpTarget)
            wakeUps.note =
                "a child of this harness (`child-idle`) registers \(Self.presenterCount) FilePresenterRegistrations (a presenter that "
                + "does nothing, one file each) and starts \(Self.queryCount) MetadataQuerys (one folder each, a note in each), waits for "
                + "every gathering, says ready and blocks in pause(); \(Self.settleSeconds) s later, over \(Self.idleSeconds) s, the context "
                + "switches of every thread (/proc/PID/task/*/status, voluntary + nonvoluntary) ÷ \(Self.idleSeconds) "
                + "(\(ended) threads ended in the window, their switches not counted); "
                + "the peer is measured over the same seconds: \(theirRate == 0 ? "no switch" : "\(format(theirRate)) /s")"
            var threads = Row.count(
                threadBenchmark, ours: Double(ourThreads), peer: peer, peerCount: Double(theirThreads), decimals: 0, target: threadTarget)
            threads.note =
                "threads of the same child (/proc/PID/task), the most at the start or end of the \(Self.idleSeconds) s: "
                + ourEnd.map(\.name).sorted().joined(separator: ", ")
                + "; when it said ready it had \(threadsWhenReady) (libdispatch worker threads the set-up held, gone within seconds)"
            return [wakeUps, threads]
        } catch {
            let reason = "\(error)"
            return [
                .notMeasured(wakeUpBenchmark, peer: peer, target: wakeUpTarget, reason: reason),
                .notMeasured(threadBenchmark, peer: peer, target: threadTarget, reason: reason),
            ]
        }
    }

    /// The child of rows I: presenters and queries in `directory`, then ready, then nothing.
    static func holdIdle(in directory: String) -> Int32 {
        do {
            let presented = directory + "/presented"
            try FileManager.default.createDirectory(atPath: presented, withIntermediateDirectories: true)
            var registrations: [FilePresenterRegistration] = []
            for index in 0..<presenterCount {
                let path = presented + "/Note \(index).icfnote"
                try TextNoteFile.write("note \(index)", to: FilePath(path), replacingExisting: false)
                registrations.append(try FilePresenterRegistration(presenting: .init(path), presenter: IdlePresenter()))
            }
            var queries: [MetadataQuery] = []
            for index in 0..<queryCount {
                let folder = directory + "/folder\(index)"
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                try TextNoteFile.write("note in folder \(index)", to: FilePath(folder + "/Note.icfnote"), replacingExisting: false)
                let query = MetadataQuery(scopes: [folder], predicate: MetadataQueryPredicate(namePattern: "*.icfnote"))
                let update = try MetadataQueryRows.firstUpdate(of: query)
                try expect(update.results.count == 1, "the query of \(folder) gathered \(update.results.count) items, not 1")
                queries.append(query)
            }
            // Straight to the descriptor: the parent waits on a pipe, which stdio would buffer.
            let ready = Array("ready\n".utf8)
            guard ready.withUnsafeBytes({ write(1, $0.baseAddress, $0.count) }) == ready.count else {
                throw BenchmarkFailure("cannot say ready: errno \(errno)")
            }
            keep(registrations)
            keep(queries)
            while true { pause() }
        } catch {
            log("error: \(error)")
            return 1
        }
    }
}

/// A presenter that does nothing, as an app's would while nothing changes.
private final class IdlePresenter: FilePresenter {}

/// A counter the timed closures of one row share.
private final class Counter {
    private var value = 0

    func next() -> Int {
        value += 1
        return value
    }
}

/// Row P's runs cut in three: the save, the scan, then the wait on device 2.
private final class Steps: CustomStringConvertible {
    private var saves: [Duration] = [], scans: [Duration] = [], waits: [Duration] = []

    func add(_ save: Duration, _ scan: Duration, _ wait: Duration) {
        saves.append(save)
        scans.append(scan)
        waits.append(wait)
    }

    var description: String {
        guard !saves.isEmpty else { return "none" }
        func median(_ values: [Duration]) -> String { milliseconds(Stopwatch.median(of: values).milliseconds) }
        return "save \(median(saves)), scan \(median(scans)), then \(median(waits))"
    }
}

/// The updates of a query running on its own queue, waited for by the row's thread.
private final class QueryUpdates: @unchecked Sendable {
    // @unchecked: `updates` is touched only under `condition`.
    private let condition = NSCondition()
    private var updates: [MetadataQueryUpdate] = []

    func append(_ update: MetadataQueryUpdate) {
        condition.withLock {
            updates.append(update)
            condition.broadcast()
        }
    }

    /// Drops every update told so far.
    func discard() { condition.withLock { updates = [] } }

    /// Waits until an update that `matches` is told, dropping those before it and it.
    private func wait(for what: String, seconds: Double, _ matches: (MetadataQueryUpdate) -> Bool) throws {
        let deadline = Date().addingTimeInterval(seconds)
        try condition.withLock {
            while true {
                if let index = updates.firstIndex(where: matches) {
                    updates.removeFirst(index + 1)
                    return
                }
                updates = []
                guard condition.wait(until: deadline) else { throw BenchmarkFailure("no update \(what) within \(seconds) s") }
            }
        }
    }

    func waitForGathering(seconds: Double) throws {
        try wait(for: "ending the gathering", seconds: seconds) { $0.phase == .gatheringFinished }
    }

    /// Waits for the update adding (or changing) the item at `path`.
    func waitForItem(at path: String, seconds: Double) throws {
        try wait(for: "adding \(path)", seconds: seconds) { update in
            update.added.contains { $0.path == FilePath(path) } || update.changed.contains { $0.path == FilePath(path) }
        }
    }
}

/// A child process started with its standard output on a pipe, which says
/// "ready" once it is set up; ended by `end()`.
private final class IdleChild {
    /// One thread: its name and context switches so far.
    struct ThreadCount {
        var id: String
        var name: String
        var switches: Int
    }

    let pid: pid_t
    private let output: Int32

    init(arguments: [String]) throws {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw BenchmarkFailure("pipe: errno \(errno)") }
        // Neither end leaks into other children; the child's standard output is a copy made by dup2, without the flag.
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, ends[1], 1)
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        let spawnError = posix_spawnp(&pid, arguments[0], &actions, nil, argv, environ)
        close(ends[1])
        guard spawnError == 0 else {
            close(ends[0])
            throw BenchmarkFailure("cannot start \(arguments[0]): \(String(cString: strerror(spawnError)))")
        }
        self.pid = pid
        output = ends[0]
    }

    /// Waits until the child prints "ready".
    ///
    /// - Throws: `BenchmarkFailure` when it does not within `seconds`, or ends first.
    func waitUntilReady(seconds: Int) throws {
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(seconds)
        var text = ""
        var buffer = [UInt8](repeating: 0, count: 256)
        while !text.contains("ready\n") {
            let left = deadline - clock.now
            var pending = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
            guard left > .zero, poll(&pending, 1, Int32(max(1, left.milliseconds))) > 0 else {
                throw BenchmarkFailure("pid \(pid) did not say ready within \(seconds) s")
            }
            let count = buffer.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
            guard count > 0 else { throw BenchmarkFailure("pid \(pid) ended before it was ready (said \(text.debugDescription))") }
            text += String(decoding: buffer[..<count], as: UTF8.self)
        }
    }

    /// Every thread of the child now, from /proc/PID/task/*/status and comm.
    func threads() throws -> [ThreadCount] {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task").map { id in
            let status = try String(contentsOfFile: "/proc/\(pid)/task/\(id)/status", encoding: .utf8)
            var switches = 0
            for line in status.split(separator: "\n")
            where line.hasPrefix("voluntary_ctxt_switches:") || line.hasPrefix("nonvoluntary_ctxt_switches:") {
                switches += Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) ?? 0
            }
            let name = (try? String(contentsOfFile: "/proc/\(pid)/task/\(id)/comm", encoding: .utf8)) ?? "?"
            return ThreadCount(id: id, name: name.trimmingCharacters(in: .whitespacesAndNewlines), switches: switches)
        }
    }

    /// The context switches between two readings, of the threads in the second
    /// (a thread started in between counts whole; one gone is not counted).
    static func switches(from start: [ThreadCount], to end: [ThreadCount]) -> Int {
        let before = Dictionary(start.map { ($0.id, $0.switches) }, uniquingKeysWith: max)
        return end.reduce(0) { $0 + $1.switches - (before[$1.id] ?? 0) }
    }

    /// Ends the child (SIGKILL: it is blocked) and reaps it.
    func end() {
        kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1, errno == EINTR {}
        close(output)
    }
}
