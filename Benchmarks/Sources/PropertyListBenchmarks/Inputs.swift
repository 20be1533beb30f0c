import Foundation
import PropertyList

/// The benchmark's input files, made once by `generate_inputs.py` (Python's
/// plistlib, fixed seed) and kept under `Benchmarks/.data/`.
struct Inputs {
    /// About 20 MB, binary.
    let binaryPath: String
    /// About 30 MB, XML, a value built by the same function at another scale.
    let xmlPath: String
    /// An Info.plist-like binary property list of exactly 575 bytes (rows s).
    let smallBinaryPath: String
    /// Issue 24's data-heavy dictionary, about 10 MB, binary (row b2).
    let dataHeavyPath: String
    /// A value deep inside the last top-level entry of the binary file.
    let deepKeyPath: PropertyListKeyPath
    /// The binary file's bytes, read once; every in-process row reads from these.
    let binaryData: Data
    /// The XML file's bytes, read once.
    let xmlData: Data

    static let benchmarksDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Loads the inputs from `directory`, generating them first when any is missing.
    static func load(from directory: URL) throws -> Inputs {
        let binary = directory.appendingPathComponent("large.binary.plist")
        let xml = directory.appendingPathComponent("large.xml.plist")
        let keyPath = directory.appendingPathComponent("large.keypath.txt")
        let small = directory.appendingPathComponent("small.binary.plist")
        let dataHeavy = directory.appendingPathComponent("dataheavy.binary.plist")
        let all = [binary, xml, keyPath, small, dataHeavy]
        if !all.allSatisfy({ FileManager.default.fileExists(atPath: $0.path) }) {
            try generate(into: directory)
        }
        let keyPathText = try String(contentsOf: keyPath, encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        return Inputs(
            binaryPath: binary.path,
            xmlPath: xml.path,
            smallBinaryPath: small.path,
            dataHeavyPath: dataHeavy.path,
            deepKeyPath: PropertyListKeyPath(parsing: keyPathText),
            binaryData: try Data(contentsOf: binary),
            xmlData: try Data(contentsOf: xml)
        )
    }

    private static func generate(into directory: URL) throws {
        let script = benchmarksDirectory.appendingPathComponent("generate_inputs.py").path
        log("generating inputs in \(directory.path) with \(script) (Python's plistlib) …")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, directory.path]
        process.standardOutput = FileHandle.standardError  // Standard output is the table's.
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchmarkFailure("\(script) exited with status \(process.terminationStatus)")
        }
    }
}

/// A reason the harness cannot go on, or a row cannot be measured.
struct BenchmarkFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Progress for people, on standard error, so the table on standard output stays clean.
func log(_ message: String) {
    FileHandle.standardError.write(Data(("bench: " + message + "\n").utf8))
}
