import AppleCompatibility
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The photo app's conflict resolution (`ConflictResolution`) over real
/// conflicts: a document and the copies Syncthing leaves beside it (or
/// inside a package, beside its entries) when two devices edited it apart,
/// named by hand as Syncthing names them.
@Suite(.serialized)
struct ConflictResolutionTests {
    /// A folder with `Note.icfnote` ("mine") and two devices' conflict copies.
    private struct ConflictedNote {
        let folder: URL
        var url: URL { folder.appendingPathComponent("Note.icfnote") }

        init() throws {
            folder = try ScratchFolder.make("AppleSourceTextTests")
            try Data("mine".utf8).write(to: folder.appendingPathComponent("Note.icfnote"))
            try Data("from the laptop".utf8).write(to: folder.appendingPathComponent("Note.sync-conflict-20261206-101010-ABCDEFG.icfnote"))
            try Data("from the phone".utf8).write(to: folder.appendingPathComponent("Note.sync-conflict-20261206-111111-HIJKLMN.icfnote"))
        }

        func text() throws -> String { String(decoding: try Data(contentsOf: url), as: UTF8.self) }
        func names() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() }
        func remove() { try? FileManager.default.removeItem(at: folder) }
    }

    @Test func theChooserShowsTheCurrentVersionThenEachDevicesVersion() throws {
        let note = try ConflictedNote()
        defer { note.remove() }
        let resolution = ConflictResolution(documentURL: note.url)
        let versions = resolution.versions
        #expect(versions.count == 3)
        #expect(!versions[0].isConflict && versions[1].isConflict && versions[2].isConflict)
        // The device text of each copy's name, then its modification time: 2026-12-06 10:10:10 UTC, as set here
        // (1796551810 by python3's calendar.timegm).
        let copy = note.folder.appendingPathComponent("Note.sync-conflict-20261206-101010-ABCDEFG.icfnote")
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_796_551_810)], ofItemAtPath: copy.path)
        #expect(resolution.label(for: resolution.versions[1]) == "ABCDEFG, 2026-12-06T10:10:10Z")
        #expect(resolution.label(for: versions[2]).hasPrefix("HIJKLMN, "))
        #expect(resolution.label(for: versions[0]).hasPrefix("This device, "))
    }

    @Test func keepingAnotherDevicesVersionPutsItInPlaceAndRemovesTheRest() throws {
        let note = try ConflictedNote()
        defer { note.remove() }
        let resolution = ConflictResolution(documentURL: note.url)
        let laptop = try #require(resolution.versions.first { $0.localizedNameOfSavingComputer == "ABCDEFG" })
        try resolution.keep(laptop)
        #expect(try note.text() == "from the laptop")
        #expect(try note.names() == ["Note.icfnote"])
        #expect(resolution.versions.count == 1)
    }

    @Test func keepingTheCurrentVersionLeavesItAndRemovesTheRest() throws {
        let note = try ConflictedNote()
        defer { note.remove() }
        let resolution = ConflictResolution(documentURL: note.url)
        try resolution.keep(resolution.versions[0])
        #expect(try note.text() == "mine")
        #expect(try note.names() == ["Note.icfnote"])
    }

    /// A package edited on two devices: Syncthing's copies of its entries make one version, kept whole.
    @Test func keepingAPackagesVersionSwapsEachEntryCopyIn() throws {
        let folder = try ScratchFolder.make("AppleSourceTextTests")
        defer { try? FileManager.default.removeItem(at: folder) }
        let package = folder.appendingPathComponent("Friend.ict")
        try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
        try Data("my data".utf8).write(to: package.appendingPathComponent("ctdocument.data"))
        try Data("my metadata".utf8).write(to: package.appendingPathComponent("ctdocument.metadata"))
        try Data("their data".utf8).write(to: package.appendingPathComponent("ctdocument.sync-conflict-20261206-101010-ABCDEFG.data"))
        try Data("their metadata".utf8).write(to: package.appendingPathComponent("ctdocument.sync-conflict-20261206-101010-ABCDEFG.metadata"))

        let resolution = ConflictResolution(documentURL: package)
        let versions = resolution.versions
        #expect(versions.count == 2)
        try resolution.keep(versions[1])
        // The entries, with no copy left (ICTKit's manifest of a whole package, a hidden entry, may be beside them).
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: package.path).filter { $0 != ".ictkit-manifest.plist" }.sorted() == [
                "ctdocument.data", "ctdocument.metadata",
            ])
        #expect(try Data(contentsOf: package.appendingPathComponent("ctdocument.data")) == Data("their data".utf8))
        #expect(try Data(contentsOf: package.appendingPathComponent("ctdocument.metadata")) == Data("their metadata".utf8))
    }

    /// In a container Syncthing keeps, the chooser names each device as
    /// Syncthing's device list does; a device it does not list keeps its short ID.
    @Test func inASyncthingContainerTheChooserNamesTheDevices() throws {
        let root = try ScratchFolder.make("AppleSourceTextTests")
        defer { try? FileManager.default.removeItem(at: root) }
        let container = root.appendingPathComponent("container")
        let documents = container.appendingPathComponent("Documents")
        try FileManager.default.createDirectory(at: documents, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: root.appendingPathComponent("config/ictkit"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: root.appendingPathComponent("home"), withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: documents.appendingPathComponent("Note.icfnote"))
        try Data("from the laptop".utf8).write(to: documents.appendingPathComponent("Note.sync-conflict-20261206-101010-ABCDEFG.icfnote"))
        try Data("from a stranger".utf8).write(to: documents.appendingPathComponent("Note.sync-conflict-20261206-111111-ZZZZZZZ.icfnote"))
        // The container, kept by the Syncthing whose home is `home`, and that Syncthing's configuration naming its peer.
        try """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict>
        <key>DefaultContainer</key><string>iCloud.org.ictkit.Notes</string>
        <key>Containers</key><dict><key>iCloud.org.ictkit.Notes</key><dict>
        <key>Path</key><string>\(container.path)</string><key>Engine</key><string>syncthing</string>
        <key>EngineHome</key><string>\(root.path)/home</string>
        </dict></dict>
        </dict></plist>
        """.write(to: root.appendingPathComponent("config/ictkit/containers.plist"), atomically: true, encoding: .utf8)
        try """
        <configuration version="36">
            <folder id="notes" label="notes" path="\(container.path)" type="sendreceive">
                <device id="ABCDEFG-HIJKLMN-OPQRSTU-VWXYZ23-4567ABC-DEFGHIJ-KLMNOPQ-RSTUVWX"></device>
            </folder>
            <device id="ABCDEFG-HIJKLMN-OPQRSTU-VWXYZ23-4567ABC-DEFGHIJ-KLMNOPQ-RSTUVWX" name="Ada's laptop"></device>
            <gui enabled="true" tls="false"><address>127.0.0.1:9</address><apikey>unused</apikey></gui>
        </configuration>
        """.write(to: root.appendingPathComponent("home/config.xml"), atomically: true, encoding: .utf8)

        let child = try ChildTestRun.run(
            suite: "ConflictResolutionTests", test: "chooserInTheContainer", role: "chooser",
            environment: ["ICT_UBIQUITY_CONTAINER": "", "XDG_CONFIG_HOME": root.appendingPathComponent("config").path])
        #expect(child.status == 0, "\(child.output)")
        #expect(child.lines == ["This device", "Ada's laptop", "ZZZZZZZ"], "\(child.output)")
    }

    /// In the child: the chooser's devices for the note of the default container.
    @Test(.enabled(if: ChildTestRun.role == "chooser"))
    func chooserInTheContainer() throws {
        let container = try #require(FileManager.default.url(forUbiquityContainerIdentifier: nil))
        let resolution = ConflictResolution(documentURL: container.appendingPathComponent("Documents/Note.icfnote"))
        for version in resolution.versions {
            print("» " + (resolution.label(for: version).components(separatedBy: ", ").first ?? ""))
        }
    }

    /// A copy a peer made a FIFO is listed but never kept: the error names it, and nothing changes.
    @Test func aVersionThatIsAFIFOIsRefusedAndNothingChanges() throws {
        let note = try ConflictedNote()
        defer { note.remove() }
        let fifo = note.folder.appendingPathComponent("Note.sync-conflict-20261206-121212-OPQRSTU.icfnote")
        #expect(mkfifo(fifo.path, 0o644) == 0)
        let before = try FolderSnapshot.take(note.folder.path)
        let resolution = ConflictResolution(documentURL: note.url)
        let version = try #require(resolution.versions.first { $0.localizedNameOfSavingComputer == "OPQRSTU" })
        let error = try #require(throws: CocoaError.self) { try resolution.keep(version) }
        #expect(error.code == .fileWriteInvalidFileName)
        #expect(error.userInfo[NSFilePathErrorKey] as? String == fifo.path)
        #expect(try FolderSnapshot.take(note.folder.path) == before)
    }
}
