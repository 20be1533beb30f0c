import Foundation
import PropertyList
import TestSupport
import Testing

/// `ict get`, `type`, `set KEYPATH`, `insert`, `remove` and `create-plist`,
/// run as the built binary: each verb, each value type, key paths into
/// keyed archives and `.ict` documents, and bad input (a clear error naming
/// the key path, exit status 1, the file's bytes unchanged).
struct KeyPathCommandTests {
    static let xml = """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict><key>name</key><string>Ada</string><key>list</key><array><integer>1</integer><integer>2</integer></array>\
        <key>inner</key><dict><key>a.b</key><true/></dict></dict></plist>
        """

    /// A folder with `f.plist` (XML), `f.bplist` (binary), `f.json`, `o.txt` (OpenStep), an archive and Coffee.ict.
    static func folder() throws -> String {
        let folder = try ScratchFolder.make("keypath").path
        let value = try PropertyListReader().read(Data(xml.utf8)).value
        try Data(xml.utf8).write(to: URL(fileURLWithPath: folder + "/f.plist"))
        try Data(BinaryPropertyListWriter().encode(value)).write(to: URL(fileURLWithPath: folder + "/f.bplist"))
        try Data(#"{"name": "Ada", "list": [1, 2]}"#.utf8).write(to: URL(fileURLWithPath: folder + "/f.json"))
        try Data("{ name = Ada; }".utf8).write(to: URL(fileURLWithPath: folder + "/o.txt"))
        let archive: PropertyListValue = [
            "$archiver": "NSKeyedArchiver", "$version": 100000, "$top": ["root": .uid(1)],
            "$objects": [
                "$null", ["NSString": .uid(2), "$class": .uid(3)], "hello",
                ["$classname": "NSBox", "$classes": ["NSBox", "NSObject"]],
            ],
        ]
        try Data(BinaryPropertyListWriter().encode(archive)).write(to: URL(fileURLWithPath: folder + "/a.archive"))
        try FileManager.default.copyItem(atPath: Repository.root.path + "/SampleDocs/Coffee.ict", toPath: folder + "/Coffee.ict")
        return folder
    }

    static func bytes(_ path: String) -> Data { FileManager.default.contents(atPath: path) ?? Data() }

    /// `get` on a binary file reads the trailer and the objects on the key
    /// path only (`BinaryPropertyListDocument`), so a large file answers in
    /// the time of a small one: an object elsewhere that is broken is never
    /// read. Asking for that object, or validating the file, still fails
    /// with the reader's error. The file is plistlib's, with the marker of
    /// the string "hello" (0x55, ASCII string of 5) changed to 0x75, a
    /// marker no binary property list uses.
    @Test func getReadsOnlyTheObjectsOnItsKeyPath() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = folder + "/damaged.bplist"
        let script = """
            import plistlib, sys
            data = plistlib.dumps({"a": {"b": [10, 20]}, "z": "hello"}, fmt=plistlib.FMT_BINARY)
            assert data.count(b"\\x55hello") == 1
            open(sys.argv[1], "wb").write(data.replace(b"\\x55hello", b"\\x75hello"))
            """
        let made = try ProgramRunner.run("python3", ["-c", script, file])
        try #require(made.status == 0, "python3: \(made.stderr)")
        let found = try ICTRunner.run(["get", file, "a.b.1"])
        #expect(found.status == 0, "\(found.stderr)")
        #expect(found.stdout == "20\n")
        let json = try ICTRunner.run(["get", file, "a.b", "--format", "json"])
        #expect(json.status == 0, "\(json.stderr)")
        #expect(json.stdout == "[\n  10,\n  20\n]\n")  // Python's json.dumps([10, 20], indent=2), and a newline.
        let broken = try ICTRunner.run(["get", file, "z"])
        #expect(broken.status == 1)
        #expect(broken.stderr.hasPrefix(file + ":byte "), "\(broken.stderr)")
        let missing = try ICTRunner.run(["get", file, "a.b.2"])
        #expect(missing.status == 1)
        #expect(missing.stderr.hasPrefix(file + ":"), "\(missing.stderr)")
        let validate = try ICTRunner.run(["validate", file])
        #expect(validate.status == 1)
    }

    @Test(arguments: [("name", "Ada\n"), ("list", "2\n"), ("list.1", "2\n"), ("inner.a\\.b", "true\n"), ("inner", "a.b\n")])
    func getPrintsRawValues(_ keyPath: String, _ expected: String) throws {
        let folder = try Self.folder()
        for file in ["f.plist", "f.bplist"] {
            let run = try ICTRunner.run(["get", folder + "/" + file, keyPath])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout == expected)
        }
    }

    @Test func getWritesFormats() throws {
        let folder = try Self.folder()
        let json = try ICTRunner.run(["get", folder + "/f.plist", "list", "--format", "json"])
        #expect(json.stdout == "[\n  1,\n  2\n]\n")
        let xml = try ICTRunner.run(["get", folder + "/f.bplist", "name", "--format", "xml1"])
        #expect(xml.stdout.contains("<string>Ada</string>"))
        let binary = try ICTRunner.run(["get", folder + "/f.plist", "inner", "--format", "binary1", "-o", folder + "/inner.bplist"])
        #expect(binary.status == 0)
        #expect(try PropertyListReader().read(Self.bytes(folder + "/inner.bplist")).value == ["a.b": true])
    }

    @Test(arguments: [("name", "string"), ("list", "array"), ("list.0", "integer"), ("inner", "dictionary"), ("inner.a\\.b", "bool")])
    func typeNamesTheType(_ keyPath: String, _ type: String) throws {
        let run = try ICTRunner.run(["type", try Self.folder() + "/f.bplist", keyPath])
        #expect(run.stdout == type + "\n")
    }

    static let typedValues: [([String], PropertyListValue)] = {
        var list: [([String], PropertyListValue)] = []
        list.append((["-string", "x"], .string("x")))
        list.append((["-integer", "-12"], .integer(-12)))
        list.append((["--integer", "18446744073709551615"], .integer(PropertyListInteger(UInt64.max))))
        list.append((["-float", "2.5"], .real(2.5)))
        list.append((["-bool", "yes"], .bool(true)))
        list.append((["-bool", "false"], .bool(false)))
        list.append((["-date", "2004-10-26T10:33:33Z"], .date(PropertyListDateFormat.parse("2004-10-26T10:33:33Z")!)))
        list.append((["-data", "AAEC"], .data(Data([0, 1, 2]))))
        list.append((["-xml", "<plist><array><string>q</string></array></plist>"], .array(["q"])))
        list.append((["-json", #"{"k": {"$data": "AAE="}}"#], .dictionary(["k": .data(Data([0, 1]))])))
        list.append((["--json-value", "[1]"], .array([1])))
        list.append((["-array"], .array([])))
        list.append((["-dictionary"], .dictionary([:])))
        return list
    }()

    @Test(arguments: typedValues)
    func setEachValueTypeInEachForm(_ value: [String], _ expected: PropertyListValue) throws {
        let folder = try Self.folder()
        for (file, format) in [("f.plist", PropertyListFormat.xml), ("f.bplist", .binary), ("f.json", .json)] {
            let path = folder + "/" + file
            let run = try ICTRunner.run(["set", path, "name"] + value)
            #expect(run.status == 0, "\(file): \(run.stderr)")
            let read = try PropertyListReader().read(Self.bytes(path))
            #expect(read.format == format, "written back in its own form")
            #expect(read.value["name"] == expected, "\(file)")
        }
    }

    @Test func insertAddsAndAppends() throws {
        let folder = try Self.folder(), path = folder + "/f.bplist"
        #expect(try ICTRunner.run(["insert", path, "list.0", "-integer", "0"]).status == 0)
        #expect(try ICTRunner.run(["insert", path, "list", "-integer", "3", "--append"]).status == 0)
        #expect(try ICTRunner.run(["insert", path, "inner.new", "-string", "n"]).status == 0)
        let value = try PropertyListReader().read(Self.bytes(path)).value
        #expect(value["list"] == [0, 1, 2, 3])
        #expect(value["inner"]?["new"] == "n")
    }

    @Test func removeRemoves() throws {
        let folder = try Self.folder(), path = folder + "/f.plist"
        #expect(try ICTRunner.run(["remove", path, "list.0"]).status == 0)
        #expect(try ICTRunner.run(["remove", path, "inner.a\\.b"]).status == 0)
        let value = try PropertyListReader().read(Self.bytes(path)).value
        #expect(value["list"] == [2])
        #expect(value["inner"] == [:])
    }

    @Test(arguments: ["xml1", "binary1", "json"])
    func createPlistMakesAnEmptyDictionaryAndNeverReplaces(_ format: String) throws {
        let folder = try Self.folder(), path = folder + "/new"
        #expect(try ICTRunner.run(["create-plist", path, "--format", format]).status == 0)
        #expect(try PropertyListReader().read(Self.bytes(path)).value == [:])
        let before = Self.bytes(folder + "/f.plist")
        let again = try ICTRunner.run(["create-plist", folder + "/f.plist"])
        #expect(again.status == 1)
        #expect(again.stderr.contains("already exists"))
        #expect(Self.bytes(folder + "/f.plist") == before)
    }

    @Test func keyPathsFollowAnArchivesReferences() throws {
        let folder = try Self.folder(), path = folder + "/a.archive"
        #expect(try ICTRunner.run(["get", path, "$top.root.NSString"]).stdout == "hello\n")
        #expect(try ICTRunner.run(["get", path, "$top.root.$class.$classname"]).stdout == "NSBox\n")
        #expect(try ICTRunner.run(["type", path, "$top.root"]).stdout == "dictionary\n")
        #expect(try ICTRunner.run(["type", path, "$objects.1.NSString"]).stdout == "uid\n", "without $top, the archive as it is")
        #expect(try ICTRunner.run(["set", path, "$top.root.NSString", "-string", "bye"]).status == 0)
        let value = try PropertyListReader().read(Self.bytes(path)).value
        #expect(value["$objects"]?.arrayValue?[2] == "bye", "the referenced object changed in place")
    }

    @Test func keyPathsReachIntoICTDocumentEntries() throws {
        let folder = try Self.folder(), document = folder + "/Coffee.ict"
        #expect(try ICTRunner.run(["get", document, "ctdocument.data:FIRST_NAME"]).stdout == "Coffee\n")
        #expect(try ICTRunner.run(["type", document, "ctdocument.data:PHOTO"]).stdout == "data\n")
        #expect(try ICTRunner.run(["get", document, "ctdocument.metadata:DISPLAY NAME"]).stdout == "Coffee\n")
        #expect(try ICTRunner.run(["set", document, "ctdocument.data:LAST_NAME", "-string", "Bean"]).status == 0)
        #expect(try ICTRunner.run(["get", document, "ctdocument.data:LAST_NAME"]).stdout == "Bean\n")
        #expect(try ICTRunner.run(["validate", document]).status == 0)
        let bare = try ICTRunner.run(["get", document, "FIRST_NAME"])
        #expect(bare.status == 1)
        #expect(bare.stderr.contains("ENTRY:PATH"))
    }

    struct BadCase: CustomTestStringConvertible, Sendable {
        var arguments: [String]
        var message: String
        var testDescription: String { "ict " + arguments.joined(separator: " ") + " → \(message)" }
    }

    @Test(arguments: [
        BadCase(arguments: ["get", "FILE", "missing"], message: "no value at this key path (at missing)"),
        BadCase(arguments: ["type", "FILE", "name.deeper"], message: "no value at this key path (at name.deeper)"),
        BadCase(arguments: ["set", "FILE", "nothing.here", "-string", "x"], message: "no value at this key path (at nothing.here)"),
        BadCase(arguments: ["set", "FILE", "name.x", "-string", "x"], message: "'name' is neither an array nor a dictionary (at name.x)"),
        BadCase(arguments: ["insert", "FILE", "list.5", "-integer", "1"], message: "index 5 is past the end of the array at 'list' (at list.5)"),
        BadCase(arguments: ["insert", "FILE", "list.x", "-integer", "1"], message: "'list' is an array, and 'x' is not an index (at list.x)"),
        BadCase(arguments: ["insert", "FILE", "name", "-string", "again"], message: "a value already exists at this key path (replace it instead) (at name)"),
        BadCase(arguments: ["insert", "FILE", "name", "-string", "x", "--append"], message: "not an array, so nothing can be appended to it (at name)"),
        BadCase(arguments: ["remove", "FILE", "list.2"], message: "no value at this key path (at list.2)"),
        BadCase(arguments: ["remove", "FILE", "inner.a.b"], message: "no value at this key path (at inner.a.b)"),
        BadCase(
            arguments: ["get", "FILE", "name", "-o", "/nonexistent/folder/out"], message: "cannot open the folder to write into: No such file or directory"),
    ])
    func badInputFailsNamingTheKeyPathAndLeavesTheFile(_ testCase: BadCase) throws {
        let folder = try Self.folder()
        for file in ["f.plist", "f.bplist"] {
            let path = folder + "/" + file
            let before = Self.bytes(path)
            let run = try ICTRunner.run(testCase.arguments.map { $0 == "FILE" ? path : $0 })
            #expect(run.status == 1)
            #expect(run.stderr.contains(": error: ") && run.stderr.contains(testCase.message), "\(run.stderr)")
            #expect(Self.bytes(path) == before, "\(file) unchanged")
        }
    }

    @Test func openStepIsReadButNotWritten() throws {
        let folder = try Self.folder(), path = folder + "/o.txt"
        #expect(try ICTRunner.run(["get", path, "name"]).stdout == "Ada\n")
        let before = Self.bytes(path)
        let run = try ICTRunner.run(["set", path, "name", "-string", "B"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("OpenStep form is read only"))
        #expect(Self.bytes(path) == before)
    }

    @Test func badValuesAreUsageErrors() throws {
        let folder = try Self.folder()
        for value in [["-integer", "1x"], ["-float", "x"], ["-bool", "maybe"], ["-date", "today"], ["-data", "%%"], ["-json", "{"]] {
            let run = try ICTRunner.run(["set", folder + "/f.plist", "name"] + value)
            #expect(run.status == 64, "\(value)")
            #expect(run.stderr.hasPrefix("ict: error: "))
        }
        #expect(try ICTRunner.run(["set", folder + "/f.plist", "name"]).status == 64, "no value")
        #expect(try ICTRunner.run(["set", folder + "/f.plist", "name", "-string", "a", "-integer", "1"]).status == 64, "two values")
    }
}
