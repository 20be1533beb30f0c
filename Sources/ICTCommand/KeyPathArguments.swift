import ArgumentParser
import DocumentFormats
import ICTKitTooling
import PropertyList

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
            if let problem = ArgumentText.notUTF8Problem(text, option: "-" + type) { throw ValidationError(problem) }
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
