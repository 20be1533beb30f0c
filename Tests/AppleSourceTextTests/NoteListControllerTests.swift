import AppleCompatibility
import Foundation
import TestSupport
import Testing

/// The notes app's query (`NoteListController`), run as the app runs it: in
/// a process whose default container is a folder (`ICT_UBIQUITY_CONTAINER`),
/// over its `Documents` holding notes, a conflict copy a sync engine left, and
/// a document of another type.
@Suite(.serialized)
struct NoteListControllerTests {
    /// The app's container, as a second device would have synced it.
    private static func container() throws -> URL {
        let container = try ScratchFolder.make("AppleSourceTextTests")
        let documents = container.appendingPathComponent("Documents")
        try FileManager.default.createDirectory(at: documents, withIntermediateDirectories: true)
        try Data("milk\n".utf8).write(to: documents.appendingPathComponent("Groceries.icfnote"))
        try Data("milk\neggs\n".utf8).write(to: documents.appendingPathComponent("Groceries.sync-conflict-20261206-101010-ABCDEFG.icfnote"))
        try Data("call Ada\n".utf8).write(to: documents.appendingPathComponent("Todo.icfnote"))
        try Data("not a note".utf8).write(to: documents.appendingPathComponent("Readme.txt"))
        return container
    }

    @Test func theQueryListsTheNotesWithTheirConflictsAndFollowsANewOne() throws {
        let container = try Self.container()
        defer { try? FileManager.default.removeItem(at: container) }
        let child = try ChildTestRun.run(
            suite: "NoteListControllerTests", test: "queryInTheContainer", role: "notes-query",
            environment: ["ICT_UBIQUITY_CONTAINER": container.path])
        #expect(child.status == 0, "\(child.output)")
        let listings = child.lines.filter { $0.hasPrefix("notes:") }
        // Apple's query lists a document once, its conflicts as a flag: the copy is no note of its own.
        #expect(
            listings == [
                "notes: Groceries.icfnote (conflict), Todo.icfnote",
                "notes: Groceries.icfnote (conflict), Ideas.icfnote, Todo.icfnote",
            ], "\(child.output)")
        let state = try #require(child.lines.first { $0.hasPrefix("sync state of Groceries.icfnote:") }, "\(child.output)")
        #expect(state.contains("NSMetadataUbiquitousItemHasUnresolvedConflictsKey="))
        #expect(FileManager.default.fileExists(atPath: container.appendingPathComponent("Documents/Ideas.icfnote").path))
    }

    /// Without a container (iCloud off), the query does not start, as Apple's does not.
    @Test func withoutAContainerTheQueryDoesNotStart() throws {
        let home = try ScratchFolder.make("AppleSourceTextTests")
        defer { try? FileManager.default.removeItem(at: home) }
        let child = try ChildTestRun.run(
            suite: "NoteListControllerTests", test: "queryWithoutAContainer", role: "notes-query-off",
            environment: ["ICT_UBIQUITY_CONTAINER": "", "XDG_CONFIG_HOME": home.path, "HOME": home.path])
        #expect(child.status == 0, "\(child.output)")
        #expect(child.lines == ["query started: false"], "\(child.output)")
    }

    /// On two real Syncthing devices: a note saved on device 0 is listed by
    /// the notes app's query on device 1, whose container a `containers.plist`
    /// names with its Syncthing, with the engine's sync state under Apple's keys.
    @Test(.enabled(if: SyncthingDevices.isInstalled, "syncthing is not installed (scripts/install-deps.sh test installs it)"))
    func aNoteSavedOnAnotherDeviceIsListedCurrentWithItsSyncState() throws {
        let sync = try SyncthingDevices(count: 2)
        defer { sync.stop() }
        let config = sync.root + "/config1"
        try FileManager.default.createDirectory(atPath: config + "/ictkit", withIntermediateDirectories: true)
        try """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict>
        <key>DefaultContainer</key><string>iCloud.org.ictkit.Notes</string>
        <key>Containers</key><dict><key>iCloud.org.ictkit.Notes</key><dict>
        <key>Path</key><string>\(sync.devices[1].folder)</string><key>Engine</key><string>syncthing</string>
        <key>EngineHome</key><string>\(sync.devices[1].home)</string>
        </dict></dict>
        </dict></plist>
        """.write(toFile: config + "/ictkit/containers.plist", atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: sync.devices[0].folder + "/Documents", withIntermediateDirectories: true)
        try Data("pack the tent\n".utf8).write(to: URL(fileURLWithPath: sync.devices[0].folder + "/Documents/Trip.icfnote"), options: .atomic)
        try sync.scan(0)

        let child = try ChildTestRun.run(
            suite: "NoteListControllerTests", test: "querySyncedFromAnotherDevice", role: "notes-query-synced",
            environment: ["ICT_UBIQUITY_CONTAINER": "", "XDG_CONFIG_HOME": config])
        #expect(child.status == 0, "\(child.output)")
        let trip = try #require(child.lines.first { $0.hasPrefix("Trip.icfnote:") }, "\(child.output)")
        #expect(trip.contains(" NSMetadataUbiquitousItemDownloadingStatusKey=NSMetadataUbiquitousItemDownloadingStatusCurrent"), "\(trip)")
        #expect(trip.contains(" NSMetadataUbiquitousItemHasUnresolvedConflictsKey=0"), "\(trip)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: sync.devices[1].folder + "/Documents/Trip.icfnote")) == Data("pack the tent\n".utf8))
    }

    // MARK: The children

    /// In the child: starts the query, prints the gathered notes, writes a
    /// note as a sync engine does (renamed into place), prints the update.
    @Test(.enabled(if: ChildTestRun.role == "notes-query"))
    @MainActor func queryInTheContainer() async throws {
        let changes = ChangeLog()
        let controller = NoteListController()
        controller.notesDidChange = { changes.record(controller.noteItems.map(controller.title(of:))) }
        #expect(controller.startQuery())
        defer { controller.stopQuery() }
        let gathered = try #require(await changes.next(), "the query did not finish gathering")
        print("» notes: \(gathered.joined(separator: ", "))")
        for item in controller.noteItems {
            let name = item.value(forAttribute: NSMetadataItemFSNameKey) as? String ?? "?"
            print("» sync state of \(name): \(controller.syncState(of: item).joined(separator: " "))")
        }

        let documents = try #require(FileManager.default.url(forUbiquityContainerIdentifier: nil)).appendingPathComponent("Documents")
        try Data("a new idea\n".utf8).write(to: documents.appendingPathComponent("Ideas.icfnote"), options: .atomic)
        let updated = try #require(await changes.next(), "the new note was not told")
        print("» notes: \(updated.joined(separator: ", "))")
    }

    /// In the child: the notes app's query, until device 0's note is listed
    /// and current where the engine reports on it; prints its title and sync state.
    @Test(.enabled(if: ChildTestRun.role == "notes-query-synced"))
    @MainActor func querySyncedFromAnotherDevice() async throws {
        // The scope's folder, as the app's first launch would make it (Apple's query needs none).
        let documents = try #require(FileManager.default.url(forUbiquityContainerIdentifier: nil)).appendingPathComponent("Documents")
        try FileManager.default.createDirectory(at: documents, withIntermediateDirectories: true)
        // 60 seconds, as SyncthingDevices waits: the engine is slower while other suites run theirs.
        let changes = ChangeLog(deadline: 60)
        let controller = NoteListController()
        controller.notesDidChange = {
            changes.record(controller.noteItems.map { "\(controller.title(of: $0)): " + controller.syncState(of: $0).joined(separator: " ") })
        }
        #expect(controller.startQuery())
        defer { controller.stopQuery() }
        var last: [String] = []
        while let notes = await changes.next() {
            last = notes
            guard let trip = notes.first(where: { $0.hasPrefix("Trip.icfnote:") }),
                trip.contains("NSMetadataUbiquitousItemDownloadingStatusKey=NSMetadataUbiquitousItemDownloadingStatusCurrent")
            else { continue }
            print("» \(trip)")
            return
        }
        Issue.record("Trip.icfnote was not listed current within 60 seconds; last listed: \(last)")
    }

    @Test(.enabled(if: ChildTestRun.role == "notes-query-off"))
    func queryWithoutAContainer() {
        let controller = NoteListController()
        print("» query started: \(controller.startQuery())")
        controller.stopQuery()
    }
}

/// The lists `NoteListController` told, in order, each waited for with a
/// deadline: the stream ends `deadline` seconds after it is made.
final class ChangeLog: @unchecked Sendable {
    // @unchecked: the continuation is Sendable; the iterator is used by one task.
    private let continuation: AsyncStream<[String]>.Continuation
    private var iterator: AsyncStream<[String]>.Iterator

    init(deadline: Int = 30) {
        let (stream, continuation) = AsyncStream.makeStream(of: [String].self)
        self.continuation = continuation
        iterator = stream.makeAsyncIterator()
        Task {
            try? await Task.sleep(for: .seconds(deadline))
            continuation.finish()
        }
    }

    func record(_ list: [String]) { continuation.yield(list) }

    /// The next list told; nil when none came before the deadline.
    func next() async -> [String]? { await iterator.next() }
}
