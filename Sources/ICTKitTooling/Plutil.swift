import PropertyList
import SystemSupport

/// `ict plutil ARGS…`, and `ict` run through a link named `plutil`: Apple's
/// `plutil` command line, parsed by hand as `plutil` parses it (its verbs are
/// single-dash words, not argument-parser options), giving what Apple's
/// `plutil` gives: the same standard output, the same files, exit status 0
/// or 1, and the same messages (word for word, except the wording of a
/// parser's complaint about a malformed file, which is ours).
///
/// Where swift-corelibs-foundation's Linux `plutil` disagrees with Apple's
/// manual, plutil(1), this follows the manual:
/// - `--` ends the options, so `-lint -- -s` checks a file named `-s`
///   (the Linux build goes on reading options after it);
/// - `-replace` at an array index replaces the element (the Linux build
///   inserts before it, as `-insert` does);
/// - `-insert … -append` at an array index past the end, and `-date` with
///   text that is not a date, are errors with a message (the Linux build
///   crashes);
/// - `-help` prints our own description of the same options.
/// Dictionaries are written with their keys sorted (the Linux build writes
/// binary and compact JSON in the order of Swift's per-process hash seed,
/// so its output differs from run to run).
package enum Plutil {
    // A `CommandFailure` thrown by the verb's parsing is a command-line mistake, printed alone (exit status 1);
    // one thrown for a file is printed as `PATH: message` by `eachFile`, and the next file is tried.

    /// Runs `plutil` with `arguments` (after the program's name) and exits with its status.
    package static func main(arguments: [String]) -> Never {
        CurrentProcess.exit(run(name: "plutil", arguments: arguments))
    }

    /// Runs `plutil` with `arguments` (after the program's name); `name` is
    /// the program's name for `-help`. Returns the exit status.
    package static func run(name: String, arguments: [String]) -> Int32 {
        do throws(CommandFailure) {
            let verb = try Verb(parsing: arguments[...])
            return try verb.execute(name: name) ? 0 : 1
        } catch {
            Diagnostics.printError(error.message)
            return 1
        }
    }

    /// Writes text on standard output, unbuffered (messages and output interleave as `plutil`'s do).
    package static func printOutput(_ bytes: [UInt8]) {
        StandardOutput.writeAll(bytes)
    }

    /// `PATH: message` on standard error, standard input named `<stdin>`.
    package static func printFileProblem(_ path: String, _ message: String) {
        Diagnostics.printError("\(path == "-" ? "<stdin>" : path): \(message)")
    }
}

// MARK: Formats

extension Plutil {
    /// What `-convert`, `-extract` and `-create` can write.
    package enum Format: Equatable {
        case openStep, xml, binary, json, swift, objc, raw, type

        /// Parses a format argument; nil for `NoConversion` (keep the input's form).
        package static func parse(_ text: String) throws(CommandFailure) -> Format? {
            switch text {
            case "NoConversion": return nil
            case "openStep": return .openStep
            case "xml1": return .xml
            case "binary1": return .binary
            case "json": return .json
            case "swift": return .swift
            case "objc": return .objc
            case "raw": return .raw
            case "type": return .type
            default: throw CommandFailure("Unknown format specifier: \(text)")
            }
        }
    }

    /// The types `-type` prints and `-expect` takes.
    package enum ValueType: String {
        case boolean = "bool", integer, float, string, array, dictionary, date, data

        package init(of value: PropertyListValue) {
            switch value {
            case .bool: self = .boolean
            case .integer, .uid: self = .integer
            case .real, .real32: self = .float
            case .string: self = .string
            case .array: self = .array
            case .dictionary: self = .dictionary
            case .date: self = .date
            case .data: self = .data
            }
        }

        /// The name `-expect`'s complaint uses (`boolean`, not `bool`).
        package var spelledOut: String { self == .boolean ? "boolean" : rawValue }
    }
}

// MARK: Options after the verb

extension Plutil {
    /// The options every verb takes after its own arguments, and the files.
    package struct Options {
        package var paths: [String] = []
        package var readable = false
        package var terminatingNewline = true
        package var outputPath: String?
        package var outputExtension: String?
        package var silent = false

        package init(parsing arguments: ArraySlice<String>) throws(CommandFailure) {
            var remaining = arguments
            while let argument = remaining.popFirst() {
                switch argument {
                case "--":
                    paths += remaining
                    remaining = []
                case "-n": terminatingNewline = false
                case "-s": silent = true
                case "-r": readable = true
                case "-o":
                    guard let next = remaining.popFirst() else { throw CommandFailure("Missing argument for -o.") }
                    outputPath = next
                case "-e":
                    guard let next = remaining.popFirst() else { throw CommandFailure("Missing argument for -e.") }
                    outputExtension = next
                default:
                    if argument.hasPrefix("-"), argument.count > 1 { throw CommandFailure("unrecognized option: \(argument)") }
                    paths.append(argument)
                }
            }
            guard !paths.isEmpty else { throw CommandFailure("No files specified.") }
        }
    }
}

// MARK: Verbs

extension Plutil {
    package enum Verb {
        case help
        case lint(ArraySlice<String>)
        case convert(Format?, header: Bool, ArraySlice<String>)
        case print(ArraySlice<String>)
        case insert(replace: Bool, ArraySlice<String>)
        case remove(keyPath: String, ArraySlice<String>)
        case extract(keyPath: String, Format?, expect: ValueType?, ArraySlice<String>)
        case create(Format, ArraySlice<String>)

        package init(parsing arguments: ArraySlice<String>) throws(CommandFailure) {
            var rest = arguments
            guard let verb = rest.popFirst() else { throw CommandFailure("No files specified.") }
            switch verb {
            case "-help": self = .help
            case "-lint": self = .lint(rest)
            case "-convert":
                guard let text = rest.popFirst() else { throw CommandFailure("Missing format specifier for command.") }
                let format = try Format.parse(text)
                let header = rest.first == "-header"
                if header {
                    guard format == .objc else { throw CommandFailure("-header is only valid for objc literal conversions.") }
                    rest.removeFirst()
                }
                self = .convert(format, header: header, rest)
            case "-p": self = .print(rest)
            case "-insert", "-replace": self = .insert(replace: verb == "-replace", rest)
            case "-remove":
                guard let keyPath = rest.popFirst() else { throw CommandFailure("'Remove' requires a key path.") }
                self = .remove(keyPath: keyPath, rest)
            case "-extract", "-type":
                let missing = CommandFailure("'Extract' requires a key path and a plist format.")
                guard let keyPath = rest.popFirst() else { throw missing }
                var format: Format? = .type
                if verb == "-extract" {
                    guard let text = rest.popFirst() else { throw missing }
                    format = try Format.parse(text)
                }
                var expect: ValueType?
                if rest.first == "-expect" {
                    rest.removeFirst()
                    guard let text = rest.popFirst() else { throw CommandFailure("-expect requires a type argument.") }
                    guard let type = ValueType(rawValue: text) else { throw CommandFailure("-expect type [\(text)] not valid.") }
                    expect = type
                }
                self = .extract(keyPath: keyPath, format, expect: expect, rest)
            case "-create":
                guard let text = rest.popFirst() else { throw CommandFailure("'Create' requires a plist format.") }
                self = .create(try Format.parse(text) ?? .xml, rest)
            default:
                self = .lint(arguments)
            }
        }

        /// Runs the verb; true when every file succeeded.
        package func execute(name: String) throws(CommandFailure) -> Bool {
            switch self {
            case .help:
                Plutil.printOutput(Array(Plutil.helpText(name: name).utf8))
                return true
            case .lint(let arguments): return try Plutil.lint(Options(parsing: arguments))
            case .convert(let format, let header, let arguments):
                let options = try Options(parsing: arguments)
                return Plutil.eachFile(options) { path throws(CommandFailure) in
                    try Plutil.editing(path) { stamp throws(CommandFailure) in
                        let (value, existing) = try Plutil.readPropertyList(path, for: Plutil.purpose(reading: path, format: format, options: options))
                        try Plutil.write(
                            value, from: path, format: format ?? existing, options: options, keyPath: nil, header: header, expecting: stamp)
                    }
                }
            case .print(let arguments): return try Plutil.print(Options(parsing: arguments))
            case .insert(let replace, let arguments): return try Plutil.insert(replace: replace, arguments)
            case .remove(let keyPath, let arguments):
                let options = try Options(parsing: arguments)
                return Plutil.eachFile(options) { path throws(CommandFailure) in
                    try Plutil.editing(path) { stamp throws(CommandFailure) in
                        var (value, existing) = try Plutil.readPropertyList(path, for: Plutil.purpose(reading: path, format: nil, options: options))
                        do throws(PropertyListKeyPathError) {
                            try value.removeValue(at: PropertyListKeyPath(plutilSyntax: keyPath))
                        } catch {
                            throw CommandFailure("No value to remove at key path \(keyPath)")
                        }
                        try Plutil.write(value, from: path, format: existing, options: options, keyPath: keyPath, header: false, expecting: stamp)
                    }
                }
            case .extract(let keyPath, let format, let expect, let arguments):
                let options = try Options(parsing: arguments)
                return Plutil.eachFile(options) { path throws(CommandFailure) in
                    let (value, existing) = try Plutil.readPropertyList(path, for: Plutil.purpose(reading: path, format: format, options: options))
                    let path2 = PropertyListKeyPath(plutilSyntax: keyPath)
                    guard !path2.components.contains(.key("")), let found = value.value(at: path2) else {
                        throw CommandFailure("Could not extract value, error: No value at that key path or invalid key path: \(keyPath)")
                    }
                    if let expect, ValueType(of: found) != expect {
                        throw CommandFailure("Value at [\(keyPath)] expected to be \(expect.spelledOut) but is \(ValueType(of: found).spelledOut)")
                    }
                    try Plutil.write(found, from: path, format: format ?? existing, options: options, keyPath: keyPath, header: false)
                }
            case .create(let format, let arguments):
                let options = try Options(parsing: arguments)
                return Plutil.eachFile(options) { path throws(CommandFailure) in try Plutil.create(format, at: path, options: options) }
            }
        }
    }

    /// Runs `body` for each file, printing its failure and going on; true when none failed.
    package static func eachFile(_ options: Options, _ body: (String) throws(CommandFailure) -> Void) -> Bool {
        var failed = false
        for path in options.paths {
            do throws(CommandFailure) {
                try body(path)
            } catch {
                failed = true
                printFileProblem(path, error.message)
            }
        }
        return !failed
    }
}

// MARK: The verbs' work

extension Plutil {
    package static func lint(_ options: Options) throws(CommandFailure) -> Bool {
        if options.outputPath != nil { throw CommandFailure("-o is not used with -lint.") }
        if options.outputExtension != nil { throw CommandFailure("-e is not used with -lint.") }
        return eachFile(options) { path throws(CommandFailure) in
            let bytes = try readBytes(path)
            do throws(PropertyListError) {
                _ = try readPropertyListOnly(bytes)
            } catch {
                throw CommandFailure("(\(bytes.isEmpty ? emptyPropertyList : error.description))")
            }
            if !options.silent { printOutput(RawFileName.bytes(TerminalText.escaped(path == "-" ? "<stdin>" : path) + ": OK\n")) }
        }
    }

    package static func print(_ options: Options) throws(CommandFailure) -> Bool {
        if options.outputPath != nil { throw CommandFailure("-o is not used with -p.") }
        if options.outputExtension != nil { throw CommandFailure("-e is not used with -p.") }
        if options.silent { Diagnostics.printError("-s doesn't make a lot of sense with -p.") }
        return eachFile(options) { path throws(CommandFailure) in
            let (value, _) = try readPropertyList(path)
            printOutput(Array(PlutilTextForm.prettyPrinted(value).utf8))
        }
    }

    package static func insert(replace: Bool, _ arguments: ArraySlice<String>) throws(CommandFailure) -> Bool {
        var rest = arguments
        let missing = CommandFailure("'Insert' and 'Replace' require a key path, a type, and a value.")
        guard let keyPath = rest.popFirst(), let type = rest.popFirst() else { throw missing }
        let value = try PlutilValueArgument.value(type: type, arguments: &rest)
        var append = false
        if rest.first == "-append" {
            rest.removeFirst()
            append = !replace
        }
        let options = try Options(parsing: rest)
        let mode: PropertyListEditMode = replace ? .replace : append ? .append : .insert
        return eachFile(options) { path throws(CommandFailure) in
            try editing(path) { stamp throws(CommandFailure) in
                var (document, existing) = try readPropertyList(path, for: purpose(reading: path, format: nil, options: options))
                do throws(PropertyListKeyPathError) {
                    try document.setValue(value, at: PropertyListKeyPath(plutilSyntax: keyPath), mode: mode)
                } catch {
                    throw CommandFailure(insertMessage(error, keyPath: keyPath))
                }
                try write(document, from: path, format: existing, options: options, keyPath: keyPath, header: false, expecting: stamp)
            }
        }
    }

    /// `plutil`'s words for a failed insertion or replacement.
    private static func insertMessage(_ error: PropertyListKeyPathError, keyPath: String) -> String {
        let code = error.code
        if let index = code.index { return "Index \(index) out of bounds in array at key path \(keyPath)" }
        if let parentIsArray = code.parentIsArray {
            return parentIsArray ? "Attempt to append value to non-array at key path \(keyPath)" : "Appending to a non-array at key path \(keyPath)"
        }
        return switch code {
        case .missing: "Key path not found \(keyPath)"
        case .notAnIndex: "Unable to index into array with key path \(keyPath)"
        case .exists: "Value already exists at key path \(keyPath)"
        default: "Unable to insert value at key path \(keyPath)"  // .notAContainer, .root
        }
    }

    package static func create(_ format: Format, at path: String, options: Options) throws(CommandFailure) {
        let bytes: [UInt8]
        let empty = PropertyListValue.dictionary([:])
        switch format {
        case .json: bytes = Array(PlutilTextForm.json(empty, readable: options.readable).utf8)
        case .xml, .binary: bytes = try encode(empty, format == .xml ? .xml : .binary)
        case .swift: bytes = Array("/// Generated from -\nlet - = [\n    ]".utf8)
        case .objc: bytes = Array("/// Generated from -\n__attribute__((visibility(\"hidden\")))\nNSDictionary * const _ = @{\n};".utf8)
        case .raw: bytes = [UInt8(ascii: "\n")]
        case .type: bytes = Array(ValueType.dictionary.rawValue.utf8)
        case .openStep: throw CommandFailure("Cannot create open step property lists")
        }
        if path == "-" {
            printOutput(bytes + (options.terminatingNewline && (format == .raw || format == .type) ? [UInt8(ascii: "\n")] : []))
        } else {
            try writeFile(bytes, to: path)
        }
    }
}
