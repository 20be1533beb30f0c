import Foundation
import PropertyList

/// Rows r: reading the binary and XML inputs of rows a and d into a value,
/// ICTKit in this process against the readers a user of Rust or Python
/// would pick instead — the Rust `plist` crate (Debian's librust-plist-dev,
/// built offline by scripts/bench.sh) and Python's `plistlib` — each
/// decoding the same file's bytes from memory in its own process and
/// reporting each run's wall and CPU time (Benchmarks/Peers/).
///
/// The peers time their own runs (a warm-up, then the repetitions), so
/// these rows are not interleaved as others are: each side's median is of
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
        let readBinary = { try BinaryPropertyListReader().read(inputs.binaryData) }
        let readXML = { try XMLPropertyListReader().read(inputs.xmlData) }
        if let rustPlist {
            rows.append(row("r1. \(binary)", read: readBinary, path: inputs.binaryPath, peer: [rustPlist], peerName: rustName))
            rows.append(row("r2. \(xml)", read: readXML, path: inputs.xmlPath, peer: [rustPlist], peerName: rustName))
        } else {
            let reason = "no Rust plist peer given (--rust-plist PATH; scripts/bench.sh builds it)"
            rows.append(.notMeasured("r1. \(binary)", peer: rustName, target: .faster(by: 5), reason: reason))
            rows.append(.notMeasured("r2. \(xml)", peer: rustName, target: .faster(by: 5), reason: reason))
        }
        let python = ["/usr/bin/env", "python3", plistlibScript]
        rows.append(row("r3. \(binary)", read: readBinary, path: inputs.binaryPath, peer: python, peerName: plistlibName))
        rows.append(row("r4. \(xml)", read: readXML, path: inputs.xmlPath, peer: python, peerName: plistlibName))
        return rows
    }

    private func row(
        _ benchmark: String, read: () throws -> PropertyListValue, path: String, peer: [String], peerName: String
    ) -> Row {
        let target = Target.faster(by: 5)
        do {
            log("\(benchmark): ICTKit vs \(peerName)")
            let value = try read()
            let entries = value.dictionaryValue?.count ?? 0
            let (peerTiming, peerEntries) = try peerRuns(peer + [path, String(stopwatch.repetitions)])
            guard peerEntries == entries else {
                throw BenchmarkFailure("\(peerName) read \(peerEntries) top-level entries, ICTKit \(entries)")
            }
            for _ in 0..<stopwatch.warmUpRuns { keep(try read()) }
            var samples: [Sample] = []
            for _ in 0..<stopwatch.repetitions { samples.append(try Stopwatch.time(read)) }
            var row = Row.timed(
                benchmark, ours: Timing(samples, asked: stopwatch.repetitions), peer: peerName, peerTime: peerTiming,
                target: target)
            row.note = "the peer decodes the same bytes in memory in its own process and reports its runs (one warm-up first)"
            return row
        } catch {
            return .notMeasured(benchmark, peer: peerName, target: target, reason: "\(error)")
        }
    }

    /// Runs a peer, which prints "WALL_NS CPU_NS" per timed run on standard
    /// output and "NAME: N top-level entries" on standard error.
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
