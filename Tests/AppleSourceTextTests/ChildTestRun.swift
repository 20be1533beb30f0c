import Foundation
import Testing

/// Runs one test of this bundle again in a child process of its own, with
/// the environment a test gives it: the way to give the source texts a
/// default ubiquity container (`ICT_UBIQUITY_CONTAINER` is read per process,
/// and changing this process's environment would change it for every suite
/// running beside). The child test is enabled only in that child
/// (`.enabled(if: ChildTestRun.role == …)`) and prints what its user would
/// see on lines starting with `» `.
enum ChildTestRun {
    /// The variable naming the child test's role.
    static let roleVariable = "ICT_SOURCE_TEXT_CHILD"

    /// The role this process was started for; nil in the parent.
    static var role: String? { ProcessInfo.processInfo.environment[roleVariable] }

    /// What a child printed and how it ended.
    struct Outcome {
        var status: Int32
        /// Its `» ` lines, without the marker.
        var lines: [String]
        /// Everything it wrote, for a failure's message.
        var output: String
    }

    /// Runs the test `name` (a function of `suite`) in a child with `role`
    /// and `environment` added (an empty value removes the variable),
    /// waiting at most 120 seconds for it (then killed, and a failure).
    static func run(suite: String, test name: String, role: String, environment: [String: String]) throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        process.arguments = ["--testing-library", "swift-testing", "--filter", "AppleSourceTextTests.\(suite)/\(name)"]
        var childEnvironment = ProcessInfo.processInfo.environment
        childEnvironment[roleVariable] = role
        for (key, value) in environment { childEnvironment[key] = value.isEmpty ? nil : value }
        process.environment = childEnvironment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        let ended = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in ended.signal() }
        try process.run()
        let read = OutputReader(output.fileHandleForReading)
        if ended.wait(timeout: .now() + 120) == .timedOut {
            process.terminate()
            ended.wait()
            Issue.record("the child \(role) did not end within 120 seconds")
        }
        let text = String(decoding: read.data(), as: UTF8.self)
        let lines = text.split(separator: "\n").filter { $0.hasPrefix("» ") }.map { String($0.dropFirst(2)) }
        return Outcome(status: process.terminationStatus, lines: lines, output: text)
    }

    /// Reads a pipe to its end on a queue of its own, so a child that writes much never blocks on it.
    private final class OutputReader: @unchecked Sendable {
        // @unchecked: `bytes` is written once on the queue, then read after `done` is signalled.
        private var bytes = Data()
        private let done = DispatchSemaphore(value: 0)

        init(_ handle: FileHandle) {
            DispatchQueue.global().async {
                self.bytes = handle.readDataToEndOfFile()
                self.done.signal()
            }
        }

        /// Everything read, once the pipe's writers have all closed it.
        func data() -> Data {
            done.wait()
            return bytes
        }
    }
}
