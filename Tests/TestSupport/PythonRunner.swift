import Foundation

/// Runs `python3 -c SCRIPT ARGUMENTS…`: the outside reader or writer a test
/// takes its expected values from (plistlib, zipfile, …).
public enum PythonRunner {
    /// What one run printed and how it ended.
    public struct Result: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

    /// Runs `script` with `arguments` (`sys.argv[1:]`), its output collected
    /// through files, so neither stream can fill up and stall it.
    public static func run(_ script: String, _ arguments: [String] = []) throws -> Result {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("python-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let out = scratch.appendingPathComponent("out"), err = scratch.appendingPathComponent("err")
        FileManager.default.createFile(atPath: out.path, contents: nil)
        FileManager.default.createFile(atPath: err.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script] + arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        try process.run()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdout: String(decoding: try Data(contentsOf: out), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: err), as: UTF8.self))
    }
}
