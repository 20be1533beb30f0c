import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What one run of a program other than the built `ict` did.
struct ProgramRun {
    var status: Int32
    var stdout: String
    var stderr: String
    /// True when the program ran past its time limit and was killed.
    var timedOut = false
}

/// Runs any program (python3, make, man, a copied `ict`), with output sent
/// to files so no pipe can fill up.
enum ProgramRunner {
    /// Runs `program` (a path, or a name looked up by `/usr/bin/env` on `PATH`)
    /// with `arguments`; `environment` replaces the whole environment when given.
    /// With `timeLimit`, a program still running then is killed (SIGKILL) and
    /// the run says `timedOut`: a bound on a wait, never a measure of speed.
    static func run(
        _ program: String, _ arguments: [String], environment: [String: String]? = nil,
        in directory: URL? = nil, timeLimit: Duration? = nil
    ) throws -> ProgramRun {
        let exited = DispatchSemaphore(value: 0)
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("ict-program-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outFile = scratch.appendingPathComponent("out")
        let errFile = scratch.appendingPathComponent("err")
        try Data().write(to: outFile)
        try Data().write(to: errFile)
        let outHandle = try FileHandle(forWritingTo: outFile)
        let errHandle = try FileHandle(forWritingTo: errFile)

        let process = try startRetryingWhileBusy {
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
            process.terminationHandler = { _ in exited.signal() }
            return process
        }
        var timedOut = false
        if let timeLimit {
            let seconds = Double(timeLimit.components.seconds) + Double(timeLimit.components.attoseconds) / 1e18
            if exited.wait(timeout: .now() + seconds) == .timedOut {
                timedOut = true
                kill(process.processIdentifier, SIGKILL)
            }
        }
        process.waitUntilExit()
        try outHandle.close()
        try errHandle.close()
        let status = process.terminationReason == .exit ? process.terminationStatus : 128 + process.terminationStatus
        return ProgramRun(
            status: status,
            stdout: (try? String(contentsOf: outFile, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOf: errFile, encoding: .utf8)) ?? "", timedOut: timedOut)
    }

    /// Starts the process `makeProcess` sets up, with a fresh one again while
    /// exec fails with ETXTBSY (for up to two seconds): a program just copied
    /// (the static `ict`) is "busy" while a child another test forked in the
    /// meantime still holds the copy's write descriptor, until that child execs.
    private static func startRetryingWhileBusy(_ makeProcess: () -> Process) throws -> Process {
        var attempts = 0
        while true {
            let process = makeProcess()
            do {
                try process.run()
                return process
            } catch let error as NSError {
                let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError
                attempts += 1
                guard underlying?.domain == NSPOSIXErrorDomain, underlying?.code == Int(ETXTBSY), attempts < 100 else { throw error }
                Thread.sleep(forTimeInterval: 0.02)
            }
        }
    }
}
