import AppleCompatibility
import Foundation
import TestSupport
import Testing

/// The photo app's moves into iCloud and back (`CloudDocuments`), in a
/// process whose default container is a folder (`ICT_UBIQUITY_CONTAINER`).
@Suite(.serialized)
struct CloudDocumentsTests {
    private struct Folders {
        let root: URL
        var container: URL { root.appendingPathComponent("container") }
        var device: URL { root.appendingPathComponent("device") }
        var note: URL { device.appendingPathComponent("Trip.icfnote") }

        init() throws {
            root = try ScratchFolder.make("AppleSourceTextTests")
            try FileManager.default.createDirectory(at: root.appendingPathComponent("container"), withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: root.appendingPathComponent("device"), withIntermediateDirectories: true)
            try Data("pack the tent\n".utf8).write(to: root.appendingPathComponent("device/Trip.icfnote"))
        }

        func remove() { try? FileManager.default.removeItem(at: root) }
    }

    @Test func aNoteMovesIntoTheContainerAndBackUnchanged() throws {
        let folders = try Folders()
        defer { folders.remove() }
        let before = try FolderSnapshot.take(folders.device.path)
        let child = try ChildTestRun.run(
            suite: "CloudDocumentsTests", test: "moveInAndOut", role: "cloud-move",
            environment: ["ICT_UBIQUITY_CONTAINER": folders.container.path, "ICT_SOURCE_TEXT_NOTE": folders.note.path])
        #expect(child.status == 0, "\(child.output)")
        let cloud = folders.container.appendingPathComponent("Documents/Trip.icfnote").path
        #expect(
            child.lines == [
                "before: in iCloud false", "moved to iCloud: \(cloud), in iCloud true, on the device false",
                "moved to the device: \(folders.note.path), in iCloud false",
            ], "\(child.output)")
        #expect(try FolderSnapshot.take(folders.device.path) == before, "the note is back as it was")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folders.container.appendingPathComponent("Documents").path) == [])
    }

    /// A name taken in the container is refused with Foundation's error, and nothing moves.
    @Test func aNameTakenInTheContainerIsRefused() throws {
        let folders = try Folders()
        defer { folders.remove() }
        let documents = folders.container.appendingPathComponent("Documents")
        try FileManager.default.createDirectory(at: documents, withIntermediateDirectories: true)
        try Data("another trip\n".utf8).write(to: documents.appendingPathComponent("Trip.icfnote"))
        let before = try FolderSnapshot.take(folders.root.path)
        let child = try ChildTestRun.run(
            suite: "CloudDocumentsTests", test: "moveInAndOut", role: "cloud-move",
            environment: ["ICT_UBIQUITY_CONTAINER": folders.container.path, "ICT_SOURCE_TEXT_NOTE": folders.note.path])
        #expect(child.status == 0, "\(child.output)")
        #expect(
            child.lines == [
                "before: in iCloud false", "refused: NSCocoaErrorDomain \(CocoaError.Code.fileWriteFileExists.rawValue) \(documents.path)/Trip.icfnote",
            ], "\(child.output)")
        #expect(try FolderSnapshot.take(folders.root.path) == before)
    }

    /// Without a container (iCloud off) the app says so, and nothing moves.
    @Test func withoutAContainerNothingMoves() throws {
        let folders = try Folders()
        defer { folders.remove() }
        let before = try FolderSnapshot.take(folders.root.path)
        let child = try ChildTestRun.run(
            suite: "CloudDocumentsTests", test: "moveInAndOut", role: "cloud-move",
            environment: [
                "ICT_UBIQUITY_CONTAINER": "", "XDG_CONFIG_HOME": folders.root.path, "HOME": folders.root.path,
                "ICT_SOURCE_TEXT_NOTE": folders.note.path,
            ])
        #expect(child.status == 0, "\(child.output)")
        #expect(child.lines == ["before: in iCloud false", "iCloud is unavailable"], "\(child.output)")
        #expect(try FolderSnapshot.take(folders.root.path) == before)
    }

    // MARK: The child

    /// In the child: moves the note named by `ICT_SOURCE_TEXT_NOTE` into iCloud and back, printing what the app shows.
    @Test(.enabled(if: ChildTestRun.role == "cloud-move"))
    func moveInAndOut() throws {
        let note = URL(fileURLWithPath: try #require(ProcessInfo.processInfo.environment["ICT_SOURCE_TEXT_NOTE"]))
        print("» before: in iCloud \(CloudDocuments.isInCloud(note))")
        do {
            let cloud = try CloudDocuments.moveToCloud(note)
            let onDevice = FileManager.default.fileExists(atPath: note.path)
            print("» moved to iCloud: \(cloud.path), in iCloud \(CloudDocuments.isInCloud(cloud)), on the device \(onDevice)")
            let back = try CloudDocuments.moveToDevice(cloud, folder: note.deletingLastPathComponent())
            print("» moved to the device: \(back.path), in iCloud \(CloudDocuments.isInCloud(back))")
        } catch CloudDocuments.Failure.iCloudUnavailable {
            print("» iCloud is unavailable")
        } catch let error as NSError {
            print("» refused: \(error.domain) \(error.code) \(error.userInfo[NSFilePathErrorKey] ?? "")")
        }
    }
}
