/// The state of a document, as UIKit's `UIDocument.State`: empty (`normal`)
/// while it is open and all is well, else the flags that say why not.
public struct DocumentState: OptionSet, Hashable, Sendable, CustomStringConvertible {
    /// The flags' bits, as `UIDocument.State`'s.
    public let rawValue: UInt

    /// Makes a state from its bits.
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// Open, in no conflict, last saved without error.
    public static let normal: DocumentState = []
    /// Not open: before `open()` and after `close()`.
    public static let closed = DocumentState(rawValue: 1 << 0)
    /// Conflict versions of the document lie beside it (a sync tool's
    /// conflict copies): `Document.conflictVersions` lists them.
    public static let inConflict = DocumentState(rawValue: 1 << 1)
    /// The last save failed; the unsaved changes are kept.
    public static let savingError = DocumentState(rawValue: 1 << 2)
    /// The document may not be changed now: its file or folder is read-only,
    /// or it is being reverted.
    public static let editingDisabled = DocumentState(rawValue: 1 << 3)

    /// The flags' names, `[inConflict, savingError]`; `normal` when none.
    public var description: String {
        let names = [(Self.closed, "closed"), (.inConflict, "inConflict"), (.savingError, "savingError"), (.editingDisabled, "editingDisabled")]
            .filter { contains($0.0) }.map(\.1)
        return names.isEmpty ? "normal" : "[" + names.joined(separator: ", ") + "]"
    }
}

/// What a save does with the item at its destination, as `UIDocument.SaveOperation`.
public enum DocumentSaveOperation: Hashable, Sendable {
    /// Saves a new document: an item already at the destination is an error.
    case forCreating
    /// Replaces the document at the destination, safely.
    case forOverwriting
}

/// How a change affects the change count, as `UIDocument.ChangeKind`.
public enum DocumentChangeKind: Hashable, Sendable {
    /// A change was made: one more unsaved change.
    case done
    /// A change was undone: one fewer.
    case undone
    /// An undone change was made again: one more.
    case redone
    /// The document now matches its file: no unsaved change.
    case cleared
}
