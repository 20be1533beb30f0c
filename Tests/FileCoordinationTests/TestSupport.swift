import Foundation
import TestSupport

/// A `CoordinationStress` child (built beside the test bundle): its
/// standard output read line by line as it comes, waited for with bounds.
final class Child: Sendable {
    /// The child's executable, found beside the test bundle.
    static let tool: String? = {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<3 {
            let candidate = directory.appendingPathComponent("CoordinationStress").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory.deleteLastPathComponent()
        }
        return nil
    }()

    let process: Process
    private let input = Pipe()
    private let lines = Protected<[String]>([])
    private let lineArrived = DispatchSemaphore(value: 0)
    private let exited = DispatchSemaphore(value: 0)
    private let errors = Protected(Data())

    /// Starts `CoordinationStress ARGUMENTS`, with `environment` added to this process's.
    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: Self.tool ?? "CoordinationStress")
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe()
        let errorOutput = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errorOutput
        let exited = exited
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        let reading = output.fileHandleForReading
        Thread { [self] in
            var pending = Data()
            while true {
                let chunk = reading.availableData
                if chunk.isEmpty { break }
                pending += chunk
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    pending = Data(pending[(newline + 1)...])
                    lines.withLock { $0.append(line) }
                    lineArrived.signal()
                }
            }
        }.start()
        let errorReading = errorOutput.fileHandleForReading
        Thread { [self] in
            while true {
                let chunk = errorReading.availableData
                if chunk.isEmpty { break }
                errors.withLock { $0 += chunk }
            }
        }.start()
    }

    /// The lines said so far.
    var said: [String] { lines.withLock { $0 } }

    /// What the child wrote to standard error.
    var errorText: String { String(decoding: errors.withLock { $0 }, as: UTF8.self) }

    /// Waits (at most `seconds`) until the child said a line matching `predicate`; returns it.
    @discardableResult
    func waitForLine(within seconds: Double = 60, _ predicate: (String) -> Bool) -> String? {
        let deadline = DispatchTime.now() + seconds
        while true {
            if let line = said.first(where: predicate) { return line }
            guard lineArrived.wait(timeout: deadline) == .success else { return said.first(where: predicate) }
        }
    }

    /// Ends its standard input and waits (at most `seconds`) for it to exit; its status, or nil when it did not.
    @discardableResult
    func finish(within seconds: Double = 120) -> Int32? {
        try? input.fileHandleForWriting.close()
        return waitForExit(within: seconds)
    }

    /// Waits (at most `seconds`) for it to exit; its status, or nil when it did not.
    func waitForExit(within seconds: Double = 120) -> Int32? {
        guard exited.wait(timeout: .now() + seconds) == .success else { return nil }
        exited.signal()
        return process.terminationStatus
    }
}

/// A fresh folder in the temporary directory, removed by `remove()`.
struct ScratchFolder {
    let path: String

    init() throws {
        path = try TestSupport.ScratchFolder.make("ict-coordination").path
    }

    func appending(_ name: String) -> String { path + "/" + name }

    /// Writes `text` to the file `name` through a descriptor closed on exec: one
    /// inherited by a child another test spawns meanwhile would be closed later,
    /// and a presenter told of that close (inotify's IN_CLOSE_WRITE) as a change.
    func write(_ text: String, to name: String) throws {
        try writeClosedOnExec(text, to: appending(name))
    }

    func read(_ name: String) throws -> String {
        try String(contentsOfFile: appending(name), encoding: .utf8)
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// Runs a program (`mv`, `rm`) to its end.
@discardableResult
func runProgram(_ path: String, _ arguments: [String]) throws -> Int32 {
    try ProgramRunner.run(path, arguments).status
}

/// A value shared between threads, touched only under a lock (`Mutex` needs macOS 15).
final class Protected<Value>: @unchecked Sendable {
    // @unchecked: `value` is only touched inside `withLock`, under `lock`.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

/// Writes `text` to the file at `path` (made or emptied) through a descriptor
/// that no child process inherits.
func writeClosedOnExec(_ text: String, to path: String) throws {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    defer { close(descriptor) }
    let bytes = Array(text.utf8)
    guard bytes.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) == bytes.count else { throw POSIXError(.EIO) }
}
