import ArgumentParser
import DocumentPackage
import ICTDocument
import KeyedArchive
import PropertyList
import SystemSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What `get`, `type`, `set`, `insert` and `remove` work on: the library's
/// `KeyPathTarget` (a value found by key path in a property list, an
/// archive from `$top`, or an `.ict` document's entry as `ENTRY:PATH`),
/// read through `InputFile` (so also from standard input or a FIFO) and
/// written back through `OutputFile`: beside itself and renamed over it,
/// never half written, only over the file that was read.
extension KeyPathTarget {
    /// A problem about this target: the file, the entry, and the key path as typed.
    func problem(_ message: String) -> Problem {
        Problem(path: address.path, location: address.entry.map(Problem.Location.entry) ?? .none, message, keyPath: address.keyPathText)
    }

    /// The input a key path is looked up in: where it is, the file (or
    /// the document's entry) opened and, a stream, read to its end, and
    /// the file's stamp taken before it was read. Opened once, so that a
    /// stream (standard input, a FIFO) is read once by every look at it.
    struct Input {
        let address: KeyPathAddress
        let file: InputFile
        let stamp: FileStamp?
    }

    /// Opens the file (or the document's entry) named `path`, to edit it in
    /// place or only to read it (`InputFile.Purpose`).
    ///
    /// - Throws: `Problem` when it cannot be opened or read (to edit: is not
    ///   a regular file) or the key path does not fit it.
    static func input(_ path: String, keyPath text: String, limits: PropertyListLimits, for purpose: InputFile.Purpose) throws(Problem)
        -> Input
    {
        let address: KeyPathAddress
        do throws(ICTDocumentError) {
            address = try KeyPathAddress(path: path, keyPath: text)
        } catch {
            throw Problem(document: path, error)
        }
        let stamp = FileStamp(path: address.filePath)
        do throws(PropertyListError) {
            let entryPurpose = address.entry == nil || purpose == .editingInPlace ? purpose : .packageEntry
            let file = try InputFile(path: address.filePath, limit: limits.maximumInputSize, for: entryPurpose)
            return Input(address: address, file: file, stamp: stamp)
        } catch {
            throw problem(error, reading: address)
        }
    }

    /// Reads the property list of `input`.
    ///
    /// - Throws: `Problem` at the byte or line where it does not read.
    static func read(_ input: Input, limits: PropertyListLimits) throws(Problem) -> (target: KeyPathTarget, stamp: FileStamp?) {
        do throws(PropertyListError) {
            let (value, format) = try input.file.withBytes { (bytes) throws(PropertyListError) in
                try PropertyListReader(limits: limits).read(bytes)
            }
            return (KeyPathTarget(address: input.address, propertyList: value, format: format), input.stamp)
        } catch {
            throw problem(error, reading: input.address)
        }
    }

    /// Reads the file (or the document's entry) named `path`, to edit it in
    /// place or only to read it (`InputFile.Purpose`), with the stamp of the
    /// file taken before it was read.
    ///
    /// - Throws: `Problem` when it cannot be read (to edit: is not a regular
    ///   file) or the key path does not fit it.
    static func read(_ path: String, keyPath text: String, limits: PropertyListLimits, for purpose: InputFile.Purpose) throws(Problem)
        -> (target: KeyPathTarget, stamp: FileStamp?)
    {
        try read(input(path, keyPath: text, limits: limits, for: purpose), limits: limits)
    }

    /// The problem of `error`, met reading the file `address` names: at its entry, for a document's.
    private static func problem(_ error: PropertyListError, reading address: KeyPathAddress) -> Problem {
        if let entry = address.entry, error.code == .io, nothingIs(at: address.filePath) {
            return Problem(path: address.path, location: .entry(entry), "the document has no entry '\(entry)'", keyPath: address.keyPathText)
        }
        if let entry = address.entry, error.code == .io {
            return Problem(path: address.path, location: .entry(entry), error.message, keyPath: address.keyPathText)
        }
        return Problem(path: address.path, error)
    }

    /// Whether nothing at all is at `path` (`ENOENT`; a link, even a dangling one, is something).
    private static func nothingIs(at path: String) -> Bool {
        do throws(SystemCallError) {
            _ = try FileInfo.of(path: path, followingLink: false)
            return false
        } catch {
            return error.isNoSuchEntry
        }
    }

    /// Reads the target for a command, filling the report's `path` and `keyPath`, or fails the report.
    static func open<Fields: KeyPathReportFields>(
        _ path: String, keyPath: String, limits: PropertyListLimits, for purpose: InputFile.Purpose = .reading,
        report: TypedReport<Fields>
    ) throws -> (target: KeyPathTarget, stamp: FileStamp?) {
        try open(input(path, keyPath: keyPath, limits: limits, for: purpose, report: report), limits: limits, report: report)
    }

    /// Opens the input for a command, filling the report's `path` and `keyPath`, or fails the report.
    static func input<Fields: KeyPathReportFields>(
        _ path: String, keyPath: String, limits: PropertyListLimits, for purpose: InputFile.Purpose = .reading,
        report: TypedReport<Fields>
    ) throws -> Input {
        report.fields.path = Problem.inputName(path)
        report.fields.keyPath = keyPath
        do throws(Problem) {
            return try input(path, keyPath: keyPath, limits: limits, for: purpose)
        } catch {
            throw report.fail(error)
        }
    }

    /// Reads the target from the input `input(_:keyPath:limits:for:report:)` opened, or fails the report.
    static func open<Fields: KeyPathReportFields>(_ input: Input, limits: PropertyListLimits, report: TypedReport<Fields>) throws -> (
        target: KeyPathTarget, stamp: FileStamp?
    ) {
        do throws(Problem) {
            return try read(input, limits: limits)
        } catch {
            throw report.fail(error)
        }
    }

    /// The value at the key path.
    ///
    /// - Throws: `Problem` naming the key path when nothing is there.
    func foundValue() throws(Problem) -> PropertyListValue {
        do throws(ICTDocumentError) {
            return try value()
        } catch {
            throw problem(error.message)
        }
    }

    /// Writes the property list back to the file in the file's own form,
    /// only over the file `stamp` describes.
    ///
    /// - Throws: `Problem` when the form is read only, the file cannot be
    ///   written, or another program changed it since it was read (it is
    ///   then as that program left it).
    func save(expecting stamp: FileStamp?) throws(Problem) {
        let bytes: [UInt8]
        do throws(ICTDocumentError) {
            bytes = try encoded()
        } catch {
            throw problem(error.message)
        }
        if address.entry != nil {
            // An entry is rewritten in place, inside the document: never inside one a link stands for.
            let document = ICTDocumentFormat.trimmingTrailingSlashes(address.path)
            if (try? FileInfo.of(path: document, followingLink: false))?.kind == .symbolicLink {
                let destination = (try? SymbolicLink.destination(ofLinkAt: document)).map { " (to \"\($0)\")" } ?? ""
                throw problem(
                    "the document is a symbolic link\(destination); not written through it, which would change whatever it points to\(LinkOptions.hint)")
            }
            // What killed saves of the whole package left beside it goes first.
            PackageWrapper.removeStaleTemporaries(ofPackageAt: document)
        }
        do {
            // A link at the file or entry is refused, never written through (`--follow-symlinks` resolves the file's path first).
            try OutputFile.write(bytes, to: address.filePath, expecting: stamp)
        } catch {
            throw problem(error.description)
        }
    }
}

/// The typed value `set` and `insert` take, named as `plutil` names them:
/// `-string S` (or `--string S`), `-integer N`, `-float X`, `-bool B`,
/// `-date D`, `-data BASE64`, `-xml PLIST`, `-json JSON` (or
/// `--json-value`; `--json` asks for the report), `-array`, `-dictionary`.
/// Each takes the next argument as its value whatever it is (`-integer -12`).
struct TypedValueOptions: ParsableArguments {
    @Option(name: [.customLong("string", withSingleDash: true), .customLong("string")], parsing: .unconditional, help: "A string.")
    var string: String?
    @Option(name: [.customLong("integer", withSingleDash: true), .customLong("integer")], parsing: .unconditional, help: "An integer (Int64.min…UInt64.max).")
    var integer: String?
    @Option(name: [.customLong("float", withSingleDash: true), .customLong("float")], parsing: .unconditional, help: "A 64-bit real.")
    var float: String?
    @Option(name: [.customLong("bool", withSingleDash: true), .customLong("bool")], parsing: .unconditional, help: "true, false, yes or no.")
    var bool: String?
    @Option(name: [.customLong("date", withSingleDash: true), .customLong("date")], parsing: .unconditional, help: "A date such as 2004-10-26T10:33:33Z.")
    var date: String?
    @Option(name: [.customLong("data", withSingleDash: true), .customLong("data")], parsing: .unconditional, help: "Bytes in base64.")
    var data: String?
    @Option(
        name: [.customLong("xml", withSingleDash: true), .customLong("xml")], parsing: .unconditional,
        help: "A property list (XML or any form), for arrays and dictionaries.")
    var xml: String?
    @Option(
        name: [.customLong("json", withSingleDash: true), .customLong("json-value")], parsing: .unconditional,
        help: "A value in ict's JSON form (Schemas/property-list.schema.json).")
    var jsonValue: String?
    @Flag(name: [.customLong("array", withSingleDash: true), .customLong("array")], help: "An empty array.")
    var array = false
    @Flag(name: [.customLong("dictionary", withSingleDash: true), .customLong("dictionary")], help: "An empty dictionary.")
    var dictionary = false

    /// The spellings of the options with one dash, which `UsageCheck` lets through.
    static let singleDashNames: Set<String> = ["-string", "-integer", "-float", "-bool", "-date", "-data", "-xml", "-json", "-array", "-dictionary"]

    var isEmpty: Bool { given.isEmpty }

    private var given: [(type: String, text: String?)] {
        var result: [(String, String?)] = []
        for (type, text) in [
            ("string", string), ("integer", integer), ("float", float), ("bool", bool), ("date", date),
            ("data", data), ("xml", xml), ("json", jsonValue),
        ] where text != nil {
            result.append((type, text))
        }
        if array { result.append(("array", nil)) }
        if dictionary { result.append(("dictionary", nil)) }
        return result
    }

    func validate() throws {
        for (type, text) in given where ["string", "xml", "json"].contains(type) {
            if let problem = UsageCheck.notUTF8Problem(text, option: "-" + type) { throw ValidationError(problem) }
        }
        guard given.count <= 1 else { throw ValidationError("give one value, not \(given.map { "-" + $0.type }.joined(separator: " and "))") }
        if given.count == 1 { _ = try value() }
    }

    /// The value given.
    ///
    /// - Throws: `ValidationError` when none is given or its text is not of its type.
    func value() throws -> PropertyListValue {
        guard let (type, text) = given.first else {
            throw ValidationError(
                "give a value: -string S, -integer N, -float X, -bool B, -date D, -data BASE64, -xml PLIST, -json JSON, -array or -dictionary")
        }
        let bad = { ValidationError("'\(text ?? "")' is not a valid \(type)") }
        switch type {
        case "array": return .array([])
        case "dictionary": return .dictionary([:])
        case "string": return .string(text!)
        case "integer":
            if let signed = Int64(text!) { return .integer(PropertyListInteger(signed)) }
            if let unsigned = UInt64(text!) { return .integer(PropertyListInteger(unsigned)) }
            throw bad()
        case "float":
            guard let real = Double(text!) else { throw bad() }
            return .real(real)
        case "bool":
            switch text!.lowercased() {
            case "true", "yes": return .bool(true)
            case "false", "no": return .bool(false)
            default: throw bad()
            }
        case "date":
            guard let date = PropertyListDateFormat.parse(text!) else { throw ValidationError("'\(text!)' is not a date such as 2004-10-26T10:33:33Z") }
            return .date(date)
        case "data":
            guard let bytes = Data(base64Encoded: text!) else { throw ValidationError("'\(text!)' is not base64") }
            return .data(bytes)
        case "xml":
            do { return try PropertyListReader().read(Data(text!.utf8)).value } catch { throw ValidationError("-xml: \(error.description)") }
        default:
            do { return try JSONPropertyListReader().read(Data(text!.utf8)) } catch { throw ValidationError("-json: \(error.description)") }
        }
    }
}

/// The file and key path every key-path command takes, and its input options.
struct KeyPathArguments: ParsableArguments {
    @Argument(help: "A property list, keyed archive or .ict document.")
    var file: String

    @Argument(
        help: ArgumentHelp(
            "The key path: a.b.2 (\\. is a dot in a key); $top.… follows an archive's references; KEY!.… steps into the property list or keyed archive in KEY's data (\\! is a ! in a key); ENTRY:PATH in an .ict document.",
            valueName: "keypath"))
    var keyPath: String

    @OptionGroup var input: InputOptions

    @Flag(help: "Print one JSON document for programs (Schemas/cli/COMMAND.schema.json).")
    var json = false

    /// Reads the target, or fails the report.
    func target<Fields: KeyPathReportFields>(_ report: TypedReport<Fields>) throws -> KeyPathTarget {
        try KeyPathTarget.open(file, keyPath: keyPath, limits: input.limits, report: report).target
    }
}


/// `plutil`'s name of a value's type: bool, integer, float, string, date, data, array, dictionary.
enum ValueTypeName {
    static func of(_ value: PropertyListValue) -> String {
        switch value {
        case .uid: "uid"
        default: Plutil.ValueType(of: value).rawValue
        }
    }
}

/// The fields every key-path command reports first: the file as given (`<stdin>` for `-`) and the key path.
protocol KeyPathReportFields: ReportFields {
    var path: String? { get set }
    var keyPath: String? { get set }
}
