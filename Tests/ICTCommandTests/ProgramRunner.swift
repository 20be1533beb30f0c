import Foundation

/// What one run of a program other than the built `ict` did.
struct ProgramRun {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs any program (python3, make, man, a copied `ict`), with output sent
/// to files so no pipe can fill up.
enum ProgramRunner {
    /// Runs `program` (a path, or a name looked up by `/usr/bin/env` on `PATH`)
    /// with `arguments`; `environment` replaces the whole environment when given.
    static func run(_ program: String, _ arguments: [String], environment: [String: String]? = nil,
                    in directory: URL? = nil) throws -> ProgramRun {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("ict-program-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outFile = scratch.appendingPathComponent("out")
        let errFile = scratch.appendingPathComponent("err")
        try Data().write(to: outFile)
        try Data().write(to: errFile)
        let outHandle = try FileHandle(forWritingTo: outFile)
        let errHandle = try FileHandle(forWritingTo: errFile)

        let process = Process()
        if program.contains("/") {
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [program] + arguments
        }
        if let environment { process.environment = environment }
        if let directory { process.currentDirectoryURL = directory }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = outHandle
        process.standardError = errHandle
        try process.run()
        process.waitUntilExit()
        try outHandle.close()
        try errHandle.close()
        let status = process.terminationReason == .exit ? process.terminationStatus : 128 + process.terminationStatus
        return ProgramRun(status: status,
                          stdout: (try? String(contentsOf: outFile, encoding: .utf8)) ?? "",
                          stderr: (try? String(contentsOf: errFile, encoding: .utf8)) ?? "")
    }
}
