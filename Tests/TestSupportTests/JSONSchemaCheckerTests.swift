import Foundation
import TestSupport
import Testing

/// The shared jsonschema process answers as python3's jsonschema does, one
/// request at a time, whatever the order and the threads that ask.
@Suite(.enabled(if: JSONSchemaChecker.isAvailable, "python3's jsonschema is missing: scripts/install-deps.sh test installs it"))
struct JSONSchemaCheckerTests {
    /// A schema written here: an object with an integer "a", required.
    private func schema() throws -> String {
        let path = ScratchFolder.filePath("ict-schema", extension: "json")
        let text =
            #"{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "#
            + #""properties": {"a": {"type": "integer"}}, "required": ["a"]}"#
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func findsWhatJSONSchemaFinds() throws {
        let path = try schema()
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try JSONSchemaChecker.problems(in: #"{"a": 1}"#, schemaPath: path) == [])
        // jsonschema's messages: "'x' is not of type 'integer'" at ['a']; "'a' is a required property" at [].
        #expect(try JSONSchemaChecker.problems(in: #"{"a": "x"}"#, schemaPath: path) == ["['a'] 'x' is not of type 'integer'"])
        #expect(try JSONSchemaChecker.problems(in: "{}", schemaPath: path) == ["[] 'a' is a required property"])
        let notJSON = try JSONSchemaChecker.problems(in: "{a", schemaPath: path)
        #expect(notJSON.count == 1 && notJSON[0].hasPrefix("not JSON: "))
        let lines = try JSONSchemaChecker.problems(inLines: "{\"a\": 1}\n{\"a\": 2.5}\n{}\n", schemaPath: path)
        #expect(lines == ["2 ['a'] 2.5 is not of type 'integer'", "3 [] 'a' is a required property"])
    }

    @Test func aMissingSchemaIsAProblemNotAnAnswer() throws {
        let problems = try JSONSchemaChecker.problems(in: "{}", schemaPath: "/nonexistent/schema.json")
        #expect(problems.count == 1 && problems[0].hasPrefix("FileNotFoundError"))
    }

    @Test func manyThreadsAtOnceEachGetTheirOwnAnswer() async throws {
        let path = try schema()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let answers = try await withThrowingTaskGroup(of: (Int, [String]).self) { group in
            for index in 0..<40 {
                group.addTask { (index, try JSONSchemaChecker.problems(in: index % 2 == 0 ? "{\"a\": \(index)}" : "{}", schemaPath: path)) }
            }
            return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        #expect(answers.count == 40)
        for (index, problems) in answers { #expect(problems == (index % 2 == 0 ? [] : ["[] 'a' is a required property"]), "\(index)") }
    }
}
