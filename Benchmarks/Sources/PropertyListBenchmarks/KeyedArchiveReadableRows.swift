import Foundation
import KeyedArchive

/// Row y: keyed archives decoded to readable values (Foundation's classes by
/// name, then each value's text, as `ict inspect` shows it), ICTKit against
/// PyPI's nska-deserialize (the peer KeyedArchiveTests check the fields
/// against), on the same archives: the 17 written by Foundation on Linux in
/// `Tests/KeyedArchiveTests/Fixtures/foundation-linux` (UUID, URLs, NSValue,
/// index sets, ordered set, date components, locale, time zone, attributed
/// strings, …), each decoded 200 times a run on both sides.
///
/// The peer is timed inside its Python process (`Benchmarks/Peers/nska_deserialize_read.py`:
/// `perf_counter` around the loop, after the files are read into memory), so
/// Python's start-up is not counted; its CPU time is the same process's `process_time`.
struct KeyedArchiveReadableRows {
    let stopwatch: Stopwatch
    static let rounds = 200
    static let name = "y. keyed archive decode to readable values vs nska-deserialize"
    static let peer = "nska-deserialize 1.5.1 (Python, PyPI)"
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let fixtures = repository.appendingPathComponent("Tests/KeyedArchiveTests/Fixtures/foundation-linux")

    func run() throws -> Row {
        let paths = try FileManager.default.contentsOfDirectory(atPath: Self.fixtures.path).filter { $0.hasSuffix(".plist") }.sorted()
            .map { Self.fixtures.appendingPathComponent($0).path }
        try expect(paths.count == 17, "y: \(paths.count) archives in \(Self.fixtures.path), 17 expected")
        let files = try paths.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        for (path, file) in zip(paths, files) {
            try expect((try? KeyedArchiveReader().read(file).decodeValue(forTopKey: "root")) != nil, "y: ICTKit does not decode \(path)")
        }
        guard (try? Self.peer(paths, rounds: 1)) != nil else {
            return .notMeasured(
                Self.name, peer: Self.peer, target: .faster(by: 20), reason: "python3 cannot import nska_deserialize (scripts/install-deps.sh bench)")
        }
        log("y. keyed archive decode to readable values: ICTKit vs nska-deserialize")
        let (ours, peer) = try stopwatch.compare(
            reported: {
                Stopwatch.time {
                    var characters = 0
                    for _ in 0..<Self.rounds {
                        for file in files {
                            characters &+= (try? KeyedArchiveReader().read(file).decodeValue(forTopKey: "root").readableText.utf8.count) ?? 0
                        }
                    }
                    return characters
                }
            },
            { try Self.peer(paths, rounds: Self.rounds) })
        return .timed(Self.name, ours: ours, peer: Self.peer, peerTime: peer, target: .faster(by: 20))
    }

    /// One timed run of nska-deserialize over `paths`, `rounds` times, as its process measured it.
    static func peer(_ paths: [String], rounds: Int) throws -> Sample {
        let script = repository.appendingPathComponent("Benchmarks/Peers/nska_deserialize_read.py").path
        let (sample, count) = try PythonPeer.timedRun([script, String(rounds)] + paths, row: "y: nska-deserialize")
        guard count == Double(rounds * paths.count) else {
            throw BenchmarkFailure("y: nska-deserialize deserialized \(count) archives, \(rounds * paths.count) expected")
        }
        return sample
    }
}
