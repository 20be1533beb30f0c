import ArgumentParser
import ICTKitTooling
import SystemSupport

/// Command-line checks made before argument-parser sees the arguments, and
/// what a usage error needs to know of the command it was for.
enum UsageCheck {
    /// A problem argument-parser would not report: an argument such as
    /// `-dash.plist`, which it reads as the short flags `-d -a -s -h` and so
    /// answers with help and exit status 0. A single dash followed by more
    /// than one character is not an option of `ict` (the short options are
    /// single letters) nor a number, so it is a file named wrongly.
    static func problem(in arguments: [String]) -> String? {
        if let problem = unknownCommand(in: arguments) { return problem }
        for argument in arguments {
            if argument == "--" { return nil }
            guard argument.hasPrefix("-"), !argument.hasPrefix("--"), argument.count > 2, argument != "-append",
                !TypedValueOptions.singleDashNames.contains(argument),
                Double(argument) == nil
            else { continue }
            return "unknown option '\(argument)'; a file whose name starts with '-' is named ./\(argument) or after --"
        }
        return nil
    }

    /// A command name that is not one, first or after `help` (`ict inpsect`,
    /// `ict help nonexistent`, `ict types shw`), with the nearest command
    /// when one is near; argument-parser would take it for an argument, or
    /// for `help`, answer with the general help and exit status 0.
    static func unknownCommand(in arguments: [String]) -> String? {
        var words = arguments[...]
        if words.first == "help" { words = words.dropFirst() }
        guard let word = words.first, !word.hasPrefix("-") else { return nil }
        // Every run passes here: a known name is answered from the lists, not
        // from argument-parser's names, which cost 3 million instructions of
        // reflection (bench rows s1-s4).
        if let nested = commandNames.first(where: { $0.name == word })?.commands {
            guard let next = words.dropFirst().first, !nested.isEmpty, !next.hasPrefix("-"), next != "help" else { return nil }
            if nested.contains(next) { return nil }
        }
        let commands = Ict.configuration.subcommands
        guard let command = commands.first(where: { name(of: $0) == word }) else {
            return unknown(word, among: commands.map { name(of: $0) } + (arguments.first == "help" ? [] : ["help"]))
        }
        let nested = command.configuration.subcommands
        guard !nested.isEmpty, words.count > 1, let next = words.dropFirst().first, !next.hasPrefix("-") else { return nil }
        guard !nested.contains(where: { name(of: $0) == next }), next != "help" else { return nil }
        return unknown(next, among: nested.map { name(of: $0) }, in: word)
    }

    /// Each command's name and its commands' names, as argument-parser names
    /// them (`UsageErrorTextTests` checks that they agree). An array, not a
    /// dictionary: made on every run, it must cost next to nothing.
    static let commandNames: [(name: String, commands: [String])] = [
        ("inspect", []), ("convert", []), ("validate", []), ("types", ["lookup", "show", "conforms", "identify"]), ("list", []),
        ("thumbnail", []), ("create", []), ("set", []), ("get", []), ("type", []), ("insert", []), ("remove", []),
        ("create-plist", []), ("versions", []), ("resolve", []), ("diff", []), ("status", []), ("containers", []), ("move", []),
        ("kvstore", ["get", "set", "remove", "list", "validate"]),
    ]

    /// `unknown command 'WORD'`, with the nearest of `names` when one is
    /// within two edits (a letter added, left out, changed, or two swapped).
    private static func unknown(_ word: String, among names: [String], in parent: String? = nil) -> String {
        let text = "unknown command '\(parent.map { $0 + " " } ?? "")\(word)'"
        let nearest = names.map { (name: $0, distance: editDistance(word.lowercased(), $0)) }.min { $0.distance < $1.distance }
        guard let nearest, nearest.distance <= 2, nearest.distance < word.count else {
            return text + "; the commands are \(names.joined(separator: ", "))"
        }
        return text + "; did you mean '\(parent.map { $0 + " " } ?? "")\(nearest.name)'?"
    }

    /// The optimal string alignment distance: insertions, deletions,
    /// substitutions and swaps of two neighbouring characters.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.prefix(64)), b = Array(b.prefix(64))
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + [Int](repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { current[j] = min(current[j], previous2[j - 2] + 1) }
            }
            previous2 = previous
            previous = current
        }
        return previous[b.count]
    }

    /// The command line of `ict validate` split in two: what argument-parser
    /// parses, and the file names at the end of the trailing run of plain
    /// names, which are sure to be files and are added to the parsed
    /// command's afterwards, in order. argument-parser (1.8) takes time
    /// quadratic in the number of values of one positional array (each value
    /// merges the array's input origins anew): 100,000 names took 7 minutes
    /// to parse. The first two names of the run stay: the first may be the
    /// value of the option before it (`--schema S`), the second is a file,
    /// so the parsed command has one (its `validate()` asks for one).
    static func splittingTrailingFiles(_ arguments: [String]) -> (parsed: [String], files: [String]) {
        guard arguments.first == name(of: Ict.Validate.self) else { return (arguments, []) }
        var runStart = arguments.endIndex
        while runStart > 1, !arguments[runStart - 1].hasPrefix("-") { runStart -= 1 }
        let kept = runStart + 2
        guard kept < arguments.endIndex else { return (arguments, []) }
        return (Array(arguments[..<kept]), Array(arguments[kept...]))
    }

    /// The name a command is typed as: its configuration's `commandName`,
    /// which every subcommand of `ict` sets (`UsageErrorTextTests` checks it).
    static func name(of command: ParsableCommand.Type) -> String {
        command.configuration.commandName ?? ""
    }

    /// The subcommand the arguments name, `types show` for a nested one.
    static func subcommandName(in arguments: [String]) -> String? {
        guard let first = arguments.first, let command = Ict.configuration.subcommands.first(where: { name(of: $0) == first }) else {
            return nil
        }
        guard arguments.count > 1, let nested = command.configuration.subcommands.first(where: { name(of: $0) == arguments[1] }) else {
            return first
        }
        return "\(first) \(name(of: nested))"
    }

    /// The JSON fields of the named command's report (see `Report`).
    static func jsonFields(of command: String?) -> [String] {
        guard let command, let type = reportingCommands.first(where: { $0.reportName == command }) else { return [] }
        return type.reportFields
    }

    /// The fields of the named command's `--jsonl` lines (see `Report.line`).
    static func lineFields(of command: String?) -> [String] {
        guard let command, let type = reportingCommands.first(where: { $0.reportName == command }) else { return [] }
        return type.lineFields
    }

    static var reportingCommands: [ReportingCommand.Type] {
        [
            Ict.Inspect.self, Ict.Convert.self, Ict.Validate.self, Ict.List.self, Ict.Thumbnail.self, Ict.Create.self,
            Ict.SetFields.self, Ict.Get.self, Ict.KeyPathType.self, Ict.Insert.self, Ict.Remove.self, Ict.CreatePlist.self,
            Ict.Types.Lookup.self, Ict.Types.Show.self, Ict.Types.Conforms.self, Ict.Types.Identify.self,
            Ict.Versions.self, Ict.Resolve.self, Ict.Diff.self, Ict.Status.self, Ict.Containers.self, Ict.Move.self,
            Ict.KeyValueStoreCommand.Get.self, Ict.KeyValueStoreCommand.Set.self, Ict.KeyValueStoreCommand.Remove.self,
            Ict.KeyValueStoreCommand.List.self, Ict.KeyValueStoreCommand.Validate.self,
        ]
    }
}

/// A command whose `--json` output is a `Report`.
protocol ReportingCommand {
    /// The name as typed: `validate`, `types show`.
    static var reportName: String { get }
    /// Its own fields, between `ok` and `problems`.
    static var reportFields: [String] { get }
    /// With `--jsonl`, the fields of each file's line between `ok` and `problems`.
    static var lineFields: [String] { get }
}

extension ReportingCommand {
    static var lineFields: [String] { [] }
}
