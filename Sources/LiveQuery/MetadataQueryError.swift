import SystemPackage
import SystemSupport

/// Why a metadata query cannot start or could not search part of a scope:
/// the path concerned (a scope, a folder, a package) and what went wrong.
public struct MetadataQueryError: Error, CustomStringConvertible, Sendable {
    /// The path the error is about, as the query names it (scope + relative
    /// path), byte for byte.
    public var path: FilePath { RawFileName.filePath(pathText) }
    /// `path` as the text the description shows (bytes that are not UTF-8
    /// carried as `RawFileName` carries them).
    package var pathText: String
    /// `path: reason`.
    public var description: String
    /// Whether a scope itself went (removed, or renamed away): nothing
    /// under it is watched any more, even when a folder of its name is
    /// made again. Its items are told as removed in the same update.
    public var isScopeGone = false

    /// An error about `path`; the description is `path: reason`.
    public init(path: FilePath, _ reason: String, isScopeGone: Bool = false) {
        self.init(pathText: RawFileName.text(path), reason, isScopeGone: isScopeGone)
    }

    /// An error about `pathText`, a path held as the kit's text, for the
    /// kit's own callers; the description is `pathText: reason`.
    package init(pathText: String, _ reason: String, isScopeGone: Bool = false) {
        self.pathText = pathText
        self.description = "\(pathText): \(reason)"
        self.isScopeGone = isScopeGone
    }
}
