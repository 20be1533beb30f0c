import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Batches end to end (`FileList.swift`, `ConvertBatch.swift`): names from
/// `--files-from` (lines or `-0`), `--jsonl` lines, and their bad input.
/// Expected values come from the files each test writes.
struct BatchCommandTests {
    static let good = "<plist><dict><key>n</key><integer>7</integer></dict></plist>"
    static let bad = "<plist><dict><key>n</key><integer>x</integer></dict></plist>"

    /// A fresh folder holding good.plist and bad.plist (`n` = 7, and `n` = "x" in an <integer>, at line 1 column 26).
    private func folder() throws -> String {
        let folder = try ScratchFolder.make("batch").path
        try Data(Self.good.utf8).write(to: URL(fileURLWithPath: folder + "/good.plist"))
        try Data(Self.bad.utf8).write(to: URL(fileURLWithPath: folder + "/bad.plist"))
        return folder
    }

    private func lines(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map { try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }

    @Test func listNamesComeAfterTheArgumentsEmptyLinesSkippedAndCRDropped() throws {
        let f = try folder()
        // A list written on Windows, with an empty line and a blank one between names.
        let list = "\(f)/bad.plist\r\n\n\(f)/missing.plist\n\r\n\(f)/good.plist"
        let run = try ICTRunner.run(["validate", "--jsonl", "--files-from", "-", f + "/good.plist"], stdin: Data(list.utf8))
        #expect(run.status == 1)
        let results = try lines(run.stdout)
        #expect(results.map { $0["path"] as? String } == [f + "/good.plist", f + "/bad.plist", f + "/missing.plist", f + "/good.plist"])
        #expect(results.map { $0["ok"] as? Bool } == [true, false, false, true])
        #expect(results.map { $0["valid"] as? Bool } == [true, false, false, true])
        #expect(results[0]["format"] as? String == "xml")
        #expect((results[1]["problems"] as? [[String: Any]])?.first?["line"] as? Int == 1)
        #expect(run.stderr == "\(f)/bad.plist:1:26: error: \"x\" is not an integer (at n)\n\(f)/missing.plist: error: cannot open: No such file or directory\n")
    }

    @Test func withoutJSONLinesTheListIsValidatedAsArgumentsAre() throws {
        let f = try folder()
        let listPath = f + "/list.txt"
        try Data("\(f)/good.plist\n\(f)/good.plist\n".utf8).write(to: URL(fileURLWithPath: listPath))
        let run = try ICTRunner.run(["validate", "--files-from", listPath])
        #expect(run.status == 0)
        #expect(run.stdout == "\(f)/good.plist: valid XML property list\n\(f)/good.plist: valid XML property list\n")
        #expect(run.stderr.isEmpty)
    }

    @Test func nulSeparatedNamesKeepNewlinesCarriageReturnsAndBytesThatAreNotUTF8() throws {
        let f = try folder()
        let newline = f + "/a\nb.plist", carriage = f + "/c\r"
        try Data(Self.good.utf8).write(to: URL(fileURLWithPath: newline))
        try Data(Self.good.utf8).write(to: URL(fileURLWithPath: carriage))
        let latin1 = Array((f + "/caf").utf8) + [0xE9] + Array(".plist".utf8)
        let created = latin1.map { CChar(bitPattern: $0) } + [0]
        let descriptor = open(created, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        #expect(descriptor >= 0)
        _ = Self.bad.utf8CString.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count - 1) }
        close(descriptor)
        let list = Array(newline.utf8) + [0] + Array(carriage.utf8) + [0] + latin1 + [0]
        let run = try ICTRunner.run(["validate", "--files-from", "-", "-0"], stdin: Data(list))
        #expect(run.status == 1)
        // Shown escaped on standard output (`TerminalText`), so a name cannot forge a line.
        #expect(run.stdout == "\(f)/a\\nb.plist: valid XML property list\n\(f)/c\\r: valid XML property list\n")
        #expect(run.stderrBytes == latin1 + Array(":1:26: error: \"x\" is not an integer (at n)\n".utf8))
    }

    @Test func aMissingListFailsBeforeAnyFileIsRead() throws {
        let f = try folder()
        let run = try ICTRunner.run(["validate", "--jsonl", "--files-from", f + "/nope.txt", f + "/good.plist"])
        #expect(run.status == 1)
        #expect(run.stderr == "\(f)/nope.txt: error: cannot open the file list: No such file or directory\n")
        let results = try lines(run.stdout)
        #expect(results.count == 1)
        #expect(results.first?["path"] is NSNull)
        #expect(results.first?["ok"] as? Bool == false)
    }

    @Test func aListThatIsAFolderIsRefused() throws {
        let f = try folder()
        let run = try ICTRunner.run(["validate", "--files-from", f])
        #expect(run.status == 1)
        #expect(run.stderr == "\(f): error: is a directory, not a file list\n")
    }

    @Test func aNameLongerThanAnyPathIsRefusedNotHeld() throws {
        let run = try ICTRunner.run(["validate", "--files-from", "-", "--jsonl"], stdin: Data(repeating: UInt8(ascii: "a"), count: 1 << 20))
        #expect(run.status == 1)
        #expect(run.stderr == "<stdin>: error: a name in the file list is longer than 4096 bytes\n")
    }

    @Test func aDashInTheListIsTheFileNamedDash() throws {
        let run = try ICTRunner.run(["validate", "--files-from", "-", "--jsonl"], stdin: Data("-\n".utf8))
        #expect(run.status == 1)
        #expect(try lines(run.stdout).first?["path"] as? String == "./-")
        #expect(run.stderr == "./-: error: cannot open: No such file or directory\n")
    }

    @Test(arguments: [
        (["validate", "--json", "--jsonl", "x.plist"], "--json prints one document and --jsonl one line per file; choose one"),
        (["validate", "-0", "x.plist"], "--null says how the --files-from list is separated; name the list with --files-from"),
        (["list", "--jsonl"], "name a folder to list, or the documents with --files-from"),
        (["convert", "--format", "json", "--files-from", "-"], "with --files-from, -o names the folder the outputs are written in"),
        (
            ["convert", "--format", "zip", "--files-from", "-", "-o", "/tmp"],
            "--files-from converts property lists and keyed archives (and .ict documents to json); convert packages, zips and JSON exports one at a time"
        ),
        (
            ["convert", "x.plist", "--format", "json", "--jsonl", "-o", "/tmp/x.json"],
            "--jsonl prints a line for each input of --files-from; for one input use --json"
        ),
        (
            ["convert", "-", "--format", "json", "--files-from", "l", "-o", "/tmp"],
            "with --files-from every input is a file: standard input has no name to write its output under"
        ),
    ])
    func usageErrorsExitSixtyFour(_ arguments: [String], _ message: String) throws {
        let run = try ICTRunner.run(arguments)
        #expect(run.status == 64)
        #expect(run.stderr == "ict: error: \(message) (see 'ict \(arguments[0]) --help')\n")
    }

    @Test func standardInputCannotBeBothTheListAndAFile() throws {
        let run = try ICTRunner.run(["validate", "--files-from", "-", "-"], stdin: Data())
        #expect(run.status == 1)
        #expect(run.stderr == "<stdin>: error: standard input is the --files-from list, so it cannot also be a file (-)\n")
    }

    /// A line comes out as soon as its file is done, while the list is still
    /// being written: the list is read as a stream and each line flushed.
    @Test func eachLineArrivesBeforeTheListEnds() throws {
        let f = try folder()
        let process = Process()
        process.executableURL = ICTRunner.executable
        process.arguments = ["validate", "--jsonl", "--files-from", "-"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        input.fileHandleForWriting.write(Data("\(f)/good.plist\n".utf8))
        var ready = pollfd(fd: output.fileHandleForReading.fileDescriptor, events: Int16(POLLIN), revents: 0)
        #expect(poll(&ready, 1, 30_000) == 1, "no line while the list is open")
        let first = output.fileHandleForReading.availableData
        #expect(try lines(String(decoding: first, as: UTF8.self)).map { $0["path"] as? String } == [f + "/good.plist"])
        input.fileHandleForWriting.write(Data("\(f)/bad.plist\n".utf8))
        try input.fileHandleForWriting.close()
        let rest = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 1)
        #expect(try lines(String(decoding: rest, as: UTF8.self)).map { $0["ok"] as? Bool } == [false])
    }

    @Test func listReadsTheDocumentsNamedInTheList() throws {
        let samples = Repository.root.path + "/SampleDocs"
        let list = "\(samples)/Rocket.ict/\n\(samples)/malformed/unknown-version.ict\n\(samples)/Coffee.ict\n"
        let run = try ICTRunner.run(["list", "--files-from", "-", "--jsonl"], stdin: Data(list.utf8))
        #expect(run.status == 1)
        let results = try lines(run.stdout)
        // In the list's order, a trailing slash dropped, as the folder's listing names them.
        #expect(results.map { $0["path"] as? String } == ["\(samples)/Rocket.ict", "\(samples)/malformed/unknown-version.ict", "\(samples)/Coffee.ict"])
        #expect(results.map { $0["displayName"] as? String } == ["Rocket", nil, "Coffee"])
        #expect(results.map { $0["ok"] as? Bool } == [true, false, true])
        #expect(results.allSatisfy { $0["conflicts"] is NSNull })
        #expect(run.stderr.hasPrefix("\(samples)/malformed/unknown-version.ict:ctdocument.metadata: error: "))
        // Without --jsonl, the table is sorted by display name as a folder's is.
        let table = try ICTRunner.run(["list", "--files-from", "-"], stdin: Data("\(samples)/Rocket.ict\n\(samples)/Coffee.ict\n".utf8))
        #expect(table.status == 0)
        #expect(table.stdout.split(separator: "\n").dropFirst().map { String($0.prefix(6)) } == ["Coffee", "Rocket"])
    }

    @Test func convertWritesEachOutputAtItsInputsPathBelowTheFolder() throws {
        let f = try folder()
        try FileManager.default.createDirectory(atPath: f + "/sub", withIntermediateDirectories: true)
        try Data("{\"a\": true}".utf8).write(to: URL(fileURLWithPath: f + "/sub/x.json"))
        let out = f + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let list = "\(f)/sub/x.json\n\(f)/bad.plist\n\(f)/../escape.plist\n"
        let run = try ICTRunner.run(
            ["convert", "--format", "xml1", "-o", out, "--jsonl", "--files-from", "-", f + "/good.plist"],
            stdin: Data(list.utf8))
        #expect(run.status == 1)
        let results = try lines(run.stdout)
        #expect(results.map { $0["output"] as? String } == [out + f + "/good.plist", out + f + "/sub/x.plist", out + f + "/bad.plist", nil])
        #expect(results.map { $0["ok"] as? Bool } == [true, true, false, false])
        #expect(results.map { $0["inputFormat"] as? String } == ["xml", "json", nil, nil])
        // The outputs as python's plistlib reads them, not as ict does.
        let said = try PythonScript.text(
            "import plistlib, sys; print([plistlib.load(open(p, 'rb')) for p in sys.argv[1:]])",
            arguments: [out + f + "/good.plist", out + f + "/sub/x.plist"])
        #expect(said == "[{'n': 7}, {'a': True}]\n")
        #expect(!FileManager.default.fileExists(atPath: out + f + "/bad.plist"))
        #expect(run.stderr.hasSuffix("\(f)/../escape.plist: error: a name with .. would be written outside the folder -o names; name the input without ..\n"))
    }

    /// A relative input whose `..` is followed by a name that starts with a combining mark (`/` + U+0301
    /// is one Swift `Character`) is refused like any `..`: its output would land outside the folder -o names.
    /// (Split by characters, `../\u{301}escape.plist` was one name, and its output was written beside `out`.)
    @Test func aDotDotBeforeACombiningMarkIsStillRefused() throws {
        let f = try folder()
        defer { try? FileManager.default.removeItem(atPath: f) }
        let name = "\u{301}escape.plist"
        try Data(Self.good.utf8).write(to: URL(fileURLWithPath: f + "/" + name))
        try FileManager.default.createDirectory(atPath: f + "/work/out", withIntermediateDirectories: true)
        let before = try FolderSnapshot.take(f)
        let run = try ProgramRunner.run(
            ICTRunner.executable.path, ["convert", "--format", "xml1", "-o", "out", "--files-from", "-"],
            in: URL(fileURLWithPath: f + "/work"), input: Data("../\(name)\n".utf8))
        #expect(run.status == 1)
        #expect(run.stderr.hasSuffix("../\(name): error: a name with .. would be written outside the folder -o names; name the input without ..\n"))
        #expect(try FolderSnapshot.take(f) == before, "nothing written, beside out or in it")
    }

    @Test func convertNeedsAnExistingFolder() throws {
        let f = try folder()
        let run = try ICTRunner.run(["convert", "--format", "json", "-o", f + "/good.plist", "--files-from", "-"], stdin: Data())
        #expect(run.status == 1)
        #expect(run.stderr == "\(f)/good.plist: error: with --files-from, -o names the folder the outputs are written in; this is not a folder\n")
    }
}

/// Many names on the command line (argument-parser parses an array's values
/// in quadratic time, so `validate` takes the trailing ones itself).
struct ManyArgumentsCommandTests {
    @Test func namesAfterOptionsAndOptionValuesKeepTheirOrder() throws {
        let folder = try ScratchFolder.make("many").path
        let names = (0..<5).map { "\(folder)/f\($0).plist" }
        for (index, name) in names.enumerated() {
            try Data("<plist><integer>\(index)</integer></plist>".utf8).write(to: URL(fileURLWithPath: name))
        }
        // 100000 is the value of --max-input-size, not a file; f0 comes before the options.
        let run = try ICTRunner.run(["validate", names[0], "--jsonl", "--max-input-size", "100000"] + names[1...])
        #expect(run.status == 0, "\(run.stderr)")
        let paths = run.stdout.split(separator: "\n").map { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["path"] as? String
        }
        #expect(paths == names)
        // The option's value is still applied: over the limit, each file fails.
        let limited = try ICTRunner.run(["validate", "--max-input-size", "10"] + names)
        #expect(limited.status == 1)
        #expect(limited.stderr.split(separator: "\n").count == 5)
        #expect(limited.stderr.hasPrefix("\(names[0]): error: the input is larger than the limit of 10 bytes (--max-input-size)\n"))
    }

    @Test func aLoneFileAfterAnOptionValueIsStillRequired() throws {
        let run = try ICTRunner.run(["validate", "--max-input-size", "100"])
        #expect(run.status == 64)
        #expect(run.stderr == "ict: error: name at least one file to validate (see 'ict validate --help')\n")
    }
}
