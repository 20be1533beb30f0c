import PropertyList
import SystemSupport

/// A JSON value for the reports `--json` prints. Unlike a property list it
/// has `null`, which every report uses for a field that has no value, so
/// every field is always present.
package indirect enum JSONValue {
    case null
    case bool(Bool)
    case integer(Int)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])
    /// A property list in its lossless JSON form (`Schemas/property-list.schema.json`).
    case propertyList(PropertyListValue)

    /// Pretty-printed UTF-8, two spaces a level, as `JSONPropertyListWriter`
    /// prints; or with `compact`, on one line with no spaces (a JSON line).
    package func encoded(compact: Bool = false) throws(PropertyListError) -> [UInt8] {
        var output: [UInt8] = []
        try append(to: &output, indent: compact ? nil : 0)
        return output
    }

    /// Appends the encoding at `indent` levels, or on one line when `indent` is nil.
    private func append(to output: inout [UInt8], indent: Int?) throws(PropertyListError) {
        switch self {
        case .null: output += Array("null".utf8)
        case .bool(let value): output += Array((value ? "true" : "false").utf8)
        case .integer(let value): output += Array(String(value).utf8)
        case .string(let value): output += try JSONPropertyListWriter(prettyPrinted: false).encode(.string(value))
        case .propertyList(let value):
            guard let indent else { output += try JSONPropertyListWriter(prettyPrinted: false).encode(value); return }
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
                Self.newline(&output, indent.map { $0 + 1 })
                try element.append(to: &output, indent: indent.map { $0 + 1 })
            }
            Self.newline(&output, indent)
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            guard !members.isEmpty else { output += Array("{}".utf8); return }
            output.append(UInt8(ascii: "{"))
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                Self.newline(&output, indent.map { $0 + 1 })
                output += try JSONPropertyListWriter(prettyPrinted: false).encode(.string(key))
                output += Array((indent == nil ? ":" : ": ").utf8)
                try value.append(to: &output, indent: indent.map { $0 + 1 })
            }
            Self.newline(&output, indent)
            output.append(UInt8(ascii: "}"))
        }
    }

    private static func newline(_ output: inout [UInt8], _ indent: Int?) {
        guard let indent else { return }
        output.append(UInt8(ascii: "\n"))
        output += [UInt8](repeating: UInt8(ascii: " "), count: indent * 2)
    }
}

extension JSONValue {
    package static func optional(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
    package static func optional(_ value: Int?) -> JSONValue { value.map(JSONValue.integer) ?? .null }
}

/// What one run of a command reports: its problems, printed on standard
/// error as they are found, and with `--json` one JSON document on standard
/// output, `{"command", "ok", <the command's fields>, "problems"}`, described
/// by `Schemas/cli/COMMAND.schema.json`. Every field the command declares is
/// always present, `null` when the run did not get as far as filling it.
///
/// With `--jsonl` the report prints one line for each file instead, as the
/// command finishes it (`line(path:fields:)`), and keeps no problem past its
/// line, so memory does not grow with the number of files.
///
/// A command's fields are the stored properties of a struct (`TypedReport`,
/// `ReportFields`), its lines' too (`line(path:_:)`), so a wrong field name
/// fails to compile; a `Report` itself has only the fields it is given the
/// names of, null (a usage error's report, `list --watch`'s update lines).
package class Report {
    /// The command's name as typed: `validate`, `types show`.
    package let command: String
    /// The command's own fields, in order, between `ok` and `problems`.
    package let fieldNames: [String]
    package let json: Bool
    /// `--jsonl`: a line per file rather than one document.
    package let jsonLines: Bool
    /// The fields of a line between `ok` and `problems` (`ReportingCommand.lineFields`).
    package let lineFieldNames: [String]
    /// With `--json`, every problem; with `--jsonl`, those since the last line.
    package private(set) var problems: [Problem] = []
    private var sawError = false
    private var sawWarning = false
    /// The value of each of `fieldNames`, nil until set. An array beside the
    /// names, not a dictionary: the first dictionary of its kind costs the
    /// runtime a scan of every protocol conformance, as much as a small
    /// conversion (see `QuickCommand`).
    fileprivate var values: [JSONValue?]
    /// Set for an answer that is "no" without being a problem (`types
    /// conforms` of two unrelated types): exit status 1, `"ok": false`.
    package var answeredNo = false

    /// Whether problems are kept without `--json` or `--jsonl`: for the
    /// report of one file of a batch, taken into the batch's by `absorb`.
    private let keepsProblems: Bool

    package init(command: String, fields: [String], json: Bool, jsonLines: Bool = false, lineFields: [String] = [], keepsProblems: Bool = false) {
        self.keepsProblems = keepsProblems
        self.command = command
        self.fieldNames = fields
        self.values = Array(repeating: nil, count: fields.count)
        self.json = json
        self.jsonLines = jsonLines
        self.lineFieldNames = lineFields
    }

    /// With `--strict`, a warning fails the command as an error does.
    package var strict = false

    package var hasErrors: Bool { sawError || (strict && sawWarning) }

    /// Whether the command succeeds: exit status 0 and `"ok": true`.
    package var succeeded: Bool { !hasErrors && !answeredNo }

    /// Records `problem` and prints its line on standard error.
    package func add(_ problem: Problem) {
        if json || jsonLines || keepsProblems { problems.append(problem) }
        if problem.severity == .error { sawError = true } else { sawWarning = true }
        Diagnostics.printError(problem.line)
    }

    /// Takes the problems of `other` (the report of one file of a batch,
    /// which has printed them) as if added here, without printing them again.
    package func absorb(_ other: Report) {
        if json || jsonLines { problems += other.problems }
        sawError = sawError || other.sawError
        sawWarning = sawWarning || other.sawWarning
    }

    /// Brings the fields' values up to date before they are printed (a
    /// `TypedReport` encodes its struct into them); nothing here.
    fileprivate func updateValues() {}

    /// The JSON document of this run.
    package var document: JSONValue {
        var members: [(String, JSONValue)] = [("command", .string(command)), ("ok", .bool(succeeded))]
        for (name, value) in zip(fieldNames, values) { members.append((name, value ?? .null)) }
        members.append(("problems", .array(problems.map(\.jsonValue))))
        return .object(members)
    }

    /// With `--jsonl`, prints the line of one file: `{"command", "path",
    /// "ok", <fields>, "problems"}` with the problems added since the last
    /// line, `ok` false when one of them is an error (or with `--strict` a
    /// warning); `path` nil for problems of no one file. Written at once in
    /// one piece, so a reader of a pipe sees each file as it is done.
    package func line(path: String?, fields: [(String, JSONValue)]) throws(PropertyListError) {
        guard jsonLines else { return }
        assert(fields.map(\.0) == lineFieldNames, "\(command)'s line fields are \(lineFieldNames)")
        let failed = problems.contains { $0.severity == .error || strict }
        var members: [(String, JSONValue)] = [("command", .string(command)), ("path", .optional(path)), ("ok", .bool(!failed))]
        members += fields
        members.append(("problems", .array(problems.map(\.jsonValue))))
        problems.removeAll(keepingCapacity: true)
        // One write for the whole line, so lines of processes sharing a pipe or file do not mix.
        StandardOutput.writeAll(try JSONValue.object(members).encoded(compact: true) + [UInt8(ascii: "\n")])
    }

    /// With `--jsonl`, prints the line of one file as `line(path:fields:)`,
    /// its fields the stored properties of `fields` in order (a command's
    /// `LineFields`), so a wrong field name fails to compile.
    package func line(path: String?, _ fields: some ReportFields) throws(PropertyListError) {
        guard jsonLines, case .object(let members) = JSONValueEncoder.encode(fields) else { return }
        try line(path: path, fields: members)
    }

    /// The file the report is about, for a problem found in printing it:
    /// the command's `path` field, else `ict`.
    private var subject: String {
        if let index = fieldNames.firstIndex(of: "path"), case .string(let path)? = values[index] { return path }
        return "ict"
    }

    /// The JSON document, always: a field whose value JSON cannot hold (one
    /// nested deeper than the JSON writer's limit) is reported as a problem
    /// at its key path, from the field's name, and printed as null.
    private func encodedDocument() throws(PropertyListError) -> [UInt8] {
        do {
            return try document.encoded()
        } catch {
            for index in values.indices {
                do {
                    _ = try values[index]?.encoded()
                } catch {
                    values[index] = nil
                    var inField = error
                    inField.keyPath = PropertyListKeyPath([.key(fieldNames[index])] + error.keyPath.components)
                    add(Problem(path: subject, inField))
                }
            }
            return try document.encoded()
        }
    }

    /// Prints the JSON document when `--json` was given (with `--jsonl`, a
    /// last line for problems of no one file, if there are any), and fails
    /// the command (exit status 1) when any problem is an error or the answer is no.
    package func finish() throws {
        updateValues()
        if json {
            var output = StandardOutput()
            output.write(String(decoding: try encodedDocument(), as: UTF8.self))
            output.write("\n")
            output.flush()
        }
        if jsonLines, !problems.isEmpty {
            try line(path: nil, fields: lineFieldNames.map { ($0, .null) })
        }
        if !succeeded { throw ReportFailure() }
    }

    /// Records `problem` and finishes: for a problem that ends the run.
    package func fail(_ problem: Problem) -> Error {
        add(problem)
        do {
            try finish()
        } catch {
            return error
        }
        return ReportFailure()
    }
}

extension JSONValue: ExpressibleByStringLiteral {
    package init(stringLiteral value: String) { self = .string(value) }
}

/// A command's own `--json` fields as a struct: its stored properties, in the
/// order declared, are the report's fields between `ok` and `problems`, so a
/// wrong field name fails to compile. Each is optional: null until the run
/// gets as far as filling it.
package protocol ReportFields: Encodable {
    /// Every field nil.
    init()
}

extension ReportFields {
    /// The fields' names in order: the members of an empty value's encoding.
    package static var fieldNames: [String] {
        guard case .object(let members) = JSONValueEncoder.encode(Self()) else { return [] }
        return members.map(\.0)
    }
}

/// A `Report` whose command fields are the stored properties of `Fields`
/// (`report.fields.path = …`), encoded by `JSONValueEncoder` when the
/// report is printed. Without `--json` nothing is encoded: the encoder's
/// dynamic casts cost the runtime a scan of the protocol conformances, which
/// the plain command lines (`QuickCommand`) avoid.
package final class TypedReport<Fields: ReportFields>: Report {
    /// The command's fields, nil until set.
    package var fields = Fields()

    /// A report printing `Fields` with `--json`; with `jsonLines`, lines of
    /// `lineFields` (`line(path:_:)`); with `keepsProblems`, the report of
    /// one file of a batch (`absorb`).
    package init(command: String, json: Bool, jsonLines: Bool = false, lineFields: [String] = [], keepsProblems: Bool = false) {
        super.init(
            command: command, fields: json ? Fields.fieldNames : [], json: json, jsonLines: jsonLines, lineFields: lineFields,
            keepsProblems: keepsProblems)
    }

    fileprivate override func updateValues() {
        guard json, case .object(let members) = JSONValueEncoder.encode(fields) else { return }
        values = members.map(\.1)
    }
}

/// An entry of a batch command's `--json` document (`validate`'s `files`,
/// `list`'s `documents`): the file's `path`, then the fields of its `--jsonl` line.
package struct PathEntry<LineFields: ReportFields>: Encodable {
    package var path: String
    package var fields: LineFields

    package init(path: String, fields: LineFields) {
        self.path = path
        self.fields = fields
    }

    private enum CodingKeys: String, CodingKey { case path }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(path, forKey: .path)
        // The line's fields into the same object, after `path`.
        try fields.encode(to: encoder)
    }
}

/// What a report's `finish()` and `fail(_:)` throw when the command fails:
/// its problems are printed already, and the command exits with status 1
/// (`Ict.main` turns it into argument-parser's `ExitCode.failure`).
package struct ReportFailure: Error {
    package init() {}
}
