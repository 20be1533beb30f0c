/// Why a metadata query cannot start or could not search part of a scope:
/// the path concerned (a scope, a folder, a package) and what went wrong.
public struct MetadataQueryError: Error, CustomStringConvertible, Sendable {
    /// The path the error is about, as the query names it (scope + relative path).
    public var path: String
    /// `path: reason`.
    public var description: String
    /// Whether a scope itself went (removed, or renamed away): nothing
    /// under it is watched any more, even when a folder of its name is
    /// made again. Its items are told as removed in the same update.
    public var isScopeGone = false

    /// An error about `path`; the description is `path: reason`.
    public init(path: String, _ reason: String, isScopeGone: Bool = false) {
        self.path = path
        self.description = "\(path): \(reason)"
        self.isScopeGone = isScopeGone
    }
}
