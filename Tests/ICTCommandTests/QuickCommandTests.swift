import Foundation
import TestSupport
import Testing

/// `convert`, `get` and `types conforms` in their plain shapes skip
/// argument-parser (`QuickCommand`, for start-up time). Whatever the shape,
/// good input or bad, the answer must be the one argument-parser's path
/// gives: each case runs twice, once as it is and once with
/// `ICT_ARGUMENT_PARSER_ONLY=1`, each in its own copy of the same folder,
/// and the two runs must agree on exit status, standard output, standard
/// error and every file written.
struct QuickCommandTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var arguments: [String]
        var status: Int32
        var testDescription: String { "ict " + arguments.joined(separator: " ") }
    }

    static let cases: [Case] = [
        // convert: each output form, each way of naming the options.
        Case(arguments: ["convert", "small.plist", "--format", "xml1"], status: 0),
        Case(arguments: ["convert", "--format", "xml1", "small.plist", "-o", "-"], status: 0),
        Case(arguments: ["convert", "small.plist", "--format=json", "-o", "out.json"], status: 0),
        Case(arguments: ["convert", "small.plist", "--format", "binary1", "--output", "out.plist"], status: 0),
        Case(arguments: ["convert", "small.xml", "--format", "binary1", "--output=out.bin"], status: 0),
        Case(arguments: ["convert", "small.xml", "--format", "json"], status: 0),
        Case(arguments: ["convert", "archive.plist", "--format", "json", "-o", "archive.json"], status: 0),
        Case(arguments: ["convert", "archive.plist", "--format", "keyed-archive-xml", "-o", "archive.xml"], status: 0),
        // convert: bad input and refusals.
        Case(arguments: ["convert", "missing.plist", "--format", "xml1"], status: 1),
        Case(arguments: ["convert", "empty.plist", "--format", "xml1", "-o", "kept.txt"], status: 1),
        Case(arguments: ["convert", "broken.plist", "--format", "json"], status: 1),
        Case(arguments: ["convert", "folder", "--format", "xml1"], status: 1),
        Case(arguments: ["convert", "small.plist", "--format", "keyed-archive"], status: 1),
        Case(arguments: ["convert", "small.plist", "--format", "xml1", "-o", "no-such-folder/out.xml"], status: 1),
        // convert: shapes left to argument-parser, which must still answer the same.
        Case(arguments: ["convert", "small.plist", "--format", "yaml"], status: 64),
        Case(arguments: ["convert", "small.plist"], status: 64),
        Case(arguments: ["convert", "small.plist", "--format", "xml1", "--format", "json"], status: 0),
        Case(arguments: ["convert", "small.plist", "--format", "zip", "-o", "-"], status: 64),
        Case(arguments: ["convert", "small.plist", "small.xml", "--format", "xml1"], status: 64),
        Case(arguments: ["convert", "small.plist", "--format", "xml1", "-o"], status: 64),
        Case(arguments: ["convert", "small.plist", "--format", "xml1", "--sort-keys"], status: 0),
        // get: each form, a key path into an array, bad key paths.
        Case(arguments: ["get", "small.plist", "CFBundleName"], status: 0),
        Case(arguments: ["get", "small.plist", "Items.3"], status: 0),
        Case(arguments: ["get", "small.plist", "Nested", "--format", "json"], status: 0),
        Case(arguments: ["get", "small.plist", "Nested.c", "--format", "xml1", "-o", "nested.xml"], status: 0),
        Case(arguments: ["get", "small.xml", "Data"], status: 0),
        Case(arguments: ["get", "archive.plist", "$top.DATA"], status: 0),
        Case(arguments: ["get", "small.plist", "Missing.key"], status: 1),
        Case(arguments: ["get", "small.plist", "Items.99"], status: 1),
        Case(arguments: ["get", "small.plist", "CFBundleName.more"], status: 1),
        Case(arguments: ["get", "missing.plist", "CFBundleName"], status: 1),
        Case(arguments: ["get", "small.plist", "Nested", "--format", "yaml"], status: 64),
        Case(arguments: ["get", "small.plist"], status: 64),
        // types conforms: yes, no, unknown types.
        Case(arguments: ["types", "conforms", "public.png", "public.image"], status: 0),
        Case(arguments: ["types", "conforms", "public.png", "public.text"], status: 1),
        Case(arguments: ["types", "conforms", "com.example.unknown", "public.data"], status: 1),
        Case(arguments: ["types", "conforms", "public.png"], status: 64),
    ]

    /// A folder of inputs: property lists written by python3's plistlib (binary
    /// and XML), a keyed archive from the repository's fixtures, an empty
    /// file, a truncated one and a directory.
    static func makeInputs(in folder: URL) throws {
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("folder"), withIntermediateDirectories: true)
        let script = """
            import plistlib, sys
            value = {"CFBundleName": "Friend", "Items": [1, 2, 3, "four", True, 3.5],
                     "Nested": {"a": "b" * 40, "c": [{"x": 1}, {"y": 2}]}, "Data": b"\\x00\\x01\\x02"}
            binary = plistlib.dumps(value, fmt=plistlib.FMT_BINARY)
            open(sys.argv[1] + "/small.plist", "wb").write(binary)
            open(sys.argv[1] + "/small.xml", "wb").write(plistlib.dumps(value))
            open(sys.argv[1] + "/broken.plist", "wb").write(binary[:len(binary) // 2])
            open(sys.argv[1] + "/empty.plist", "wb").write(b"")
            open(sys.argv[1] + "/kept.txt", "wb").write(b"kept\\n")
            """
        let made = try ProgramRunner.run("python3", ["-c", script, folder.path])
        try #require(made.status == 0, "python3: \(made.stderr)")
        let archive = Repository.root.appendingPathComponent("SampleDocs/Rocket.ict/ctdocument.metadata")
        try FileManager.default.copyItem(at: archive, to: folder.appendingPathComponent("archive.plist"))
    }

    /// Every regular file in `folder`, by name, with its bytes.
    static func files(in folder: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            let url = folder.appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue {
                files[name] = try Data(contentsOf: url)
            }
        }
        return files
    }

    @Test(arguments: cases)
    func givesWhatArgumentParsersPathGives(_ testCase: Case) throws {
        let root = try ScratchFolder.make("ict-quick")
        defer { try? FileManager.default.removeItem(at: root) }
        let quick = root.appendingPathComponent("quick")
        let parsed = root.appendingPathComponent("parsed")
        try Self.makeInputs(in: quick)
        try FileManager.default.copyItem(at: quick, to: parsed)

        let environment = ProcessInfo.processInfo.environment
        var parserOnly = environment
        parserOnly["ICT_ARGUMENT_PARSER_ONLY"] = "1"
        let quickRun = try ProgramRunner.run(ICTRunner.executable.path, testCase.arguments, environment: environment, in: quick)
        let parsedRun = try ProgramRunner.run(ICTRunner.executable.path, testCase.arguments, environment: parserOnly, in: parsed)

        #expect(parsedRun.status == testCase.status, "argument-parser's path: \(parsedRun.stderr)")
        #expect(quickRun.status == parsedRun.status)
        #expect(quickRun.stdout == parsedRun.stdout)
        #expect(quickRun.stderr == parsedRun.stderr)
        #expect(try Self.files(in: quick) == Self.files(in: parsed))
    }
}
