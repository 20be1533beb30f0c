import Foundation
import TestSupport
import Testing

/// The contract every `ict` command keeps (README, "The contract"): exit
/// status 0, 1 or 64; every problem on standard error as
/// `PATH:LOCATION: severity: message (at KEY.PATH)`; with `--json`, one JSON
/// document on standard output that `Schemas/cli/COMMAND.schema.json`
/// describes, every field present, `ok` true exactly when the exit status is 0.
/// The schemas are checked by python3's `jsonschema` (Draft 2020-12), not by
/// code of ours.
struct ContractTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var schema: String
        var arguments: [String]
        var stdin: String?
        var status: Int32
        var testDescription: String { "ict " + arguments.joined(separator: " ") }
    }

    static let root = Repository.root.path
    static let scratch: String = {
        // Without a folder, every test here fails, saying which file it could not read.
        let folder = (try? ScratchFolder.make("ict-contract").path) ?? FileManager.default.temporaryDirectory.path + "/ict-contract"
        try? FileManager.default.createDirectory(atPath: folder + "/docs", withIntermediateDirectories: true)
        try? FileManager.default.createDirectory(atPath: folder + "/kv", withIntermediateDirectories: true)
        try? FileManager.default.copyItem(atPath: root + "/SampleDocs/Coffee.ict", toPath: folder + "/Coffee.ict")
        _ = FileManager.default.createFile(atPath: folder + "/good.plist", contents: Data("<plist><dict><key>a</key><integer>1</integer></dict></plist>".utf8))
        _ = FileManager.default.createFile(atPath: folder + "/bad.plist", contents: Data("<plist><dict><key>a</key><integer>x</integer></dict></plist>".utf8))
        _ = FileManager.default.createFile(
            atPath: folder + "/archive.plist",
            contents: try? PropertyListSerialization.data(
                fromPropertyList: [
                    "$archiver": "NSKeyedArchiver", "$version": 100000, "$top": ["root": ["CF$UID": 1]],
                    "$objects": ["$null", "hello"],
                ] as [String: Any], format: .xml, options: 0))
        _ = FileManager.default.createFile(
            atPath: folder + "/bad-archive.plist",
            contents: try? PropertyListSerialization.data(
                fromPropertyList: [
                    "$archiver": "NSKeyedArchiver", "$version": 100000, "$top": ["root": ["CF$UID": 9]],
                    "$objects": ["$null"],
                ] as [String: Any], format: .xml, options: 0))
        // Chains of objects: 10,000 deep (shown to the JSON form's depth), and 190 deep holding a
        // value nested 150 deep, which JSON cannot hold below them (a problem, the field null).
        for (name, depth, nested) in [("deep-archive.plist", 10_000, 0), ("deep-value-archive.plist", 190, 150)] {
            var innermost: Any = "bottom"
            for _ in 0..<nested { innermost = ["a": innermost] }
            var objects: [Any] = ["$null"]
            for index in 1...depth {
                var object: [String: Any] = ["$class": ["CF$UID": depth + 1]]
                if index < depth { object["child"] = ["CF$UID": index + 1] } else { object["value"] = innermost }
                objects.append(object)
            }
            objects.append(["$classname": "Node", "$classes": ["Node", "NSObject"]])
            _ = FileManager.default.createFile(
                atPath: folder + "/" + name,
                contents: try? PropertyListSerialization.data(
                    fromPropertyList: [
                        "$archiver": "NSKeyedArchiver", "$version": 100000, "$top": ["root": ["CF$UID": 1]], "$objects": objects,
                    ] as [String: Any], format: .xml, options: 0))
        }
        // Documents with conflict copies for versions and resolve.
        for name in ["V", "R", "R2"] {
            try? FileManager.default.copyItem(atPath: root + "/SampleDocs/Coffee.ict", toPath: folder + "/\(name).ict")
            try? FileManager.default.copyItem(
                atPath: root + "/SampleDocs/Rocket.ict",
                toPath: folder + "/\(name).sync-conflict-20261123-101500-ABCDEF7.ict")
        }
        return folder
    }()

    static let cases: [Case] = {
        let s = scratch, samples = root + "/SampleDocs", nibs = root + "/Tests/NIBArchiveTests/Fixtures"
        return [
            Case(schema: "inspect", arguments: ["inspect", "--json", s + "/good.plist"], status: 0),
            Case(schema: "inspect", arguments: ["inspect", "--json", s + "/archive.plist"], status: 0),
            Case(schema: "inspect", arguments: ["inspect", "--json", s + "/bad-archive.plist"], status: 1),
            Case(schema: "inspect", arguments: ["inspect", "--json", s + "/deep-archive.plist"], status: 0),
            Case(schema: "inspect", arguments: ["inspect", "--json", s + "/deep-value-archive.plist"], status: 1),
            Case(schema: "inspect", arguments: ["inspect", "--json", samples + "/Coffee.ict"], status: 0),
            Case(schema: "inspect", arguments: ["inspect", "--json", "--data", samples + "/Coffee.ict"], status: 0),
            Case(schema: "inspect", arguments: ["inspect", "--json", "--data", samples + "/Coffee.ptk"], status: 0),
            Case(schema: "inspect", arguments: ["inspect", "--json", samples + "/Shopping List.icfnote"], status: 0),
            Case(schema: "inspect", arguments: ["inspect", "--json", samples + "/malformed-notes/truncated-utf8.dox"], status: 0),
            Case(schema: "inspect", arguments: ["inspect", "--json", samples + "/malformed-notes/invalid-utf8.icfnote"], status: 1),
            Case(schema: "inspect", arguments: ["inspect", "--json", samples + "/malformed-ptk/wrong-class.ptk"], status: 1),
            Case(schema: "inspect", arguments: ["inspect", "--json", samples + "/malformed/unknown-version.ict"], status: 1),
            Case(schema: "inspect", arguments: ["inspect", "--json", Repository.root.path + "/Sources"], status: 0),
            Case(schema: "inspect", arguments: ["inspect", "--json", nibs + "/InstallViewController.nib"], status: 0),
            Case(schema: "inspect", arguments: ["inspect", "--json", nibs + "/keyedobjects.nib"], status: 0),
            Case(schema: "inspect", arguments: ["inspect", "--json", s + "/bad.plist"], status: 1),
            Case(schema: "inspect", arguments: ["inspect", "--json", s + "/missing.plist"], status: 1),
            Case(schema: "inspect", arguments: ["inspect", "--json", "-"], stdin: "", status: 1),
            Case(schema: "inspect", arguments: ["inspect", "--json", "--bogus"], status: 64),
            Case(schema: "convert", arguments: ["convert", "--json", s + "/good.plist", "--format", "binary1", "-o", s + "/out.bplist"], status: 0),
            Case(schema: "convert", arguments: ["convert", "--json", "-", "--format", "xml1", "-o", s + "/out.xml"], stdin: "{\"a\": [1, 2.5]}", status: 0),
            Case(schema: "convert", arguments: ["convert", "--json", s + "/bad.plist", "--format", "json", "-o", s + "/out.json"], status: 1),
            Case(schema: "convert", arguments: ["convert", "--json", s + "/docs", "--format", "xml1", "-o", s + "/x.xml"], status: 1),
            Case(schema: "convert", arguments: ["convert", "--json", s + "/good.plist", "--format", "xml1"], status: 64),
            Case(schema: "validate", arguments: ["validate", "--json", s + "/good.plist", samples + "/Coffee.ict", samples + "/Info.plist"], status: 0),
            Case(
                schema: "validate",
                arguments: [
                    "validate", "--json", s + "/good.plist", s + "/bad.plist", s + "/bad-archive.plist",
                    samples + "/malformed/name-mismatch.ict", s + "/missing.plist",
                ], status: 1),
            Case(schema: "validate", arguments: ["validate", "--json", nibs + "/PackageListHeader.nib"], status: 0),
            Case(schema: "validate", arguments: ["validate", "--json"], status: 64),
            Case(
                schema: "validate",
                arguments: ["validate", "--json", samples + "/Coffee.ptk", samples + "/Tutorial Note.dox", samples + "/malformed-notes/truncated-utf8.dox"],
                status: 0),
            Case(
                schema: "validate",
                arguments: ["validate", "--json", samples + "/malformed-ptk/missing-metadata.ptk", samples + "/malformed-notes/invalid-utf8.icfnote"],
                status: 1),
            Case(schema: "list", arguments: ["list", "--json", samples], status: 0),
            Case(schema: "list", arguments: ["list", "--json", "--data", samples], status: 0),
            Case(schema: "list", arguments: ["list", "--json", samples + "/malformed"], status: 1),
            Case(schema: "list", arguments: ["list", "--json", "/nonexistent"], status: 1),
            Case(schema: "create", arguments: ["create", "--json", "--display-name", "Ada", "-o", s + "/docs"], status: 0),
            Case(schema: "create", arguments: ["create", "--json", "-o", s + "/missing-folder"], status: 1),
            Case(schema: "create", arguments: ["create", "--json", "--name", "../x", "-o", s + "/docs"], status: 64),
            Case(schema: "create", arguments: ["create", "--json", s + "/docs/N.icfnote", "--text", "Milk"], status: 0),
            Case(schema: "create", arguments: ["create", "--json", s + "/missing-folder/N.icfnote", "--text", "Milk"], status: 1),
            Case(schema: "set", arguments: ["set", "--json", s + "/Coffee.ict", "--first-name", "Ada"], status: 0),
            Case(schema: "set", arguments: ["set", "--json", s + "/docs", "--first-name", "Ada"], status: 1),
            Case(schema: "set", arguments: ["set", "--json", s + "/good.plist", "a", "-integer", "2"], status: 0),
            Case(schema: "set", arguments: ["set", "--json", s + "/good.plist", "a.b", "-integer", "2"], status: 1),
            Case(schema: "set", arguments: ["set", "--json", s + "/good.plist", "a", "-integer", "x"], status: 64),
            Case(schema: "get", arguments: ["get", "--json", s + "/good.plist", "a"], status: 0),
            Case(schema: "get", arguments: ["get", "--json", s + "/archive.plist", "$top.root"], status: 0),
            Case(schema: "get", arguments: ["get", "--json", s + "/Coffee.ict", "ctdocument.data:LAST_NAME"], status: 0),
            Case(schema: "get", arguments: ["get", "--json", s + "/good.plist", "missing"], status: 1),
            Case(schema: "get", arguments: ["get", "--json", s + "/bad.plist", "a"], status: 1),
            Case(schema: "get", arguments: ["get", "--json", s + "/good.plist"], status: 64),
            Case(schema: "type", arguments: ["type", "--json", s + "/good.plist", "a"], status: 0),
            Case(schema: "type", arguments: ["type", "--json", s + "/good.plist", "a.b"], status: 1),
            Case(schema: "insert", arguments: ["insert", "--json", s + "/good.plist", "list", "-array"], status: 0),
            Case(schema: "insert", arguments: ["insert", "--json", s + "/good.plist", "a", "-string", "again"], status: 1),
            Case(schema: "insert", arguments: ["insert", "--json", s + "/good.plist", "k"], status: 64),
            Case(schema: "remove", arguments: ["remove", "--json", s + "/good.plist", "list"], status: 0),
            Case(schema: "remove", arguments: ["remove", "--json", s + "/good.plist", "nothing"], status: 1),
            Case(schema: "create-plist", arguments: ["create-plist", "--json", s + "/new.plist", "--format", "binary1"], status: 0),
            Case(schema: "create-plist", arguments: ["create-plist", "--json", s + "/good.plist"], status: 1),
            Case(schema: "create-plist", arguments: ["create-plist", "--json", "-"], status: 64),
            Case(schema: "thumbnail", arguments: ["thumbnail", "--json", samples + "/Coffee.ict", "-o", s + "/t.png"], status: 0),
            Case(schema: "thumbnail", arguments: ["thumbnail", "--json", s + "/good.plist", "-o", s + "/t2.png"], status: 1),
            Case(schema: "types-lookup", arguments: ["types", "lookup", "--json", "--no-shared-mime-info", "--extension", "png"], status: 0),
            Case(
                schema: "types-lookup",
                arguments: [
                    "types", "lookup", "--json", "--no-shared-mime-info", "--extension", "png",
                    "--conforming-to", "public.audio",
                ], status: 1),
            Case(schema: "types-show", arguments: ["types", "show", "--json", "--no-shared-mime-info", "public.png"], status: 0),
            Case(schema: "types-show", arguments: ["types", "show", "--json", "--no-shared-mime-info", "com.example.nothing"], status: 1),
            Case(schema: "types-conforms", arguments: ["types", "conforms", "--json", "--no-shared-mime-info", "public.png", "public.image"], status: 0),
            Case(schema: "types-conforms", arguments: ["types", "conforms", "--json", "--no-shared-mime-info", "public.png", "public.audio"], status: 1),
            Case(
                schema: "types-identify",
                arguments: [
                    "types", "identify", "--json", "--no-shared-mime-info", samples + "/Coffee.ict",
                    samples + "/Info.plist",
                ], status: 0),
            Case(schema: "types-identify", arguments: ["types", "identify", "--json", "--no-shared-mime-info", s + "/missing"], status: 1),
            Case(
                schema: "types-identify",
                arguments: [
                    "types", "identify", "--json", "--no-shared-mime-info", s + "/good.plist",
                    "--declarations", s + "/bad.plist",
                ], status: 1),
            Case(schema: "diff", arguments: ["diff", "--json", s + "/good.plist", s + "/good.plist"], status: 0),
            Case(schema: "diff", arguments: ["diff", "--json", s + "/good.plist", s + "/archive.plist"], status: 1),
            Case(schema: "diff", arguments: ["diff", "--json", samples + "/Coffee.ict", samples + "/Rocket.ict"], status: 1),
            Case(schema: "diff", arguments: ["diff", "--json", s + "/good.plist", s + "/bad.plist"], status: 1),
            Case(schema: "diff", arguments: ["diff", "--json", s + "/good.plist"], status: 64),
            Case(schema: "versions", arguments: ["versions", "--json", s + "/V.ict"], status: 0),
            Case(schema: "versions", arguments: ["versions", "--json", s + "/missing.ict"], status: 1),
            Case(schema: "versions", arguments: ["versions", "--json"], status: 64),
            Case(schema: "status", arguments: ["status", "--json", s + "/V.ict"], status: 1),
            Case(schema: "status", arguments: ["status", "--json", s + "/missing.ict"], status: 1),
            Case(schema: "status", arguments: ["status", "--json"], status: 64),
            Case(schema: "containers", arguments: ["containers", "--json"], status: 0),
            Case(schema: "containers", arguments: ["containers", "--json", "--timeout", "0"], status: 64),
            Case(schema: "move", arguments: ["move", "--json", s + "/V.ict", s + "/W.ict"], status: 1),
            Case(schema: "move", arguments: ["move", "--json", s + "/V.ict"], status: 64),
            Case(schema: "kvstore", arguments: ["kvstore", "set", "--json", "--folder", s + "/kv", "a", "1"], status: 0),
            Case(schema: "kvstore", arguments: ["kvstore", "set", "--json", "--folder", s + "/kv", String(repeating: "k", count: 65), "1"], status: 1),
            Case(schema: "kvstore", arguments: ["kvstore", "get", "--json", "--folder", s + "/kv", "nothing"], status: 1),
            Case(schema: "kvstore", arguments: ["kvstore", "list", "--json", "--removed", "--folder", s + "/kv"], status: 0),
            Case(schema: "kvstore", arguments: ["kvstore", "validate", "--json", "--folder", s + "/kv"], status: 0),
            Case(schema: "kvstore", arguments: ["kvstore", "remove", "--json", "--folder", s + "/kv", "nothing"], status: 1),
            Case(schema: "kvstore", arguments: ["kvstore", "list", "--json", "--folder", s + "/missing"], status: 1),
            Case(schema: "kvstore", arguments: ["kvstore", "get", "--json"], status: 64),
            Case(schema: "resolve", arguments: ["resolve", "--json", s + "/R.ict", "--keep", "1"], status: 0),
            Case(schema: "resolve", arguments: ["resolve", "--json", s + "/R2.ict", "--keep", "5"], status: 1),
            Case(schema: "resolve", arguments: ["resolve", "--json", s + "/R2.ict", "--keep", "1", "--expect", "0000000000000000"], status: 1),
            Case(schema: "resolve", arguments: ["resolve", "--json", s + "/R2.ict"], status: 64),
            Case(schema: "validate", arguments: ["validate", "--json", "--kvs", s + "/good.plist"], status: 0),
        ]
    }()

    /// `PATH:LOCATION: severity: message (at KEY.PATH)`, LOCATION being
    /// `line:column`, `byte N` or an entry path, or left out with its colon.
    static let problemLine = #"^.+?(:[0-9]+:[0-9]+|:byte [0-9]+|:[^:]+)?: (error|warning): [^ ].*$"#

    static var pythonHasJSONSchema: Bool { JSONSchemaChecker.isAvailable }

    /// Validates `document` against the schema file; returns jsonschema's complaint, or nil.
    private func schemaProblem(_ document: String, schema: String) throws -> String? {
        let problems = try JSONSchemaChecker.problems(in: document, schemaPath: schema)
        return problems.isEmpty ? nil : problems.joined(separator: "\n")
    }

    @Test(
        .enabled(if: pythonHasJSONSchema, "python3's jsonschema is missing: scripts/install-deps.sh test installs it"),
        arguments: cases)
    func jsonOutputMatchesTheCommandSchema(_ testCase: Case) throws {
        let run = try ICTRunner.run(testCase.arguments, stdin: testCase.stdin.map { Data($0.utf8) })
        #expect(run.status == testCase.status, "\(run.stderr)")
        let schema = Self.root + "/Schemas/cli/\(testCase.schema).schema.json"
        let problem = try schemaProblem(run.stdout, schema: schema)
        #expect(problem == nil, "\(problem ?? "")\n\(run.stdout)")
        let report = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        #expect(report?["ok"] as? Bool == (run.status == 0))
        // The command as typed: the words before --json (`types show`, `create-plist`).
        #expect(report?["command"] as? String == testCase.arguments.prefix { $0 != "--json" }.joined(separator: " "))
        let problems = report?["problems"] as? [[String: Any]] ?? []
        let answersNo = ["types-conforms", "types-lookup", "diff"].contains(testCase.schema) && run.status == 1
        if run.status != 0, !answersNo || run.status == 64 {
            #expect(!problems.isEmpty, "a failure must say why")
        }
        // Standard error says the same problems, one line each, in the one form.
        let lines = run.stderr.split(separator: "\n", omittingEmptySubsequences: true)
        #expect(lines.count == problems.count, "\(run.stderr)")
        for line in lines {
            #expect(line.range(of: Self.problemLine, options: .regularExpression) != nil, "not in the problem form: \(line)")
        }
    }

    /// A `--jsonl` run: its standard input (the list), the exit status, and how many lines it prints.
    struct LinesCase: CustomTestStringConvertible, Sendable {
        var schema: String
        var arguments: [String]
        var stdin: String?
        var status: Int32
        var lineCount: Int
        var testDescription: String { "ict " + arguments.joined(separator: " ") }
    }

    static let lineCases: [LinesCase] = {
        let s = scratch, samples = root + "/SampleDocs"
        try? FileManager.default.createDirectory(atPath: s + "/converted", withIntermediateDirectories: true)
        return [
            LinesCase(
                schema: "validate", arguments: ["validate", "--jsonl", s + "/good.plist", "--files-from", "-"],
                stdin: "\(samples)/Coffee.ict\n\(samples)/Info.plist\n", status: 0, lineCount: 3),
            LinesCase(
                schema: "validate", arguments: ["validate", "--jsonl", "--strict", "--files-from", "-"],
                stdin: "\(s)/good.plist\n\(s)/bad.plist\n\(s)/bad-archive.plist\n\(samples)/malformed/name-mismatch.ict\n\(s)/missing.plist\n",
                status: 1, lineCount: 5),
            LinesCase(schema: "validate", arguments: ["validate", "--jsonl", "--files-from", s + "/missing-list"], status: 1, lineCount: 1),
            LinesCase(schema: "validate", arguments: ["validate", "--jsonl", "--json", s + "/good.plist"], status: 64, lineCount: 1),
            // The six .ict documents, Coffee.ptk and the two notes.
            LinesCase(schema: "list", arguments: ["list", "--jsonl", "--data", samples], status: 0, lineCount: 9),
            LinesCase(
                schema: "list", arguments: ["list", "--jsonl", "--files-from", "-"],
                stdin: "\(samples)/Coffee.ict\n\(samples)/malformed/unknown-version.ict\n\(s)/missing.ict\n", status: 1, lineCount: 3),
            LinesCase(schema: "list", arguments: ["list", "--jsonl"], status: 64, lineCount: 1),
            LinesCase(
                schema: "convert", arguments: ["convert", "--jsonl", "--format", "json", "-o", s + "/converted", "--files-from", "-"],
                stdin: "\(s)/good.plist\n\(s)/archive.plist\n\(s)/bad.plist\n\(samples)/Coffee.ict\n\(s)/../x.plist\n", status: 1, lineCount: 5),
            LinesCase(schema: "convert", arguments: ["convert", "--jsonl", "--format", "xml1", "--files-from", "-"], stdin: "", status: 64, lineCount: 1),
        ]
    }()

    /// Validates each line of `lines` against the schema file; returns jsonschema's complaints, or nil.
    static func lineSchemaProblem(_ lines: String, schema: String) throws -> String? {
        let problems = try JSONSchemaChecker.problems(inLines: lines, schemaPath: schema)
        return problems.isEmpty ? nil : problems.joined(separator: "\n")
    }

    /// With `--jsonl`, every line on standard output is one JSON object that
    /// `Schemas/cli/COMMAND.jsonl.schema.json` describes, one per file; the
    /// exit status is 0 exactly when every line is ok; standard error says
    /// the lines' problems, one line each, in the one form.
    @Test(
        .enabled(if: pythonHasJSONSchema, "python3's jsonschema is missing: scripts/install-deps.sh test installs it"),
        arguments: lineCases)
    func jsonLinesMatchTheCommandsLineSchema(_ testCase: LinesCase) throws {
        let run = try ICTRunner.run(testCase.arguments, stdin: testCase.stdin.map { Data($0.utf8) })
        #expect(run.status == testCase.status, "\(run.stderr)")
        #expect(run.stdout.hasSuffix("\n"))
        let schema = Self.root + "/Schemas/cli/\(testCase.schema).jsonl.schema.json"
        let problem = try Self.lineSchemaProblem(run.stdout, schema: schema)
        #expect(problem == nil, "\(problem ?? "")\n\(run.stdout)")
        let lines = try run.stdout.split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(lines.count == testCase.lineCount, "\(run.stdout)")
        #expect(lines.allSatisfy { $0?["ok"] as? Bool == true } == (run.status == 0))
        #expect(lines.allSatisfy { $0?["command"] as? String == testCase.arguments[0] })
        let problems = lines.flatMap { $0?["problems"] as? [[String: Any]] ?? [] }
        for line in lines where line?["ok"] as? Bool == false {
            let lineProblems = line?["problems"] as? [Any] ?? []
            #expect(!lineProblems.isEmpty, "a failure must say why")
        }
        let errorLines = run.stderr.split(separator: "\n", omittingEmptySubsequences: true)
        #expect(errorLines.count == problems.count, "\(run.stderr)")
        for line in errorLines {
            #expect(line.range(of: Self.problemLine, options: .regularExpression) != nil, "not in the problem form: \(line)")
        }
    }

    /// Without --json too, and for usage errors, every line on standard
    /// error is one problem in the one form.
    @Test(arguments: [
        ["inspect"], ["inspect", "--nope", "x"], ["convert", "x"], ["convert", "x", "--format", "yaml"], ["frobnicate"],
        ["validate", "-weird.plist"], ["list", "/nonexistent"], ["validate", "/nonexistent.plist"],
        ["inspect", Repository.root.path + "/SampleDocs/malformed/truncated-archive.ict", "--data"],
        ["validate", "--strict", Repository.root.path + "/SampleDocs/malformed/name-mismatch.ict"],
        ["types", "show", "nothing.at.all"], ["thumbnail", "/nonexistent.ict", "-o", "/tmp/x.png"],
        ["create", "--photo", "/nonexistent.png", "-o", "/tmp"], ["set", "/tmp", "--first-name", "A"],
        ["validate", "--files-from", "/nonexistent.txt"], ["list", "--files-from", "/nonexistent.txt"], ["validate", "--json", "--jsonl", "x"],
    ])
    func everyProblemLineHasTheOneForm(_ arguments: [String]) throws {
        let run = try ICTRunner.run(arguments)
        #expect([1, 64].contains(run.status))
        #expect(!run.stderr.isEmpty)
        for line in run.stderr.split(separator: "\n", omittingEmptySubsequences: true) {
            #expect(line.range(of: Self.problemLine, options: .regularExpression) != nil, "not in the problem form: \(line)")
        }
        if run.status == 64 { #expect(run.stderr.hasPrefix("ict: error: ")) }
    }
}
