import Foundation
import TestSupport
import Testing

@testable import ICTCommand

/// The commands whose `--json` fields are a `ReportFields` struct
/// (`TypedReport`): the struct's fields are the ones each command's schema
/// in `Schemas/cli/` names, in the schema's order (and those of `--jsonl`
/// lines, the line schema's), and a run that stops early
/// prints the fields it did not reach as `null`, byte for byte as the
/// field-by-name reports did.
struct ReportFieldsTests {
    /// Each typed command and the schema file describing its report.
    static var commands: [(schema: String, command: any ReportingCommand.Type)] {
        [
            ("get", Ict.Get.self), ("type", Ict.KeyPathType.self), ("insert", Ict.Insert.self), ("remove", Ict.Remove.self),
            ("resolve", Ict.Resolve.self), ("thumbnail", Ict.Thumbnail.self), ("create-plist", Ict.CreatePlist.self),
            ("versions", Ict.Versions.self), ("diff", Ict.Diff.self), ("types-show", Ict.Types.Show.self),
            ("types-lookup", Ict.Types.Lookup.self), ("types-identify", Ict.Types.Identify.self),
            ("types-conforms", Ict.Types.Conforms.self), ("list", Ict.List.self), ("validate", Ict.Validate.self),
            ("convert", Ict.Convert.self), ("create", Ict.Create.self), ("set", Ict.SetFields.self),
            ("status", Ict.Status.self), ("containers", Ict.Containers.self), ("move", Ict.Move.self),
            ("kvstore", Ict.KeyValueStoreCommand.Get.self), ("kvstore", Ict.KeyValueStoreCommand.Set.self),
            ("kvstore", Ict.KeyValueStoreCommand.Remove.self), ("kvstore", Ict.KeyValueStoreCommand.List.self),
            ("kvstore", Ict.KeyValueStoreCommand.Validate.self),
        ]
    }

    /// Each command printing `--jsonl` lines from a `ReportFields` struct, and the schema file of its lines.
    static var lineCommands: [(schema: String, fields: [String])] {
        [
            ("list.jsonl", Ict.List.lineFields), ("validate.jsonl", Ict.Validate.lineFields), ("convert.jsonl", Ict.Convert.lineFields),
            ("list-watch.jsonl", WatchPrinter.lineFields),
        ]
    }

    /// The schema's `properties`, in the order the file lists them (Python's
    /// `json` keeps it), without the three every report has.
    private static func schemaFields(_ schema: String) throws -> [String] {
        let script = """
            import json, sys
            names = json.load(open(sys.argv[1]))["properties"].keys()
            print("\\n".join(n for n in names if n not in ("command", "ok", "problems")))
            """
        let run = try ProgramRunner.run("/usr/bin/python3", ["-c", script, Repository.path("Schemas/cli/\(schema).schema.json")])
        #expect(run.status == 0, "\(run.stderr)")
        return run.stdout.split(separator: "\n").map(String.init)
    }

    @Test(arguments: commands.indices)
    func theStructsFieldsAreTheSchemasInItsOrder(_ index: Int) throws {
        let (schema, command) = Self.commands[index]
        #expect(command.reportFields == (try Self.schemaFields(schema)), "\(schema)")
    }

    /// `inspect`'s fields are its schema's, which lists them in another
    /// order; they print in the order its field-by-name report printed them
    /// (`embedded`, of `--expand`, came after them).
    @Test func inspectsFieldsAreItsSchemasInTheOrderTheyPrintedBefore() throws {
        let printed = ["path", "kind", "format", "value", "archive", "package", "document", "typedStream", "model", "store", "nib", "embedded"]
        #expect(Ict.Inspect.reportFields == printed)
        #expect(printed.sorted() == (try Self.schemaFields("inspect")).sorted())
    }

    /// A line's fields are its schema's, but `command`, `ok`, `problems` and
    /// `path`, which every line has. Compared as sets: `list.jsonl`'s schema
    /// lists them in another order than the lines print them.
    @Test(arguments: lineCommands.indices)
    func theLineStructsFieldsAreTheLineSchemas(_ index: Int) throws {
        let (schema, fields) = Self.lineCommands[index]
        #expect(fields.sorted() == (try Self.schemaFields(schema)).filter { $0 != "path" }.sorted(), "\(schema)")
    }

    @Test func aRunThatStopsEarlyPrintsTheFieldsItDidNotReachAsNull() throws {
        let run = try ICTRunner.run(["resolve", "--json", "/nonexistent.ict", "--keep", "current"])
        #expect(run.status == 1)
        let problem = """
              "problems": [
                {
                  "path": "/nonexistent.ict",
                  "line": null,
                  "column": null,
                  "byte": null,
                  "entry": null,
                  "severity": "error",
                  "message": "no such file or folder",
                  "keyPath": null
                }
              ]
            """
        #expect(
            run.stdout
                == """
                {
                  "command": "resolve",
                  "ok": false,
                  "path": "/nonexistent.ict",
                  "kept": null,
                  "removed": null,
                \(problem)
                }

                """)
    }

    @Test func aKeyPathCommandReportsThePathAsGivenAndTheKeyPathBeforeItFails() throws {
        let run = try ICTRunner.run(["type", "--json", "/nonexistent.plist", "a.b"])
        #expect(run.status == 1)
        let expected = """
            {
              "command": "type",
              "ok": false,
              "path": "/nonexistent.plist",
              "keyPath": "a.b",
              "type": null,

            """
        #expect(run.stdout.hasPrefix(expected))
    }
}
