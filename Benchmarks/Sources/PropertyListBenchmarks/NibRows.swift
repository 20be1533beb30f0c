import Foundation
import NIBArchive

/// Row u: compiled nibs (NIBArchive), ICTKit's reader against PyPI's
/// nibarchive (the peer its tests check it against), on the same files: the
/// six ibtool nibs of Tests/NIBArchiveTests/Fixtures (1–8 KB, 498 objects in
/// all), each read 20 times per run on both sides (nibarchive takes about 0.1 s a round).
///
/// The peer is timed inside its Python process (perf_counter around the
/// parses, after the files are read into memory), so Python's start-up is
/// not counted; its CPU time is the same process's `process_time`.
struct NibRows {
    let stopwatch: Stopwatch
    static let rounds = 20
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Tests/NIBArchiveTests/Fixtures")
    static let names = [
        "01J-lp-oVM-view-Ze5-6b-2t3.nib", "UIViewController-01J-lp-oVM.nib", "UITabBarController-49e-Tb-3d3.nib",
        "InstallViewController.nib", "PackageListHeader.nib", "NewsArticleTableViewCell.nib",
    ]

    func run() throws -> Row {
        let benchmark = "u. NIBArchive decode, 6 ibtool nibs × \(Self.rounds) (498 objects each round)"
        let peerName = "nibarchive 1.1.0 (Python, PyPI)"
        let paths = Self.names.map { Self.fixtures.appendingPathComponent($0).path }
        let files = try paths.map { [UInt8](try Data(contentsOf: URL(fileURLWithPath: $0))) }
        let objects = try files.reduce(0) { $0 + (try NIBArchiveReader().read($1).objects.count) }
        try expect(objects == 498, "u: ICTKit reads \(objects) objects in the six nibs; nibarchive reads 498")
        guard (try? Self.peer(paths)) != nil else {
            return .notMeasured(
                benchmark, peer: peerName, target: .faster(by: 20), reason: "python3 cannot import nibarchive (scripts/install-deps.sh bench)")
        }
        log("u. NIBArchive decode: ICTKit vs nibarchive")
        let (ours, peer) = try stopwatch.compare(
            reported: {
                Stopwatch.time {
                    var count = 0
                    for _ in 0..<Self.rounds {
                        for file in files { count &+= (try? NIBArchiveReader().read(file).values.count) ?? 0 }
                    }
                    return count
                }
            },
            { try Self.peer(paths) })
        return .timed(benchmark, ours: ours, peer: peerName, peerTime: peer, target: .faster(by: 20))
    }

    /// One timed run of nibarchive over `paths`, `rounds` times, as its process measured it.
    static func peer(_ paths: [String]) throws -> Sample {
        let script = """
            import io, sys, time
            from nibarchive import NIBArchiveParser
            blobs = [open(p, "rb").read() for p in sys.argv[2:]]
            rounds = int(sys.argv[1])
            wall, cpu = time.perf_counter(), time.process_time()
            count = 0
            for _ in range(rounds):
                for blob in blobs:
                    count += len(NIBArchiveParser().parse(io.BytesIO(blob)).values)
            print(time.perf_counter() - wall, time.process_time() - cpu, count)
            """
        return try PythonPeer.timedRun(["-c", script, String(rounds)] + paths, row: "u: nibarchive").sample
    }
}
