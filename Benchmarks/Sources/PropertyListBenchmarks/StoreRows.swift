import Foundation

/// Rows o1–o2: a Core Data SQLite store's objects to JSON lines, whole `ict` processes (issue 25): against
/// Python's sqlite3 doing the same select and `json.dumps` of the raw rows, and the peak memory of a store ten
/// times larger (the conversion streams: memory must not grow with the store).
///
/// The stores are made once under the data folder by `Tests/CoreDataFilesTests/Fixtures/stores/make_store.py
/// rows` (Core Data's layout, hand-built with Python's sqlite3: one Item entity, a string, a date, an integer
/// and a real per object).
struct StoreRows {
    let processRuns: Stopwatch
    let ict: String?
    let workDirectory: String

    static let largeCount = 1_000_000
    static let smallCount = 100_000

    /// Python's sqlite3: the same rows, `json.dumps` of each raw row, one a line.
    static let peerScript = """
        import json, sqlite3, sys
        db = sqlite3.connect(sys.argv[1])
        write = sys.stdout.write
        for row in db.execute("SELECT * FROM ZITEM ORDER BY Z_PK"):
            write(json.dumps(row))
            write("\\n")
        """

    func run() throws -> [Row] {
        let speedName = "o1. Core Data store, \(Self.largeCount) objects → JSON lines, whole process"
        let memoryName = "o2. peak memory, \(Self.largeCount)-object store → JSON lines"
        let peerName = "Python sqlite3 + json.dumps of the raw rows"
        let memoryPeer = "ict on the \(Self.smallCount)-object store"
        guard let ict else {
            let reason = "no `ict` given (--ict PATH)"
            return [
                .notMeasured(speedName, peer: peerName, target: .atMostSlower(by: 1), reason: reason),
                .notMeasured(memoryName, peer: memoryPeer, target: .memoryAtMostTimesPeer(1.2), reason: reason),
            ]
        }
        let large: String
        let small: String
        do {
            large = try store(count: Self.largeCount)
            small = try store(count: Self.smallCount)
        } catch {
            return [
                .notMeasured(speedName, peer: peerName, target: .atMostSlower(by: 1), reason: "\(error)"),
                .notMeasured(memoryName, peer: memoryPeer, target: .memoryAtMostTimesPeer(1.2), reason: "\(error)"),
            ]
        }
        return [speed(speedName, ict: ict, store: large, peerName: peerName), memory(memoryName, ict: ict, large: large, small: small, peer: memoryPeer)]
    }

    /// The store of `count` objects, made when missing.
    private func store(count: Int) throws -> String {
        let path = workDirectory + "/items-\(count).sqlite"
        if FileManager.default.fileExists(atPath: path) { return path }
        try FileManager.default.createDirectory(atPath: workDirectory, withIntermediateDirectories: true)
        let script = Inputs.benchmarksDirectory.deletingLastPathComponent()
            .appendingPathComponent("Tests/CoreDataFilesTests/Fixtures/stores/make_store.py").path
        log("r: making a \(count)-object store")
        let partial = path + ".partial"
        try? FileManager.default.removeItem(atPath: partial)
        _ = try runChildChecked(["python3", script, "rows", partial, String(count)], standardOutput: "/dev/null")
        try FileManager.default.moveItem(atPath: partial, toPath: path)
        return path
    }

    private func speed(_ name: String, ict: String, store: String, peerName: String) -> Row {
        let target = Target.atMostSlower(by: 1)
        let ours = [ict, "convert", store, "--format", "jsonl"]
        let peer = ["python3", "-c", Self.peerScript, store]
        do {
            for (command, who) in [(ours, "ict"), (peer, "python3")] {
                let output = temporaryPath("jsonl")
                defer { unlink(output) }
                _ = try runChildChecked(command, standardOutput: output)
                let lines = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n")
                try expect(lines.count == Self.largeCount, "o1: \(who) wrote \(lines.count) lines, not \(Self.largeCount)")
                try expect(lines.last?.contains("item \(Self.largeCount)") == true, "o1: \(who)'s last line is not the last item")
            }
            log("o1. store → JSON lines: ict convert vs Python")
            let (ourTime, peerTime) = try processRuns.compare(
                reported: { try runChildChecked(ours, standardOutput: "/dev/null").sample },
                { try runChildChecked(peer, standardOutput: "/dev/null").sample })
            var row = Row.timed(name, ours: ourTime, peer: peerName, peerTime: peerTime, target: target)
            row.note =
                "wall time from spawn to exit, standard output to /dev/null: `ict convert STORE --format jsonl` (no --model: "
                + "each column as SQLite stores it, with the object's x-coredata:// ID and entity) vs `python3 -c SCRIPT STORE`"
            return row
        } catch {
            return .notMeasured(name, peer: peerName, target: target, reason: "\(error)")
        }
    }

    private func memory(_ name: String, ict: String, large: String, small: String, peer: String) -> Row {
        let factor = 1.2
        let target = Target.memoryAtMostTimesPeer(factor)
        do {
            log("o2. peak memory of ict convert on both stores")
            let big = try medianPeakMemory(of: [ict, "convert", large, "--format", "jsonl"])
            let little = try medianPeakMemory(of: [ict, "convert", small, "--format", "jsonl"])
            let ratio = Double(big) / Double(little)
            return Row(
                benchmark: name, ours: megabytes(big), peer: peer, peerMeasurement: megabytes(little),
                ratio: "\(format(ratio, decimals: 2))× peer's", target: target, met: ratio <= factor,
                note: "peak resident set (wait4, spawned from a small intermediate), median of 3, output to /dev/null")
        } catch {
            return .notMeasured(name, peer: peer, target: target, reason: "\(error)")
        }
    }

    /// The median peak RSS of `command` over three runs, each spawned from a small intermediate copy of this
    /// executable (`ChildMode.measure`, as rows f and q3).
    private func medianPeakMemory(of command: [String]) throws -> Int {
        var peaks: [Int] = []
        for _ in 0..<3 {
            let output = temporaryPath("peak")
            defer { unlink(output) }
            _ = try runChildChecked([currentExecutable, ChildMode.measure.rawValue] + command, standardOutput: output)
            let text = try String(contentsOfFile: output, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            guard let peak = Int(text) else { throw BenchmarkFailure("the measuring child printed \(text.debugDescription)") }
            peaks.append(peak)
        }
        return peaks.sorted()[1]
    }
}
