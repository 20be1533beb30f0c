import Foundation

/// Rows L1–L2: a real Apple Notes store's every object to JSON lines with its layers expanded, whole `ict`
/// processes (issue 41, acceptance 3): `ict convert --format jsonl --expand STORE -o /dev/null` against Python's
/// `sqlite3` fetching the same rows (every column of every row of each table an entity of `Z_PRIMARYKEY` lives
/// in, by primary key, as the reader does) plus `gzip.decompress` of every blob that starts `1F 8B`, writing
/// nothing. L1 is Notes on iOS 17.3, L2 on iOS 16.3: the stores of `Tests/CoreDataFilesTests/Fixtures/Apple`
/// (iLEAPP's test images, PROVENANCE.md there), copied with their `-wal` and `-shm` into the data folder before
/// the rows run, so no fixture is ever opened in place.
///
/// The stores are small (0.5 and 0.3 MB with their logs), so each side is a whole process of tens of
/// milliseconds, start-up included on both: ICTKit's static executable against the Python interpreter itself
/// (`sys.executable`, not a version manager's shim in front of it, which would add its own start-up to the
/// peer's time). Each median is of at least `repetitions` runs of each, interleaved.
struct StoreLayerRows {
    let processRuns: Stopwatch
    let ict: String?
    let workDirectory: String

    /// The timed runs per side: more than the default 7, as the runs are short.
    static let repetitions = 21

    /// The stores, by row: the fixture's name and the row's label.
    static let stores = [
        (row: "L1", file: "NoteStore-iOS17.sqlite", label: "Apple Notes iOS 17.3"),
        (row: "L2", file: "NoteStore-iOS16.sqlite", label: "Apple Notes iOS 16.3"),
    ]

    static let peerName = "Python sqlite3, same rows + gzip.decompress of 1F 8B blobs"

    /// Python's side: the tables of `Z_PRIMARYKEY`'s entities (a subentity lives in its root's table, persistent
    /// history in `A` + name), every row of each `SELECT *` by `Z_PK`, and every gzip blob inflated. The store
    /// is opened read-only as ICTKit opens it. Prints "ROWS BLOBS" once at the end, for the check before timing.
    static let peerScript = """
        import gzip, sqlite3, sys
        path = sys.argv[1]
        db = sqlite3.connect("file:" + path + "?mode=ro&readonly_shm=1", uri=True)
        tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        entities = db.execute("SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY ORDER BY Z_ENT").fetchall()
        by_number = {number: (name, parent) for number, name, parent in entities}
        done = []
        rows = blobs = 0
        for number, name, parent in entities:
            root = name
            while parent:
                root, parent = by_number[parent]
            table = "Z" + root.upper()
            if number >= 16000 and not by_number[number][1] and table not in tables and "A" + name.upper() in tables:
                table = "A" + name.upper()
            if table in done:
                continue
            done.append(table)
            for row in db.execute('SELECT * FROM "%s" ORDER BY Z_PK' % table.replace('"', '""')):
                rows += 1
                for value in row:
                    if type(value) is bytes and value[:2] == b"\\x1f\\x8b":
                        gzip.decompress(value)
                        blobs += 1
        db.close()
        print(rows, blobs)
        """

    func run() throws -> [Row] {
        let target = Target.atMostSlower(by: 1)
        func name(_ store: (row: String, file: String, label: String)) -> String {
            "\(store.row). \(store.label) store → JSON lines + layers, whole process"
        }
        guard let ict else {
            return Self.stores.map { .notMeasured(name($0), peer: Self.peerName, target: target, reason: "no `ict` given (--ict PATH)") }
        }
        let python: String
        do { python = try Self.pythonExecutable() } catch {
            return Self.stores.map { .notMeasured(name($0), peer: Self.peerName, target: target, reason: "\(error)") }
        }
        return Self.stores.map { store in
            do {
                let path = try copy(store.file)
                return try speed(name(store), row: store.row, ict: ict, python: python, store: path)
            } catch {
                return .notMeasured(name(store), peer: Self.peerName, target: target, reason: "\(error)")
            }
        }
    }

    /// The fixture `file` and its `-wal` and `-shm` copied afresh into the data folder; the copy's path.
    private func copy(_ file: String) throws -> String {
        let fixtures = Inputs.benchmarksDirectory.deletingLastPathComponent()
            .appendingPathComponent("Tests/CoreDataFilesTests/Fixtures/Apple")
        try FileManager.default.createDirectory(atPath: workDirectory, withIntermediateDirectories: true)
        for suffix in ["", "-wal", "-shm"] {
            let destination = workDirectory + "/" + file + suffix
            try? FileManager.default.removeItem(atPath: destination)
            try FileManager.default.copyItem(atPath: fixtures.appendingPathComponent(file + suffix).path, toPath: destination)
        }
        return workDirectory + "/" + file
    }

    /// The Python interpreter `python3` on the PATH runs (`sys.executable`): a shim such as pyenv's in front of
    /// it is a shell script that would count its own start-up against the peer.
    static func pythonExecutable() throws -> String {
        let output = temporaryPath("python")
        defer { unlink(output) }
        _ = try runChildChecked(["python3", "-c", "import sys; print(sys.executable)"], standardOutput: output)
        let path = try String(contentsOfFile: output, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        guard path.hasPrefix("/") else { throw BenchmarkFailure("python3 names no interpreter (sys.executable is \(path.debugDescription))") }
        return path
    }

    private func speed(_ name: String, row: String, ict: String, python: String, store: String) throws -> Row {
        let target = Target.atMostSlower(by: 1)
        let ours = [ict, "convert", "--format", "jsonl", "--expand", store, "-o", "/dev/null"]
        let peer = [python, "-c", Self.peerScript, store]
        // Before timing: both sides read the same objects, and ict's output has layers of each gzip blob.
        let peerOutput = temporaryPath("peer")
        defer { unlink(peerOutput) }
        _ = try runChildChecked(peer, standardOutput: peerOutput)
        let counts = try String(contentsOfFile: peerOutput, encoding: .utf8).split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        try expect(counts.count == 2, "\(row): the peer printed \(counts), not ROWS BLOBS")
        let ourOutput = temporaryPath("jsonl")
        defer { unlink(ourOutput) }
        _ = try runChildChecked([ict, "convert", "--format", "jsonl", "--expand", store, "-o", ourOutput], standardOutput: "/dev/null")
        let lines = try String(contentsOfFile: ourOutput, encoding: .utf8).split(separator: "\n")
        try expect(lines.count == counts[0], "\(row): ict wrote \(lines.count) objects, Python read \(counts[0]) rows")
        let gzipLayers = lines.reduce(0) { $0 + $1.components(separatedBy: "\"gzip\"").count - 1 }
        try expect(gzipLayers >= counts[1], "\(row): ict's layers name gzip \(gzipLayers) times, Python inflated \(counts[1]) blobs")

        log("\(row). Notes store → JSON lines + layers: ict convert --expand vs Python sqlite3 + gzip")
        var stopwatch = processRuns
        stopwatch.repetitions = max(stopwatch.repetitions, Self.repetitions)
        let (ourTime, peerTime) = try stopwatch.compare(
            reported: { try runChildChecked(ours, standardOutput: "/dev/null").sample },
            { try runChildChecked(peer, standardOutput: "/dev/null").sample })
        var result = Row.timed(name, ours: ourTime, peer: Self.peerName, peerTime: peerTime, target: target)
        let size = ["", "-wal"].reduce(0) { total, suffix in
            total + ((try? FileManager.default.attributesOfItem(atPath: store + suffix)[.size] as? Int) ?? 0)
        }
        result.note =
            "\(counts[0]) objects, \(counts[1]) gzip blobs, \(size / 1024) KB with the -wal; median of \(ourTime.runs) runs each, "
            + "wall time from spawn to exit, "
            + "start-up on both sides: `ict convert --format jsonl --expand STORE -o /dev/null` (no --model: the store's "
            + "Z_MODELCACHE) vs `\(python) -c SCRIPT STORE` (StoreLayerRows.peerScript)"
        return result
    }
}
