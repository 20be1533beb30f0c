import Foundation
import PropertyList
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `ict plutil` against Apple's own `plutil` (swift-corelibs-foundation's
/// Linux build, shipped with the toolchain at /opt/swift/usr/bin/plutil).
///
/// Each case runs both programs with the same arguments, standard input and
/// input files, each in its own fresh temporary folder, and compares
/// standard output, standard error, the exit status and every file in the
/// folder afterwards (names and bytes). Odd-numbered cases run `ict` through
/// a link named `plutil`, even ones as `ict plutil`.
///
/// Normalised, and only so:
/// - binary and compact JSON output (on standard output or in a file) that
///   differs in bytes is compared as decoded values, as Apple's Linux build
///   orders dictionary keys by Swift's per-process random hash seed (its
///   output differs from run to run); such matches are counted apart;
/// - cases marked `parserWording` compare the message of a parser's
///   complaint (`Property List error: … / JSON error: …`, `-lint`'s `(…)`)
///   only up to its first word: the wording of a reader's complaint is ours.
///
/// Cases with a `deviation` are where we follow Apple's manual, plutil(1),
/// and not the Linux build; for them only ict's own exit status is checked
/// against the expected one, and the reason is the case's description.
struct PlutilDifferentialTests {
    static let applePlutil = "/opt/swift/usr/bin/plutil"
    static var applePlutilExists: Bool { FileManager.default.isExecutableFile(atPath: applePlutil) }

    struct Case: CustomTestStringConvertible, Sendable {
        var number = 0
        var arguments: [String]
        var stdin: String?
        var parserWording = false
        /// Why we differ from the Linux build on purpose, and the exit status we give.
        var deviation: (reason: String, status: Int32)?

        var testDescription: String {
            let shown = arguments.map { $0.isEmpty || $0.contains(" ") ? "'\($0)'" : $0 }.joined(separator: " ")
            var text = "#\(number) plutil \(shown)"
            if let stdin { text += " < \(stdin.prefix(20).replacingOccurrences(of: "\n", with: " "))" }
            if let deviation { text += " [deviates: \(deviation.reason)]" }
            return text
        }
    }

    // MARK: Input files, the same in both folders

    static let xml = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<key>name</key>
        \t<string>Ada "Countess" / Lovelace</string>
        \t<key>count</key>
        \t<integer>42</integer>
        \t<key>negative</key>
        \t<integer>-7</integer>
        \t<key>ratio</key>
        \t<real>2.5</real>
        \t<key>whole</key>
        \t<real>3</real>
        \t<key>on</key>
        \t<true/>
        \t<key>off</key>
        \t<false/>
        \t<key>when</key>
        \t<date>2004-10-26T10:33:33Z</date>
        \t<key>blob</key>
        \t<data>PGJpbmFyeSBndW5rPg==</data>
        \t<key>list</key>
        \t<array>
        \t\t<string>x</string>
        \t\t<integer>1</integer>
        \t\t<array>
        \t\t\t<string>deep</string>
        \t\t</array>
        \t</array>
        \t<key>inner</key>
        \t<dict>
        \t\t<key>k</key>
        \t\t<string>v</string>
        \t\t<key>K10</key>
        \t\t<integer>10</integer>
        \t\t<key>K9</key>
        \t\t<integer>9</integer>
        \t</dict>
        \t<key>dotted.key</key>
        \t<string>dot</string>
        \t<key>empty</key>
        \t<dict/>
        \t<key>none</key>
        \t<array/>
        \t<key>text</key>
        \t<string>line one
        line two\\s\\.</string>
        </dict>
        </plist>

        """

    /// Strings, numbers, arrays and dictionaries only: what Objective-C literals can hold.
    static let plain = """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0">
        <dict>
        \t<key>b</key><string>two</string>
        \t<key>a</key><array><integer>1</integer><real>1.5</real><true/><string>q"uote</string></array>
        \t<key>B</key><dict><key>only</key><false/></dict>
        </dict>
        </plist>

        """

    static let files: [String: String] = [
        "x.plist": xml,
        "plain.plist": plain,
        "my-file name.plist": plain,
        "list.plist": "<plist version=\"1.0\"><array><string>a</string><string>b</string><array/></array></plist>\n",
        "one.plist": "<plist version=\"1.0\"><dict><key>k</key><string>v</string></dict></plist>\n",
        "j.json": #"{"name": "Ada", "n": 3, "r": 0.5, "t": true, "arr": [1, "two", {"x": 1}], "o": {"$data": "AAEC"}}"#,
        "arr.json": "[1, 2.25, \"three\", false]",
        "null.json": #"{"a": null}"#,
        "o.txt": "{ a = 1; b = (x, \"y z\"); c = { d = e; }; }\n",
        "bad.txt": "garbage<\n",
        "bad.plist": "<plist version=\"1.0\"><dict><key>a</key><integer>x</integer></dict></plist>\n",
        "unclosed.plist": "<plist version=\"1.0\"><dict><key>a</key>\n",
        "empty.plist": "",
        "scalar.json": "7",
        "quoted.txt": "\"just a string\"",
        // A CR LF inside a string (escaped by the literals one scalar at a time), a real
        // printed with %f, and a name whose symbols the variable name drops.
        "crlf €+.plist": "<plist version=\"1.0\"><dict><key>s</key><string>a&#13;&#10;b</string><key>r</key><real>123456.789</real></dict></plist>\n",
    ]

    /// Binary files, made from the XML ones by our writer with Foundation checking nothing: written once, copied.
    static let binaryFiles: [String: [UInt8]] = {
        var result: [String: [UInt8]] = [:]
        for (name, source) in [("b.plist", xml), ("bplain.plist", plain)] {
            let value = try! PropertyListReader().read(Data(source.utf8)).value
            result[name] = try! BinaryPropertyListWriter().encode(value)
        }
        result["trunc.plist"] = Array(result["b.plist"]!.prefix(40))
        return result
    }()

    // MARK: The cases

    static let cases: [Case] = {
        var list: [Case] = []
        func add(_ arguments: [String], stdin: String? = nil, parser: Bool = false, deviation: (String, Int32)? = nil) {
            list.append(Case(arguments: arguments, stdin: stdin, parserWording: parser, deviation: deviation))
        }
        let good = ["x.plist", "b.plist", "plain.plist", "list.plist", "one.plist", "j.json", "arr.json", "o.txt", "quoted.txt"]
        let bad = ["bad.txt", "bad.plist", "unclosed.plist", "empty.plist", "trunc.plist", "missing.plist", "dir", "null.json", "scalar.json"]

        // -lint, the default verb, -s, several files.
        for file in good + bad { add(["-lint", file], parser: true) }
        for file in ["x.plist", "b.plist", "bad.txt", "j.json"] {
            add([file], parser: true); add(["-s", file], parser: true); add(["-lint", "-s", file], parser: true)
        }
        add(["-lint", "x.plist", "b.plist", "missing.plist", "one.plist"])
        add(["-lint", "-o", "out", "x.plist"]); add(["-lint", "-e", "xml", "x.plist"]); add(["-lint", "-x", "x.plist"])
        add(["-lint", "-"], stdin: xml); add(["-lint", "-"], stdin: "nonsense <", parser: true); add(["-lint", "-"], stdin: "")
        add(["-lint", "--", "x.plist"])

        // -convert to each format, to standard output and in place, from each readable form.
        for format in ["xml1", "binary1", "json", "swift", "objc"] {
            for file in good { add(["-convert", format, "-o", "-", file]) }
            for file in ["x.plist", "b.plist", "j.json", "plain.plist", "my-file name.plist", "o.txt"] { add(["-convert", format, file]) }
            for file in ["bad.txt", "missing.plist", "empty.plist", "null.json"] { add(["-convert", format, file], parser: true) }
            add(["-convert", format, "-o", "-", "-"], stdin: plain)
            add(["-convert", format, "-o", "out.result", "plain.plist"])
            add(["-convert", format, "-e", "converted", "plain.plist"])
            add(["-convert", format, "-s", "-o", "-", "one.plist"])
        }
        add(["-convert", "json", "-r", "-o", "-", "plain.plist"]); add(["-convert", "json", "-r", "-o", "-", "j.json"])
        add(["-convert", "json", "-r", "-o", "-", "x.plist"]); add(["-convert", "json", "-r", "list.plist"])
        for format in ["swift", "objc"] { add(["-convert", format, "-o", "-", "crlf €+.plist"]); add(["-convert", format, "crlf €+.plist"]) }
        add(["-convert", "objc", "-header", "plain.plist"]); add(["-convert", "objc", "-header", "-o", "lit.m", "plain.plist"])
        add(["-convert", "xml1", "-header", "plain.plist"])
        add(["-convert", "NoConversion", "-o", "-", "x.plist"]); add(["-convert", "NoConversion", "j.json"]); add(["-convert", "NoConversion", "o.txt"])
        add(["-convert", "openStep", "x.plist"]); add(["-convert", "raw", "-o", "-", "one.plist"]); add(["-convert", "type", "-o", "-", "one.plist"])
        add(["-convert", "yaml", "x.plist"]); add(["-convert"]); add(["-convert", "xml1"])
        add(["-convert", "xml1", "-o", "nodir/out.plist", "x.plist"]); add(["-convert", "xml1", "-o", "-", "x.plist", "one.plist"])
        add(["-convert", "xml1", "-"], stdin: plain)
        add(["-convert", "binary1", "-o", "same.plist", "x.plist", "one.plist"])

        // -p.
        for file in good + ["bad.txt", "missing.plist"] { add(["-p", file], parser: true) }
        add(["-p", "-"], stdin: plain); add(["-p", "-o", "x", "x.plist"]); add(["-p", "-e", "x", "x.plist"]); add(["-p", "-s", "one.plist"])

        // -extract and -type: every kind of value, every output format.
        let keyPaths = [
            "name", "count", "negative", "ratio", "whole", "on", "off", "when", "blob", "list", "list.0", "list.1", "list.2",
            "list.2.0", "inner", "inner.k", "dotted\\.key", "empty", "none", "text", "missing", "list.9", "list.x",
            "name.deeper", "", "inner.", "list.-1",
        ]
        for keyPath in keyPaths {
            add(["-extract", keyPath, "raw", "x.plist"])
            add(["-type", keyPath, "b.plist"])
        }
        for keyPath in ["name", "count", "ratio", "on", "when", "blob", "list", "inner", "empty", "none", "missing"] {
            for format in ["xml1", "binary1", "json"] { add(["-extract", keyPath, format, "-o", "-", "x.plist"]) }
        }
        for keyPath in ["list", "inner", "name"] { add(["-extract", keyPath, "json", "-r", "-o", "-", "x.plist"]) }
        add(["-extract", "inner", "xml1", "x.plist"]); add(["-extract", "name", "json", "-o", "n.json", "x.plist"])
        add(["-extract", "name", "raw", "-n", "x.plist"]); add(["-extract", "count", "raw", "-o", "-", "x.plist"])
        add(["-extract", "name", "raw", "-o", "name.txt", "x.plist"]); add(["-type", "list", "-n", "x.plist"])
        add(["-extract", "arr.1", "raw", "j.json"]); add(["-extract", "1", "raw", "arr.json"]); add(["-type", "c.d", "o.txt"])
        add(["-extract", "name", "raw", "-"], stdin: xml); add(["-extract", "name", "swift", "-o", "-", "x.plist"])
        add(["-extract", "name", "yaml", "x.plist"]); add(["-extract"]); add(["-extract", "name"])
        for (keyPath, type) in [
            ("name", "string"), ("name", "bool"), ("count", "integer"), ("ratio", "float"), ("on", "bool"), ("on", "integer"),
            ("when", "date"), ("blob", "data"), ("list", "array"), ("inner", "dictionary"), ("inner", "array"),
        ] {
            add(["-extract", keyPath, "raw", "-expect", type, "x.plist"])
            add(["-type", keyPath, "-expect", type, "x.plist"])
        }
        add(["-extract", "name", "raw", "-expect", "thing", "x.plist"]); add(["-extract", "name", "raw", "-expect"]); add(["-type"])

        // -insert, -replace and -remove: every value type, in place and to standard output.
        let values: [[String]] = [
            ["-bool", "YES"], ["-bool", "true"], ["-bool", "no"], ["-bool", "maybe"], ["-integer", "12"],
            ["-integer", "-3"], ["-integer", "abc"], ["-integer", "  8x"], ["-float", "2.75"], ["-float", "-1e3"],
            ["-float", "x"], ["-string", "hello world"], ["-string", ""], ["-date", "2011-03-01T12:00:00Z"],
            ["-data", "AAECAw=="], ["-data", "%%%"], ["-xml", "<plist><array><integer>1</integer></array></plist>"],
            ["-json", #"{"k": [1, 2]}"#], ["-json", "5"], ["-array"], ["-dictionary"],
        ]
        for value in values {
            add(["-insert", "added"] + value + ["-o", "-", "one.plist"])
            add(["-replace", "k"] + value + ["-o", "-", "one.plist"])
        }
        for value in [["-string", "s"], ["-integer", "1"], ["-date", "2011-03-01T12:00:00Z"], ["-array"]] {
            add(["-insert", "added"] + value + ["plain.plist"])
            add(["-insert", "added"] + value + ["bplain.plist"])
            add(["-insert", "added"] + value + ["j.json"])
        }
        add(["-insert", "added", "-string", "s", "o.txt"])
        add(["-insert", "k", "-string", "again", "-o", "-", "one.plist"])
        add(["-insert", "new.deeper", "-string", "s", "-o", "-", "one.plist"])
        add(["-insert", "k.deeper", "-string", "s", "-o", "-", "one.plist"])
        add(["-insert", "0", "-string", "first", "-o", "-", "list.plist"])
        add(["-insert", "1", "-string", "middle", "-o", "-", "list.plist"])
        add(["-insert", "3", "-string", "end", "-o", "-", "list.plist"])
        add(["-insert", "4", "-string", "far", "-o", "-", "list.plist"])
        add(["-insert", "x", "-string", "bad", "-o", "-", "list.plist"])
        add(["-insert", "2", "-string", "in", "-append", "-o", "-", "list.plist"])
        add(["-insert", "0", "-string", "in", "-append", "-o", "-", "list.plist"])
        add(["-insert", "2.0", "-string", "nested", "-o", "-", "list.plist"])
        add(["-insert", "5.0", "-string", "nested", "-o", "-", "list.plist"])
        add(["-insert", "list", "-string", "more", "-append", "-o", "-", "x.plist"])
        add(["-insert", "name", "-string", "more", "-append", "-o", "-", "x.plist"])
        add(["-insert", "fresh", "-string", "more", "-append", "-o", "-", "one.plist"])
        add(["-insert", "dotted\\.key2", "-string", "escaped", "-o", "-", "one.plist"])
        add(["-insert", "list.2.1", "-integer", "5", "-o", "-", "x.plist"])
        add(["-insert", "inner.new", "-bool", "YES", "-o", "-", "x.plist"])
        add(["-insert", "name.x", "-bool", "YES", "-o", "-", "x.plist"])
        add(["-insert", "", "-string", "empty key", "-o", "-", "one.plist"])
        add(["-insert", "added", "-string", "s", "-o", "-", "-"], stdin: plain)
        add(["-insert", "when2", "-date", "2011-03-01T12:00:00Z", "-o", "-", "j.json"])
        add(["-replace", "k", "-string", "w", "-append", "-o", "-", "one.plist"])
        add(["-replace", "new", "-string", "w", "-o", "-", "one.plist"])
        add(["-replace", "3", "-string", "w", "-o", "-", "list.plist"])
        add(["-replace", "inner.k", "-json", "[true]", "-o", "-", "x.plist"])
        add(["-insert"]); add(["-insert", "k"]); add(["-insert", "k", "-string"]); add(["-insert", "k", "-colour", "red", "one.plist"])
        add(["-insert", "k", "-string", "v"]); add(["-replace", "k", "-string", "v", "-q", "one.plist"])
        for keyPath in ["k", "missing", "", "k.deeper"] { add(["-remove", keyPath, "-o", "-", "one.plist"]) }
        for keyPath in ["0", "2", "3", "x", "2.0"] { add(["-remove", keyPath, "-o", "-", "list.plist"]) }
        for keyPath in ["name", "list.1", "inner.K9", "dotted\\.key", "list.2.0"] {
            add(["-remove", keyPath, "x.plist"]); add(["-remove", keyPath, "b.plist"])
        }
        add(["-remove", "arr.0", "j.json"]); add(["-remove", "a", "o.txt"]); add(["-remove"]); add(["-remove", "k", "bad.txt"], parser: true)
        add(["-remove", "k", "-o", "-", "-"], stdin: "<plist version=\"1.0\"><dict><key>k</key><string>v</string></dict></plist>")

        // -create.
        for format in ["xml1", "binary1", "json", "swift", "objc", "raw", "type", "openStep", "NoConversion", "yaml"] {
            add(["-create", format, "-"]); add(["-create", format, "new.file"])
        }
        add(["-create", "json", "-r", "-"]); add(["-create", "raw", "-n", "-"]); add(["-create"]); add(["-create", "xml1"])
        add(["-create", "xml1", "nodir/new.plist"])

        // The command line itself.
        add([]); add(["-lint"]); add(["-o"]); add(["-e"]); add(["-lint", "x.plist", "-o"]); add(["-bogus", "x.plist"])

        // Where we follow the manual, not the Linux build.
        add(["-help"], deviation: ("the help text is our own wording of the same options", 0))
        add(["-lint", "--", "-s"], deviation: ("'--' ends the options, so '-s' is a file (the Linux build reads it as -s and finds no file)", 1))
        add(
            ["-replace", "0", "-string", "w", "-o", "-", "list.plist"],
            deviation: ("-replace at an array index replaces the element (the Linux build inserts before it)", 0))
        add(
            ["-insert", "7", "-string", "w", "-append", "-o", "-", "list.plist"],
            deviation: ("-append at an index past the end is an error (the Linux build crashes)", 1))
        add(
            ["-insert", "d", "-date", "not a date", "-o", "-", "one.plist"],
            deviation: ("-date with text that is not a date is an error (the Linux build crashes)", 1))

        for index in list.indices { list[index].number = index + 1 }
        return list
    }()

    @Test func atLeastThreeHundredCases() {
        #expect(Self.cases.count >= 300, "\(Self.cases.count) cases")
    }

    // MARK: Running

    struct Outcome: Equatable {
        var stdout: [UInt8]
        var stderr: String
        var status: Int32
        var files: [String: [UInt8]]
    }

    /// A fresh folder holding the input files.
    static func makeFolder() throws -> URL {
        let folder = try ScratchFolder.make("plutil-diff")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("dir"), withIntermediateDirectories: true)
        for (name, text) in files { try Data(text.utf8).write(to: folder.appendingPathComponent(name)) }
        for (name, bytes) in binaryFiles { try Data(bytes).write(to: folder.appendingPathComponent(name)) }
        return folder
    }

    /// `ict` through a link named `plutil`.
    static let linkedPlutil: String = {
        // Without a folder, the link and every test through it fail, each saying it cannot run plutil.
        let folder = (try? ScratchFolder.make("plutil-link")) ?? FileManager.default.temporaryDirectory
        let link = folder.appendingPathComponent("plutil").path
        try? FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: ICTRunner.executable.path)
        return link
    }()

    private typealias AddChangeDirectory = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32

    /// posix_spawn_file_actions_addchdir_np (glibc 2.29, macOS 10.15), which Swift's C modules do not declare.
    private static func addChangeDirectory(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ path: String) -> Int32 {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "posix_spawn_file_actions_addchdir_np") else { return -1 }
        return unsafeBitCast(symbol, to: AddChangeDirectory.self)(actions, path)
    }

    /// Runs `program` in `folder` with posix_spawn (Foundation's `Process` is several times slower to start).
    static func run(_ program: String, _ arguments: [String], stdin: String?, in folder: URL) throws -> Outcome {
        let base = folder.path + ".io"
        try Data((stdin ?? "").utf8).write(to: URL(fileURLWithPath: base + ".in"))
        defer { for suffix in [".in", ".out", ".err"] { unlink(base + suffix) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, base + ".in", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, base + ".out", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, base + ".err", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard Self.addChangeDirectory(&actions, folder.path) == 0 else { throw POSIXError(.ENOSYS) }
        let argv: [UnsafeMutablePointer<CChar>?] = ([program] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, program, &actions, nil, argv, environ)
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let exitStatus: Int32 = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        var files: [String: [UInt8]] = [:]
        let enumerator = FileManager.default.enumerator(atPath: folder.path)
        while let name = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            let path = folder.appendingPathComponent(name).path
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
                files[name] = [UInt8](FileManager.default.contents(atPath: path) ?? Data())
            }
        }
        return Outcome(
            stdout: [UInt8](FileManager.default.contents(atPath: base + ".out") ?? Data()),
            stderr: String(decoding: FileManager.default.contents(atPath: base + ".err") ?? Data(), as: UTF8.self),
            status: exitStatus, files: files)
    }

    /// Output equal as values when the bytes differ: binary or JSON whose
    /// dictionaries Apple's Linux build writes in hash-seed order.
    static func equalUpToKeyOrder(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        func decoded(_ bytes: [UInt8]) -> PropertyListValue? {
            let data = Data(bytes)
            if bytes.starts(with: Array("bplist00".utf8)) { return try? BinaryPropertyListReader().read(data) }
            return try? JSONPropertyListReader(interpretsTags: false).read(data)
        }
        func sorted(_ value: PropertyListValue) -> PropertyListValue {
            switch value {
            case .array(let elements): return .array(elements.map(sorted))
            case .dictionary(let dictionary):
                return .dictionary(.init(uniqueKeysWithValues: dictionary.keys.sorted().map { ($0, sorted(dictionary[$0]!)) }))
            default: return value
            }
        }
        guard let x = decoded(a), let y = decoded(b) else { return false }
        return sorted(x) == sorted(y)
    }

    static func normalisedParserWording(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            if let range = line.range(of: "Property List error: ") { return line[..<range.upperBound] + "…" }
            if let range = line.range(of: ": ("), !line.contains("The operation could not be completed") { return line[..<range.upperBound] + "…)" }
            return String(line)
        }.joined(separator: "\n")
    }

    @Test(
        .enabled(if: applePlutilExists, "Apple's plutil is not at /opt/swift/usr/bin/plutil: the differential test needs it"),
        arguments: cases)
    func matchesApplePlutil(_ testCase: Case) throws {
        let appleFolder = try Self.makeFolder(), ictFolder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(at: appleFolder); try? FileManager.default.removeItem(at: ictFolder) }
        let ours: Outcome
        if testCase.number % 2 == 1 {
            ours = try Self.run(Self.linkedPlutil, testCase.arguments, stdin: testCase.stdin, in: ictFolder)
        } else {
            ours = try Self.run(ICTRunner.executable.path, ["plutil"] + testCase.arguments, stdin: testCase.stdin, in: ictFolder)
        }
        if let deviation = testCase.deviation {
            #expect(ours.status == deviation.status, "\(ours.stderr)")
            return
        }
        let apple = try Self.run(Self.applePlutil, testCase.arguments, stdin: testCase.stdin, in: appleFolder)
        let unordered = ours.stdout != apple.stdout || apple.files.contains { ours.files[$0.key] != $0.value }
        let reworded = testCase.parserWording && ours.stderr != apple.stderr
        if unordered || reworded {
            // Said so that the run shows which cases match only after normalising, and how.
            print(
                "≈ \(testCase.testDescription): "
                    + [
                        unordered ? "equal up to dictionary key order" : nil,
                        reworded ? "parser wording ours" : nil,
                    ].compactMap { $0 }.joined(separator: ", "))
        }
        #expect(ours.status == apple.status, "exit status")
        if ours.stdout != apple.stdout {
            #expect(
                Self.equalUpToKeyOrder(ours.stdout, apple.stdout),
                "stdout:\n--- ict\n\(String(decoding: ours.stdout, as: UTF8.self))\n--- plutil\n\(String(decoding: apple.stdout, as: UTF8.self))")
        }
        let (ourErrors, appleErrors) =
            testCase.parserWording
            ? (Self.normalisedParserWording(ours.stderr), Self.normalisedParserWording(apple.stderr)) : (ours.stderr, apple.stderr)
        #expect(ourErrors == appleErrors, "stderr")
        #expect(ours.files.keys.sorted() == apple.files.keys.sorted(), "files written")
        for (name, bytes) in apple.files where ours.files[name] != bytes {
            #expect(
                Self.equalUpToKeyOrder(ours.files[name] ?? [], bytes),
                "file \(name):\n--- ict\n\(String(decoding: ours.files[name] ?? [], as: UTF8.self))\n--- plutil\n\(String(decoding: bytes, as: UTF8.self))")
        }
    }
}
