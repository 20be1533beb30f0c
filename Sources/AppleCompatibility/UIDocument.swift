#if !canImport(UIKit)
import PackageFormat
import ConflictVersions
import DocumentObject
import Foundation
import SystemPackage
import SystemSupport

/// UIKit's `UIDocument` where UIKit is missing, built on Documents'
/// `Document`: a subclass overrides `contents(forType:)` (returning `Data`
/// for a one-file document or a directory `FileWrapper` for a package) and
/// `load(fromContents:ofType:)`, and is opened, edited
/// (`updateChangeCount(_:)`), saved, autosaved, reverted and closed as on
/// iOS. Reads and saves are coordinated (`FileCoordinator`) and safe: the
/// document on disk is the old or the new version at every moment. An open
/// document presents its item (`Document`). A package is read lazily;
/// unchanged files are hard-linked when saved.
///
/// The work is done on the main actor before a completion handler is
/// called (UIKit does it on a background queue); completion handlers run on
/// the main actor afterwards, as UIKit calls them on the main queue.
@MainActor
open class UIDocument: NSObject {
    /// `UIDocument.State`: `normal`, `closed`, `inConflict`, `savingError`, `editingDisabled`.
    public typealias State = DocumentState
    /// `UIDocument.SaveOperation`: `forCreating`, `forOverwriting`.
    public typealias SaveOperation = DocumentSaveOperation
    /// `UIDocument.ChangeKind`: `done`, `undone`, `redone`, `cleared`.
    public typealias ChangeKind = DocumentChangeKind

    /// Posted (with the document as object) whenever `documentState` changes.
    public static let stateChangedNotification = Notification.Name("UIDocumentStateChangedNotification")

    private var engine: UIDocumentEngine!

    /// Makes a closed document for the item at `url`; nothing is read until `open(completionHandler:)`.
    public init(fileURL url: URL) {
        super.init()
        engine = UIDocumentEngine(path: url.path, owner: self)
    }

    /// The document's location; changed by a save to another URL.
    open var fileURL: URL { URL(fileURLWithPath: engine.pathString) }
    /// The file name without its extension.
    open var localizedName: String { fileURL.deletingPathExtension().lastPathComponent }
    /// The uniform type identifier of the document's file name extension, if declared.
    open var fileType: String? { UTType(filenameExtension: fileURL.pathExtension)?.identifier }
    /// The modification date of the file when last read or saved.
    open var fileModificationDate: Date? { engine.fileModificationDate }
    /// The document's state: `inConflict` while a conflict version found when
    /// the state was last updated is not resolved (`NSFileVersion.isResolved`,
    /// which this reads each time: marking the last one resolved takes the
    /// document out of conflict, as on iOS).
    open var documentState: State {
        var state = engine.documentState
        if state.contains(.inConflict), !engine.conflictVersions.isEmpty,
            engine.conflictVersions.allSatisfy({ NSFileVersion($0).isResolved })
        {
            state.remove(.inConflict)
        }
        return state
    }
    /// Whether changes were made since the document was read or saved.
    open var hasUnsavedChanges: Bool { engine.hasUnsavedChanges }
    /// The conflict versions found when the state was last updated and not
    /// resolved since (not UIKit's: `NSFileVersion.unresolvedConflictVersionsOfItem(at:)` there).
    public var conflictVersions: [NSFileVersion] { engine.conflictVersions.map(NSFileVersion.init).filter { !$0.isResolved } }

    // MARK: What a subclass provides

    /// The document's model as `Data` or a directory `FileWrapper`. A subclass must override it.
    ///
    /// - Throws: whatever keeps the model from being saved.
    open func contents(forType typeName: String) throws -> Any {
        preconditionFailure("\(type(of: self)) does not override contents(forType:)")
    }

    /// Takes the contents read from disk (`Data`, or a `FileWrapper` for a
    /// package) as the document's model. A subclass must override it.
    ///
    /// - Throws: whatever makes the contents unreadable.
    open func load(fromContents contents: Any, ofType typeName: String?) throws {
        preconditionFailure("\(type(of: self)) does not override load(fromContents:ofType:)")
    }

    /// Called with an error of opening, saving, reverting or closing. Calls
    /// `finishedHandlingError(_:recovered:)` (not recovered); a subclass may override it.
    open func handleError(_ error: Error, userInteractionPermitted: Bool) {
        finishedHandlingError(error, recovered: false)
    }

    /// Says `handleError(_:userInteractionPermitted:)` is done. Does nothing here.
    open func finishedHandlingError(_ error: Error, recovered: Bool) {}

    // MARK: Life

    /// Opens the document: reads it and calls `load(fromContents:ofType:)`.
    /// `completionHandler` gets whether that succeeded.
    open func open(completionHandler: (@MainActor @Sendable (Bool) -> Void)? = nil) {
        let success = perform { try engine.open() }
        finish(completionHandler, success)
    }

    /// Opens the document, as `open(completionHandler:)`; returns whether it
    /// succeeded. The coordinated read waits off the main actor
    /// (`Document.openWithoutBlocking()`): while another process writes
    /// the item, the main actor goes on.
    open func open() async -> Bool {
        do {
            try await engine.openWithoutBlocking()
            return true
        } catch {
            handleError(error, userInteractionPermitted: false)
            return false
        }
    }

    /// Saves the document (its `contents(forType:)`) to `url` safely:
    /// `.forCreating` where nothing is yet, `.forOverwriting` over the
    /// document. `completionHandler` gets whether that succeeded; on failure
    /// the document is in `savingError` and keeps its changes.
    open func save(to url: URL, for saveOperation: SaveOperation, completionHandler: (@MainActor @Sendable (Bool) -> Void)? = nil) {
        let success = perform { try engine.save(to: url.path, for: saveOperation) }
        finish(completionHandler, success)
    }

    /// Saves the document, as `save(to:for:completionHandler:)`; returns
    /// whether it succeeded. The coordinated write waits off the main actor
    /// (`Document.saveWithoutBlocking(to:for:)`).
    open func save(to url: URL, for saveOperation: SaveOperation) async -> Bool {
        do {
            try await engine.saveWithoutBlocking(to: url.path, for: saveOperation)
            return true
        } catch {
            handleError(error, userInteractionPermitted: false)
            return false
        }
    }

    /// Saves the document if it has unsaved changes, then closes it.
    open func close(completionHandler: (@MainActor @Sendable (Bool) -> Void)? = nil) {
        let success = perform { try engine.close() }
        finish(completionHandler, success)
    }

    /// Closes the document, as `close(completionHandler:)`; returns whether it succeeded.
    open func close() async -> Bool { perform { try engine.close() } }

    /// Saves the document now if it has unsaved changes.
    open func autosave(completionHandler: (@MainActor @Sendable (Bool) -> Void)? = nil) {
        let success = !hasUnsavedChanges || engine.autosave()
        if !success, let error = engine.lastSavingError { handleError(error, userInteractionPermitted: false) }
        finish(completionHandler, success)
    }

    /// Reads the document again, dropping unsaved changes. Only the
    /// document's own `fileURL` can be reverted to here (the completion
    /// handler gets false for another URL).
    open func revert(toContentsOf url: URL, completionHandler: (@MainActor @Sendable (Bool) -> Void)? = nil) {
        let success =
            url.standardizedFileURL.path == fileURL.standardizedFileURL.path
            ? perform { try engine.revert() } : false
        finish(completionHandler, success)
    }

    /// Records a change (`.done`), its undoing or redoing, or that the
    /// document matches its file again (`.cleared`); a change schedules an autosave.
    open func updateChangeCount(_ change: ChangeKind) { engine.updateChangeCount(change) }

    /// Looks for conflict versions again and sets or clears `.inConflict` (UIKit's
    /// documents learn of them from their file presenter; call this where none runs).
    open func updateConflictState() {
        _ = perform { try engine.updateConflictState() }
    }

    fileprivate func stateDidChange() {
        NotificationCenter.default.post(name: Self.stateChangedNotification, object: self)
    }

    private func perform(_ body: () throws -> Void) -> Bool {
        do {
            try body()
            return true
        } catch {
            handleError(error, userInteractionPermitted: false)
            return false
        }
    }

    private func finish(_ handler: (@MainActor @Sendable (Bool) -> Void)?, _ success: Bool) {
        guard let handler else { return }
        Task { @MainActor in handler(success) }
    }
}

/// A `UIDocument`'s contents on disk: bytes, or a package read by
/// PackageFormat, chosen by what the item is.
enum UIDocumentContents: DocumentContents {
    case bytes(Data)
    case package(PackageWrapper)

    static func readDocument(at path: FilePath) throws(DocumentError) -> (contents: UIDocumentContents, identity: DocumentFileIdentity) {
        var isDirectory: ObjCBool = false
        let text = RawFileName.text(path)
        if FileManager.default.fileExists(atPath: text, isDirectory: &isDirectory), isDirectory.boolValue {
            let (package, identity) = try PackageWrapper.readDocument(at: path)
            return (.package(package), identity)
        }
        let (bytes, identity) = try Data.readDocument(at: path)
        return (.bytes(bytes), identity)
    }

    func writeDocument(at path: FilePath, for operation: DocumentSaveOperation, replacing identity: DocumentFileIdentity?)
        throws(DocumentError) -> DocumentFileIdentity
    {
        switch self {
        case .bytes(let bytes): try bytes.writeDocument(at: path, for: operation, replacing: identity)
        case .package(let package): try package.writeDocument(at: path, for: operation, replacing: identity)
        }
    }
}

/// The `Document` behind a `UIDocument`, which hands its contents to and
/// from the UIKit-style overrides.
@MainActor
final class UIDocumentEngine: Document<UIDocumentContents> {
    private weak var owner: UIDocument?

    init(path: String, owner: UIDocument) {
        self.owner = owner
        super.init(path: RawFileName.withPath(path) { FilePath(platformString: $0) })
    }

    override func contents() throws -> UIDocumentContents {
        guard let owner else { throw CocoaError(.fileWriteUnknown) }
        let contents = try owner.contents(forType: owner.fileType ?? "")
        switch contents {
        case let data as Data: return .bytes(data)
        case let wrapper as FileWrapper where wrapper.isDirectory: return .package(try wrapper.packageNode())
        case let wrapper as FileWrapper where wrapper.isRegularFile:
            return .bytes(wrapper.regularFileContents ?? Data())
        default:
            throw CocoaError(
                .fileWriteUnknown,
                userInfo: [NSLocalizedFailureReasonErrorKey: "contents(forType:) returned \(type(of: contents)), not Data or a FileWrapper"])
        }
    }

    override func load(_ contents: UIDocumentContents) throws {
        guard let owner else { return }
        switch contents {
        case .bytes(let data): try owner.load(fromContents: data, ofType: owner.fileType)
        case .package(let package):
            let wrapper = FileWrapper(
                contents: .directory(DirectoryChildren(FileWrapper.children(of: package))), fileAttributes: FileWrapper.attributes(of: package))
            wrapper.adoptChildren()
            wrapper.filename = package.fileName
            wrapper.preferredFilename = package.fileName
            try owner.load(fromContents: wrapper, ofType: owner.fileType)
        }
    }

    override func documentStateDidChange(from oldState: DocumentState) {
        super.documentStateDidChange(from: oldState)
        owner?.stateDidChange()
    }
}
#endif
