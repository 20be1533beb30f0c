/// Why a metadata query cannot start or could not search part of a scope:
/// the path concerned (a scope, a folder, a package) and what went wrong.
public struct MetadataQueryError: Error, CustomStringConvertible, Sendable {
    /// The path the error is about, as the query names it (scope + relative path).
    public var path: String
    /// `path: reason`.
    public var description: String

    /// An error about `path`; the description is `path: reason`.
    public init(path: String, _ reason: String) {
        self.path = path
        self.description = "\(path): \(reason)"
    }
}
