import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What one run of a program other than the built `ict` did.
public struct ProgramRun {
    /// The exit status, or 128 + the signal that ended it.
    public var status: Int32
    /// Its standard output, byte for byte.
    public var output: Data
    /// Its standard error as UTF-8 text.
    public var stderr: String
    /// True when the program ran past its time limit and was killed.
    public var timedOut = false

    /// Its standard output as UTF-8 text (a byte that is not UTF-8 as U+FFFD).
    public var stdout: String { String(decoding: output, as: UTF8.self) }

    /// A run that ended with `status`, having written `output` and `stderr`.
    public init(status: Int32, output: Data, stderr: String, timedOut: Bool = false) {
        self.status = status
        self.output = output
        self.stderr = stderr
        self.timedOut = timedOut
    }
}

/// Runs any program that is not the built `ict` (python3 and the peers,
/// make, man, a copied `ict`), with input and output through files so no
/// pipe can fill up: the one way the suites run an outside program to its
/// end (`PythonScript` runs python3 through it). Tests that talk to a
/// program while it runs (a server, a process killed mid-save) start their
/// own `Process`.
public enum ProgramRunner {
    /// Runs `program` (a path, or a name looked up by `/usr/bin/env` on `PATH`)
    /// with `arguments` and `input` on its standard input (none when empty);
    /// `environment` replaces the whole environment when given.
    /// With `timeLimit`, a program still running then is killed (SIGKILL) and
    /// the run says `timedOut`: a bound on a wait, never a measure of speed.
    ///
    /// - Throws: what `Process.run()` throws when the program cannot be
    ///   started; a run that fails is returned with its status.
    public static func run(
        _ program: String, _ arguments: [String], environment: [String: String]? = nil,
        in directory: URL? = nil, input: Data = Data(), timeLimit: Duration? = nil
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
        var inHandle: FileHandle?
        if !input.isEmpty {
            let inFile = scratch.appendingPathComponent("in")
            try input.write(to: inFile)
            inHandle = try FileHandle(forReadingFrom: inFile)
        }
        defer { try? inHandle?.close() }

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
            process.standardInput = inHandle ?? FileHandle.nullDevice
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
            status: status, output: (try? Data(contentsOf: outFile)) ?? Data(),
            stderr: String(decoding: (try? Data(contentsOf: errFile)) ?? Data(), as: UTF8.self), timedOut: timedOut)
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
