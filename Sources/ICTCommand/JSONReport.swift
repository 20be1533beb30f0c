import ArgumentParser
import PropertyList

/// A JSON value for the reports `--json` prints. Unlike a property list it
/// has `null`, which every report uses for a field that has no value, so
/// every field is always present.
indirect enum JSONValue {
    case null
    case bool(Bool)
    case integer(Int)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])
    /// A property list in its lossless JSON form (`Schemas/property-list.schema.json`).
    case propertyList(PropertyListValue)

    /// Pretty-printed UTF-8, two spaces a level, as `JSONPropertyListWriter` prints.
    func encoded() throws(PropertyListError) -> [UInt8] {
        var output: [UInt8] = []
        try append(to: &output, indent: 0)
        return output
    }

    private func append(to output: inout [UInt8], indent: Int) throws(PropertyListError) {
        switch self {
        case .null: output += Array("null".utf8)
        case .bool(let value): output += Array((value ? "true" : "false").utf8)
        case .integer(let value): output += Array(String(value).utf8)
        case .string(let value): output += try JSONPropertyListWriter(prettyPrinted: false).encode(.string(value))
        case .propertyList(let value):
            // The writer's own indentation starts at 0: indent each of its lines to this level.
            for byte in try JSONPropertyListWriter(prettyPrinted: true).encode(value) {
                output.append(byte)
                if byte == UInt8(ascii: "\n") { output += [UInt8](repeating: UInt8(ascii: " "), count: indent * 2) }
            }
        case .array(let elements):
            guard !elements.isEmpty else { output += Array("[]".utf8); return }
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                Self.newline(&output, indent + 1)
                try element.append(to: &output, indent: indent + 1)
            }
            Self.newline(&output, indent)
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            guard !members.isEmpty else { output += Array("{}".utf8); return }
            output.append(UInt8(ascii: "{"))
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                Self.newline(&output, indent + 1)
                output += try JSONPropertyListWriter(prettyPrinted: false).encode(.string(key))
                output += Array(": ".utf8)
                try value.append(to: &output, indent: indent + 1)
            }
            Self.newline(&output, indent)
            output.append(UInt8(ascii: "}"))
        }
    }

    private static func newline(_ output: inout [UInt8], _ indent: Int) {
        output.append(UInt8(ascii: "\n"))
        output += [UInt8](repeating: UInt8(ascii: " "), count: indent * 2)
    }
}

extension JSONValue {
    static func optional(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
    static func optional(_ value: Int?) -> JSONValue { value.map(JSONValue.integer) ?? .null }
}

/// What one run of a command reports: its problems, printed on standard
/// error as they are found, and with `--json` one JSON document on standard
/// output, `{"command", "ok", <the command's fields>, "problems"}`, described
/// by `Schemas/cli/COMMAND.schema.json`. Every field the command declares is
/// always present, `null` when the run did not get as far as filling it.
final class Report {
    /// The command's name as typed: `validate`, `types show`.
    let command: String
    /// The command's own fields, in order, between `ok` and `problems`.
    let fieldNames: [String]
    let json: Bool
    private(set) var problems: [Problem] = []
    /// The value of each of `fieldNames`, nil until set. An array beside the
    /// names, not a dictionary: the first dictionary of its kind costs the
    /// runtime a scan of every protocol conformance, as much as a small
    /// conversion (see `QuickCommand`).
    private var values: [JSONValue?]
    /// Set for an answer that is "no" without being a problem (`types
    /// conforms` of two unrelated types): exit status 1, `"ok": false`.
    var answeredNo = false

    init(command: String, fields: [String], json: Bool) {
        self.command = command
        self.fieldNames = fields
        self.values = Array(repeating: nil, count: fields.count)
        self.json = json
    }

    /// With `--strict`, a warning fails the command as an error does.
    var strict = false

    var hasErrors: Bool { problems.contains { $0.severity == .error || strict } }

    /// Whether the command succeeds: exit status 0 and `"ok": true`.
    var succeeded: Bool { !hasErrors && !answeredNo }

    /// Records `problem` and prints its line on standard error.
    func add(_ problem: Problem) {
        problems.append(problem)
        Diagnostics.printError(problem.line)
    }

    /// Sets one of the command's declared fields.
    subscript(field: String) -> JSONValue {
        get { fieldNames.firstIndex(of: field).flatMap { values[$0] } ?? .null }
        set {
            guard let index = fieldNames.firstIndex(of: field) else {
                preconditionFailure("\(command) declares no JSON field \(field)")
            }
            values[index] = newValue
        }
    }

    /// The JSON document of this run.
    var document: JSONValue {
        var members: [(String, JSONValue)] = [("command", .string(command)), ("ok", .bool(succeeded))]
        for (name, value) in zip(fieldNames, values) { members.append((name, value ?? .null)) }
        members.append(("problems", .array(problems.map(\.jsonValue))))
        return .object(members)
    }

    /// Prints the JSON document when `--json` was given, and fails the
    /// command (exit status 1) when any problem is an error or the answer is no.
    func finish() throws {
        if json {
            var output = StandardOutput()
            output.write(String(decoding: try document.encoded(), as: UTF8.self))
            output.write("\n")
            output.flush()
        }
        if !succeeded { throw ExitCode.failure }
    }

    /// Records `problem` and finishes: for a problem that ends the run.
    func fail(_ problem: Problem) -> Error {
        add(problem)
        do {
            try finish()
        } catch {
            return error
        }
        return ExitCode.failure
    }
}

extension JSONValue: ExpressibleByStringLiteral {
    init(stringLiteral value: String) { self = .string(value) }
}
