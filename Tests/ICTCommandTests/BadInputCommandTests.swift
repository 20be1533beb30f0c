import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
private let systemWrite = Glibc.write
#elseif canImport(Darwin)
import Darwin
private let systemWrite = Darwin.write
#endif

/// Issue 10's list of surprises, each reproduced with the command that
/// showed it, now giving a message that says where, the right exit status,
/// and the files on disk as they were.
struct BadInputCommandTests {
    private let folder: String

    init() throws {
        folder = try ScratchFolder.make("ict-bad").path
    }

    private func write(_ text: String, to name: String) throws -> String {
        let path = folder + "/" + name
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    private func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    private func listing() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: folder).sorted() }

    /// Runs a shell command line in the scratch folder, with the built `ict` as `$ICT`.
    private func shell(_ script: String) throws -> (status: Int32, stdout: String, stderr: String) {
        var environment = ProcessInfo.processInfo.environment
        environment["ICT"] = ICTRunner.executable.path
        let run = try ProgramRunner.run("/bin/bash", ["-c", script], environment: environment, in: URL(fileURLWithPath: folder))
        return (run.status, run.stdout, run.stderr)
    }

    // MARK: Data loss

    /// `false | ict convert - --format xml1 -o Settings.plist` must not replace
    /// Settings.plist with an empty dictionary: CoreFoundation, plistlib and
    /// libplist all refuse empty input.
    @Test func emptyInputIsRefusedAndTheOutputKept() throws {
        let settings = try write("<plist><dict><key>keep</key><true/></dict></plist>\n", to: "Settings.plist")
        let before = bytes(settings)
        let run = try shell(#"false | "$ICT" convert - --format xml1 -o Settings.plist"#)
        #expect(run.status == 1)
        #expect(run.stderr == "<stdin>:byte 0: error: the input is empty (0 bytes); an empty file is not a property list\n")
        #expect(bytes(settings) == before)
        #expect(try listing() == ["Settings.plist"])
        // An empty file too, and truncated input.
        _ = try write("", to: "empty.plist")
        let empty = try ICTRunner.run(["convert", folder + "/empty.plist", "--format", "binary1", "-o", settings])
        #expect(empty.status == 1)
        #expect(empty.stderr.hasPrefix(folder + "/empty.plist:byte 0: error: the input is empty"))
        let truncated = try ICTRunner.run(["convert", "-", "--format", "xml1", "-o", settings], stdin: Data("<plist><dict><key>a</key>".utf8))
        #expect(truncated.status == 1)
        #expect(truncated.stderr.hasPrefix("<stdin>:1:"))
        #expect(bytes(settings) == before)
    }

    // MARK: Writes outside the folder

    @Test func createNameIsANameNotAPath() throws {
        let inside = folder + "/docs"
        try FileManager.default.createDirectory(atPath: inside, withIntermediateDirectories: true)
        let escape = try ICTRunner.run(["create", "--name", "../escape", "-o", inside])
        #expect(escape.status == 64)
        #expect(escape.stderr == "ict: error: --name '../escape' is a path; give a name without '/' and choose the folder with -o (see 'ict create --help')\n")
        let hidden = try ICTRunner.run(["create", "--name", "", "-o", inside])
        #expect(hidden.status == 64)
        #expect(hidden.stderr.hasPrefix("ict: error: --name is empty"))
        let dot = try ICTRunner.run(["create", "--name", ".secret", "-o", inside])
        #expect(dot.status == 64)
        #expect(try listing() == ["docs"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: inside) == [])
        // A plain name still works.
        let plain = try ICTRunner.run(["create", "--name", "Ada", "-o", inside])
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: inside) == ["Ada.ict"])
    }

    // MARK: Unbounded input

    @Test func endlessStandardInputStopsAtTheLimit() throws {
        // Text without end (`/dev/zero` is refused at its first byte: see HostileStreamCommandTests).
        let run = try shell(#"yes | "$ICT" inspect --max-input-size 8000000 -"#)
        #expect(run.status == 1)
        #expect(run.stderr == "<stdin>: error: the input is larger than the limit of 8000000 bytes (--max-input-size)\n")
        let measured = try ICTRunner.run(["inspect", "--max-input-size", "8000000", "/dev/zero"])
        #expect(measured.status == 1)
        #expect(measured.peakMemory < 64 << 20)
    }

    @Test func aRegularFileOverTheLimitIsRefusedBeforeItIsRead() throws {
        let big = try write("<plist><string>" + String(repeating: "x", count: 5000) + "</string></plist>", to: "big.plist")
        let run = try ICTRunner.run(["validate", "--max-input-size", "1000", big])
        #expect(run.status == 1)
        #expect(run.stderr == "\(big): error: the input is larger than the limit of 1000 bytes (--max-input-size)\n")
    }

    // MARK: Exit status

    @Test func listOfAMissingFolderFails() throws {
        let run = try ICTRunner.run(["list", "/nonexistent"])
        #expect(run.status == 1)
        #expect(run.stdout == "")
        #expect(run.stderr == "/nonexistent: error: cannot list the folder: No such file or directory\n")
    }

    @Test func aFileNameStartingWithADashIsAUsageErrorNotHelp() throws {
        let run = try ICTRunner.run(["validate", "-dash.plist"])
        #expect(run.status == 64)
        #expect(run.stdout == "")
        #expect(
            run.stderr
                == "ict: error: unknown option '-dash.plist'; a file whose name starts with '-' is named ./-dash.plist or after -- (see 'ict validate --help')\n"
        )
        // Named as the message says, it is read.
        _ = try write("<plist><true/></plist>", to: "-dash.plist")
        let named = try shell(#""$ICT" validate ./-dash.plist && "$ICT" validate -- -dash.plist"#)
        #expect(named.status == 0, "\(named.stderr)")
        #expect(named.stdout == "./-dash.plist: valid XML property list\n-dash.plist: valid XML property list\n")
    }

    @Test func aDirectoryWhereAFileOrDocumentBelongsIsAnInputError() throws {
        let plain = folder + "/plain"
        try FileManager.default.createDirectory(atPath: plain, withIntermediateDirectories: true)
        let convert = try ICTRunner.run(["convert", plain, "--format", "xml1"])
        #expect(convert.status == 1)
        #expect(convert.stderr == "\(plain): error: is a directory (a package); convert a package with --format zip\n")
        let set = try ICTRunner.run(["set", plain, "--display-name", "X"])
        #expect(set.status == 1)
        #expect(set.stderr == "\(plain): error: is a directory, not an .ict document package (its name does not end in .ict)\n")
        let thumbnail = try ICTRunner.run(["thumbnail", plain, "-o", folder + "/t.png"])
        #expect(thumbnail.status == 1)
        #expect(thumbnail.stderr == set.stderr)
        let missing = try ICTRunner.run(["set", folder + "/missing.ict", "--display-name", "X"])
        #expect(missing.status == 1)
        #expect(missing.stderr == "\(folder)/missing.ict: error: cannot open: No such file or directory\n")
        #expect(try listing() == ["plain"])
    }

    // MARK: Misleading messages

    @Test func badJSONOnStandardInputIsReportedAsJSON() throws {
        let run = try ICTRunner.run(["inspect", "-"], stdin: Data(#"{"name": "Ada",}"#.utf8))
        #expect(run.status == 1)
        #expect(run.stderr == "<stdin>:1:16: error: unexpected '}'; expected a key in double quotes\n")
        // OpenStep is still OpenStep.
        let openStep = try ICTRunner.run(["convert", "-", "--format", "json"], stdin: Data("{ name = Ada; }".utf8))
        #expect(openStep.status == 0)
        #expect(openStep.stdout == "{\n  \"name\": \"Ada\"\n}\n")
    }

    @Test func aSymbolicLinkedMetadataEntryIsCalledALink() throws {
        let document = folder + "/Coffee.ict"
        try FileManager.default.copyItem(atPath: Repository.root.path + "/SampleDocs/Coffee.ict", toPath: document)
        try FileManager.default.moveItem(atPath: document + "/ctdocument.metadata", toPath: folder + "/elsewhere")
        try FileManager.default.createSymbolicLink(atPath: document + "/ctdocument.metadata", withDestinationPath: "../elsewhere")
        let expected =
            "\(document):ctdocument.metadata: error: the entry is a symbolic link (to ../elsewhere), not a file; links in a document are not followed\n"
        let inspect = try ICTRunner.run(["inspect", document])
        #expect(inspect.status == 1)
        #expect(inspect.stderr == expected)
        let validate = try ICTRunner.run(["validate", document])
        #expect(validate.status == 1)
        #expect(validate.stderr.contains(expected))
        let list = try ICTRunner.run(["list", folder])
        #expect(list.status == 1)
        #expect(list.stderr.contains("\(document):ctdocument.metadata: error: the entry is a symbolic link, not a file"))
    }

    @Test func deepNestingPrintsAShortKeyPath() throws {
        let deep = try write(String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000), to: "deep.json")
        let run = try ICTRunner.run(["inspect", deep])
        #expect(run.status == 1)
        #expect(run.stderr == "\(deep):1:513: error: containers nest more than 512 deep (at [0][0][0][0][0][0]…(500 more steps)…[0][0][0][0][0][0])\n")
    }

    /// A 300-deep binary file that ict converts to XML reads back: the XML
    /// reader's depth limit is the same as every other reader's and writer's.
    @Test func whatIctWritesAtDepth300ItReadsBack() throws {
        var value: Any = 1
        for _ in 0..<300 { value = [value] }
        let binary = try PropertyListSerialization.data(fromPropertyList: value, format: .binary, options: 0)
        let input = folder + "/deep.plist"
        try binary.write(to: URL(fileURLWithPath: input))
        let xml = folder + "/deep.xml"
        #expect(try ICTRunner.run(["convert", input, "--format", "xml1", "-o", xml]).status == 0)
        let back = folder + "/back.plist"
        let run = try ICTRunner.run(["convert", xml, "--format", "binary1", "-o", back])
        #expect(run.status == 0, "\(run.stderr)")
        let reread = try PropertyListSerialization.propertyList(from: try #require(bytes(back)), format: nil)
        var depth = 0
        var current: Any = reread
        while let array = current as? [Any], let first = array.first { depth += 1; current = first }
        #expect(depth == 300)
        // One deeper than the limit is refused by every reader alike.
        var tooDeep: Any = 1
        for _ in 0..<513 { tooDeep = [tooDeep] }
        try (try PropertyListSerialization.data(fromPropertyList: tooDeep, format: .xml, options: 0)).write(to: URL(fileURLWithPath: folder + "/too.xml"))
        let refused = try ICTRunner.run(["validate", folder + "/too.xml"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("nest more than 512 deep"))
    }

    // MARK: The JSON form

    @Test func jsonScalarsStayScalars() throws {
        let one = try ICTRunner.run(["convert", "-", "--format", "xml1"], stdin: Data("1\n".utf8))
        #expect(one.stdout.contains("<integer>1</integer>"))
        let yes = try ICTRunner.run(["convert", "-", "--format", "xml1"], stdin: Data("true".utf8))
        #expect(yes.stdout.contains("<true/>"))
        let text = try ICTRunner.run(["convert", "-", "--format", "xml1"], stdin: Data(#""true""#.utf8))
        #expect(text.stdout.contains("<string>true</string>"))
    }

    @Test func dollarKeysAreEscapedOnlyWhereNeeded() throws {
        let source = try write(#"<plist><dict><key>$version</key><integer>1</integer><key>name</key><string>Ada</string></dict></plist>"#, to: "d.plist")
        let run = try ICTRunner.run(["convert", source, "--format", "json"])
        #expect(run.status == 0)
        let parsed = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        #expect(parsed?["name"] as? String == "Ada")  // what `jq .name` reads
        #expect(parsed?["$version"] as? Int == 1)
        let schemaKeyed = try ICTRunner.run(
            ["convert", "-", "--format", "xml1"],
            stdin: Data(#"{"$schema": "https://example.com/s.json", "name": "Ada"}"#.utf8))
        #expect(schemaKeyed.status == 0, "\(schemaKeyed.stderr)")
        #expect(schemaKeyed.stdout.contains("<key>$schema</key>"))
    }

    // MARK: Shell idioms

    @Test func devStdinProcessSubstitutionAndFIFOsAreReadAsStreams() throws {
        _ = try write("<plist><dict><key>name</key><string>Ada</string></dict></plist>", to: "f.plist")
        let expected = "{\n  \"name\" => \"Ada\"\n}\n"
        let devStdin = try shell(#"cat f.plist | "$ICT" inspect /dev/stdin"#)
        #expect(devStdin.status == 0, "\(devStdin.stderr)")
        #expect(devStdin.stdout == expected)
        let substituted = try shell(#""$ICT" inspect <(cat f.plist)"#)
        #expect(substituted.status == 0, "\(substituted.stderr)")
        #expect(substituted.stdout == expected)
        let fifo = try shell(#"mkfifo p && (cat f.plist > p &) && "$ICT" inspect p"#)
        #expect(fifo.status == 0, "\(fifo.stderr)")
        #expect(fifo.stdout == expected)
        // Waiting for a writer is never silent on a terminal (util-linux `script` gives ict one).
        // The FIFO is made before anything else runs (`mkfifo w && … &` would put mkfifo in the background too, and ict
        // could open w before it existed); the writer waits the 3 s the notice needs to show before it writes.
        let waited = try shell(#"mkfifo w && { (sleep 3; cat f.plist > w) & } && script -qc "\"$ICT\" inspect w" /dev/null"#)
        #expect(waited.status == 0, "\(waited.stderr)")
        #expect(waited.stdout.contains("w: waiting for a writer on this FIFO (Ctrl-C to stop)\r\u{1B}[K"))
        #expect(waited.stdout.contains("\"name\" => \"Ada\""))
        // A writer that closes without writing gives empty input, refused.
        let silent = try shell(#"mkfifo q && (: > q &) && "$ICT" inspect q"#)
        #expect(silent.status == 1)
        #expect(silent.stderr == "q:byte 0: error: the input is empty (0 bytes); an empty file is not a property list\n")
        // And a stream is bounded like standard input.
        let bounded = try shell(#""$ICT" inspect --max-input-size 1000 <(head -c 5000 /dev/zero)"#)
        #expect(bounded.status == 1)
        #expect(bounded.stderr.hasSuffix(": error: the input is larger than the limit of 1000 bytes (--max-input-size)\n"))
    }

    // MARK: Litter and names

    /// A conversion interrupted by SIGINT or SIGTERM leaves no temporary file
    /// and the old output as it was; one left by SIGKILL is removed by the next run.
    @Test(arguments: [SIGINT, SIGTERM])
    func aSignalDuringConvertLeavesNothingBehind(signal: Int32) throws {
        let input = folder + "/big.plist"
        var entries: [String: Any] = [:]
        for index in 0..<200_000 { entries["key \(index)"] = "a value of some length, number \(index)" }
        try PropertyListSerialization.data(fromPropertyList: entries, format: .binary, options: 0).write(to: URL(fileURLWithPath: input))
        let output = try write("old\n", to: "out.json")
        // Started as a shell starts a command: no signal blocked, every signal's action the default.
        let pid = try ICTRunner.spawn(["convert", input, "--format", "json", "-o", output])
        // Wait until the temporary file exists (the conversion is under way), then interrupt.
        var sawTemporary = false
        for _ in 0..<20_000 {
            if try listing().contains(where: { $0.hasPrefix(".out.json.ict-") }) { sawTemporary = true; break }
            usleep(500)
        }
        kill(pid, signal)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        #expect(sawTemporary, "the conversion ended before it could be interrupted")
        #expect(status & 0x7F == signal, "ended by signal \(status & 0x7F), exit status \((status >> 8) & 0xFF)")
        #expect(try listing() == ["big.plist", "out.json"])
        #expect(bytes(output) == Data("old\n".utf8))
    }

    @Test func aTemporaryFileLeftByAKilledRunIsRemovedByTheNext() throws {
        let output = try write("old\n", to: "out.xml")
        // A process id that is not running: the highest the kernel may hand out, plus one.
        let pidMax =
            (try? String(contentsOfFile: "/proc/sys/kernel/pid_max", encoding: .utf8)).flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            ?? 4_194_304
        let stale = folder + "/.out.xml.ict-\(pidMax + 1)-AbC123"
        let unrelated = folder + "/.other.xml.ict-\(pidMax + 1)-AbC123"
        try Data("half-written".utf8).write(to: URL(fileURLWithPath: stale))
        try Data("someone else's".utf8).write(to: URL(fileURLWithPath: unrelated))
        let run = try ICTRunner.run(["convert", "-", "--format", "xml1", "-o", output], stdin: Data("<plist><true/></plist>".utf8))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try listing() == [".other.xml.ict-\(pidMax + 1)-AbC123", "out.xml"])
        #expect(String(decoding: try #require(bytes(output)), as: UTF8.self).contains("<true/>"))
    }

    /// `caf\xE9.plist` (Latin-1, not UTF-8) is opened, and `-o` writes exactly the name given.
    @Test func fileNamesThatAreNotUTF8AreKeptByteForByte() throws {
        let inputName: [UInt8] = Array("caf".utf8) + [0xE9] + Array(".plist".utf8)
        let outputName: [UInt8] = Array("out-".utf8) + [0xFF, 0xFE] + Array(".xml".utf8)
        let folderBytes = Array(folder.utf8)
        let inputPath = folderBytes + [UInt8(ascii: "/")] + inputName
        let outputPath = folderBytes + [UInt8(ascii: "/")] + outputName
        let source = Array("<plist><string>ok</string></plist>".utf8)
        let created = (inputPath.map { CChar(bitPattern: $0) } + [0]).withUnsafeBufferPointer { path in
            let descriptor = open(path.baseAddress!, O_WRONLY | O_CREAT | O_EXCL, 0o644)
            defer { close(descriptor) }
            return descriptor >= 0 && source.withUnsafeBytes { systemWrite(descriptor, $0.baseAddress, $0.count) } == source.count
        }
        try #require(created)
        let run = try ICTRunner.run(rawArguments: [
            Array("convert".utf8), inputPath, Array("--format".utf8), Array("binary1".utf8),
            Array("-o".utf8), outputPath,
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let names = try rawNames(in: folder)
        #expect(names.contains(outputName))
        #expect(names.count == 2)
        // A problem names the file with its own bytes.
        let missing = folderBytes + [UInt8(ascii: "/")] + [0xE9]
        let failed = try ICTRunner.run(rawArguments: [Array("inspect".utf8), missing])
        #expect(failed.status == 1)
        #expect(failed.stderrBytes == missing + Array(": error: cannot open: No such file or directory\n".utf8))
    }

    private func rawNames(in directory: String) throws -> [[UInt8]] {
        guard let stream = opendir(directory) else { throw POSIXError(.ENOENT) }
        defer { closedir(stream) }
        var names: [[UInt8]] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { [UInt8]($0.prefix { $0 != 0 }) }
            if name != [0x2E], name != [0x2E, 0x2E] { names.append(name) }
        }
        return names
    }
}
