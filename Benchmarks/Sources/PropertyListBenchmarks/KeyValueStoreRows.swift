import Dispatch
import Foundation
import PropertyList
import SyncthingHarness
import UbiquitousKeyValueStore
import UbiquityContainers

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The key-value store rows (issue 40, acceptance 3), each against its peer
/// in the same run:
///
/// - K1. a key set on device 1 until the store's change on device 2, on real
///   Syncthing devices on loopback, against Syncthing's own propagation of a
///   file of the same size seen by a bare inotify watch on device 2;
/// - K2. 10,000 `set`s then `synchronize()` in one process, against writing
///   the same dictionary once with the binary property-list writer (a new
///   file, flushed and renamed into place, as the store writes its file);
/// - K3. a store at its 1 MB quota with the files of 3 devices: open and
///   merge, and the peak memory of a process doing it.
struct KeyValueStoreRows {
    /// For rows K1 and K2 (in process).
    let stopwatch: Stopwatch
    /// For row K3's time.
    let openings: Stopwatch
    /// Scratch space for rows K2 and K3.
    let workDirectory: String

    /// Row K1's median is of at least this many changes on each side.
    static let propagationRuns = 21
    /// Row K2's sets, over `setKeyCount` keys (Apple's store holds at most 1,024).
    static let setCount = 10_000
    static let setKeyCount = 1_000
    /// Row K3's devices, and the keys that fill the store to its quota.
    static let deviceCount = 3
    static let quotaKeyCount = 1_020

    func run() -> [Row] {
        do {
            try? FileManager.default.removeItem(atPath: workDirectory)
            try FileManager.default.createDirectory(atPath: workDirectory, withIntermediateDirectories: true)
        } catch {
            return [.notMeasured("K. key-value store rows", peer: "–", target: .atMostSlower(by: 1.1), reason: "\(error)")]
        }
        defer { try? FileManager.default.removeItem(atPath: workDirectory) }
        return [propagation(), setsThenSynchronize()] + openAtQuota()
    }

    // MARK: K1. set on device 1 → change told on device 2

    private func propagation() -> Row {
        let benchmark = "K1. key set, device 1 → store's change on device 2 (median of \(stopwatch.repetitions))"
        let peer = "plain write, same size → bare inotify IN_MOVED_TO on device 2"
        let target = Target.atMostSlower(by: 1.1)
        guard SyncthingDevices.isInstalled else {
            return .notMeasured(benchmark, peer: peer, target: target, reason: "syncthing is not installed (scripts/bench.sh installs it)")
        }
        do {
            log("K1. two Syncthing devices: store set → change on device 2, against plain write → inotify")
            let devices = try SyncthingDevices(count: 2)
            defer { devices.stop() }
            let sender = devices.devices[0], receiver = devices.devices[1]
            func store(of device: SyncthingDevices.Device) -> KeyValueStore {
                KeyValueStore(
                    container: UbiquityContainer(
                        identifier: SyncRows.containerIdentifier, folder: .init(device.folder),
                        engine: .syncthing(home: device.home, folderID: SyncthingDevices.folderID)))
            }
            let sending = store(of: sender), receiving = store(of: receiver)
            defer {
                sending.close()
                receiving.close()
            }
            let told = ToldKeys()
            let observation = receiving.observe(on: DispatchQueue(label: "K1.observer")) { told.add($0.changedKeys) }
            defer { observation.cancel() }
            let watch = try InotifyWatch(folder: receiver.folder)
            // The scan that starts propagation, asked the same way on both sides.
            let peers = SyncPeers(sender: sender)
            // The first change makes device 1's file; device 2 then writes its own once (its first sight of another
            // device): both settle before the clock starts.
            try sending.set(.string("warming up"), forKey: "setting")
            try expect(sending.synchronize(), "device 1's store could not write its file")
            try peers.scan(KeyValueStore.folderName)
            try told.wait(for: "setting", seconds: 60) { sending.value(forKey: "setting") == receiving.value(forKey: "setting") }
            let ownFile = sender.folder + "/" + KeyValueStore.folderName + "/" + (sending.deviceToken ?? "") + ".plist"
            let clock = ContinuousClock()
            let ourCount = Counter(), peerCount = Counter()
            var fileSize = 0
            let (ours, theirs) = try stopwatch.compare(
                reported: {
                    // One key, a value of one length: device 1's file is the same size every time.
                    let value = "value \(1_000_000 + ourCount.next())"
                    told.discard()
                    let start = clock.now
                    try sending.set(.string(value), forKey: "setting")
                    try expect(sending.synchronize(), "device 1's store could not write its file")
                    try peers.scan(KeyValueStore.folderName)
                    // Told with the value held: a late change of an earlier run is not this one.
                    try told.wait(for: "setting", seconds: 30) { receiving.value(forKey: "setting") == .string(value) }
                    let end = clock.now
                    return Sample(wall: end - start, cpu: .zero)
                },
                {
                    if fileSize == 0 { fileSize = Self.size(of: ownFile) }
                    let name = "Plain \(peerCount.next()).plist"
                    let bytes = [UInt8](repeating: UInt8(ascii: "x"), count: max(fileSize, 1))
                    watch.drain()
                    let start = clock.now
                    try SyncPeers.writePlainly(bytes, to: sender.folder + "/" + name)
                    try peers.scan(name)
                    try watch.waitForMove(of: name, seconds: 30)
                    return Sample(wall: clock.now - start, cpu: .zero)
                })
            var row = Row.timed(benchmark, ours: ours, peer: peer, peerTime: theirs, target: target)
            row.cpuRatio = nil
            row.note =
                "two `syncthing serve` devices on loopback (the tests' SyncthingDevices, as row P); each device's folder is the "
                + "container of its own Syncthing identity, with a watching `KeyValueStore`; ours: `set` of one key to a value of "
                + "one length on device 1, `synchronize()` (device 1's file, \(fileSize) bytes, written whole and renamed into "
                + "place), POST /rest/db/scan?sub=.ictkit-kvstore to device 1, until device 2's store tells its observer the key "
                + "(and holds the value); peer: a new file of the same size written plainly on device 1 (open, write, close), the "
                + "same scan, until a bare inotify watch of device 2's folder reads IN_MOVED_TO of its name; CPU columns are not "
                + "meaningful (waiting)"
            return row
        } catch {
            return .notMeasured(benchmark, peer: peer, target: target, reason: "\(error)")
        }
    }

    /// Writes `bytes` to a new file at `path` with open, write and close: no
    /// temporary name, no flush.
    // MARK: K2. 10,000 sets, then synchronize

    private func setsThenSynchronize() -> Row {
        let benchmark = "K2. \(Self.setCount) sets over \(Self.setKeyCount) keys, then synchronize()"
        let peer = "BinaryPropertyListWriter: the same dictionary, written once (flushed, renamed)"
        let target = Target.atMostSlower(by: 3)
        do {
            log("K2. \(Self.setCount) sets + synchronize() vs one binary property-list write")
            let values = (0..<Self.setCount).map { index in
                (key: "setting \(index % Self.setKeyCount)", value: PropertyListValue.string("value \(index) of the bench"))
            }
            var dictionary = [String: PropertyListValue]()
            for (key, value) in values { dictionary[key] = value }
            let final = PropertyListValue.dictionary(.init(uniqueKeysWithValues: dictionary.sorted { $0.key < $1.key }))
            let runs = Counter()
            var ourFile = ""
            let (ours, theirs) = try stopwatch.compare(
                {
                    let folder = workDirectory + "/K2-\(runs.next())"
                    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
                    let store = KeyValueStore(container: UbiquityContainer(identifier: folder, folder: .init(folder)), deviceToken: "bench", watching: false)
                    for (key, value) in values { try store.set(value, forKey: key) }
                    try expect(store.synchronize(), "the store could not write its file")
                    ourFile = folder + "/" + KeyValueStore.folderName + "/bench.plist"
                },
                {
                    let path = workDirectory + "/K2-peer.plist"
                    let bytes = try BinaryPropertyListWriter().encode(final)
                    try Self.writeAtomically(bytes, to: path)
                })
            let ourSize = Self.size(of: ourFile), peerSize = Self.size(of: workDirectory + "/K2-peer.plist")
            var row = Row.timed(benchmark, ours: ours, peer: peer, peerTime: theirs, target: target)
            row.note =
                "in this process, a new folder each run (made in the timed run, as its store's folder is); ours: a `KeyValueStore` (not watching) given \(Self.setCount) `set`s of "
                + "short strings cycling over \(Self.setKeyCount) keys (each checked against Apple's limits, timed by the hybrid "
                + "logical clock), then `synchronize()`: the lock of the device's file, the folder read, the merge, the whole "
                + "store encoded (value, time, device per key: \(ourSize ?? 0) bytes) and written by AtomicFileWriter (flushed, "
                + "renamed); peer: the final \(Self.setKeyCount)-key dictionary encoded by `BinaryPropertyListWriter` "
                + "(\(peerSize) bytes), written to a new file, fsync, rename"
            return row
        } catch {
            return .notMeasured(benchmark, peer: peer, target: target, reason: "\(error)")
        }
    }

    /// Writes `bytes` as the store writes its file: a new file beside `path`,
    /// flushed (fsync), renamed over `path`.
    private static func writeAtomically(_ bytes: [UInt8], to path: String) throws {
        let temporary = path + ".new"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw BenchmarkFailure("cannot make \(temporary): errno \(errno)") }
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let flushed = fsync(descriptor)
        close(descriptor)
        guard written == bytes.count, flushed == 0 else { throw BenchmarkFailure("cannot write \(temporary): errno \(errno)") }
        guard rename(temporary, path) == 0 else { throw BenchmarkFailure("cannot rename \(temporary): errno \(errno)") }
    }

    // MARK: K3. a store at its quota, 3 devices: open and merge

    private func openAtQuota() -> [Row] {
        let timeBenchmark = "K3a. open + merge, store at its 1 MB quota, \(Self.deviceCount) devices' files"
        let memoryBenchmark = "K3b. open + merge, store at its 1 MB quota: peak memory over the harness's own"
        let timePeer = "BinaryPropertyListReader: the \(Self.deviceCount) files read, nothing merged"
        let memoryPeer = "this harness started, doing nothing"
        let timeTarget = Target.atMost(milliseconds: 20)
        let memoryTarget = Target.memoryAtMostMegabytes(16)
        do {
            log("K3. a store at its quota written by \(Self.deviceCount) devices: open + merge, and its peak memory")
            let folder = workDirectory + "/K3"
            let (files, total) = try Self.fillToQuota(folder)
            let (ours, theirs) = try openings.compare(
                {
                    let store = KeyValueStore(container: UbiquityContainer(identifier: folder, folder: .init(folder)), deviceToken: "device 1", watching: false)
                    try expect(store.warnings.isEmpty, "the store skipped files: \(store.warnings)")
                    return store
                },
                {
                    try files.map { path in try BinaryPropertyListReader().read(try MappedFile(url: URL(filePath: path))) }
                })
            var timeRow = Row.timed(timeBenchmark, ours: ours, peer: timePeer, peerTime: theirs, target: timeTarget)
            let sizes = files.map { Self.size(of: $0) }
            timeRow.note =
                "\(Self.quotaKeyCount) keys of 1 MB in all (\(total) bytes as Apple counts keys and values; one more refused as a "
                + "quota violation), set by three `KeyValueStore`s under device tokens `device 1`–`device 3`, a third each, one "
                + "after the other, each writing its file of the whole merged store (\(sizes.map(megabytes).joined(separator: ", "))); "
                + "ours: `KeyValueStore(…, deviceToken: \"device 1\", watching: false)` from the call until it returns with every "
                + "file read and merged; peer: the same files mapped and decoded by `BinaryPropertyListReader`, nothing merged"
            // As row f: the store's share is the child's peak less that of the same executable doing nothing
            // (this harness links Foundation dynamically, which alone peaks above the budget).
            let opening = try MetadataQueryRows.peakMemory(of: [currentExecutable, ChildMode.openKeyValueStore.rawValue, folder])
            let baseline = try MetadataQueryRows.peakMemory(of: [currentExecutable, ChildMode.start.rawValue])
            let extra = opening - baseline
            guard case .memoryAtMostMegabytes(let budget) = memoryTarget else { preconditionFailure("a memory row has a megabyte target") }
            let memoryRow = Row(
                benchmark: memoryBenchmark, ours: megabytes(extra), peer: memoryPeer, peerMeasurement: megabytes(baseline),
                ratio: "\(format(Double(extra) / Double(sizes.reduce(0, +))))× files' size", target: memoryTarget,
                met: Double(extra) <= budget * 1_048_576,
                note: "peak resident set (wait4, the child spawned from a small intermediate, as q3's) of this harness's "
                    + "`child-open-kvstore` mode opening the store of K3a as device 1 and exiting with it open "
                    + "(\(megabytes(opening))), less that of the harness's `child-start` (\(megabytes(baseline))), as row f; "
                    + "the files: \(megabytes(sizes.reduce(0, +))) in all")
            return [timeRow, memoryRow]
        } catch {
            return [
                .notMeasured(timeBenchmark, peer: timePeer, target: timeTarget, reason: "\(error)"),
                .notMeasured(memoryBenchmark, peer: memoryPeer, target: memoryTarget, reason: "\(error)"),
            ]
        }
    }

    /// Fills the store in `folder` to its 1 MB quota from three devices, a
    /// third of the keys each, checking that one more byte is refused; returns
    /// the devices' files and the bytes the limits count.
    private static func fillToQuota(_ folder: String) throws -> (files: [String], total: Int) {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let limits = UbiquitousKeyValueStoreLimits.apple
        let keys = (0..<quotaKeyCount).map { String(format: "key %04d", $0) }
        // Every key and its data value the same size, the total as close to the quota as whole bytes allow.
        let perKey = limits.maximumTotalSize / quotaKeyCount
        let container = UbiquityContainer(identifier: folder, folder: .init(folder))
        var files: [String] = []
        var total = 0
        for device in 1...deviceCount {
            let store = KeyValueStore(container: container, deviceToken: "device \(device)", watching: false)
            for (index, key) in keys.enumerated() where index % deviceCount == device - 1 {
                let value = PropertyListValue.data(Self.distinctBytes(index, count: perKey - key.utf8.count))
                try store.set(value, forKey: key)
                total += perKey
            }
            try expect(store.synchronize(), "device \(device)'s store could not write its file")
            files.append(folder + "/" + KeyValueStore.folderName + "/device \(device).plist")
            if device == deviceCount {
                // At the quota: whatever is left is less than one more key of this size.
                let left = limits.maximumTotalSize - total
                try expect((try? store.set(.data(Data(count: left)), forKey: "one more")) == nil, "the store took a key past its quota")
            }
            store.close()
        }
        return (files, total)
    }

    /// `count` bytes of a generator seeded by `seed` (64-bit LCG): each key's
    /// value its own, so the binary writer cannot share equal data objects
    /// and the files hold the whole megabyte.
    private static func distinctBytes(_ seed: Int, count: Int) -> Data {
        var state = UInt64(seed) &+ 1  // &+, &*: a generator's arithmetic wraps by design.
        return Data(
            (0..<count).map { _ in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return UInt8(truncatingIfNeeded: state >> 56)
            })
    }

    /// The size of the file at `path` in bytes; 0 when it cannot be looked at.
    private static func size(of path: String) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }

    /// The child of row K3b: opens the store in `folder` as device 1 and exits with it open.
    static func openAndExit(_ folder: String) -> Int32 {
        let store = KeyValueStore(container: UbiquityContainer(identifier: folder, folder: .init(folder)), deviceToken: "device 1", watching: false)
        guard store.warnings.isEmpty, store.dictionaryRepresentation.count == quotaKeyCount else {
            log("error: the store in \(folder) holds \(store.dictionaryRepresentation.count) keys, warnings \(store.warnings)")
            return 1
        }
        keep(store)
        exit(0)
    }
}

/// The keys told to row K1's observer on device 2, waited for by the row's thread.
private final class ToldKeys: @unchecked Sendable {
    // @unchecked: `keys` is touched only under `condition`.
    private let condition = NSCondition()
    private var keys: Set<String> = []

    func add(_ changed: [String]) {
        condition.withLock {
            keys.formUnion(changed)
            condition.broadcast()
        }
    }

    /// Drops every key told so far.
    func discard() { condition.withLock { keys = [] } }

    /// Waits until `key` is told and `holds` is true (checked after each change told).
    func wait(for key: String, seconds: Double, until holds: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(seconds)
        try condition.withLock {
            while !(keys.contains(key) && holds()) {
                guard condition.wait(until: deadline) else { throw BenchmarkFailure("device 2 was not told \(key) within \(seconds) s") }
            }
        }
    }
}

/// A counter the timed closures of one row share.
private final class Counter {
    private var value = 0

    func next() -> Int {
        value += 1
        return value
    }
}
