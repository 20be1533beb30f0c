import ConflictVersions
import DocumentFormats
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Issue 38, acceptance 4: two real Syncthing devices share a folder of
/// documents; the other device plants symbolic links named as a note, as a
/// package and as conflict copies of both (Syncthing carries links as
/// links), pointing outside the folder. Syncthing never carries a FIFO, so
/// FIFOs named as a note and as a conflict copy are planted on this device,
/// as another program would. Every `ict` verb and the library's save and
/// resolve refuse them, and nothing outside the folder, nor the folder
/// itself, changes.
@Suite(.serialized, .enabled(if: SyncthingDevices.isInstalled, "syncthing is not installed (scripts/install-deps.sh test installs it)"))
struct SyncedFolderPlantTests {
    static let samples = Repository.root.path + "/SampleDocs"
    static let copy = "sync-conflict-20261124-093015-ABCDEFG"
    static let fifoCopy = "sync-conflict-20261124-093016-BBBBBBB"

    @Test func linksAndFIFOsAPeerPlantsAreRefusedByEveryVerbAndTheLibrary() throws {
        let sync = try SyncthingDevices(count: 2)
        defer { sync.stop() }
        let here = sync.devices[0].folder, there = sync.devices[1].folder
        let outside = sync.root + "/outside"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try Data("not to be touched".utf8).write(to: URL(fileURLWithPath: outside + "/secret"))
        try FileManager.default.copyItem(atPath: Self.samples + "/Coffee.ict", toPath: outside + "/Elsewhere.ict")

        // This device's documents reach the other device.
        try Data("the note".utf8).write(to: URL(fileURLWithPath: here + "/Note.icfnote"))
        try FileManager.default.copyItem(atPath: Self.samples + "/Rocket.ict", toPath: here + "/Friend.ict")
        try sync.scan(0)
        try sync.waitUntil("the documents on device 1") {
            FileManager.default.fileExists(atPath: there + "/Note.icfnote") && FileManager.default.fileExists(atPath: there + "/Friend.ict/ctdocument.data")
                && FileManager.default.fileExists(atPath: there + "/Friend.ict/ctdocument.metadata")
        }

        // The other device plants links; they arrive here as links.
        let planted = [
            ("Planted.icfnote", outside + "/secret"),
            ("Note.\(Self.copy).icfnote", outside + "/secret"),
            ("Linked.ict", outside + "/Elsewhere.ict"),
            ("Friend.\(Self.copy).ict", outside + "/Elsewhere.ict"),
        ]
        for (name, destination) in planted {
            try FileManager.default.createSymbolicLink(atPath: there + "/" + name, withDestinationPath: destination)
        }
        try sync.scan(1)
        try sync.waitUntil("the planted links on device 0") {
            planted.allSatisfy { name, destination in
                (try? FileManager.default.destinationOfSymbolicLink(atPath: here + "/" + name)) == destination
            }
        }
        try sync.waitUntil("both devices idle") { try sync.isIdleAndComplete(0) && sync.isIdleAndComplete(1) }
        // FIFOs, as another program on this device makes them.
        #expect(mkfifo(here + "/Fifo.icfnote", 0o644) == 0)
        #expect(mkfifo(here + "/Note.\(Self.fifoCopy).icfnote", 0o644) == 0)

        let beforeOutside = try FolderSnapshot.take(outside)
        let beforeHere = try FolderSnapshot.take(here)
        let verbs: [[String]] = [
            ["versions", "Note.icfnote"],
            ["resolve", "Note.icfnote", "--keep", "1"],
            ["resolve", "Note.icfnote", "--keep", "2"],
            ["resolve", "Note.icfnote", "--keep", "Note.\(Self.copy).icfnote"],
            ["versions", "Friend.ict"],
            ["resolve", "Friend.ict", "--keep", "1"],
            ["set", "Planted.icfnote", "--text", "x"],
            ["set", "Fifo.icfnote", "--text", "x"],
            ["set", "Linked.ict", "--first-name", "Mallory"],
            ["set", "Linked.ict", "ctdocument.data:FIRST_NAME", "-string", "Mallory"],
            ["insert", "Linked.ict", "ctdocument.data:NOTE", "-string", "k"],
            ["remove", "Linked.ict", "ctdocument.data:LAST_NAME"],
            ["convert", "Note.icfnote", "--format", "json", "-o", "Planted.icfnote"],
            ["convert", "Friend.ict", "--format", "json", "--embed", "-o", "Planted.icfnote"],
            ["get", "Friend.ict", "ctdocument.data:FIRST_NAME", "-o", "Planted.icfnote"],
            ["thumbnail", "Friend.ict", "-o", "Planted.icfnote"],
        ]
        for verb in verbs {
            let arguments = verb.map { $0.contains(".icfnote") || $0.contains(".ict") ? here + "/" + $0 : $0 }
            let run = try ICTRunner.run(arguments, killedAfter: 60)
            #expect(run.status == 1, "\(verb): \(run.stderr)")
            #expect(
                run.stderr.contains("symbolic link") || run.stderr.contains("FIFO"),
                "\(verb): the message says what is there: \(run.stderr)")
        }
        // Listing the folder neither hangs on the FIFOs nor lists a planted item as a document.
        let list = try ICTRunner.run(["list", here, "--jsonl"], killedAfter: 60)
        #expect(list.status < 128, "\(list.stderr)")

        // The library: resolving and saving.
        let noteVersions = try DocumentVersion.otherVersionsOfItem(at: here + "/Note.icfnote")
        #expect(noteVersions.count == 2)
        for version in noteVersions {
            let error = try #require(throws: DocumentVersionError.self) { try version.replaceItem(at: here + "/Note.icfnote", options: .byMoving) }
            #expect(error.code == .symbolicLink || error.code == .specialFile)
        }
        for version in try DocumentVersion.otherVersionsOfItem(at: here + "/Friend.ict") {
            let error = try #require(throws: DocumentVersionError.self) { try version.replaceItem(at: here + "/Friend.ict") }
            #expect(error.code == .symbolicLink)
        }
        #expect(throws: ICTDocumentError.self) { try TextNoteFile.write("x", to: here + "/Planted.icfnote", replacingExisting: true) }
        #expect(throws: ICTDocumentError.self) { try TextNoteFile.write("x", to: here + "/Fifo.icfnote", replacingExisting: true) }
        let linked = try ICTDocumentFile(contentsOf: here + "/Linked.ict")
        #expect(throws: ICTDocumentError.self) { try linked.save() }

        #expect(try FolderSnapshot.take(outside) == beforeOutside, "nothing outside the folder changed")
        #expect(try FolderSnapshot.take(here) == beforeHere, "nothing in the folder changed")
        #expect(try String(contentsOfFile: here + "/Note.icfnote", encoding: .utf8) == "the note")
    }
}
