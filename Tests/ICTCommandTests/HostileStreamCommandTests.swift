import Foundation
import TestSupport
import Testing

/// Inputs that grow before they are refused: a binary property list whose
/// arrays share one another (expanding to 2^60 − 1 values from 279 bytes)
/// and endless streams on standard input. Each is refused with exit status
/// 1 and a message saying where, before a byte of output is written, with
/// little memory.
struct HostileStreamCommandTests {
    static let bomb = Repository.root.appendingPathComponent("SampleDocs/malformed/expansion-bomb.plist").path
    /// Far below what expanding the bomb, or reading a stream to the 2 GiB limit, takes.
    static let memoryBound = 256 << 20

    static let bombCommands: [[String]] = [
        ["convert", bomb, "--format", "xml1", "-o", "-"],
        ["convert", bomb, "--format", "json", "-o", "-"],
        ["get", bomb, "0", "--format", "json"],
        ["get", bomb, "1.0.1", "--format", "xml1"],
        ["inspect", bomb],
        ["inspect", "--json", bomb],
        ["validate", bomb],
        ["plutil", "-convert", "xml1", "-o", "-", bomb],
        ["plutil", "-p", bomb],
    ]

    @Test(arguments: bombCommands)
    func theBombIsRefusedWithNothingWritten(_ arguments: [String]) throws {
        let run = try ICTRunner.run(arguments)
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("maximumObjectCount"), "\(run.stderr)")
        if arguments[0] != "plutil" {
            #expect(run.stderr.contains("\(Self.bomb):byte "), "\(run.stderr)")
        }
        if !arguments.contains("--json") {
            #expect(run.stdout.isEmpty, "wrote \(run.stdout.utf8.count) bytes")
        }
        #expect(run.peakMemory < Self.memoryBound, "used \(run.peakMemory >> 20) MB")
    }

    @Test func theBombLeavesAnOutputFileAsItWas() throws {
        let folder = try ScratchFolder.make("bomb").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let existing = folder + "/existing.xml", absent = folder + "/absent.xml"
        let before = Data("<plist version=\"1.0\"><true/></plist>\n".utf8)
        try before.write(to: URL(fileURLWithPath: existing))
        for output in [existing, absent] {
            let run = try ICTRunner.run(["convert", Self.bomb, "--format", "xml1", "-o", output])
            #expect(run.status == 1)
            #expect(run.stderr.hasPrefix("\(Self.bomb):byte "), "\(run.stderr)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: existing)) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["existing.xml"])
    }

    static let streamCommands: [[String]] = [
        ["plutil", "-lint", "-"],
        ["convert", "-", "--format", "json", "-o", "-"],
        ["convert", "-", "--format", "xml1", "-o", "-"],
        ["inspect", "-"],
        ["validate", "-"],
        ["get", "-", "a"],
    ]

    @Test(arguments: streamCommands)
    func zerosOnStandardInputAreRefusedAtByteZero(_ arguments: [String]) throws {
        let run = try ICTRunner.run(arguments, stdinPath: "/dev/zero")
        #expect(run.status == 1, "\(run.stderr)")
        let message = "byte 0x00 (NUL) starts no property list: not a binary one (bplist00), nor XML, JSON or OpenStep text"
        if arguments[0] == "plutil" {
            #expect(run.stderr == "<stdin>: (The operation could not be completed. byte 0: \(message))\n")
        } else {
            #expect(run.stderr == "<stdin>:byte 0: error: \(message)\n")
        }
        #expect(run.stdout.isEmpty || arguments[0] == "plutil")
        #expect(run.peakMemory < Self.memoryBound, "used \(run.peakMemory >> 20) MB")
    }

    @Test(arguments: streamCommands)
    func randomBytesOnStandardInputAreRefused(_ arguments: [String]) throws {
        let run = try ICTRunner.run(arguments, stdinPath: "/dev/urandom")
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("byte"), "\(run.stderr)")
        if arguments[0] != "plutil" {
            #expect(run.stdout.isEmpty)
        }
        #expect(run.peakMemory < Self.memoryBound, "used \(run.peakMemory >> 20) MB")
    }

    /// Issue 38 item 10: a stream that starts as a format no command reads
    /// from a stream (a PNG image, a NIBArchive file), as a binary property
    /// list of a version the reader refuses, or as XML whose prologue holds
    /// a NUL, is refused at its first bytes,
    /// as a file is: here its start followed by 3 GiB of holes on standard
    /// input, which read to the 2 GiB limit would take 2 GiB of memory.
    @Test(arguments: [
        ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "<stdin>:byte 0: error: a PNG image, not a property list"),
        (Array("NIBArchive".utf8), "<stdin>:byte 0: error: a NIBArchive file (a compiled nib), not a property list"),
        (Array("bplist17".utf8), "<stdin>:byte 0: error: not a binary property list: it does not start with 'bplist0'"),
        // XML's declaration then nothing but NULs: refused at the first (21 bytes in), before the root element.
        (Array(#"<?xml version="1.0"?>"#.utf8), "<stdin>:byte 21: error: byte 0x00 (NUL) before the root element: XML allows no NUL there"),
    ])
    func aStreamNoReaderCanReadIsRefusedAtItsFirstBytes(_ start: [UInt8], message: String) throws {
        let path = ScratchFolder.filePath("ict-start", extension: "bin")
        #expect(FileManager.default.createFile(atPath: path, contents: Data(start)))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: 3 << 30)
        try handle.close()
        for arguments in [["inspect", "-"], ["get", "-", "a"], ["validate", "-"], ["convert", "-", "--format", "json", "-o", "-"]] {
            let run = try ICTRunner.run(arguments, stdinPath: path)
            #expect(run.status == 1, "\(arguments): \(run.stderr)")
            #expect(run.stderr == message + "\n", "\(arguments)")
            #expect(run.stdout.isEmpty || arguments.contains("--json"))
            #expect(run.peakMemory < Self.memoryBound, "\(arguments): used \(run.peakMemory >> 20) MB")
        }
    }

    @Test func aSparseFileOfZerosIsRefusedAtByteZero() throws {
        let path = ScratchFolder.filePath("ict-sparse", extension: "plist")
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: 1 << 30)  // 1 GiB, all holes.
        try handle.close()
        for arguments in [["plutil", "-lint", path], ["validate", path], ["convert", path, "--format", "json", "-o", "-"]] {
            let run = try ICTRunner.run(arguments)
            #expect(run.status == 1, "\(run.stderr)")
            #expect(run.stderr.contains("byte 0x00 (NUL) starts no property list"), "\(run.stderr)")
            #expect(run.peakMemory < Self.memoryBound, "used \(run.peakMemory >> 20) MB")
        }
        let lint = try ICTRunner.run(["plutil", "-lint", path])
        #expect(lint.stderr.hasPrefix("\(path): (The operation could not be completed. byte 0: byte 0x00 (NUL)"), "\(lint.stderr)")
    }
}

/// Issue 20, acceptance line 3: no input in the tests' corpora (every file
/// under SampleDocs/ and ../shared/interop/, each `.ict` document whole)
/// and no endless standard input makes `ict validate`, `ict inspect` or
/// `ict convert --format json -o -` use more than 256 MB or run longer
/// than 5 seconds. One run at a time, so the times are the commands' own.
@Suite(.tags(.slow), .enabled(if: SlowTests.enabled, SlowTests.skipped), .serialized)
struct InputBoundsTests {
    static let inputs: [String] = {
        var paths: [String] = []
        var roots = [Repository.root.appendingPathComponent("SampleDocs")]
        if InteropCorpus.isPresent { roots.append(InteropCorpus.root) }
        for root in roots {
            guard let walk = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey]) else { continue }
            for case let url as URL in walk {
                if url.pathExtension == "ict" || (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
                    paths.append(url.path)
                }
            }
        }
        return paths.sorted()
    }()

    static let commands: [@Sendable (String) -> [String]] = [
        { ["validate", $0] },
        { ["inspect", $0] },
        { ["convert", $0, "--format", "json", "-o", "-"] },
    ]

    private func check(_ arguments: [String], stdinPath: String? = nil) throws {
        let run = try ICTRunner.run(arguments, stdinPath: stdinPath)
        let shown = arguments.joined(separator: " ") + (stdinPath.map { " < \($0)" } ?? "")
        #expect(run.status < 128, "\(shown): killed, status \(run.status)")
        #expect(run.peakMemory <= 256 << 20, "\(shown): used \(run.peakMemory >> 20) MB")
        // The issue's stated bound (issue 20, acceptance line 3): no command
        // runs longer than 5 seconds. Only this slow test checks a time.
        #expect(run.seconds <= 5, "\(shown): took \(run.seconds) s")
    }

    @Test func theCorporaAreFound() {
        #expect(Self.inputs.contains { $0.hasSuffix("SampleDocs/malformed/expansion-bomb.plist") })
        #expect(Self.inputs.count >= (InteropCorpus.isPresent ? 700 : 20))
    }

    @Test(arguments: inputs)
    func everyInputStaysWithinTheBounds(_ path: String) throws {
        // `convert` of a document writes its photo and thumbnail beside it:
        // a copy keeps the corpora as they are.
        var input = path
        let scratch = try ScratchFolder.make("ict-bounds")
        defer { try? FileManager.default.removeItem(at: scratch) }
        if path.hasSuffix(".ict") {
            input = scratch.appendingPathComponent(URL(fileURLWithPath: path).lastPathComponent).path
            try FileManager.default.copyItem(atPath: path, toPath: input)
        }
        for command in Self.commands {
            try check(command(input))
        }
    }

    @Test(arguments: ["/dev/zero", "/dev/urandom"])
    func endlessStandardInputStaysWithinTheBounds(_ device: String) throws {
        for command in Self.commands {
            try check(command("-"), stdinPath: device)
        }
    }
}
