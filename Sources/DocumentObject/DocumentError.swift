import SystemPackage
import SystemSupport

/// An error opening, saving, reverting or closing a document, saying where:
/// the document's path as the caller gave it, and the byte offset or the
/// entry inside a package when the error is about one.
public struct DocumentError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong: one of the static members, compared with `==` or
    /// matched in a `switch` (which needs a `default:`, as codes may be added
    /// in later versions without breaking callers).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: Hashable, Sendable {
            case notFound
            case alreadyExists
            case wrongKind
            case changedOnDisk
            case locked
            case coordination
            case invalidText
            case notOpen
            case package
            case versions
            case io
        }

        private var wrapped: Wrapped

        private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

        /// There is no document at the path.
        public static var notFound: Self { Self(.notFound) }
        /// Saving `.forCreating` where an item already exists.
        public static var alreadyExists: Self { Self(.alreadyExists) }
        /// The item is not of the document's kind: a folder where the
        /// contents are bytes, a file where they are a package, a device.
        public static var wrongKind: Self { Self(.wrongKind) }
        /// Another program replaced or rewrote the document since it was
        /// read; the save left that program's version in place.
        public static var changedOnDisk: Self { Self(.changedOnDisk) }
        /// Another reader or writer held the document past the wait, or
        /// one of its presenters did not answer within it.
        public static var locked: Self { Self(.locked) }
        /// The document's access could not be coordinated (its folder or the
        /// lock directory cannot be used, a presenter refused to save).
        public static var coordination: Self { Self(.coordination) }
        /// The bytes are not UTF-8 text; `byteOffset` says where.
        @available(*, deprecated, message: "DocumentText (now in DocumentFormats) throws ICTDocumentError with code .invalidText")
        public static var invalidText: Self { Self(.invalidText) }
        /// The operation needs an open document (or a closed one, for `open`).
        public static var notOpen: Self { Self(.notOpen) }
        /// Reading or saving a package failed; `entry` says which entry.
        public static var package: Self { Self(.package) }
        /// Finding or resolving conflict versions failed.
        public static var versions: Self { Self(.versions) }
        /// A system call failed; `systemErrorNumber` holds its `errno`.
        public static var io: Self { Self(.io) }

        /// The code's name, stable across versions: `changedOnDisk`.
        public var description: String {
            switch wrapped {
            case .notFound: "notFound"
            case .alreadyExists: "alreadyExists"
            case .wrongKind: "wrongKind"
            case .changedOnDisk: "changedOnDisk"
            case .locked: "locked"
            case .coordination: "coordination"
            case .invalidText: "invalidText"
            case .notOpen: "notOpen"
            case .package: "package"
            case .versions: "versions"
            case .io: "io"
            }
        }
    }

    /// What went wrong.
    public var code: Code
    /// The document's path as the caller gave it, byte for byte.
    public var path: FilePath {
        get { RawFileName.filePath(pathText) }
        set { pathText = RawFileName.text(newValue) }
    }
    /// `path` as the text the message shows (a byte that is not UTF-8 as
    /// U+10FF00 + byte).
    package var pathText: String
    /// The entry inside a package the error is about; empty for the document.
    public var entry: String
    /// The byte offset in the file the error is about, for text.
    public var byteOffset: Int?
    /// The `errno` of the failed system call, for `.io`.
    public var systemErrorNumber: Int32?
    /// What happened, for people.
    public var message: String

    /// Makes an error about the document at `path`.
    public init(
        _ code: Code, path: FilePath, entry: String = "", byteOffset: Int? = nil, systemErrorNumber: Int32? = nil, _ message: String
    ) {
        self.init(
            code, pathText: RawFileName.text(path), entry: entry, byteOffset: byteOffset, systemErrorNumber: systemErrorNumber,
            message)
    }

    /// Makes an error about the document at `pathText`, a path held as the
    /// text the message shows.
    package init(
        _ code: Code, pathText: String, entry: String = "", byteOffset: Int? = nil, systemErrorNumber: Int32? = nil,
        _ message: String
    ) {
        self.code = code
        self.pathText = pathText
        self.entry = entry
        self.byteOffset = byteOffset
        self.systemErrorNumber = systemErrorNumber
        self.message = message
    }

    /// `PATH[:ENTRY][:OFFSET]: message`.
    public var description: String {
        var location = pathText
        if !entry.isEmpty { location += ":" + entry }
        if let byteOffset { location += ":\(byteOffset)" }
        return "\(location): \(message)"
    }
}
