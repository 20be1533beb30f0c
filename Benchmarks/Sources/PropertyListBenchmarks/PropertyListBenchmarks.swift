import DocumentFormats
import Foundation
import LiveQuery
import PropertyList

/// `PropertyListBenchmarks [--ict PATH] [--plistutil PATH] [--data DIRECTORY]
/// [--plutil PATH] [--coordination-stress PATH] [--repetitions N] [--warm-up N]
/// [--only abcdefghijklmnopqrstuvwxyzPGIKL] [--rust-plist PATH] [--verbose]` prints one table comparing ICTKit's
/// property-list (rows a–f), keyed-archive (g–i), uniform-type (j–k),
/// document (l–n, over 10,000 generated documents), metadata-query (q, over the same), document-package (p),
/// document-version (v), compiled-nib (u, against Python's nibarchive), typed-stream (t, against pytypedstream),
/// Core Data store (o; L: a real Apple Notes store with its layers expanded, against Python's sqlite3 and gzip) and package-zip (z, with Info-ZIP's zip and unzip)
/// layers with their peers, reading against the Rust plist crate and Python's plistlib (r), coordinated edits by many
/// processes against one (w), whole `ict` processes on small jobs against
/// plistutil and Apple's plutil (s), and shared-object bombs refused by every
/// `ict` command (x), and documents synced by real Syncthing devices (P, G), an idle process
/// holding presenters and queries (I) and the iCloud key-value store (K), all measured in this run.
///
/// The same executable is re-run in a child mode (`ChildMode`) to measure
/// peak memory apart from this process.
@main
struct PropertyListBenchmarks {
    static func main() {
        // What an app of `.ict` documents does where it starts (`ict list` does it for its query): the metadata
        // queries of rows q, G and I know `.ict` as a package kind and read its display names from its metadata entry.
        MetadataQuery.defaultDocumentKinds = DocumentKind.metadataDocumentKinds
        var arguments = Array(CommandLine.arguments.dropFirst())
        if let first = arguments.first, let mode = ChildMode(rawValue: first) {
            arguments.removeFirst()
            exit(mode.run(arguments))
        }
        do {
            let options = try Options(parsing: arguments)
            let loadBefore = loadAverage()
            var rows: [Row] = []
            var notes: [String] = []
            let inputs = options.only.isDisjoint(with: "abcdefghijkr") ? nil : try Inputs.load(from: options.dataDirectory)
            if let inputs, !options.only.isDisjoint(with: "abcdefghijk") {
                var suite = Suite(
                    inputs: inputs,
                    stopwatch: Stopwatch(warmUpRuns: options.warmUpRuns, repetitions: options.repetitions, verbose: options.verbose),
                    processRuns: Stopwatch(warmUpRuns: options.warmUpRuns, repetitions: options.repetitions, verbose: options.verbose),
                    ict: options.ict,
                    plistutil: options.plistutil,
                    only: options.only
                )
                rows += try suite.run()
                notes += suite.notes
            }
            if let inputs, options.only.contains("r") {
                let readers = ReaderPeerRows(
                    inputs: inputs,
                    stopwatch: Stopwatch(warmUpRuns: options.warmUpRuns, repetitions: options.repetitions, verbose: options.verbose),
                    rustPlist: options.rustPlist)
                rows += readers.run()
            }
            if !options.only.isDisjoint(with: "lmn") {
                let listing = DocumentListing(
                    stopwatch: Stopwatch(warmUpRuns: options.warmUpRuns, repetitions: options.repetitions, verbose: options.verbose),
                    processRuns: Stopwatch(warmUpRuns: options.warmUpRuns, repetitions: options.repetitions, verbose: options.verbose),
                    ict: options.ict,
                    folder: DocumentFolder(path: options.dataDirectory.appendingPathComponent("documents").path),
                    only: options.only
                )
                rows += try listing.run()
            }
            if options.only.contains("q") {
                let query = MetadataQueryRows(
                    processRuns: Stopwatch(warmUpRuns: options.warmUpRuns, repetitions: options.repetitions, verbose: options.verbose),
                    ict: options.ict,
                    folder: DocumentFolder(path: options.dataDirectory.appendingPathComponent("documents").path),
                    workDirectory: options.dataDirectory.appendingPathComponent("query").path
                )
                rows += try query.run()
            }
            if !options.only.isDisjoint(with: "PGI") {
                let sync = SyncRows(
                    stopwatch: Stopwatch(
                        warmUpRuns: options.warmUpRuns, repetitions: max(options.repetitions, SyncRows.propagationRuns), verbose: options.verbose),
                    processRuns: Stopwatch(warmUpRuns: options.warmUpRuns, repetitions: options.repetitions, verbose: options.verbose),
                    ict: options.ict,
                    folder: DocumentFolder(path: options.dataDirectory.appendingPathComponent("documents").path),
                    workDirectory: options.dataDirectory.appendingPathComponent("idle").path,
                    only: options.only
                )
                rows += sync.run()
            }
            if options.only.contains("K") {
                let keyValueStore = KeyValueStoreRows(
                    stopwatch: Stopwatch(
                        warmUpRuns: options.warmUpRuns, repetitions: max(options.repetitions, KeyValueStoreRows.propagationRuns),
                        verbose: options.verbose),
                    openings: Stopwatch(warmUpRuns: options.warmUpRuns, repetitions: options.repetitions, verbose: options.verbose),
                    workDirectory: options.dataDirectory.appendingPathComponent("kvstore").path
                )
                rows += keyValueStore.run()
            }
            if options.only.contains("p") {
                let packages = PackageSaving(
                    stopwatch: Stopwatch(warmUpRuns: options.warmUpRuns, repetitions: options.repetitions, verbose: options.verbose),
                    workDirectory: options.dataDirectory.appendingPathComponent("packages").path
                )
                rows += try packages.run()
            }
            if options.only.contains("z") {
                let zipping = PackageZipping(
                    processRuns: Stopwatch(warmUpRuns: options.warmUpRuns, repetitions: options.repetitions, verbose: options.verbose),
                    ict: options.ict,
                    workDirectory: options.dataDirectory.appendingPathComponent("zip").path
                )
                rows += try zipping.run()
            }
            if options.only.contains("s") {
                let startup = StartupRows(
                    processRuns: Stopwatch(warmUpRuns: max(options.warmUpRuns, 3), repetitions: options.repetitions, verbose: options.verbose),
                    ict: options.ict, plistutil: options.plistutil, plutil: options.plutil,
                    dataDirectory: options.dataDirectory)
                rows += try startup.run()
            }
            if options.only.contains("w") {
                let edits = CoordinatedEdits(
                    processRuns: Stopwatch(warmUpRuns: options.warmUpRuns, repetitions: options.repetitions, verbose: options.verbose),
                    coordinationStress: options.coordinationStress,
                    workDirectory: options.dataDirectory.appendingPathComponent("coordination").path
                )
                rows.append(try edits.run())
            }
            if options.only.contains("t") {
                let typedStream = TypedStreamRows(
                    stopwatch: Stopwatch(warmUpRuns: options.warmUpRuns, repetitions: options.repetitions, verbose: options.verbose))
                do { rows.append(try typedStream.run()) } catch {
                    rows.append(.notMeasured(TypedStreamRows.name, peer: TypedStreamRows.peer, target: .faster(by: 20), reason: "\(error)"))
                }
            }
            if options.only.contains("o") {
                let stores = StoreRows(
                    processRuns: Stopwatch(warmUpRuns: options.warmUpRuns, repetitions: options.repetitions, verbose: options.verbose),
                    ict: options.ict,
                    workDirectory: options.dataDirectory.appendingPathComponent("stores").path
                )
                rows += try stores.run()
            }
            if options.only.contains("L") {
                let layers = StoreLayerRows(
                    processRuns: Stopwatch(warmUpRuns: options.warmUpRuns, repetitions: options.repetitions, verbose: options.verbose),
                    ict: options.ict,
                    workDirectory: options.dataDirectory.appendingPathComponent("layers").path
                )
                rows += try layers.run()
            }
            if options.only.contains("u") {
                let nibs = NibRows(
                    stopwatch: Stopwatch(warmUpRuns: options.warmUpRuns, repetitions: options.repetitions, verbose: options.verbose))
                rows.append(try nibs.run())
            }
            if options.only.contains("y") {
                let readable = KeyedArchiveReadableRows(
                    stopwatch: Stopwatch(warmUpRuns: options.warmUpRuns, repetitions: options.repetitions, verbose: options.verbose))
                do { rows.append(try readable.run()) } catch {
                    rows.append(.notMeasured(KeyedArchiveReadableRows.name, peer: KeyedArchiveReadableRows.peer, target: .faster(by: 20), reason: "\(error)"))
                }
            }
            if options.only.contains("x") {
                let bombs = SharedObjectBombRows(
                    processRuns: Stopwatch(warmUpRuns: options.warmUpRuns, repetitions: options.repetitions, verbose: options.verbose),
                    ict: options.ict,
                    workDirectory: options.dataDirectory.appendingPathComponent("bombs").path
                )
                rows += bombs.run()
            }
            if options.only.contains("v") {
                let finding = VersionFinding(
                    processRuns: Stopwatch(warmUpRuns: options.warmUpRuns, repetitions: options.repetitions, verbose: options.verbose),
                    folder: options.dataDirectory.appendingPathComponent("versions").path
                )
                rows.append(finding.run())
            }
            let startupMethod =
                options.only.contains("s")
                ? " (rows s: of up to \(StartupRows.repetitions) runs after \(max(options.warmUpRuns, 3)) warm-up, within the 40 s budget)" : ""
            let method =
                "each time is the median of \(options.repetitions) runs after \(options.warmUpRuns) warm-up\(startupMethod)"
                + ", ICTKit's and the peer's runs interleaved; in-process rows read the same bytes in memory; "
                + "results are freed after the clock stops, on both sides"
            let load =
                "machine load (1-minute average, \(ProcessInfo.processInfo.activeProcessorCount) cores): "
                + "\(loadBefore) at the start, \(loadAverage()) at the end"
            print(render(rows, notes: notes + [method, load]))
        } catch {
            log("error: \(error)")
            exit(1)
        }
    }
}

/// The 1-minute load average, or "unknown" where /proc/loadavg is not.
func loadAverage() -> String {
    (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").first.map(String.init) ?? "unknown"
}

/// The command line of a benchmark run.
struct Options {
    var ict: String?
    var plistutil = "plistutil"
    /// The Rust plist crate's reader (Benchmarks/Peers/rust-plist, release), for rows r1 and r2.
    var rustPlist: String?
    /// Apple's plutil (swift-corelibs-foundation's, in the Swift toolchain on Linux).
    var plutil: String?
    /// The test child `CoordinationStress` (row w), built in release.
    var coordinationStress: String?
    var dataDirectory = Inputs.benchmarksDirectory.appendingPathComponent(".data")
    var repetitions = 7
    var warmUpRuns = 1
    /// The rows to run, by letter (the capitals are the sync rows: `SyncRows`).
    var only = Set("abcdefghijklmnopqrstuvwxyzPGIKL")
    /// Log every timed run, not only the medians.
    var verbose = false

    init(parsing arguments: [String]) throws {
        var remaining = arguments[...]
        func value(for option: String) throws -> String {
            guard let value = remaining.popFirst() else { throw BenchmarkFailure("\(option) needs a value") }
            return value
        }
        func count(for option: String, minimum: Int) throws -> Int {
            let text = try value(for: option)
            guard let count = Int(text), count >= minimum else {
                throw BenchmarkFailure("\(option) needs a whole number of at least \(minimum), not \(text)")
            }
            return count
        }
        while let option = remaining.popFirst() {
            switch option {
            case "--ict": ict = try value(for: option)
            case "--plistutil": plistutil = try value(for: option)
            case "--plutil": plutil = try value(for: option)
            case "--rust-plist": rustPlist = try value(for: option)
            case "--coordination-stress": coordinationStress = try value(for: option)
            case "--data": dataDirectory = URL(fileURLWithPath: try value(for: option))
            case "--repetitions": repetitions = try count(for: option, minimum: 1)
            case "--warm-up": warmUpRuns = try count(for: option, minimum: 0)
            case "--only": only = Set(try value(for: option))
            case "--verbose": verbose = true
            default: throw BenchmarkFailure("unknown argument \(option)")
            }
        }
    }
}

/// What this executable does when re-run as a child.
enum ChildMode: String {
    /// Starts and exits: the baseline for peak memory.
    case start = "child-start"
    /// Maps the binary file named next and decodes it whole.
    case decode = "child-decode"
    /// Runs the command line that follows and prints its peak RSS in bytes.
    case measure = "child-measure"
    /// As `measure`, for a command that must fail with exit status 1 (rows x).
    case measureRefusal = "child-measure-refusal"
    /// Finds the conflict versions of every item in the folder named next (row v).
    case versions = "child-versions"
    /// Watches the folder named next with a metadata query, gathered, and exits (row q3).
    case watch = "child-watch"
    /// As `watch`, the folder (named second) a container by the containers.plist named first (row G2).
    case watchSynced = "child-watch-synced"
    /// Holds presenters and queries in the folder named next, says ready, and blocks (rows I).
    case idle = "child-idle"
    /// Opens the key-value store of the folder named next as device 1, and exits with it open (row K3b).
    case openKeyValueStore = "child-open-kvstore"
    /// `child-read-runs binary|xml FILE RUNS`: ICTKit's side of rows r, as the peers
    /// run theirs (`ReaderPeerRows.ourRuns`).
    case readRuns = "child-read-runs"

    func run(_ arguments: [String]) -> Int32 {
        switch self {
        case .start:
            return 0
        case .decode:
            guard arguments.count == 1 else { return 64 }
            do {
                let file = try MappedFile(url: URL(filePath: arguments[0]))
                let value = try BinaryPropertyListReader().read(file)
                keep(value)
                // Exits with the value alive: freeing it cannot raise the peak,
                // and would only make the child slower.
                exit(0)
            } catch {
                log("error: \(error)")
                return 1
            }
        case .versions:
            guard arguments.count == 1 else { return 64 }
            return VersionFinding.findAll(in: arguments[0])
        case .watch:
            guard arguments.count == 1 else { return 64 }
            return MetadataQueryRows.watchAndExit(arguments[0])
        case .watchSynced:
            guard arguments.count == 2 else { return 64 }
            return SyncRows.watchSyncedAndExit(configurationPath: arguments[0], folder: arguments[1])
        case .idle:
            guard arguments.count == 1 else { return 64 }
            return SyncRows.holdIdle(in: arguments[0])
        case .openKeyValueStore:
            guard arguments.count == 1 else { return 64 }
            return KeyValueStoreRows.openAndExit(arguments[0])
        case .readRuns:
            guard arguments.count == 3, let runs = Int(arguments[2]), runs > 0 else { return 64 }
            return ReaderPeerRows.ourRuns(format: arguments[0], path: arguments[1], runs: runs)
        case .measure, .measureRefusal:
            guard !arguments.isEmpty else { return 64 }
            do {
                let outcome = try runChild(arguments, standardOutput: "/dev/null", standardError: self == .measure ? nil : "/dev/null")
                guard outcome.exitStatus == (self == .measure ? 0 : 1) else { return 1 }
                print(outcome.peakResidentBytes)
                return 0
            } catch {
                log("error: \(error)")
                return 1
            }
        }
    }
}
