import Foundation

/// Runs Python 3 (`python3`, found on `PATH`) for tests whose expected
/// values come from Python's own modules (`zipfile`, `plistlib`, `hashlib`)
/// or from a peer written in Python (nska-deserialize, pytypedstream,
/// nibarchive), not from ICTKit: the one way the suites start `python3`.
///
/// It runs through `ProgramRunner`: standard input, output and error go
/// through files, not pipes, so a script that writes much to one while the
/// test waits on another cannot stall either side.
public enum PythonScript {
    /// A script that exited with a status other than 0, or was killed.
    public struct Failure: Error, CustomStringConvertible {
        /// The command, the status and what the script wrote to standard error.
        public var message: String
        public var description: String { message }
    }

    /// Runs the script text `script` (`python3 -c`) with `arguments`, `input`
    /// on its standard input, and returns its standard output.
    ///
    /// - Throws: `Failure` when it exits with a status other than 0; what
    ///   `Process.run()` throws when `python3` cannot be started.
    public static func run(_ script: String, arguments: [String], input: Data = Data()) throws -> Data {
        try run(arguments: ["-c", script] + arguments, input: input)
    }

    /// `run(_:arguments:input:)`'s standard output as UTF-8 text.
    public static func text(_ script: String, arguments: [String], input: Data = Data()) throws -> String {
        String(decoding: try run(script, arguments: arguments, input: input), as: UTF8.self)
    }

    /// Runs `python3` with `arguments` (a script file and its arguments, or
    /// `-c` and a script's text), `input` on its standard input, and returns
    /// its standard output.
    ///
    /// - Throws: `Failure` when it exits with a status other than 0 or is
    ///   killed; what `Process.run()` throws when `python3` cannot be started.
    public static func run(arguments: [String], input: Data = Data()) throws -> Data {
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONDONTWRITEBYTECODE"] = "1"  // no __pycache__ beside the scripts in the source tree
        let run = try ProgramRunner.run("python3", arguments, environment: environment, input: input)
        guard run.status == 0 else {
            let command = (["python3"] + arguments.map { $0.count > 80 ? String($0.prefix(77)) + "..." : $0 }).joined(separator: " ")
            throw Failure(message: "\(command) failed (status \(run.status)): \(run.stderr)")
        }
        return run.output
    }

    /// Whether `python3` can import `module` (a peer installed by the test set-up).
    public static func canImport(_ module: String) -> Bool {
        (try? run(arguments: ["-c", "import \(module)"])) != nil
    }
}
