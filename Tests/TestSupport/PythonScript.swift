import Foundation

/// Runs a Python 3 script with `python3 -c` (found on `PATH`), for helpers
/// whose expected values come from Python's own modules (`zipfile`,
/// `plistlib`), not from ICTKit.
public enum PythonScript {
    /// A script that exited with a status other than 0.
    public struct Failure: Error, CustomStringConvertible {
        /// The status and what the script wrote to standard error.
        public var message: String
        public var description: String { message }
    }

    /// Runs `script` with `arguments`, `input` on its standard input, and
    /// returns its standard output.
    ///
    /// - Throws: `Failure` when it exits with a status other than 0; what
    ///   `Process.run()` throws when `python3` cannot be started.
    public static func run(_ script: String, arguments: [String], input: Data = Data()) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script] + arguments
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        stdin.fileHandleForWriting.write(input)
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        let errors = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(message: "failed (\(process.terminationStatus)): \(String(decoding: errors, as: UTF8.self))")
        }
        return output
    }
}
