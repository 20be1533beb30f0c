import ConflictVersions
import SystemPackage
import SystemSupport

/// An object that presents a file or package to the user and wants to know
/// when others change it (Apple's `NSFilePresenter`). Register it with
/// `FilePresenterRegistration`; its methods are called one at a time on the
/// registration's own thread. Every method has a default that does nothing.
public protocol FilePresenter: AnyObject, Sendable {
    /// Another coordinated writer, or a process that does not coordinate,
    /// changed the item (its contents, or a new item renamed into its place).
    func presentedItemDidChange()

    /// The item was moved to `path` (by a coordinated writer, or renamed
    /// within its folder by anyone); the registration now presents `path`.
    func presentedItemDidMove(to path: FilePath)

    /// The `String` form of `presentedItemDidMove(to:)`, as presenters
    /// written for 0.12 implement it. The `FilePath` form's default calls
    /// it (with the path as text, a byte that is not UTF-8 as U+10FF00 +
    /// byte), so such a presenter is still told of a move rather than
    /// silently never called. Deprecated in documentation only (an
    /// attribute would warn at that one call): implement the `FilePath`
    /// form; this requirement goes in 0.14.
    func presentedItemDidMove(to path: String)

    /// A coordinated writer is about to delete the item, and waits (up to
    /// its timeout) until this returns: let go of it. A deletion by a process
    /// that does not coordinate is told after the fact, by the same call.
    ///
    /// - Throws: to make the deleting writer fail with `.presenterRefused`.
    func accommodatePresentedItemDeletion() throws

    /// A conflict version of the item appeared beside it (a sync tool's
    /// conflict copy, named as `ConflictName` reads).
    func presentedItemDidGain(_ version: DocumentVersion)

    /// Another reader, or a writer merging into the item, waits (up to its
    /// timeout) until this returns: save unsaved changes now (with a
    /// `FileCoordinator` made with this presenter's registration).
    ///
    /// - Throws: to make the waiting reader or writer fail with `.presenterRefused`.
    func savePresentedItemChanges() throws
}

extension FilePresenter {
    /// Does nothing.
    public func presentedItemDidChange() {}
    /// Calls the `String` form (which does nothing unless a presenter
    /// written for 0.12 implements it).
    public func presentedItemDidMove(to path: FilePath) { presentedItemDidMove(to: RawFileName.text(path)) }
    /// Does nothing.
    public func presentedItemDidMove(to path: String) {}
    /// Does nothing (the deletion proceeds).
    public func accommodatePresentedItemDeletion() throws {}
    /// Does nothing.
    public func presentedItemDidGain(_ version: DocumentVersion) {}
    /// Does nothing (there is nothing unsaved).
    public func savePresentedItemChanges() throws {}
}

/// What a presenter is told, as `FilePresenterRegistration.events` gives it.
public enum FilePresenterEvent: Hashable, Sendable {
    /// The item changed (`presentedItemDidChange`).
    case changed
    /// The item moved to this path (`presentedItemDidMove(to:)`), byte for byte.
    case moved(to: FilePath)
    /// The item was deleted, or is about to be by a coordinated writer
    /// (`accommodatePresentedItemDeletion`).
    case deleted
    /// A conflict version appeared beside the item, at this path (`presentedItemDidGain(_:)`).
    case gainedVersion(path: FilePath, conflictName: ConflictName)
    /// A reader or merging writer asked for unsaved changes to be saved
    /// (`savePresentedItemChanges`); told after the presenter returned.
    case saveRequested
}
