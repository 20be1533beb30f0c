import SystemPackage
import SystemSupport

/// What a document's files say of its state, in the terms of a document
/// object's state (UIKit's `UIDocument.State`): whether conflict versions of
/// it wait to be resolved, and whether it may be edited. Empty: normal.
public struct DocumentItemState: OptionSet, Hashable, Sendable, CustomStringConvertible {
    /// The states' bits.
    public let rawValue: Int

    /// Makes a set of states from its bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Conflict versions of the document are beside it (or beside its
    /// entries): `DocumentVersion.unresolvedConflictVersionsOfItem(at:)` finds some.
    public static let inConflict = DocumentItemState(rawValue: 1 << 0)
    /// The document is read-only: no one has write permission on it, or
    /// this process may not write it.
    public static let editingDisabled = DocumentItemState(rawValue: 1 << 1)

    /// The state of the document at `path` (a file or a package).
    ///
    /// - Throws: `DocumentVersionError` as
    ///   `DocumentVersion.otherVersionsOfItem(at:)` does (`.notFound` when it
    ///   is not there). Costs one listing of its folder (and of a package's
    ///   folders) and an `access(2)`; no file is read.
    public init(ofItemAt path: FilePath) throws(DocumentVersionError) {
        try self.init(ofItemAt: RawFileName.text(path))
    }

    /// `init(ofItemAt:)` for a path held as text (bytes that are not UTF-8
    /// carried as `RawFileName` carries them), for the kit's own callers.
    ///
    /// - Throws: as `init(ofItemAt:)`.
    package init(ofItemAt path: String) throws(DocumentVersionError) {
        try self.init(ofItemAt: path, conflictVersions: DocumentVersion.unresolvedConflictVersionsOfItem(at: path))
    }

    /// The state of the document at `path` whose conflict versions are
    /// known already — for a folder of documents, from the one listing of
    /// `DocumentVersion.otherVersionsOfItems(inFolder:)` rather than a
    /// listing of the folder per document.
    ///
    /// - Throws: `DocumentVersionError` `.notFound` when it is not there.
    ///   Costs a status look-up and an `access(2)`; no folder is listed.
    public init(ofItemAt path: FilePath, conflictVersions: [DocumentVersion]) throws(DocumentVersionError) {
        try self.init(ofItemAt: RawFileName.text(path), conflictVersions: conflictVersions)
    }

    /// `init(ofItemAt:conflictVersions:)` for a path held as text, for the
    /// kit's own callers.
    ///
    /// - Throws: as `init(ofItemAt:conflictVersions:)`.
    package init(ofItemAt path: String, conflictVersions: [DocumentVersion]) throws(DocumentVersionError) {
        self = []
        if conflictVersions.contains(where: { $0.isConflict && !$0.isResolved }) { insert(.inConflict) }
        guard let status = try FileStatus.of(path) else {
            throw DocumentVersionError(.notFound, pathText: path, "no such file or folder")
        }
        if status.mode & 0o222 == 0 || !FileAccess.isWritable(path) { insert(.editingDisabled) }
    }

    /// The names of the states in it, stable across versions: `inConflict`, `editingDisabled`.
    public var names: [String] {
        [(Self.inConflict, "inConflict"), (Self.editingDisabled, "editingDisabled")].filter { contains($0.0) }.map(\.1)
    }

    /// The names joined, as `ict versions` prints them: `inConflict, editingDisabled`, or `normal`.
    public var description: String { names.isEmpty ? "normal" : names.joined(separator: ", ") }
}
