import AppleCompatibility
import Foundation
import Testing

/// A text document written as on iOS: `contents(forType:)` and `load(fromContents:ofType:)` over `Data`.
final class TextUIDocument: UIDocument {
    var text = ""
    var errors: [Error] = []

    override func contents(forType typeName: String) throws -> Any { Data(text.utf8) }

    override func load(fromContents contents: Any, ofType typeName: String?) throws {
        guard let data = contents as? Data, let text = String(data: data, encoding: .utf8) else { throw CocoaError(.fileReadCorruptFile) }
        self.text = text
    }

    override func handleError(_ error: Error, userInteractionPermitted: Bool) {
        errors.append(error)
        super.handleError(error, userInteractionPermitted: userInteractionPermitted)
    }
}

/// A package document as the photo app's: the directory wrapper it loaded, with one entry replaced.
final class PackageUIDocument: UIDocument {
    var wrapper: FileWrapper?

    override func contents(forType typeName: String) throws -> Any { wrapper as Any }

    override func load(fromContents contents: Any, ofType typeName: String?) throws {
        wrapper = contents as? FileWrapper
    }
}

@MainActor
@Suite struct UIDocumentTests {
    @Test func openEditSaveCloseWithCompletionHandlersAndNotifications() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let url = folder.url.appendingPathComponent("Note.icfnote")
        try Data("hello".utf8).write(to: url)
        let document = TextUIDocument(fileURL: url)
        #expect(document.documentState == .closed)
        #expect(document.localizedName == "Note")

        let posted = NotificationCounter(name: UIDocument.stateChangedNotification, object: document)
        let opened = await withCheckedContinuation { continuation in document.open { continuation.resume(returning: $0) } }
        #expect(opened)
        #expect(document.text == "hello")
        #expect(document.documentState == .normal)
        #expect(posted.count == 1, "closed → normal")

        document.text = "hello again"
        document.updateChangeCount(.done)
        #expect(document.hasUnsavedChanges)
        #expect(await document.save(to: url, for: .forOverwriting))
        #expect(String(decoding: try Data(contentsOf: url), as: UTF8.self) == "hello again")
        #expect(!document.hasUnsavedChanges)
        let modified = try FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date
        #expect(document.fileModificationDate.map { abs($0.timeIntervalSince(modified!)) < 1e-6 } == true)

        let closed = await withCheckedContinuation { continuation in document.close { continuation.resume(returning: $0) } }
        #expect(closed)
        #expect(document.documentState == .closed)
        #expect(posted.count == 2, "normal → closed")
    }

    @Test func aDamagedDocumentFailsToOpenThroughHandleError() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let url = folder.url.appendingPathComponent("Bad.icfnote")
        try Data([0x41, 0xFF]).write(to: url)
        let document = TextUIDocument(fileURL: url)
        #expect(!(await document.open()))
        #expect(document.documentState == .closed)
        #expect((document.errors.first as? CocoaError)?.code == .fileReadCorruptFile)
    }

    @Test func aConflictCopyBesideTheDocumentIsAConflictVersion() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let url = folder.url.appendingPathComponent("Note.icfnote")
        try Data("mine".utf8).write(to: url)
        let document = TextUIDocument(fileURL: url)
        #expect(await document.open())
        let copy = folder.url.appendingPathComponent("Note.sync-conflict-20261125-013000-ABCDEFG.icfnote")
        try Data("theirs".utf8).write(to: copy)
        document.updateConflictState()
        #expect(document.documentState == .inConflict)
        let versions: [NSFileVersion] = NSFileVersion.unresolvedConflictVersionsOfItem(at: url) ?? []
        #expect(versions.map(\.localizedName) == [copy.lastPathComponent])
        #expect(document.conflictVersions == versions)

        // Marked resolved, the copy stays on disk and the document is out of conflict, as on iOS.
        versions[0].isResolved = true
        #expect(document.documentState == .normal)
        #expect(document.conflictVersions.isEmpty)
        #expect(FileManager.default.fileExists(atPath: copy.path))
        versions[0].isResolved = false
        #expect(document.documentState == .inConflict)

        try FileManager.default.removeItem(at: copy)
        document.updateConflictState()
        #expect(document.documentState == .normal)
        #expect(await document.close())
    }

    @Test func aPackageIsLoadedAsAFileWrapperAndItsUnchangedEntryIsLinkedWhenSaved() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let url = folder.url.appendingPathComponent("Friend.ict")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        try Data("data".utf8).write(to: url.appendingPathComponent("ctdocument.data"))
        try Data("metadata".utf8).write(to: url.appendingPathComponent("ctdocument.metadata"))
        let before = try fileNumberAndLinks(url.appendingPathComponent("ctdocument.data"))

        let document = PackageUIDocument(fileURL: url)
        #expect(await document.open())
        let wrapper = try #require(document.wrapper)
        #expect(Set((wrapper.fileWrappers ?? [:]).keys) == ["ctdocument.data", "ctdocument.metadata"])
        wrapper.removeFileWrapper(try #require(wrapper.fileWrappers?["ctdocument.metadata"]))
        wrapper.addRegularFile(withContents: Data("renamed".utf8), preferredFilename: "ctdocument.metadata")
        document.updateChangeCount(.done)
        #expect(await document.close())

        #expect(String(decoding: try Data(contentsOf: url.appendingPathComponent("ctdocument.metadata")), as: UTF8.self) == "renamed")
        #expect(try fileNumberAndLinks(url.appendingPathComponent("ctdocument.data")).fileNumber == before.fileNumber)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["Friend.ict"])
    }
}

/// Counts the notifications named `name` from `object`, posted synchronously on this thread.
final class NotificationCounter: @unchecked Sendable {
    private(set) var count = 0
    private var observer: NSObjectProtocol?

    init(name: Notification.Name, object: AnyObject) {
        observer = NotificationCenter.default.addObserver(forName: name, object: object, queue: nil) { [unowned self] _ in count += 1 }
    }

    deinit {
        if let observer { NotificationCenter.default.removeObserver(observer) }
    }
}
