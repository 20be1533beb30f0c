import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Issue 38, items 1, 2, 3 and 8: what a peer of a synced folder (or
/// another program) can plant where a document, a conflict copy or an output
/// is expected — a FIFO, a socket, a device, a symbolic link — and what a
/// killed save leaves behind. Each run is bounded (a FIFO opened by mistake
/// would wait forever: `killedAfter`), ends with its status and a message
/// naming the place, and nothing on disk changes unless the user asked
/// (`--follow-symlinks`); checked item by item (`FolderSnapshot`: bytes,
/// link destinations, file types and device numbers).
struct PlantedItemCommandTests {
    static let samples = Repository.root.path + "/SampleDocs"
    static let copyName = "sync-conflict-20261124-093015-ABCDEFG"

    /// A new folder holding `work/` (where the commands run) and `outside/`
    /// (what links point to), removed by the caller.
    private func scratch() throws -> (root: String, work: String, outside: String) {
        // A short label: a socket's path (made here) holds at most 107 bytes.
        let root = try ScratchFolder.make("p").path
        try FileManager.default.createDirectory(atPath: root + "/work", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/outside", withIntermediateDirectories: true)
        return (root, root + "/work", root + "/outside")
    }

    /// The kinds of special file a test plants, each made by a real system call (`mkfifo`, `bind`, `mknod`).
    enum Special: String, CaseIterable {
        case fifo, socket, device

        /// Makes one at `path`; the device is `/dev/null`'s (1, 3), made only as root (CI runs as root).
        func make(at path: String) throws {
            switch self {
            case .fifo:
                guard mkfifo(path, 0o644) == 0 else { throw POSIXError(.EIO) }
            case .socket:
                _ = try PythonScript.run("import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])", arguments: [path])
            case .device:
                guard mknod(path, S_IFCHR | 0o644, dev_t(1 << 8 | 3)) == 0 else { throw POSIXError(.EPERM) }
            }
        }

        /// How `ict` names the kind in its messages.
        var phrase: String {
            switch self {
            case .fifo: "a FIFO (named pipe)"
            case .socket: "a socket"
            case .device: "a character device"
            }
        }
    }

    static let specials: [Special] = getuid() == 0 ? Special.allCases : [.fifo, .socket]

    // MARK: Item 1: a special file as a conflict copy or as the document

    @Test(arguments: specials, ["G.icfnote", "G.dox", "G.plist"])
    func aSpecialFileNamedAsAConflictCopyIsNeverKept(special: Special, name: String) throws {
        let (root, work, _) = try scratch()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let document = work + "/" + name
        let base = (name as NSString).deletingPathExtension, ext = (name as NSString).pathExtension
        let copy = "\(work)/\(base).\(Self.copyName).\(ext)"
        try Data("precious".utf8).write(to: URL(fileURLWithPath: document))
        try special.make(at: copy)
        let before = try FolderSnapshot.take(root)
        let refusal = "version 1: the version is \(special.phrase), not a document; it is never read, moved or copied into the document's place"

        let versions = try ICTRunner.run(["versions", document], killedAfter: 60)
        #expect(versions.status == 1)
        #expect(versions.stdout.contains(copy), "listed, so the user sees it")
        #expect(versions.stderr == "\(copy): error: \(refusal)\n")
        for keep in ["1", copy] {
            let resolve = try ICTRunner.run(["resolve", document, "--keep", keep], killedAfter: 60)
            #expect(resolve.status == 1)
            #expect(resolve.stderr == "\(copy): error: refusing to keep it: \(refusal)\n")
            #expect(try FolderSnapshot.take(root) == before, "the document is still the text, the \(special) still there")
        }
        // Keeping the document removes the planted item as any other conflict copy.
        let current = try ICTRunner.run(["resolve", document, "--keep", "current"], killedAfter: 60)
        #expect(current.status == 0, "\(current.stderr)")
        var after = before
        after.removeValue(forKey: "work/" + (copy as NSString).lastPathComponent)
        #expect(try FolderSnapshot.take(root) == after)
    }

    @Test(arguments: specials)
    func aSpecialFileStandingAsTheDocumentIsRefusedAndItsConflictCopyKept(special: Special) throws {
        let (root, work, _) = try scratch()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let document = work + "/G.icfnote"
        let copy = "\(work)/G.\(Self.copyName).icfnote"
        try special.make(at: document)
        try Data("the other device's text".utf8).write(to: URL(fileURLWithPath: copy))
        let before = try FolderSnapshot.take(root)
        let refusal = "\(document): error: the document is \(special.phrase), not a document; it is never read, moved or copied into the document's place\n"
        for arguments in [["versions", document], ["resolve", document, "--keep", "current"], ["resolve", document, "--keep", "1"]] {
            let run = try ICTRunner.run(arguments, killedAfter: 60)
            #expect(run.status == 1, "\(arguments)")
            #expect(run.stderr == refusal, "\(arguments)")
            #expect(try FolderSnapshot.take(root) == before, "\(arguments): the copy, the only text, is kept")
        }
        let set = try ICTRunner.run(["set", document, "--text", "new"], killedAfter: 60)
        #expect(set.status == 1)
        #expect(set.stderr == "\(document): error: is \(special.phrase), not a document; it is left as it is\n")
        #expect(try FolderSnapshot.take(root) == before)
    }

    // MARK: Item 2: a symbolic link as the document or the output

    @Test func aNoteThatIsALinkIsNotWrittenThroughUnlessAsked() throws {
        let (root, work, outside) = try scratch()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try Data("secret".utf8).write(to: URL(fileURLWithPath: outside + "/passwd"))
        try FileManager.default.createSymbolicLink(atPath: work + "/p.icfnote", withDestinationPath: outside + "/passwd")
        let before = try FolderSnapshot.take(root)
        let set = try ICTRunner.run(["set", work + "/p.icfnote", "--text", "x"])
        #expect(set.status == 1)
        #expect(
            set.stderr
                == "\(work)/p.icfnote: error: \(work)/p.icfnote: cannot write: is a symbolic link (to \"\(outside)/passwd\"); not written through it, which would change whatever it points to\n"
        )
        #expect(try FolderSnapshot.take(root) == before)

        let asked = try ICTRunner.run(["set", work + "/p.icfnote", "--text", "x", "--follow-symlinks"])
        #expect(asked.status == 0, "\(asked.stderr)")
        #expect(asked.stdout == "\(outside)/passwd: saved\n", "says what it wrote")
        #expect(try String(contentsOfFile: outside + "/passwd", encoding: .utf8) == "x")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: work + "/p.icfnote") == outside + "/passwd")
    }

    @Test func aPackageThatIsALinkIsNotEditedThroughItByAnyVerb() throws {
        let (root, work, outside) = try scratch()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.copyItem(atPath: Self.samples + "/Rocket.ict", toPath: outside + "/Rocket.ict")
        let link = work + "/L.ict"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: outside + "/Rocket.ict")
        let before = try FolderSnapshot.take(root)
        let fields = try ICTRunner.run(["set", link, "--first-name", "Zed"])
        #expect(fields.status == 1)
        #expect(
            fields.stderr == "\(link): error: \(link): is a symbolic link (to \"\(outside)/Rocket.ict\"); a package is never saved through a link or over one\n"
        )
        let linkRefusal =
            "the document is a symbolic link (to \"\(outside)/Rocket.ict\"); not written through it, which would change whatever it points to; "
            + "name what it points to, or pass --follow-symlinks to write there"
        for arguments in [
            ["set", link, "ctdocument.data:FIRST_NAME", "-string", "Zed"],
            ["insert", link, "ctdocument.data:NOTE", "-string", "k"],
            ["remove", link, "ctdocument.data:LAST_NAME"],
        ] {
            let run = try ICTRunner.run(arguments)
            #expect(run.status == 1, "\(arguments)")
            #expect(run.stderr.contains(linkRefusal), "\(arguments): \(run.stderr)")
            #expect(try FolderSnapshot.take(root) == before, "\(arguments)")
        }
        let asked = try ICTRunner.run(["set", link, "--first-name", "Zed", "--follow-symlinks"])
        #expect(asked.status == 0, "\(asked.stderr)")
        let name = try ICTRunner.run(["get", outside + "/Rocket.ict", "ctdocument.data:FIRST_NAME"])
        #expect(name.stdout == "Zed\n")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == outside + "/Rocket.ict")
    }

    @Test func everyOutputRefusesALinkToAFile() throws {
        let (root, work, outside) = try scratch()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.copyItem(atPath: Self.samples + "/Rocket.ict", toPath: work + "/Rocket.ict")
        try FileManager.default.copyItem(atPath: Self.samples + "/Info.plist", toPath: work + "/Info.plist")
        // A property list, so that set reads it through the link before it comes to write.
        try Data(#"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict/></plist>"#.utf8).write(to: URL(fileURLWithPath: outside + "/target"))
        try FileManager.default.createSymbolicLink(atPath: work + "/out", withDestinationPath: outside + "/target")
        let out = work + "/out"
        let before = try FolderSnapshot.take(root)
        for arguments in [
            ["convert", work + "/Info.plist", "--format", "binary1", "-o", out],
            ["convert", work + "/Rocket.ict", "--format", "json", "--embed", "-o", out],
            ["convert", work + "/Rocket.ict", "--format", "zip", "-o", out],
            ["get", work + "/Info.plist", "CFBundleName", "-o", out],
            ["thumbnail", work + "/Rocket.ict", "-o", out],
            ["set", out, "a", "-string", "b"],
        ] {
            let run = try ICTRunner.run(arguments)
            #expect(run.status == 1, "\(arguments)")
            #expect(run.stderr.contains("is a symbolic link (to \"\(outside)/target\")"), "\(arguments): \(run.stderr)")
            #expect(try FolderSnapshot.take(root) == before, "\(arguments)")
        }
        // Apple's plutil writes through a link, and so does ict plutil, for the scripts that call it.
        let plutil = try ICTRunner.run(["plutil", "-convert", "xml1", "-o", out, work + "/Info.plist"])
        #expect(plutil.status == 0, "\(plutil.stderr)")
        #expect(try String(contentsOfFile: outside + "/target", encoding: .utf8).hasPrefix("<?xml"))
    }

    // MARK: Item 3: a zip to a device, a FIFO or through a link

    /// A package with a file over the zip writer's whole-file size (256 KiB), so one entry streams with a data descriptor.
    private func largePackage(in folder: String) throws -> String {
        let package = folder + "/Big.ict"
        try FileManager.default.copyItem(atPath: Self.samples + "/Rocket.ict", toPath: package)
        var bytes = [UInt8](repeating: 0, count: 700_000)
        var state: UInt32 = 12345
        for index in bytes.indices {
            state = state &* 1_103_515_245 &+ 12345
            bytes[index] = UInt8(truncatingIfNeeded: state >> 16)
        }
        try Data(bytes).write(to: URL(fileURLWithPath: package + "/extra.bin"))
        return package
    }

    @Test func aZipToADeviceOrFIFOIsWrittenAsAStream() throws {
        let (root, work, _) = try scratch()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let package = try largePackage(in: work)
        var null = stat()
        #expect(stat("/dev/null", &null) == 0)
        let toNull = try ICTRunner.run(["convert", package, "--format", "zip", "-o", "/dev/null"], killedAfter: 60)
        #expect(toNull.status == 0, "\(toNull.stderr)")
        var after = stat()
        #expect(stat("/dev/null", &after) == 0)
        #expect(after.st_mode & S_IFMT == S_IFCHR && after.st_rdev == null.st_rdev, "still the device")

        // Through a FIFO that Python's zipfile reads: every entry's bytes and checksum as the package has them.
        let fifo = work + "/stream.zip"
        #expect(mkfifo(fifo, 0o644) == 0)
        let reader = Process()
        reader.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        reader.arguments = [
            "python3", "-c",
            """
            import hashlib, io, sys, zipfile
            z = zipfile.ZipFile(io.BytesIO(open(sys.argv[1], 'rb').read()))
            assert z.testzip() is None
            for i in z.infolist():
                print(i.filename, i.flag_bits & 8, hashlib.sha256(z.read(i)).hexdigest())
            """, fifo,
        ]
        let output = Pipe()
        reader.standardOutput = output
        try reader.run()
        let run = try ICTRunner.run(["convert", package, "--format", "zip", "-o", fifo], killedAfter: 60)
        let listed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        reader.waitUntilExit()
        #expect(run.status == 0, "\(run.stderr)")
        #expect(reader.terminationStatus == 0)
        var expected: [String] = ["Big.ict/ 0 \(sha256(Data()))"]
        for entry in try FileManager.default.contentsOfDirectory(atPath: package).sorted() {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: package + "/" + entry))
            expected.append("Big.ict/\(entry) \(bytes.count > 256 << 10 ? 8 : 0) \(sha256(bytes))")
        }
        #expect(listed.split(separator: "\n").map(String.init).sorted() == expected.sorted())
        var fifoStatus = stat()
        #expect(lstat(fifo, &fifoStatus) == 0 && fifoStatus.st_mode & S_IFMT == S_IFIFO, "the FIFO is still a FIFO")
    }

    @Test func aZipThroughALinkIsRefusedUnlessAsked() throws {
        let (root, work, outside) = try scratch()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let package = try largePackage(in: work)
        try Data("kept".utf8).write(to: URL(fileURLWithPath: outside + "/target.zip"))
        try FileManager.default.createSymbolicLink(atPath: work + "/out.zip", withDestinationPath: outside + "/target.zip")
        let before = try FolderSnapshot.take(root)
        let refused = try ICTRunner.run(["convert", package, "--format", "zip", "-o", work + "/out.zip"])
        #expect(refused.status == 1)
        #expect(
            refused.stderr == "\(work)/out.zip: error: is a symbolic link (to \"\(outside)/target.zip\"); a zip is never written through a link or over one\n"
        )
        #expect(try FolderSnapshot.take(root) == before)
        let asked = try ICTRunner.run(["convert", package, "--format", "zip", "-o", work + "/out.zip", "--follow-symlinks"])
        #expect(asked.status == 0, "\(asked.stderr)")
        #expect(try PythonZip.entries(of: outside + "/target.zip").map(\.path).contains("Big.ict/extra.bin"))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: work + "/out.zip") == outside + "/target.zip")
    }

    // MARK: Item 8: what a killed save left, removed by every writer

    /// The pid of a process that has ended (run and waited for).
    private func endedProcessID() throws -> Int32 {
        let ended = Process()
        ended.executableURL = URL(fileURLWithPath: "/bin/true")
        try ended.run()
        ended.waitUntilExit()
        return ended.processIdentifier
    }

    @Test(arguments: [
        ["set", "Doc.ict", "ctdocument.data:FIRST_NAME", "-string", "Zed"],
        ["insert", "Doc.ict", "ctdocument.data:NOTE", "-string", "k"],
        ["remove", "Doc.ict", "ctdocument.data:LAST_NAME"],
        ["set", "Doc.ict", "--first-name", "Zed"],
    ])
    func everyWriterRemovesWhatAKilledSaveLeftBesideThePackage(arguments: [String]) throws {
        let (root, work, _) = try scratch()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.copyItem(atPath: Self.samples + "/Rocket.ict", toPath: work + "/Doc.ict")
        // As a save killed midway leaves it: a half-written new version under the temporary name of a process now gone.
        let stray = work + "/.Doc.ict.ict-new-\(try endedProcessID())-0000abcd"
        try FileManager.default.createDirectory(atPath: stray, withIntermediateDirectories: false)
        try Data("half".utf8).write(to: URL(fileURLWithPath: stray + "/ctdocument.data"))
        // And one of a process still running (this one), which must stay.
        let live = work + "/.Doc.ict.ict-new-\(getpid())-0000abce"
        try FileManager.default.createDirectory(atPath: live, withIntermediateDirectories: false)
        let run = try ICTRunner.run(arguments.map { $0.hasPrefix("Doc.ict") ? work + "/" + $0 : $0 })
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: work).sorted() == [".Doc.ict.ict-new-\(getpid())-0000abce", "Doc.ict"])
    }

    private func sha256(_ data: Data) -> String {
        String(((try? ProgramRunner.run("/usr/bin/sha256sum", [], input: data).stdout) ?? "").prefix(64))
    }
}
