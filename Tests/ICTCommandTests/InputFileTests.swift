import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What one run of a program that must end by itself did.
struct BoundedRun {
    var status: Int32
    var stdout: String
    var stderr: String
    /// True when it did not end within the bound and was killed.
    var hung: Bool
}

/// Runs a program as a child with a bounded wait: one that has not ended
/// after `seconds` (a hang, not slowness: the commands here end at once) is
/// killed and reported as hung, so a test of "must not block" fails rather
/// than blocking the suite.
enum BoundedRunner {
    static let bound: Double = 20

    /// Runs `program` with `arguments` in `folder`, the built `ict` as `$ICT`, standard input empty.
    static func run(_ program: String, _ arguments: [String], in folder: String) throws -> BoundedRun {
        let scratch = try ScratchFolder.make("bounded")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outFile = scratch.appendingPathComponent("out"), errFile = scratch.appendingPathComponent("err")
        try Data().write(to: outFile)
        try Data().write(to: errFile)
        let outHandle = try FileHandle(forWritingTo: outFile), errHandle = try FileHandle(forWritingTo: errFile)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        var environment = ProcessInfo.processInfo.environment
        environment["ICT"] = ICTRunner.executable.path
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = outHandle
        process.standardError = errHandle
        let ended = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in ended.signal() }
        try process.run()
        let hung = ended.wait(timeout: .now() + bound) == .timedOut
        if hung {
            kill(process.processIdentifier, SIGKILL)
            ended.wait()
        }
        try outHandle.close()
        try errHandle.close()
        return BoundedRun(
            status: process.terminationStatus,
            stdout: (try? String(contentsOf: outFile, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOf: errFile, encoding: .utf8)) ?? "", hung: hung)
    }

    /// Runs the built `ict` with `arguments` in `folder`.
    static func ict(_ arguments: [String], in folder: String) throws -> BoundedRun {
        try run(ICTRunner.executable.path, arguments, in: folder)
    }

    /// Runs a bash command line in `folder`, the built `ict` as `$ICT`.
    static func shell(_ script: String, in folder: String) throws -> BoundedRun {
        try run("/bin/bash", ["-c", script], in: folder)
    }
}

/// `InputFile`: every path is opened without waiting and judged by what was
/// opened; editing in place (`ict set`/`insert`/`remove`, `ict plutil
/// -replace`/`-insert`/`-remove`/`-convert`/`-extract` without `-o`,
/// `ict convert -o` naming the input) refuses anything but a regular file
/// before any wait, with real FIFOs that no process writes.
@Suite struct InputFileTests {
    private let folder: String
    private static let propertyList = #"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>a</key><string>x</string></dict></plist>"#

    init() throws {
        folder = try ScratchFolder.make("ict-input").path
        try Data(Self.propertyList.utf8).write(to: URL(fileURLWithPath: folder + "/a.plist"))
    }

    private func makeFIFO(_ name: String) -> String {
        let path = folder + "/" + name
        #expect(mkfifo(path, 0o644) == 0)
        return path
    }

    private func isFIFO(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFIFO
    }

    /// The folder's entries: nothing is left beside the FIFO (no temporary file, no output).
    private func listing() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: folder).sorted() }

    @Test(arguments: [
        ["set", "p", "a", "-string", "y"],
        ["insert", "p", "b", "-string", "y"],
        ["remove", "p", "a"],
        ["convert", "p", "--format", "xml1", "-o", "p"],
    ])
    func editingAFIFOWithNoWriterIsRefusedAtOnce(_ arguments: [String]) throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let fifo = makeFIFO("p")
        let run = try BoundedRunner.ict(arguments, in: folder)
        #expect(!run.hung, "ict \(arguments.joined(separator: " ")) blocked on a FIFO with no writer")
        #expect(run.status == 1)
        #expect(run.stderr == "p: error: is a FIFO or pipe, not a regular file: only a regular file is edited in place\n")
        #expect(run.stdout == "")
        #expect(isFIFO(fifo))
        #expect(try listing() == ["a.plist", "p"])
    }

    @Test(arguments: [
        ["-replace", "a", "-string", "y", "p"],
        ["-insert", "b", "-string", "y", "p"],
        ["-remove", "a", "p"],
        ["-convert", "xml1", "p"],
        ["-extract", "a", "xml1", "p"],
        ["-convert", "binary1", "-o", "./p", "p"],
    ])
    func plutilEditingAFIFOInPlaceExitsOneAsApplesDoes(_ arguments: [String]) throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let fifo = makeFIFO("p")
        let run = try BoundedRunner.ict(["plutil"] + arguments, in: folder)
        #expect(!run.hung, "ict plutil \(arguments.joined(separator: " ")) blocked on a FIFO with no writer")
        #expect(run.status == 1)
        #expect(
            run.stderr
                == "p: (The operation could not be completed. The file is a FIFO or pipe, not a regular file: only a regular file is edited in place)\n")
        #expect(isFIFO(fifo))
        #expect(try listing() == ["a.plist", "p"])
        // The oracle: Apple's plutil (swift-corelibs-foundation's build) exits 1 on the same FIFO.
        if let apple = Self.applePlutil {
            let theirs = try BoundedRunner.run(apple, arguments, in: folder)
            #expect(!theirs.hung)
            #expect(theirs.status == 1, "Apple's plutil: \(theirs.stderr)")
            #expect(isFIFO(fifo))
        }
    }

    /// Apple's `plutil`: beside `swift` on the PATH, or at /opt/swift/usr/bin.
    private static let applePlutil: String? = {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init) + ["/opt/swift/usr/bin"]
        return folders.first { FileManager.default.isExecutableFile(atPath: $0 + "/swift") && FileManager.default.isExecutableFile(atPath: $0 + "/plutil") }
            .map { $0 + "/plutil" }
    }()

    /// `ict set <(cat a.plist) …` used to say "saved" while the change went into a pipe.
    @Test func editingAPipeOrStandardInputIsRefusedNotSaved() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let before = FileManager.default.contents(atPath: folder + "/a.plist")
        let substituted = try BoundedRunner.shell(#""$ICT" set <(cat a.plist) a -string y"#, in: folder)
        #expect(!substituted.hung)
        #expect(substituted.status == 1)
        #expect(substituted.stdout == "")
        #expect(substituted.stderr.hasSuffix(": error: is a FIFO or pipe, not a regular file: only a regular file is edited in place\n"))
        let piped = try BoundedRunner.shell(#"cat a.plist | "$ICT" remove - a"#, in: folder)
        #expect(!piped.hung)
        #expect(piped.status == 1)
        #expect(piped.stdout == "")
        #expect(piped.stderr == "<stdin>: error: standard input cannot be edited in place; name a regular file\n")
        #expect(FileManager.default.contents(atPath: folder + "/a.plist") == before)
        #expect(try listing() == ["a.plist"])
        // A regular file is still edited.
        let edited = try BoundedRunner.ict(["set", "a.plist", "a", "-string", "y"], in: folder)
        #expect(edited.status == 0, "\(edited.stderr)")
        #expect(edited.stdout == "a.plist: saved\n")
    }

    /// A document's entry that is a FIFO: refused at the entry (not "no entry"),
    /// to edit and to read (a package holds only regular files), the package as it was.
    @Test func aDocumentEntryThatIsAFIFOIsRefusedAtTheEntry() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let document = folder + "/Doc.ict"
        try FileManager.default.copyItem(
            atPath: Repository.root.appendingPathComponent("SampleDocs/Coffee.ict").path, toPath: document)
        try FileManager.default.removeItem(atPath: document + "/ctdocument.data")
        let fifo = makeFIFO("Doc.ict/ctdocument.data")
        let before = try FileManager.default.contentsOfDirectory(atPath: document).sorted()
        let run = try BoundedRunner.ict(["set", "Doc.ict", "ctdocument.data:FIRST_NAME", "-string", "Ada"], in: folder)
        #expect(!run.hung)
        #expect(run.status == 1)
        #expect(
            run.stderr
                == "Doc.ict:ctdocument.data: error: is a FIFO or pipe, not a regular file: only a regular file is edited in place (at ctdocument.data:FIRST_NAME)\n"
        )
        let read = try BoundedRunner.ict(["get", "Doc.ict", "ctdocument.data:FIRST_NAME"], in: folder)
        #expect(!read.hung)
        #expect(read.status == 1)
        #expect(
            read.stderr
                == "Doc.ict:ctdocument.data: error: is a FIFO or pipe, not a regular file: a package's entry must be one (at ctdocument.data:FIRST_NAME)\n"
        )
        #expect(isFIFO(fifo))
        #expect(try FileManager.default.contentsOfDirectory(atPath: document).sorted() == before)
    }

    /// The library's own readers open without waiting too: a photo, or a JSON
    /// export's photo file, that is a FIFO with no writer is refused at once.
    @Test func aPhotoFileThatIsAFIFOIsRefusedNotWaitedOn() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let document = folder + "/Doc.ict"
        try FileManager.default.copyItem(
            atPath: Repository.root.appendingPathComponent("SampleDocs/Coffee.ict").path, toPath: document)
        let fifo = makeFIFO("photo.png")
        let setPhoto = try BoundedRunner.ict(["set", "Doc.ict", "--photo", "photo.png"], in: folder)
        #expect(!setPhoto.hung)
        #expect(setPhoto.status == 1)
        #expect(setPhoto.stderr == "photo.png: error: photo.png is not a regular file\n")
        try Data(#"{"version": 1, "firstName": "Ada", "photo": {"file": "photo.png"}}"#.utf8).write(
            to: URL(fileURLWithPath: folder + "/Ada.json"))
        let imported = try BoundedRunner.ict(["convert", "Ada.json", "--format", "ict"], in: folder)
        #expect(!imported.hung)
        #expect(imported.status == 1)
        #expect(imported.stderr.contains("photo.png is not a regular file"), "\(imported.stderr)")
        #expect(isFIFO(fifo))
        #expect(!FileManager.default.fileExists(atPath: folder + "/Ada.ict"))
    }

    // MARK: A stream is read once (issue 38 item 7)

    /// The commands that read a file named on the command line, with what
    /// each prints of `a.plist` (its `a` is `x`), checked against the file read as a regular file.
    static let streamReaders: [[String]] = [
        ["get", "IN", "a"],
        ["get", "IN", "a", "--format", "json"],
        ["type", "IN", "a"],
        ["inspect", "IN"],
        ["validate", "IN"],
        ["convert", "IN", "--format", "json", "-o", "-"],
        ["diff", "IN", "b.plist"],
        ["plutil", "-p", "IN"],
        ["plutil", "-lint", "IN"],
    ]

    /// What the command prints reading `a.plist` itself, with the name shown as `a.plist` replaced by `IN`'s.
    private func expected(_ arguments: [String], shownAs name: String) throws -> BoundedRun {
        try Data(#"<plist><dict><key>a</key><string>y</string></dict></plist>"#.utf8).write(to: URL(fileURLWithPath: folder + "/b.plist"))
        let run = try BoundedRunner.ict(arguments.map { $0 == "IN" ? "a.plist" : $0 }, in: folder)
        #expect(run.status == 0 || arguments[0] == "diff", "\(run.stderr)")
        return BoundedRun(
            status: run.status, stdout: run.stdout.replacingOccurrences(of: "a.plist", with: name),
            stderr: run.stderr.replacingOccurrences(of: "a.plist", with: name), hung: false)
    }

    /// `cat a.plist | ict get /dev/stdin a`: read once, so the value, not "input is empty".
    @Test(arguments: streamReaders)
    func aPipeNamedAsDevStdinIsReadOnce(_ arguments: [String]) throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let want = try expected(arguments, shownAs: "/dev/stdin")
        let command = arguments.map { $0 == "IN" ? "/dev/stdin" : "'\($0)'" }.joined(separator: " ")
        let run = try BoundedRunner.shell("cat a.plist | \"$ICT\" \(command)", in: folder)
        #expect(!run.hung)
        #expect(run.status == want.status, "\(run.stderr)")
        #expect(run.stdout == want.stdout)
        #expect(run.stderr == want.stderr)
    }

    /// A named FIFO that another process writes once: the command opens it
    /// once and reads it once, so it neither hangs (a second open would wait
    /// for a writer that has gone) nor kills the writer (a first reader gone).
    @Test(arguments: streamReaders)
    func aNamedFIFOIsOpenedAndReadOnce(_ arguments: [String]) throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let want = try expected(arguments, shownAs: "in.fifo")
        let fifo = makeFIFO("in.fifo")
        let before = try FolderSnapshot.take(folder)
        let command = arguments.map { $0 == "IN" ? "in.fifo" : "'\($0)'" }.joined(separator: " ")
        // The writer is a real process; the shell waits for it, so a writer killed by SIGPIPE shows in the status.
        let run = try BoundedRunner.shell(
            "cat a.plist > in.fifo & writer=$!; \"$ICT\" \(command); status=$?; wait $writer || echo \"writer: $?\" >&2; exit $status",
            in: folder)
        #expect(!run.hung, "the command waited on the FIFO for a second writer")
        #expect(run.status == want.status, "\(run.stderr)")
        #expect(run.stdout == want.stdout)
        #expect(run.stderr == want.stderr)
        #expect(isFIFO(fifo))
        #expect(try FolderSnapshot.take(folder) == before)
    }

    /// A typed stream (`NSArchiver`) on standard input: `get` finds it in the
    /// bytes it read, as it does in a file.
    @Test func aTypedStreamOnStandardInputIsReadOnce() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let fixtures = Repository.root.appendingPathComponent("Tests/TypedStreamTests/Fixtures").path
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: fixtures).sorted().first { !$0.hasSuffix(".md") })
        let file = fixtures + "/" + name
        let fromFile = try BoundedRunner.ict(["get", file, ""], in: folder)
        let run = try BoundedRunner.shell("cat '\(file)' | \"$ICT\" get - ''", in: folder)
        #expect(!run.hung)
        #expect(run.status == fromFile.status, "\(run.stderr)")
        #expect(run.stdout == fromFile.stdout)
        #expect(!run.stdout.isEmpty)
    }
}
