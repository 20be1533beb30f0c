import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Issue 20, links: real symbolic links — to files and folders outside the
/// folder worked in, to a parent folder (a loop), to `/`, dangling — as
/// conflict copies, as entries of a document, as folders met by `list -r`
/// and as outputs. Every run ends with a status below 128 (no crash), says
/// what is wrong and where, and leaves what the links point to byte for byte
/// as it was.
struct SymbolicLinkCommandTests {
    static let samples = Repository.root.path + "/SampleDocs"
    static let syncthingFile = "notes.sync-conflict-20261123-101500-ABCDEF7.txt"
    static let syncthingPackage = "Friend.sync-conflict-20261123-101500-ABCDEF7.ict"
    static let entryCopy = "ctdocument.sync-conflict-20261123-101500-ABCDEF7.data"

    /// A new folder holding `work/` (where the commands run) and `outside/`
    /// (what links point to), removed by the caller.
    private func scratch() throws -> (root: String, work: String, outside: String) {
        let root = try ScratchFolder.make("ict-links").path
        try FileManager.default.createDirectory(atPath: root + "/work", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/outside", withIntermediateDirectories: true)
        return (root, root + "/work", root + "/outside")
    }

    /// Every item under `path` by its path below it (`FolderSnapshot`).
    private func snapshot(_ path: String) throws -> [String: String] { try FolderSnapshot.take(path) }

    private func link(_ path: String, to destination: String) throws {
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: destination)
    }

    // MARK: Versions and resolve

    @Test func aConflictCopyThatIsALinkToAFileOutsideIsRefusedNotMovedIn() throws {
        let (root, work, outside) = try scratch()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try Data("mine\n".utf8).write(to: URL(fileURLWithPath: work + "/notes.txt"))
        try Data("a secret elsewhere\n".utf8).write(to: URL(fileURLWithPath: outside + "/secret.txt"))
        try link(work + "/" + Self.syncthingFile, to: outside + "/secret.txt")
        let before = try snapshot(root)
        let expected =
            "\(work)/\(Self.syncthingFile): error: version 1: the version is a symbolic link (to \"\(outside)/secret.txt\"); "
            + "a link is never moved or copied into the document's place, where later edits would write through it\n"

        let listed = try ICTRunner.run(["versions", work + "/notes.txt"])
        #expect(listed.status == 1)
        #expect(listed.stderr == expected)
        #expect(listed.stdout.contains("1  Syncthing copy, 2026-11-23 10:15:00, device ABCDEF7\n    \(work)/\(Self.syncthingFile)\n"))

        for keep in ["1", work + "/" + Self.syncthingFile] {
            let run = try ICTRunner.run(["resolve", work + "/notes.txt", "--keep", keep])
            #expect(run.status == 1)
            #expect(
                run.stderr
                    == "\(work)/\(Self.syncthingFile): error: refusing to keep it: version 1: the version is a symbolic link (to \"\(outside)/secret.txt\"); "
                    + "a link is never moved or copied into the document's place, where later edits would write through it\n")
            #expect(try snapshot(root) == before, "nothing changed, the document is still a file")
        }

        // Keeping the document removes the link, and only the link.
        let current = try ICTRunner.run(["resolve", work + "/notes.txt", "--keep", "current"])
        #expect(current.status == 0, "\(current.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: work) == ["notes.txt"])
        #expect(FileManager.default.contents(atPath: outside + "/secret.txt") == Data("a secret elsewhere\n".utf8))
    }

    @Test func aConflictCopyThatIsALinkToAPackageOutsideIsRefusedAndRemovedAlone() throws {
        let (root, work, outside) = try scratch()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.copyItem(atPath: Self.samples + "/Coffee.ict", toPath: work + "/Friend.ict")
        try FileManager.default.copyItem(atPath: Self.samples + "/Rocket.ict", toPath: outside + "/Rocket.ict")
        try link(work + "/" + Self.syncthingPackage, to: outside + "/Rocket.ict")
        let before = try snapshot(root)
        let outsideBefore = try snapshot(outside)

        let listed = try ICTRunner.run(["versions", work + "/Friend.ict"])
        #expect(listed.status == 1)
        #expect(listed.stderr.hasPrefix("\(work)/\(Self.syncthingPackage): error: version 1: the version is a symbolic link (to \"\(outside)/Rocket.ict\")"))
        let kept = try ICTRunner.run(["resolve", work + "/Friend.ict", "--keep", "1"])
        #expect(kept.status == 1)
        #expect(kept.stderr.contains("error: refusing to keep it: version 1: the version is a symbolic link"), "\(kept.stderr)")
        #expect(try snapshot(root) == before)

        let current = try ICTRunner.run(["resolve", work + "/Friend.ict", "--keep", "current"])
        #expect(current.status == 0, "\(current.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: work) == ["Friend.ict"])
        #expect(try snapshot(outside) == outsideBefore, "removing the link left the package it pointed to whole")
    }

    @Test func anEntryCopyInsideAPackageThatIsALinkIsRefusedNotACrash() throws {
        let (root, work, outside) = try scratch()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let document = work + "/Friend.ict"
        try FileManager.default.copyItem(atPath: Self.samples + "/Coffee.ict", toPath: document)
        try FileManager.default.copyItem(atPath: Self.samples + "/Rocket.ict/ctdocument.data", toPath: outside + "/data")
        try link(document + "/" + Self.entryCopy, to: outside + "/data")
        let before = try snapshot(root)
        let message =
            "version 1: the entry copy is a symbolic link (to \"\(outside)/data\"); "
            + "a link is never moved or copied into the document's place, where later edits would write through it\n"

        let listed = try ICTRunner.run(["versions", document])
        #expect(listed.status == 1, "no crash: \(listed.stderr)")
        #expect(listed.stderr == "\(document):\(Self.entryCopy): error: " + message)
        #expect(listed.stdout.contains("1  Syncthing entry copies (ctdocument.data), 2026-11-23 10:15:00, device ABCDEF7\n"))
        let json = try ICTRunner.run(["versions", "--json", document])
        #expect(json.status == 1)
        let report = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect((report?["versions"] as? [Any])?.count == 2)

        let kept = try ICTRunner.run(["resolve", document, "--keep", "1"])
        #expect(kept.status == 1, "no crash: \(kept.stderr)")
        #expect(kept.stderr == "\(document):\(Self.entryCopy): error: refusing to keep it: " + message)
        #expect(try snapshot(root) == before)

        let current = try ICTRunner.run(["resolve", document, "--keep", "current"])
        #expect(current.status == 0, "\(current.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: document).sorted() == [".ictkit-manifest.plist", "ctdocument.data", "ctdocument.metadata"])
        #expect(FileManager.default.contents(atPath: outside + "/data") == FileManager.default.contents(atPath: Self.samples + "/Rocket.ict/ctdocument.data"))
    }

    @Test func aDocumentNamedThroughALinkIsRefusedWithWhereItPoints() throws {
        let (root, work, _) = try scratch()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.copyItem(atPath: Self.samples + "/Coffee.ict", toPath: work + "/Friend.ict")
        try FileManager.default.copyItem(atPath: Self.samples + "/Rocket.ict", toPath: work + "/" + Self.syncthingPackage)
        try link(work + "/Link.ict", to: "Friend.ict")
        let before = try snapshot(root)
        let expected =
            "\(work)/Link.ict: error: the document is a symbolic link (to \"Friend.ict\"); "
            + "its versions are beside the item it points to, named after it: name that item instead\n"
        for arguments in [["versions", work + "/Link.ict"], ["resolve", work + "/Link.ict", "--keep", "current"]] {
            let run = try ICTRunner.run(arguments)
            #expect(run.status == 1)
            #expect(run.stderr == expected)
        }
        #expect(try snapshot(root) == before)
    }

    // MARK: list -r

    @Test func listRecursiveNeverFollowsLinksToFolders() throws {
        let (root, work, outside) = try scratch()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: work + "/people", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.samples + "/Coffee.ict", toPath: work + "/people/Friend.ict")
        try FileManager.default.copyItem(atPath: Self.samples + "/Rocket.ict", toPath: outside + "/Rocket.ict")
        try link(work + "/people/up", to: "..")  // A loop: people/up/people/up/…
        try link(work + "/elsewhere", to: outside)
        try link(work + "/Linked.ict", to: "people/Friend.ict")  // A link to a document is listed, once.
        func listed() throws -> [String]? {
            let run = try ICTRunner.run(["list", "-r", "--json", work])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stderr == "")
            let report = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
            return (report?["documents"] as? [[String: Any]])?.compactMap { $0["path"] as? String }.sorted()
        }
        let expected = [work + "/Linked.ict", work + "/people/Friend.ict"]
        // Followed, the loop lists people/Friend.ict 41 times (until ELOOP); first that, which ends either way.
        try #require(try listed() == expected)
        // Followed, a link to / is a walk of the whole disk, which /proc makes endless.
        try link(work + "/people/root", to: "/")
        let before = try snapshot(root)
        #expect(try listed() == expected)
        #expect(try snapshot(root) == before)
    }

    // MARK: Entries of a document

    @Test func getAndSetRefuseAnEntryThatIsALinkOutsideTheDocument() throws {
        let (root, work, outside) = try scratch()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let document = work + "/Friend.ict"
        try FileManager.default.copyItem(atPath: Self.samples + "/Coffee.ict", toPath: document)
        try FileManager.default.moveItem(atPath: document + "/ctdocument.data", toPath: outside + "/data")
        try link(document + "/ctdocument.data", to: outside + "/data")
        let before = try snapshot(root)
        let expected =
            "\(document):ctdocument.data: error: the entry is a symbolic link (to \(outside)/data), not a file; "
            + "links in a document are not followed (at ctdocument.data:FIRST_NAME)\n"

        let set = try ICTRunner.run(["set", document, "ctdocument.data:FIRST_NAME", "-string", "Mallory"])
        #expect(set.status == 1)
        #expect(set.stderr == expected)
        let get = try ICTRunner.run(["get", document, "ctdocument.data:FIRST_NAME"])
        #expect(get.status == 1)
        #expect(get.stderr == expected)
        #expect(try snapshot(root) == before, "the file outside is byte for byte as it was")
    }

    // MARK: Outputs

    @Test func anOutputThatIsALinkIsRefusedUnlessFollowSymlinksIsGiven() throws {
        let (root, work, outside) = try scratch()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try Data(#"{"name": "Ada"}"#.utf8).write(to: URL(fileURLWithPath: work + "/in.json"))
        try link(work + "/out.plist", to: outside + "/made-here.plist")
        let refusal =
            "\(work)/out.plist: error: is a symbolic link (to \"\(outside)/made-here.plist\"); not written through it, which would change "
            + "whatever it points to; name what it points to, or pass --follow-symlinks to write there\n"
        let before = try snapshot(root)
        let run = try ICTRunner.run(["convert", work + "/in.json", "--format", "xml1", "-o", work + "/out.plist"])
        #expect(run.status == 1)
        #expect(run.stderr == refusal)
        #expect(try snapshot(root) == before, "no file made outside, the link kept")
        // Asked for, a dangling link is still refused: no file is made wherever it points.
        let dangling = try ICTRunner.run(["convert", work + "/in.json", "--format", "xml1", "-o", work + "/out.plist", "--follow-symlinks"])
        #expect(dangling.status == 1)
        #expect(
            dangling.stderr
                == "\(work)/out.plist: error: is a symbolic link to nothing (dangling); not writing through it, which would make a file wherever it points\n")
        #expect(try snapshot(root) == before)

        // A link to a file: refused too, the file untouched; written through, the link kept, only with --follow-symlinks.
        try Data("kept".utf8).write(to: URL(fileURLWithPath: outside + "/made-here.plist"))
        let kept = try snapshot(root)
        let again = try ICTRunner.run(["convert", work + "/in.json", "--format", "xml1", "-o", work + "/out.plist"])
        #expect(again.status == 1)
        #expect(again.stderr == refusal)
        #expect(try snapshot(root) == kept)
        let through = try ICTRunner.run(["convert", work + "/in.json", "--format", "xml1", "-o", work + "/out.plist", "--follow-symlinks"])
        #expect(through.status == 0, "\(through.stderr)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: work + "/out.plist") == outside + "/made-here.plist")
        #expect(String(decoding: FileManager.default.contents(atPath: outside + "/made-here.plist") ?? Data(), as: UTF8.self).contains("<string>Ada</string>"))
    }

    @Test func createBesideADanglingLinkLeavesItAndWritesNothingOutside() throws {
        let (root, work, outside) = try scratch()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try link(work + "/Friend.ict", to: outside + "/Friend.ict")
        let run = try ICTRunner.run(["create", "-o", work, "--first-name", "Ada"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "\(work)/Friend 1.ict\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside) == [])
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: work + "/Friend.ict") == outside + "/Friend.ict")
    }

    @Test func batchConvertDoesNotWriteThroughALinkedFolder() throws {
        let (root, work, outside) = try scratch()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: work + "/in/sub", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: work + "/out", withIntermediateDirectories: true)
        try Data(#"{"name": "Ada"}"#.utf8).write(to: URL(fileURLWithPath: work + "/in/sub/a.json"))
        try link(work + "/out/in", to: outside)
        try Data("in/sub/a.json\n".utf8).write(to: URL(fileURLWithPath: work + "/list"))
        let before = try snapshot(outside)
        let run = try ProgramRunner.run(
            ICTRunner.executable.path, ["convert", "--files-from", "list", "--format", "xml1", "-o", "out"], in: URL(fileURLWithPath: work))
        #expect(run.status < 128)
        #expect(run.status == 1)
        #expect(run.stderr == "out/in: error: is a symbolic link; outputs are written only inside the folder -o names, so it is not followed\n")
        #expect(try snapshot(outside) == before)

        // An output that is a link to a file outside is not written through either.
        try FileManager.default.removeItem(atPath: work + "/out/in")
        try FileManager.default.createDirectory(atPath: work + "/out/in/sub", withIntermediateDirectories: true)
        try Data("outside\n".utf8).write(to: URL(fileURLWithPath: outside + "/target.plist"))
        try link(work + "/out/in/sub/a.plist", to: outside + "/target.plist")
        let outsideBefore = try snapshot(outside)
        let file = try ProgramRunner.run(
            ICTRunner.executable.path, ["convert", "--files-from", "list", "--format", "xml1", "-o", "out"], in: URL(fileURLWithPath: work))
        #expect(file.status == 1)
        #expect(file.stderr == "out/in/sub/a.plist: error: is a symbolic link; outputs are written only inside the folder -o names, so it is not followed\n")
        #expect(try snapshot(outside) == outsideBefore)
    }
}
