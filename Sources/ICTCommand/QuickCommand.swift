import ICTKitTooling
import PropertyList
import SystemSupport

/// The command lines scripts run once per file in a loop — `convert FILE
/// --format F [-o OUT]`, `get FILE KEYPATH [--format F] [-o OUT]`, `types
/// conforms A B` — recognised without argument-parser.
///
/// argument-parser finds a command's options by reflection: parsing any
/// `ict` command line costs about 26 million instructions, most of them the
/// Swift runtime looking up protocol conformances for `Mirror` and
/// `String(describing:)` over every subcommand, twenty times the work of
/// the conversion itself (callgrind, 575-byte binary plist to XML). These
/// shapes hold only files, a key path and the `--format` and `-o` options,
/// whose values are checked against the same lists argument-parser uses;
/// anything else — another flag, a repeated option, `--`, help, a value
/// argument-parser would refuse — goes to argument-parser as before. The
/// job made here is the one the argument-parser command makes and runs, so
/// both paths run the same code. `ICT_ARGUMENT_PARSER_ONLY=1` turns this
/// off, which is how the tests compare the two paths.
enum QuickCommand {
    case convert(Ict.ConvertJob)
    case get(Ict.GetJob)
    case conforms(Ict.Types.ConformsJob)

    /// The command `arguments` name in one of the plain shapes, or nil.
    init?(_ arguments: [String]) {
        guard Environment.value("ICT_ARGUMENT_PARSER_ONLY") == nil, let name = arguments.first else { return nil }
        switch name {
        case "convert":
            guard let job = Self.convert(arguments.dropFirst()) else { return nil }
            self = .convert(job)
        case "get":
            guard let job = Self.get(arguments.dropFirst()) else { return nil }
            self = .get(job)
        case "types" where arguments.count == 4 && arguments[1] == "conforms":
            guard !arguments[2].hasPrefix("-"), !arguments[3].hasPrefix("-") else { return nil }
            self = .conforms(Ict.Types.ConformsJob(type: arguments[2], ancestor: arguments[3]))
        default:
            return nil
        }
    }

    /// Runs the command, throwing what its argument-parser twin throws.
    func run() throws {
        switch self {
        case .convert(let job): try job.run()
        case .get(let job): try job.run()
        case .conforms(let job): try job.run()
        }
    }

    /// The positional arguments and the `--format` and `-o`/`--output`
    /// options (`--name VALUE` or `--name=VALUE`, each at most once) of a
    /// plain command line; nil when any argument is something else.
    ///
    /// Plain fields and a switch, not a dictionary: the first hashed
    /// collection of a type makes the runtime scan every protocol
    /// conformance in the program, a tenth of a millisecond.
    private struct PlainArguments {
        var positionals: [String] = []
        var format: String?
        var output: String?

        init?(_ arguments: ArraySlice<String>) {
            var rest = arguments
            while let argument = rest.popFirst() {
                guard argument.hasPrefix("-"), argument != "-" else {
                    positionals.append(argument)
                    continue
                }
                var name = argument
                let value: String
                if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                    name = String(argument[..<equals])
                    value = String(argument[argument.index(after: equals)...])
                } else {
                    guard let next = rest.popFirst() else { return nil }
                    value = next
                }
                // A value that looks like an option is argument-parser's to judge.
                guard value == "-" || !value.hasPrefix("-") else { return nil }
                switch name {
                case "--format" where format == nil: format = value
                case "-o" where output == nil, "--output" where output == nil: output = value
                default: return nil
                }
            }
        }
    }

    private static func convert(_ arguments: ArraySlice<String>) -> Ict.ConvertJob? {
        guard let plain = PlainArguments(arguments), plain.positionals.count == 1,
            let formatName = plain.format, let format = Ict.Convert.OutputFormat(rawValue: formatName),
            // Convert.validate()'s refusal is argument-parser's to print.
            !((format == .zip || format == .package) && plain.output == "-")
        else { return nil }
        return Ict.ConvertJob(input: plain.positionals[0], format: format, output: plain.output)
    }

    private static func get(_ arguments: ArraySlice<String>) -> Ict.GetJob? {
        guard let plain = PlainArguments(arguments), plain.positionals.count == 2 else { return nil }
        var job = Ict.GetJob(file: plain.positionals[0], keyPath: plain.positionals[1], output: plain.output)
        if let formatName = plain.format {
            guard let format = Ict.Get.Format(rawValue: formatName) else { return nil }
            job.format = format
        }
        return job
    }
}
