/// An error finding, replacing or removing versions, saying where.
public struct DocumentVersionError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Hashable, Sendable {
        /// The document or version is not there.
        case notFound
        /// A file-system call failed.
        case io
        /// The document or a version changed after it was listed.
        case changedOnDisk
        /// A version is not an item of the document's kind (a file where
        /// the document is a package, or the other way round).
        case kindMismatch
        /// Reading or saving a package failed (the message says how).
        case package
    }

    /// What went wrong.
    public var kind: Kind
    /// The file-system path the error is about.
    public var path: String
    /// The entry inside a package, when the error is about one.
    public var entry: String
    /// What happened, for people.
    public var message: String

    /// Makes an error.
    public init(_ kind: Kind, path: String, entry: String = "", _ message: String) {
        self.kind = kind
        self.path = path
        self.entry = entry
        self.message = message
    }

    /// `PATH[:ENTRY]: message`.
    public var description: String { "\(path)\(entry.isEmpty ? "" : ":" + entry): \(message)" }
}
