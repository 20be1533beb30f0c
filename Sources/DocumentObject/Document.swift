import ConflictVersions
import FileCoordination
import SystemPackage
import SystemSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A document with a life, as UIKit's `UIDocument`: opened, edited (the
/// change count), autosaved after a delay, saved safely, reverted, closed,
/// with a `documentState` that says when it is in conflict, failed to save
/// or may not be edited.
///
/// A subclass says how its model becomes `Contents` and back by overriding
/// `contents()` and `load(_:)`; `Contents` is `Data` for a one-file document
/// and `PackageWrapper` for a package (read lazily: each file's bytes on
/// first access; re-saved incrementally: only what changed is written).
/// Every read and save is coordinated (`FileCoordinator`: reading shared,
/// saving exclusive), so other ICTKit readers and writers, in this process
/// or another, never see a half-saved document; a save never replaces a
/// version another program put in place since the document read it
/// (`.changedOnDisk`).
///
/// While open, the document presents its item (`FilePresenterRegistration`,
/// one thread): it saves its unsaved changes when another coordinated
/// reader or writer asks first, reads the item again when another writer
/// changed it and no change is unsaved here, follows it when it moves, and
/// sets `inConflict` when a conflict version appears beside it (a sync
/// tool's conflict copy, noticed from the folder's file events). The
/// conflict state comes from the document's conflict versions
/// (`DocumentVersion`), looked for too when the document is opened or saved
/// and on `updateConflictState()`.
@MainActor
open class Document<Contents: DocumentContents> {
    /// Where the document is, as the caller gave it, byte for byte; changed
    /// by a save to another path (or when another program moves the item).
    public var path: FilePath { RawFileName.withPath(pathString) { FilePath(platformString: $0) } }
    /// `path` as text, as the kit's own callers hold names (a byte that is
    /// not UTF-8 as `RawFileName` carries it).
    package private(set) var pathString: String
    /// The document's state: `.closed` until opened, then `normal` or the
    /// flags that say what is wrong.
    public private(set) var documentState: DocumentState = .closed {
        didSet { if documentState != oldValue { stateChanged(from: oldValue) } }
    }
    /// The modification date of the document's item when it was last read or saved.
    public private(set) var fileModificationDate: Date?
    /// Changes made since the document was read or saved (`updateChangeCount(_:)`).
    public private(set) var changeCount = 0 {
        didSet { presenter?.hasUnsavedChanges.withLock { $0 = changeCount != 0 } }
    }
    /// The conflict versions found when the conflict state was last updated.
    public private(set) var conflictVersions: [DocumentVersion] = []
    /// The error of the last save when it failed (`.savingError`); nil after a save that succeeded.
    public private(set) var lastSavingError: (any Error)?
    /// How long after a change the document saves itself.
    public var autosaveDelay: Duration

    private let scheduler: any DocumentAutosaveScheduler
    private var pendingAutosave: DocumentScheduledAction?
    /// The item read or last saved, so a save never replaces another program's version.
    private var identity: DocumentFileIdentity?
    private var stateObservers: [Int: AsyncStream<DocumentState>.Continuation] = [:]
    /// The document's presenter and its registration while it is open.
    private var presenter: DocumentPresenter?
    private var registration: FilePresenterRegistration?
    /// Coordinates with the registration, so the document is not asked about its own accesses.
    private var coordination = DocumentCoordination(coordinator: FileCoordinator())
    private var nextObserver = 0

    /// Makes a closed document for the item at `path` (byte for byte, a name
    /// that is not UTF-8 included); nothing is read until `open()`.
    ///
    /// `scheduler` runs the autosaves (`ClockAutosaveScheduler` on the
    /// continuous clock by default; tests pass one they fire by hand).
    public init(path: FilePath, autosaveDelay: Duration = .seconds(15), scheduler: any DocumentAutosaveScheduler = ClockAutosaveScheduler()) {
        self.pathString = RawFileName.text(path)
        self.autosaveDelay = autosaveDelay
        self.scheduler = scheduler
    }


    // MARK: What a subclass provides

    /// The document's model as contents to save. A subclass must override it.
    ///
    /// - Throws: whatever keeps the model from being saved; the save then
    ///   fails with that error.
    open func contents() throws -> Contents {
        preconditionFailure("\(type(of: self)) does not override contents()")
    }

    /// Takes `contents` read from disk as the document's model. A subclass must override it.
    ///
    /// - Throws: whatever makes the contents unreadable; `open()` or
    ///   `revert()` then fails with that error.
    open func load(_ contents: Contents) throws {
        preconditionFailure("\(type(of: self)) does not override load(_:)")
    }

    /// Called after `documentState` changed, with the state before. Does
    /// nothing; a subclass may override it (and should call `super`).
    open func documentStateDidChange(from oldState: DocumentState) {}

    // MARK: Life

    /// Reads the document and hands its contents to `load(_:)`; the document
    /// is then open (`normal`, or `editingDisabled` when its item or folder
    /// is read-only, `inConflict` when conflict versions lie beside it).
    ///
    /// - Throws: `DocumentError` `.notOpen` when it is already open, the
    ///   errors of `Contents.readDocument(at:)`, or what `load(_:)` threw;
    ///   the document stays closed. A coordinated read: other presenters of the
    ///   item are asked to save first.
    public func open() throws {
        guard documentState.contains(.closed) else { throw DocumentError(.notOpen, pathText: pathString, "the document is already open") }
        try readAndLoad()
        changeCount = 0
        lastSavingError = nil
        startPresenting()
        documentState = stateAfterAccess()
    }

    /// Saves the document if it has unsaved changes, then closes it.
    ///
    /// - Throws: what `save(to:for:)` throws; the document then stays open,
    ///   in `savingError`, with its changes.
    public func close() throws {
        guard !documentState.contains(.closed) else { return }
        if hasUnsavedChanges { try save() }
        pendingAutosave?.cancel()
        pendingAutosave = nil
        stopPresenting()
        documentState = .closed
    }

    /// Saves the document's `contents()` to `path` (byte for byte; the
    /// document's own when nil), safely; afterwards the document is open at that path, with no
    /// unsaved change. A save `.forCreating` makes a new document (nothing
    /// may be at `path`); `.forOverwriting` replaces the item — when it is
    /// the document's own, only the version the document read or last saved.
    ///
    /// - Throws: what `contents()` threw, or `DocumentError` `.alreadyExists`,
    ///   `.changedOnDisk`, `.locked`, `.io`, `.package`. The document is then
    ///   in `savingError` and keeps its changes. A coordinated write: other
    ///   presenters of the item are told of it.
    public func save(to path: FilePath? = nil, for operation: DocumentSaveOperation = .forOverwriting) throws {
        try save(to: path.map(RawFileName.text) ?? pathString, for: operation)
    }

    /// `save(to:for:)` to a path held as text.
    ///
    /// - Throws: as `save(to:for:)`.
    package func save(to destination: String, for operation: DocumentSaveOperation = .forOverwriting) throws {
        pendingAutosave?.cancel()
        pendingAutosave = nil
        do {
            let contents = try contents()
            let replacing = destination == pathString ? identity : nil
            let saved = try coordination.writing(destination) { () throws(DocumentError) in
                try contents.writeDocument(
                    at: RawFileName.withPath(destination) { FilePath(platformString: $0) }, for: operation, replacing: replacing)
            }
            let moved = destination != pathString
            pathString = destination
            if moved || registration == nil { startPresenting() }
            identity = saved
            fileModificationDate = saved.modificationDate
            changeCount = 0
            lastSavingError = nil
            documentState = stateAfterAccess()
        } catch {
            lastSavingError = error
            documentState.insert(.savingError)
            throw error
        }
    }

    /// `open()`, with its coordinated read waiting off the main actor: while
    /// another process writes the item, the main actor goes on (the read
    /// waits on a thread of `FileCoordinator`'s, and the contents it made
    /// are loaded here after).
    ///
    /// - Throws: as `open()`.
    public func openWithoutBlocking() async throws {
        guard documentState.contains(.closed) else { throw DocumentError(.notOpen, pathText: pathString, "the document is already open") }
        let path = pathString
        let read = try await coordination.coordinator.coordinate(with: [.readingIntent(with: path)]) { paths in
            Handover(try Contents.readDocument(at: RawFileName.withPath(paths[0]) { FilePath(platformString: $0) }))
        }
        let (contents, identity) = read.value
        try load(contents)
        self.identity = identity
        fileModificationDate = identity.modificationDate
        changeCount = 0
        lastSavingError = nil
        startPresenting()
        documentState = stateAfterAccess()
    }

    /// `save(to:for:)`, with its coordinated write waiting off the main
    /// actor: the contents are made here, written on a thread of
    /// `FileCoordinator`'s once no one else reads or writes the item, and
    /// the document's state set here after.
    ///
    /// - Throws: as `save(to:for:)`; the document is then in `savingError` and keeps its changes.
    public func saveWithoutBlocking(to path: FilePath? = nil, for operation: DocumentSaveOperation = .forOverwriting) async throws {
        try await saveWithoutBlocking(to: path.map(RawFileName.text) ?? pathString, for: operation)
    }

    /// `saveWithoutBlocking(to:for:)` to a path held as text.
    ///
    /// - Throws: as `saveWithoutBlocking(to:for:)`.
    package func saveWithoutBlocking(to destination: String, for operation: DocumentSaveOperation = .forOverwriting) async throws {
        pendingAutosave?.cancel()
        pendingAutosave = nil
        do {
            let contents = Handover(try contents())
            let replacing = destination == pathString ? identity : nil
            let saved = try await coordination.coordinator.coordinate(with: [.writingIntent(with: destination)]) { paths in
                try contents.value.writeDocument(
                    at: RawFileName.withPath(paths[0]) { FilePath(platformString: $0) }, for: operation, replacing: replacing)
            }
            let moved = destination != pathString
            pathString = destination
            if moved || registration == nil { startPresenting() }
            identity = saved
            fileModificationDate = saved.modificationDate
            changeCount = 0
            lastSavingError = nil
            documentState = stateAfterAccess()
        } catch let error as FileCoordinationError {
            let failure = DocumentError(coordinationError: error)
            lastSavingError = failure
            documentState.insert(.savingError)
            throw failure
        } catch {
            lastSavingError = error
            documentState.insert(.savingError)
            throw error
        }
    }

    /// Saves the document when it has unsaved changes, as the autosave does;
    /// a failure leaves it in `savingError` with its changes and is not
    /// thrown (`lastSavingError` holds it). Returns whether it saved.
    @discardableResult
    public func autosave() -> Bool {
        pendingAutosave = nil
        guard hasUnsavedChanges, !documentState.contains(.closed) else { return false }
        do {
            try save()
            return true
        } catch {
            return false
        }
    }

    /// Reads the document again, dropping unsaved changes: its contents go
    /// to `load(_:)` and the change count is 0. The document is
    /// `editingDisabled` while this runs.
    ///
    /// - Throws: as `open()`; the document keeps its model and changes then.
    public func revert() throws {
        guard !documentState.contains(.closed) else { throw DocumentError(.notOpen, pathText: pathString, "the document is not open") }
        let before = documentState
        documentState.insert(.editingDisabled)
        do {
            try readAndLoad()
        } catch {
            documentState = before
            throw error
        }
        pendingAutosave?.cancel()
        pendingAutosave = nil
        changeCount = 0
        lastSavingError = nil
        documentState = stateAfterAccess()
    }

    // MARK: Changes

    /// Whether changes were made since the document was read or saved.
    public var hasUnsavedChanges: Bool { changeCount != 0 }

    /// Records a change, its undoing or redoing, or that the document
    /// matches its file again; a change schedules an autosave after
    /// `autosaveDelay` unless one is pending.
    public func updateChangeCount(_ change: DocumentChangeKind) {
        switch change {
        case .done, .redone: changeCount += 1
        case .undone: changeCount -= 1
        case .cleared: changeCount = 0
        }
        if !hasUnsavedChanges {
            pendingAutosave?.cancel()
            pendingAutosave = nil
        } else if pendingAutosave == nil, !documentState.contains(.closed) {
            pendingAutosave = scheduler.schedule(after: autosaveDelay) { [weak self] in self?.autosave() }
        }
    }

    // MARK: Conflicts

    /// Looks for the document's conflict versions again and sets or clears
    /// `inConflict`. Costs one listing of the document's folder (and of
    /// each folder of a package); no file is read.
    ///
    /// - Throws: `DocumentError` `.versions` when the folder cannot be listed.
    public func updateConflictState() throws(DocumentError) {
        do throws(DocumentVersionError) {
            conflictVersions = try DocumentVersion.unresolvedConflictVersionsOfItem(at: pathString)
        } catch {
            throw DocumentError(.versions, pathText: pathString, entry: error.entry, error.message)
        }
        guard !documentState.contains(.closed) else { return }
        if conflictVersions.isEmpty { documentState.remove(.inConflict) } else { documentState.insert(.inConflict) }
    }

    /// Resolves the document's conflict: `keeping` (one of
    /// `conflictVersions`) is moved in as the document and read (`revert()`),
    /// or with nil the document stays as it is; every other conflict version
    /// is removed, and `inConflict` is cleared.
    ///
    /// - Throws: `DocumentError` `.versions` when a version cannot be moved
    ///   in or removed, or what `revert()` throws.
    public func resolveConflict(keeping version: DocumentVersion? = nil) throws {
        do throws(DocumentVersionError) {
            if let version { _ = try version.replaceItem(at: pathString, options: .byMoving) }
            try DocumentVersion.removeOtherVersionsOfItem(at: pathString)
        } catch {
            throw DocumentError(.versions, pathText: pathString, entry: error.entry, error.message)
        }
        if version != nil { try revert() }
        try updateConflictState()
    }

    // MARK: State notifications

    /// The document's states from now on, one element per change, until the
    /// document is deallocated or the consumer stops. (`documentStateDidChange(from:)`
    /// is the synchronous way to hear of them.)
    public func stateChanges() -> AsyncStream<DocumentState> {
        let (stream, continuation) = AsyncStream.makeStream(of: DocumentState.self)
        let key = nextObserver
        nextObserver += 1
        stateObservers[key] = continuation
        continuation.onTermination = { [weak self] _ in Task { @MainActor in self?.stateObservers[key] = nil } }
        return stream
    }

    private func stateChanged(from oldState: DocumentState) {
        for continuation in stateObservers.values { continuation.yield(documentState) }
        documentStateDidChange(from: oldState)
    }

    // MARK: Presenting

    /// Registers the document as the presenter of its item (again, after a
    /// move). A document whose folder cannot be watched works on unpresented:
    /// it learns of conflicts when opened, saved or asked (`updateConflictState()`).
    private func startPresenting() {
        stopPresenting()
        let presenter = DocumentPresenter(self)
        presenter.hasUnsavedChanges.withLock { $0 = hasUnsavedChanges }
        registration = try? FilePresenterRegistration(presenting: pathString, presenter: presenter)
        self.presenter = registration == nil ? nil : presenter
        coordination = DocumentCoordination(coordinator: FileCoordinator(presenter: registration))
    }

    private func stopPresenting() {
        registration?.remove()
        registration = nil
        presenter = nil
        coordination = DocumentCoordination(coordinator: FileCoordinator())
    }

    // MARK: Disk

    private func readAndLoad() throws {
        let path = pathString
        let (contents, identity) = try coordination.reading(path) { () throws(DocumentError) in
            try Contents.readDocument(at: RawFileName.withPath(path) { FilePath(platformString: $0) })
        }
        try load(contents)
        self.identity = identity
        fileModificationDate = identity.modificationDate
    }

    /// The state of an open document just read or saved, as
    /// `DocumentItemState` reads it from the files (`inConflict`,
    /// `editingDisabled`), and `editingDisabled` too when its folder is
    /// read-only (a safe save writes beside the document). A folder that
    /// cannot be listed shows no conflict.
    private func stateAfterAccess() -> DocumentState {
        var state = DocumentState.normal
        let item = (try? DocumentItemState(ofItemAt: pathString)) ?? []
        if item.contains(.editingDisabled) || !FileAccess.isWritable(PathName.folder(of: pathString)) {
            state.insert(.editingDisabled)
        }
        conflictVersions = item.contains(.inConflict) ? (try? DocumentVersion.unresolvedConflictVersionsOfItem(at: pathString)) ?? [] : []
        if !conflictVersions.isEmpty { state.insert(.inConflict) }
        return state
    }
}

extension Document: PresentedDocument {
    func presenterSaw(_ news: DocumentPresenterNews) {
        guard !documentState.contains(.closed) else { return }
        switch news {
        case .changed:
            // Another writer's version: read it, unless changes made here would be lost.
            if !hasUnsavedChanges, let onDisk = DocumentFileIdentity(path: pathString), onDisk != identity { try? revert() }
            try? updateConflictState()
        case .moved(let newPath):
            pathString = newPath
        case .gainedVersion:
            try? updateConflictState()
        }
    }

    func saveForPresenter() throws {
        guard hasUnsavedChanges, !documentState.contains(.closed) else { return }
        try save()
    }
}

/// A value handed whole from one thread to another and not touched by the
/// first after (a document's contents between the main actor and the
/// thread its coordinated access waits on).
struct Handover<Value>: @unchecked Sendable {
    // @unchecked: the value is made on one side and only read on the other, after the handover.
    let value: Value
    init(_ value: Value) { self.value = value }
}
