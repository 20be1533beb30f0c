import Foundation

/// A Python peer that times its own loop (rows u and y): it prints
/// "WALL_SECONDS CPU_SECONDS COUNT" on standard output, so Python's
/// start-up and the reading of its inputs are not counted.
enum PythonPeer {
    /// Runs `python3` with `arguments` once and reads its line.
    ///
    /// - Parameter row: the row's letter and the peer's name, for the failure.
    /// - Returns: the loop's wall and CPU time, and the count the peer printed.
    static func timedRun(_ arguments: [String], row: String) throws -> (sample: Sample, count: Double) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let fields = text.split(separator: " ").map { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        guard process.terminationStatus == 0, fields.count == 3, let wall = fields[0], let cpu = fields[1], let count = fields[2] else {
            throw BenchmarkFailure("\(row) did not run: \(text)")
        }
        return (Sample(wall: .nanoseconds(Int64(wall * 1e9)), cpu: .nanoseconds(Int64(cpu * 1e9))), count)
    }
}
