import ConflictVersions
import DocumentFormats
import DocumentObject
import Foundation
import PackageFormat
import SystemPackage
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A one-file text document, as the notes apps' are: the file is the text as UTF-8.
@MainActor
final class NoteDocument: Document<Data> {
    var text = ""
    var states: [DocumentState] = []

    override func contents() throws -> Data { Data(text.utf8) }

    override func load(_ contents: Data) throws {
        text = try DocumentText(decoding: contents, allowingTruncatedEnd: false).text
    }

    override func documentStateDidChange(from oldState: DocumentState) {
        super.documentStateDidChange(from: oldState)
        states.append(documentState)
    }
}

/// A package document whose model is the package itself.
@MainActor
final class PackageDocument: Document<PackageWrapper> {
    var package: PackageWrapper?

    override func contents() throws -> PackageWrapper { package! }
    override func load(_ contents: PackageWrapper) throws { package = contents }
}

/// An autosave scheduler the test fires by hand: no clock, no sleep.
final class ManualScheduler: DocumentAutosaveScheduler, @unchecked Sendable {
    /// Accessed on the main actor only (the protocol's requirement is `@MainActor`).
    private(set) var pending: [(delay: Duration, action: @MainActor @Sendable () -> Void, cancelled: Bool)] = []

    @MainActor func schedule(after delay: Duration, _ action: @escaping @MainActor @Sendable () -> Void) -> DocumentScheduledAction {
        pending.append((delay, action, false))
        let index = pending.count - 1
        return DocumentScheduledAction { [self] in pending[index].cancelled = true }
    }

    /// The actions scheduled and not cancelled.
    @MainActor var live: [Duration] { pending.filter { !$0.cancelled }.map(\.delay) }

    /// Runs every action not cancelled, as the clock would once its delay passed.
    @MainActor func fireAll() {
        let due = pending.enumerated().filter { !$0.element.cancelled }
        for (index, _) in due { pending[index].cancelled = true }
        for (_, entry) in due { entry.action() }
    }
}

/// The scratch folders to remove at exit.
final class LeftoverFolders: @unchecked Sendable {
    // @unchecked: `paths` is only touched under `lock`.
    private let lock = NSLock()
    private var paths: [String] = []

    func withLock<Result>(_ body: (inout [String]) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&paths)
    }
}

/// A fresh folder under the temporary directory, removed when the process exits.
final class ScratchFolder {
    let path: String

    init() throws {
        path = try TestSupport.ScratchFolder.make("DocumentObjectTests").path
    }

    /// Removed when the test process exits, not when the test ends: a folder
    /// removed at once frees its inode for the next test's folder, and the
    /// presenter registrations of a document are keyed by the folder's inode
    /// and the item's name (an open once waited its whole timeout for a
    /// presenter left from an earlier test's document in a removed folder).
    deinit {
        chmod(path, 0o755)
        Self.leftovers.withLock { $0.append(path) }
    }

    private static let leftovers: LeftoverFolders = {
        atexit {
            for path in ScratchFolder.leftovers.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: path) }
        }
        return LeftoverFolders()
    }()

    func file(_ name: String, _ text: String) throws -> String {
        let file = path + "/" + name
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        return file
    }

    func text(_ name: String) throws -> String {
        String(decoding: try Data(contentsOf: URL(fileURLWithPath: path + "/" + name)), as: UTF8.self)
    }

    func names() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: path).sorted() }
}

@MainActor
@Suite struct DocumentTests {
    @Test func openEditAutosaveClose() async throws {
        let folder = try ScratchFolder()
        let path = try folder.file("Note.icfnote", "hello")
        let scheduler = ManualScheduler()
        let document = NoteDocument(path: FilePath(path), autosaveDelay: .seconds(7), scheduler: scheduler)
        let changes = document.stateChanges()
        #expect(document.documentState == .closed)

        try document.open()
        #expect(document.documentState == .normal)
        #expect(document.text == "hello")
        let modified = try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date
        #expect(document.fileModificationDate.map { abs($0.timeIntervalSince(modified!)) < 1e-6 } == true)

        document.text = "hello, world"
        document.updateChangeCount(.done)
        document.updateChangeCount(.done)
        #expect(document.hasUnsavedChanges)
        #expect(scheduler.live == [.seconds(7)], "one autosave, after the document's delay")
        #expect(try folder.text("Note.icfnote") == "hello", "nothing is saved before the delay")

        scheduler.fireAll()
        #expect(try folder.text("Note.icfnote") == "hello, world")
        #expect(!document.hasUnsavedChanges)
        #expect(document.documentState == .normal)
        #expect(try folder.names() == ["Note.icfnote"], "no temporary is left beside the note")

        document.text = "bye"
        document.updateChangeCount(.done)
        try document.close()
        #expect(document.documentState == .closed)
        #expect(try folder.text("Note.icfnote") == "bye", "closing saves the unsaved change")
        #expect(scheduler.live.isEmpty, "closing cancels the pending autosave")

        var iterator = changes.makeAsyncIterator()
        #expect(await iterator.next() == .normal)
        #expect(await iterator.next() == .closed)
        #expect(document.states == [.normal, .closed])
    }

    /// Issue 39, item 4: the forms whose coordinated access waits off the
    /// main actor read, save (also to a new path, and refusing an existing
    /// one `.forCreating`) and set the state as the blocking forms do.
    @Test func openingAndSavingWithoutBlockingDoWhatTheBlockingFormsDo() async throws {
        let folder = try ScratchFolder()
        let path = try folder.file("Note.icfnote", "hello")
        let document = NoteDocument(path: FilePath(path), scheduler: ManualScheduler())
        try await document.openWithoutBlocking()
        #expect(document.documentState == .normal && document.text == "hello")
        await #expect(throws: DocumentError.self) { try await document.openWithoutBlocking() }

        document.text = "hello, world"
        document.updateChangeCount(.done)
        try await document.saveWithoutBlocking()
        #expect(try folder.text("Note.icfnote") == "hello, world")
        #expect(!document.hasUnsavedChanges && document.documentState == .normal)

        let copy = folder.path + "/Copy.icfnote"
        try await document.saveWithoutBlocking(to: FilePath(copy), for: .forCreating)
        #expect(document.path == FilePath(copy))
        #expect(try folder.text("Copy.icfnote") == "hello, world")
        document.text = "again"
        document.updateChangeCount(.done)
        await #expect(throws: DocumentError.self) { try await document.saveWithoutBlocking(to: FilePath(path), for: .forCreating) }
        #expect(document.documentState.contains(.savingError) && document.hasUnsavedChanges)
        #expect(try folder.text("Note.icfnote") == "hello, world", "the existing note is not replaced")
        try document.close()
        #expect(try folder.text("Copy.icfnote") == "again")
    }

    @Test func undoingEveryChangeCancelsTheAutosave() throws {
        let folder = try ScratchFolder()
        let scheduler = ManualScheduler()
        let document = NoteDocument(path: FilePath(try folder.file("Note.icfnote", "a")), scheduler: scheduler)
        try document.open()
        document.updateChangeCount(.done)
        document.updateChangeCount(.undone)
        #expect(!document.hasUnsavedChanges)
        #expect(scheduler.live.isEmpty)
        document.updateChangeCount(.redone)
        #expect(scheduler.live.count == 1)
        try document.close()
    }

    @Test func aSaveFailingInAReadOnlyFolderGivesSavingErrorAndKeepsTheChange() async throws {
        let folder = try ScratchFolder()
        let path = try folder.file("Note.icfnote", "before")
        let document = NoteDocument(path: FilePath(path), scheduler: ManualScheduler())
        try document.open()
        document.text = "after"
        document.updateChangeCount(.done)

        let restore = try Self.makeUnwritable(folder.path)
        #expect(!document.autosave())
        #expect(document.documentState == .savingError)
        #expect(document.hasUnsavedChanges, "the change is kept")
        #expect(document.text == "after")
        #expect(document.lastSavingError is DocumentError)
        #expect(throws: DocumentError.self) { try document.close() }
        #expect(document.documentState == .savingError, "a close that cannot save leaves the document open")

        try restore()
        #expect(try folder.text("Note.icfnote") == "before", "the failed save left the old version whole")
        try document.save()
        #expect(document.documentState == .normal)
        #expect(try folder.text("Note.icfnote") == "after")
        #expect(document.states == [.normal, .savingError, .normal])
        try document.close()
    }

    /// Makes `folder` refuse new files: `chmod 0555`, or — where that does not
    /// stop this process (root ignores permissions) — moves the folder aside
    /// and puts a regular file in its place, so the document's path has a
    /// file for a parent (`ENOTDIR`). Returns what undoes it.
    static func makeUnwritable(_ folder: String) throws -> () throws -> Void {
        chmod(folder, 0o555)
        let probe = folder + "/.probe"
        let created = open(probe, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard created >= 0 else {
            return { chmod(folder, 0o755) }
        }
        close(created)
        unlink(probe)
        chmod(folder, 0o755)
        let aside = folder + ".aside"
        try FileManager.default.moveItem(atPath: folder, toPath: aside)
        try Data("not a folder".utf8).write(to: URL(fileURLWithPath: folder))
        return {
            try FileManager.default.removeItem(atPath: folder)
            try FileManager.default.moveItem(atPath: aside, toPath: folder)
        }
    }

    @Test func aConflictCopyAppearingGivesInConflictAndResolvingClearsIt() throws {
        let folder = try ScratchFolder()
        let path = try folder.file("Note.icfnote", "mine")
        let document = NoteDocument(path: FilePath(path), scheduler: ManualScheduler())
        try document.open()
        #expect(document.documentState == .normal)

        // What Syncthing leaves when another device changed the note too.
        let copyName = "Note.sync-conflict-20261125-013000-ABCDEFG.icfnote"
        _ = try folder.file(copyName, "theirs")
        try document.updateConflictState()
        #expect(document.documentState == .inConflict)
        #expect(document.conflictVersions.map(\.localizedName) == [copyName])
        #expect(document.conflictVersions.first?.localizedNameOfSavingComputer == "ABCDEFG")

        try document.resolveConflict()
        #expect(document.documentState == .normal)
        #expect(document.conflictVersions.isEmpty)
        #expect(try folder.names() == ["Note.icfnote"], "the copy is removed")
        #expect(try folder.text("Note.icfnote") == "mine")
        #expect(document.states == [.normal, .inConflict, .normal])
        try document.close()
    }

    @Test func resolvingByKeepingTheConflictCopyReadsIt() throws {
        let folder = try ScratchFolder()
        let document = NoteDocument(path: FilePath(try folder.file("Note.icfnote", "mine")), scheduler: ManualScheduler())
        _ = try folder.file("Note.sync-conflict-20261125-013000-ABCDEFG.icfnote", "theirs")
        _ = try folder.file("Note.sync-conflict-20261125-014500-HIJKLMN.icfnote", "third")
        try document.open()
        #expect(document.documentState == .inConflict, "a conflict copy already there is found on opening")
        let theirs = try #require(document.conflictVersions.first { $0.localizedNameOfSavingComputer == "ABCDEFG" })

        try document.resolveConflict(keeping: theirs)
        #expect(document.text == "theirs")
        #expect(document.documentState == .normal)
        #expect(try folder.names() == ["Note.icfnote"])
        #expect(try folder.text("Note.icfnote") == "theirs")
        try document.close()
    }

    @Test func aSaveNeverReplacesAVersionAnotherProgramPutInPlace() throws {
        let folder = try ScratchFolder()
        let path = try folder.file("Note.icfnote", "read")
        let document = NoteDocument(path: FilePath(path), scheduler: ManualScheduler())
        try document.open()
        document.text = "edited here"
        document.updateChangeCount(.done)
        // A sync tool writes its copy and renames it into place, taking no lock.
        let other = try folder.file(".syncthing.Note.icfnote.tmp", "synced from elsewhere")
        #expect(rename(other, path) == 0)

        #expect { try document.save() } throws: { ($0 as? DocumentError)?.code == .changedOnDisk }
        #expect(document.documentState == .savingError)
        #expect(document.hasUnsavedChanges)
        #expect(try folder.text("Note.icfnote") == "synced from elsewhere")
        #expect(try folder.names() == ["Note.icfnote"])

        try document.revert()
        #expect(document.text == "synced from elsewhere")
        #expect(!document.hasUnsavedChanges)
        #expect(document.documentState == .normal)
        try document.close()
    }

    @Test func savingForCreatingRefusesAnExistingItemAndMakesANewDocument() throws {
        let folder = try ScratchFolder()
        let existing = try folder.file("Taken.icfnote", "keep me")
        let document = NoteDocument(path: FilePath(folder.path + "/New.icfnote"), scheduler: ManualScheduler())
        document.text = "new"
        #expect { try document.save(to: FilePath(existing), for: .forCreating) } throws: { ($0 as? DocumentError)?.code == .alreadyExists }
        #expect(try folder.text("Taken.icfnote") == "keep me")

        try document.save(to: FilePath(folder.path + "/New.icfnote"), for: .forCreating)
        #expect(document.documentState == .normal, "a document saved for creating is open")
        #expect(try folder.text("New.icfnote") == "new")
        let permissions = try FileManager.default.attributesOfItem(atPath: folder.path + "/New.icfnote")[.posixPermissions] as? Int
        #expect(permissions == 0o644)
        try document.close()
    }

    @Test func aPackageIsReadLazilyAndSavedWithItsUnchangedFilesLinked() throws {
        let folder = try ScratchFolder()
        let path = folder.path + "/Friend.ict"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        try Data("data".utf8).write(to: URL(fileURLWithPath: path + "/ctdocument.data"))
        try Data("metadata".utf8).write(to: URL(fileURLWithPath: path + "/ctdocument.metadata"))
        let inode = { (name: String) in try FileManager.default.attributesOfItem(atPath: path + "/" + name)[.systemFileNumber] as? Int }
        let dataInode = try inode("ctdocument.data")

        let document = PackageDocument(path: FilePath(path), scheduler: ManualScheduler())
        try document.open()
        try document.package!.replaceChild(named: "ctdocument.metadata", with: PackageWrapper(regularFileWithContents: Data("renamed".utf8)))
        document.updateChangeCount(.done)
        try document.save()

        #expect(try String(contentsOfFile: path + "/ctdocument.metadata", encoding: .utf8) == "renamed")
        #expect(try inode("ctdocument.data") == dataInode, "the unchanged entry is the same file, not a copy")
        #expect(try folder.names() == ["Friend.ict"])
        #expect(document.documentState == .normal)
        try document.close()
    }

    @Test func openingWhatIsNotTheDocumentsKindFailsAndStaysClosed() throws {
        let folder = try ScratchFolder()
        let document = NoteDocument(path: FilePath(folder.path), scheduler: ManualScheduler())
        #expect { try document.open() } throws: { ($0 as? DocumentError)?.code == .wrongKind }
        #expect(document.documentState == .closed)
        let missing = NoteDocument(path: FilePath(folder.path + "/Missing.icfnote"), scheduler: ManualScheduler())
        #expect { try missing.open() } throws: { ($0 as? DocumentError)?.code == .notFound }
    }

    @Test func aReadOnlyDocumentIsEditingDisabled() throws {
        let folder = try ScratchFolder()
        let path = try folder.file("Note.icfnote", "read only")
        // No write permission for anyone: read-only even for root, who may write anyway.
        #expect(chmod(path, 0o444) == 0)
        let document = NoteDocument(path: FilePath(path), scheduler: ManualScheduler())
        try document.open()
        #expect(document.documentState == .editingDisabled)

        #expect(chmod(path, 0o644) == 0)
        try document.revert()
        #expect(document.documentState == .normal)
        #expect(document.states == [.editingDisabled, .normal])
        try document.close()
    }

    /// Issue 43, item 3: a document named by a `FilePath` that is not UTF-8
    /// (`Caf` 0xE9 `.icfnote`, a Latin-1 é, made by Python on bytes) opens,
    /// saves and saves under another such name byte for byte, not as a name
    /// with U+FFFD in its place. The names and bytes Python lists are the
    /// expected values, written out by hand.
    @Test func aPathThatIsNotUTF8NamesItsItemByteForByte() async throws {
        let folder = try ScratchFolder()
        func rawPath(_ name: [UInt8]) -> FilePath {
            FilePath(platformString: (Array(folder.path.utf8) + [UInt8(ascii: "/")] + name).map { CChar(bitPattern: $0) } + [0])
        }
        _ = try PythonScript.run(
            "import os, sys; open(os.fsencode(sys.argv[1]) + b'/Caf\\xe9.icfnote', 'wb').write(b'caf')", arguments: [folder.path])
        let original = rawPath(Array("Caf".utf8) + [0xE9] + Array(".icfnote".utf8))
        let document = NoteDocument(path: original, scheduler: ManualScheduler())
        #expect(document.path == original)
        try document.open()
        #expect(document.text == "caf" && document.documentState == .normal)
        document.text = "cafe"
        document.updateChangeCount(.done)
        try document.save()
        let copy = rawPath(Array("Copy ".utf8) + [0xE9] + Array(".icfnote".utf8))
        try document.save(to: copy, for: .forCreating)
        #expect(document.path == copy)
        document.text = "cafes"
        document.updateChangeCount(.done)
        let other = rawPath(Array("Other ".utf8) + [0xE9] + Array(".icfnote".utf8))
        try await document.saveWithoutBlocking(to: other, for: .forCreating)
        #expect(document.path == other)
        try document.close()
        let listing = """
            import os, sys
            folder = os.fsencode(sys.argv[1])
            print(' '.join(name.hex() + '=' + open(folder + b'/' + name, 'rb').read().decode() for name in sorted(os.listdir(folder))))
            """
        // "Caf\xe9.icfnote", "Copy \xe9.icfnote", "Other \xe9.icfnote" in hex, by hand, each with its text.
        #expect(
            try PythonScript.text(listing, arguments: [folder.path]).trimmingCharacters(in: .whitespacesAndNewlines)
                == "436166e92e6963666e6f7465=cafe 436f707920e92e6963666e6f7465=cafe 4f7468657220e92e6963666e6f7465=cafes")
    }
}
