import Foundation

/// python3's `jsonschema` (Draft 2020-12), the outside judge of every JSON
/// Schema in `Schemas/`, as one python3 process that all tests share: one
/// interpreter start and `import jsonschema` (about 0.2 s of CPU each) for
/// the whole run instead of one per document checked, and each schema read
/// and checked once. Requests are served one at a time, in the order tests
/// make them.
///
/// `scripts/install-deps.sh test` installs `jsonschema`; tests that use this
/// carry a condition on `isAvailable`.
public enum JSONSchemaChecker {
    /// What python3's `jsonschema` finds wrong with `document` (one JSON
    /// text) against the schema at `schemaPath`: one line per problem,
    /// `[PATH] MESSAGE`, sorted by path; empty when there is none. Text that
    /// is not JSON, or a schema that is not a valid Draft 2020-12 schema, is
    /// one problem naming the error.
    public static func problems(in document: String, schemaPath: String) throws -> [String] {
        try checker().check(schemaPath: schemaPath, documents: [document], numbered: false)
    }

    /// The problems of each line of `lines` (JSON Lines: one JSON text per
    /// line, each ended by a newline) against the schema at `schemaPath`:
    /// `LINE [PATH] MESSAGE`, lines numbered from 1; empty when there is none.
    public static func problems(inLines lines: String, schemaPath: String) throws -> [String] {
        let texts = lines.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        return try checker().check(schemaPath: schemaPath, documents: texts, numbered: true)
    }

    /// Whether python3 can import `jsonschema`.
    public static let isAvailable: Bool = PythonScript.canImport("jsonschema")

    /// The checker couldn't be started, or its process ended or answered
    /// something other than a reply.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    private static let shared = Result { try Checker() }

    private static func checker() throws -> Checker { try shared.get() }

    /// The python3 process and the lock that keeps one request at a time.
    private final class Checker: @unchecked Sendable {
        // Reads one request per line, {"schema": PATH, "documents": [TEXT, ...], "numbered": BOOL},
        // and answers one line, {"problems": [LINE, ...]}.
        static let script = """
            import json, sys, jsonschema
            validators = {}
            for request in map(json.loads, sys.stdin):
                problems = []
                try:
                    path = request["schema"]
                    if path not in validators:
                        schema = json.load(open(path))
                        jsonschema.Draft202012Validator.check_schema(schema)
                        validators[path] = jsonschema.Draft202012Validator(schema)
                    for number, text in enumerate(request["documents"], 1):
                        prefix = "%d " % number if request["numbered"] else ""
                        try:
                            errors = sorted(validators[path].iter_errors(json.loads(text)), key=lambda e: list(map(str, e.path)))
                        except ValueError as error:
                            problems.append(prefix + "not JSON: %s" % error)
                            continue
                        problems += [prefix + "%s %s" % (list(e.path), e.message) for e in errors]
                except Exception as error:
                    problems.append("%s: %s" % (type(error).__name__, error))
                print(json.dumps({"problems": problems}), flush=True)
            """
        let process = Process()
        let requests: FileHandle
        let replies: FileHandle
        let lock = NSLock()
        var received = Data()

        init() throws {
            let input = Pipe(), output = Pipe()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", "-c", Self.script]
            process.standardInput = input
            process.standardOutput = output
            try process.run()
            requests = input.fileHandleForWriting
            replies = output.fileHandleForReading
        }

        func check(schemaPath: String, documents: [String], numbered: Bool) throws -> [String] {
            let request = try JSONSerialization.data(withJSONObject: ["schema": schemaPath, "documents": documents, "numbered": numbered])
            lock.lock()
            defer { lock.unlock() }
            try requests.write(contentsOf: request + Data("\n".utf8))
            let reply = try nextLine()
            guard let object = try? JSONSerialization.jsonObject(with: reply) as? [String: Any], let problems = object["problems"] as? [String]
            else { throw Failure(description: "jsonschema's checker answered \(String(decoding: reply, as: UTF8.self))") }
            return problems
        }

        /// The next line the process writes, without its newline; a failure when it ends first.
        private func nextLine() throws -> Data {
            while true {
                if let newline = received.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = received[..<newline]
                    received = Data(received[(newline + 1)...])
                    return Data(line)
                }
                // What the pipe holds, waiting until the process writes or ends (empty at its end):
                // it answers each request with one line.
                let more = replies.availableData
                guard !more.isEmpty else {
                    throw Failure(description: "jsonschema's checker (python3) ended before it answered")
                }
                received += more
            }
        }
    }
}
