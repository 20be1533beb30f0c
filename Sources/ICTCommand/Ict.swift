import ArgumentParser
import ICTKitTooling
import SystemSupport

@main
struct Ict: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ict",
        abstract: "Look inside, check and convert property lists and .ict document packages.",
        discussion: """
            Exit status: 0 on success (or all inputs valid), 1 when an input is \
            invalid or an operation failed, 64 on a usage error. Every problem is \
            printed on standard error as PATH:LOCATION: severity: message (at KEY.PATH), \
            LOCATION being line:column, byte N or an entry of a package. With --json, \
            every command prints one JSON document on standard output, described by \
            Schemas/cli/COMMAND.schema.json. In output for people, control \
            characters in names and values are shown as escapes (\\n, \\t, \\r, \\u{1B}); \
            --json shows them exactly.
            """,
        version: ICTKitVersion.current,
        subcommands: [
            Inspect.self, Convert.self, Validate.self, Types.self, List.self, Thumbnail.self, Create.self, SetFields.self,
            Get.self, KeyPathType.self, Insert.self, Remove.self, CreatePlist.self, Versions.self, Resolve.self,
            Diff.self, Status.self, Containers.self, Move.self, KeyValueStoreCommand.self,
        ]
    )

    /// Parses the command line (file names byte for byte, see `RawFileName`),
    /// runs the command (standard output as `StandardOutput` writes it), and prints any usage error in the one problem form
    /// (`ict: error: …`) with exit status 64.
    static func main() {
        // A reader gone is seen as a failed write, where `StandardOutput` stops cleanly.
        BrokenPipe.ignore()
        let arguments = RawFileName.arguments()
        // plutil's command line is its own, not argument-parser's (see `Plutil`).
        let programName = RawFileName.programName()
        if programName == "plutil" || arguments.first == "plutil" {
            Plutil.main(arguments: programName == "plutil" ? arguments : Array(arguments.dropFirst()))
        }
        if let problem = UsageCheck.problem(in: arguments) {
            usageFailure(problem, arguments: arguments)
        }
        do {
            if let command = QuickCommand(arguments) {
                try command.run()
                return
            }
            let (parsed, trailingFiles) = UsageCheck.splittingTrailingFiles(arguments)
            var command = try parseAsRoot(parsed)
            if var validate = command as? Validate, !trailingFiles.isEmpty {
                validate.files += trailingFiles
                command = validate
            }
            try command.run()
        } catch let exit as ExitCode {
            Self.exit(withError: exit)
        } catch is ReportFailure {
            // A report's problems, printed already.
            Self.exit(withError: ExitCode.failure)
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                // Help and --version, written as every output is (a failed write is not a success).
                StandardOutput.writeAll(Array((fullMessage(for: error) + "\n").utf8))
                Self.exit(withError: ExitCode.success)
            }
            guard code == .validationFailure else {
                // An error of the command's own.
                Self.exit(withError: error)
            }
            usageFailure(message(for: error), arguments: arguments)
        }
    }

    /// `ict: error: MESSAGE (see 'ict SUB --help')`, and with `--json` the
    /// command's report saying the same (with `--jsonl`, a line); exit status 64. MESSAGE is the error's
    /// first line, begun in lower case, without a closing full stop: its words are not read (an option whose
    /// choices are too many for one line of argument-parser's, `convert --format`, lists them itself).
    private static func usageFailure(_ message: String, arguments: [String]) -> Never {
        let subcommand = UsageCheck.subcommandName(in: arguments)
        var text = message.split(separator: "\n", omittingEmptySubsequences: true).first.map(String.init) ?? message
        text = text.prefix(1).lowercased() + text.dropFirst()
        if text.hasSuffix(".") { text.removeLast() }
        let problem = Problem(path: "ict", "\(text) (see 'ict \(subcommand.map { $0 + " " } ?? "")--help')")
        if arguments.contains("--jsonl") {
            let report = Report(
                command: subcommand ?? "ict", fields: [], json: false, jsonLines: true,
                lineFields: UsageCheck.lineFields(of: subcommand))
            _ = report.fail(problem)
        } else if arguments.contains("--json") {
            let report = Report(command: subcommand ?? "ict", fields: UsageCheck.jsonFields(of: subcommand), json: true)
            _ = report.fail(problem)
        } else {
            Diagnostics.printError(problem.line)
        }
        Self.exit(withError: ExitCode.validationFailure)
    }
}
