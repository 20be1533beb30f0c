import Foundation
import PropertyList

/// Rows r: reading the binary and XML inputs of rows a and d into a value,
/// ICTKit against the readers a user of Rust or Python would pick instead —
/// the Rust `plist` crate (Debian's librust-plist-dev, built offline by
/// scripts/bench.sh) and Python's `plistlib`.
///
/// Every side, ICTKit's too, runs in a process of its own started for the
/// row (this executable in `child-read-runs` mode for ICTKit,
/// Benchmarks/Peers/ for the peers): it reads the file's bytes once, decodes
/// them once to warm up, then decodes them from memory once per timed run,
/// freeing each value after its clock stops, and prints each run's wall and
/// CPU time. ICTKit's runs were timed in this process before, where glibc
/// gave the freed value's memory back to the system after each run, so each
/// run faulted about 50 MB of fresh pages in again (12,000 page faults a run,
/// `perf stat`), which the peers' processes, keeping their freed memory, did
/// not: the same conditions for both sides are a process each.
///
/// The sides are not interleaved as other rows are: each side's median is of
/// the same number of runs, taken one side after the other.
struct ReaderPeerRows {
    let inputs: Inputs
    let stopwatch: Stopwatch
    /// The release build of Benchmarks/Peers/rust-plist, or nil.
    let rustPlist: String?
    let plistlibScript = Inputs.benchmarksDirectory.appendingPathComponent("Peers/plistlib_read.py").path

    func run() -> [Row] {
        let rustName = "Rust plist crate 1.3 (Value::from_reader)"
        let plistlibName = "Python plistlib.loads (\(pythonVersion()))"
        var rows: [Row] = []
        let binary = "binary read \(megabytes(inputs.binaryData.count)) → value"
        let xml = "XML read \(megabytes(inputs.xmlData.count)) → value"
        if let rustPlist {
            rows.append(row("r1. \(binary)", format: "binary", path: inputs.binaryPath, peer: [rustPlist], peerName: rustName))
            rows.append(row("r2. \(xml)", format: "xml", path: inputs.xmlPath, peer: [rustPlist], peerName: rustName))
        } else {
            let reason = "no Rust plist peer given (--rust-plist PATH; scripts/bench.sh builds it)"
            rows.append(.notMeasured("r1. \(binary)", peer: rustName, target: .faster(by: 5), reason: reason))
            rows.append(.notMeasured("r2. \(xml)", peer: rustName, target: .faster(by: 5), reason: reason))
        }
        let python = ["/usr/bin/env", "python3", plistlibScript]
        rows.append(row("r3. \(binary)", format: "binary", path: inputs.binaryPath, peer: python, peerName: plistlibName))
        rows.append(row("r4. \(xml)", format: "xml", path: inputs.xmlPath, peer: python, peerName: plistlibName))
        return rows
    }

    private func row(_ benchmark: String, format: String, path: String, peer: [String], peerName: String) -> Row {
        let target = Target.faster(by: 5)
        do {
            log("\(benchmark): ICTKit vs \(peerName)")
            let runs = String(stopwatch.repetitions)
            let (peerTiming, peerEntries) = try peerRuns(peer + [path, runs])
            let (ours, entries) = try peerRuns([currentExecutable, ChildMode.readRuns.rawValue, format, path, runs])
            guard peerEntries == entries else {
                throw BenchmarkFailure("\(peerName) read \(peerEntries) top-level entries, ICTKit \(entries)")
            }
            var row = Row.timed(benchmark, ours: ours, peer: peerName, peerTime: peerTiming, target: target)
            row.note = "each side decodes the same bytes in memory in a process of its own and reports its runs (one warm-up first)"
            if format == "binary" {
                // A large binary file is read on up to 4 threads: the time on one, and the CPU time of all, are shown too.
                let (oneThread, _) = try peerRuns([currentExecutable, ChildMode.readRuns.rawValue, "binary-one-thread", path, runs])
                let oneThreadTime = oneThread.median.milliseconds, peerTime = peerTiming.median.milliseconds
                row.note! +=
                    "; ICTKit reads a large binary file on up to 4 threads, \(ProcessInfo.processInfo.activeProcessorCount) here"
                    + " (CPU time of every thread \(milliseconds(ours.medianCPU.milliseconds)));"
                    + " on one thread: \(milliseconds(oneThreadTime)), \(ratioText(peerTime / oneThreadTime))× faster"
            }
            return row
        } catch {
            return .notMeasured(benchmark, peer: peerName, target: target, reason: "\(error)")
        }
    }

    /// ICTKit's side of a row, in a child process (`child-read-runs`), as the
    /// peers run theirs: reads `path` once, decodes it once to warm up, then
    /// `runs` times, each from the same bytes in memory and freed after its
    /// clock stops; prints "WALL_NS CPU_NS" per run on standard output (the
    /// CPU time of every thread: a large binary file is read on several) and
    /// "ICTKit: N top-level entries" on standard error. The exit status.
    /// `format` is binary, binary-one-thread (`maximumThreadCount` 1) or xml.
    static func ourRuns(format: String, path: String, runs: Int) -> Int32 {
        do {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            let read: () throws -> PropertyListValue
            switch format {
            case "binary": read = { try BinaryPropertyListReader().read(bytes) }
            case "binary-one-thread": read = { try BinaryPropertyListReader(maximumThreadCount: 1).read(bytes) }
            case "xml": read = { try XMLPropertyListReader().read(bytes) }
            default: return 64
            }
            let entries = try read().dictionaryValue?.count ?? 0
            FileHandle.standardError.write(Data("ICTKit: \(entries) top-level entries\n".utf8))
            var lines = ""
            for _ in 0..<runs {
                let sample = try Stopwatch.time(everyThread: true, read)
                lines += "\(sample.wall.nanoseconds) \(sample.cpu.nanoseconds)\n"
            }
            print(lines, terminator: "")
            return 0
        } catch {
            log("error: \(error)")
            return 1
        }
    }

    /// Runs a side (a peer, or ICTKit's child), which prints "WALL_NS CPU_NS"
    /// per timed run on standard output and "NAME: N top-level entries" on
    /// standard error.
    private func peerRuns(_ command: [String]) throws -> (Timing, entries: Int) {
        let output = temporaryPath("peer-out"), errors = temporaryPath("peer-err")
        defer {
            unlink(output)
            unlink(errors)
        }
        let outcome = try runChild(command, standardOutput: output, standardError: errors)
        let errorText = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
        guard outcome.exitStatus == 0 else {
            throw BenchmarkFailure("`\(command.joined(separator: " "))` failed: \(errorText)")
        }
        let samples = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n").map { line in
            let fields = line.split(separator: " ").compactMap { Int64($0) }
            guard fields.count == 2 else { throw BenchmarkFailure("a peer printed \"\(line)\"") }
            return Sample(wall: .nanoseconds(fields[0]), cpu: .nanoseconds(fields[1]))
        }
        guard !samples.isEmpty else { throw BenchmarkFailure("`\(command.joined(separator: " "))` printed no runs") }
        let entries = errorText.split(separator: ":").dropFirst().first.flatMap { Int($0.split(separator: " ").first ?? "") } ?? -1
        return (Timing(samples, asked: stopwatch.repetitions), entries)
    }

    private func pythonVersion() -> String {
        let output = temporaryPath("python-version")
        defer { unlink(output) }
        _ = try? runChild(["/usr/bin/env", "python3", "--version"], standardOutput: output, standardError: nil)
        return ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "Python 3").trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// A ratio as the table prints one (`format` is a parameter's name in `ReaderPeerRows.row`).
private func ratioText(_ ratio: Double) -> String { format(ratio) }
