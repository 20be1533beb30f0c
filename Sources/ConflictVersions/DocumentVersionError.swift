import SystemPackage
import SystemSupport

/// An error finding, replacing or removing versions, saying where.
public struct DocumentVersionError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong: one of the static members, compared with `==` or
    /// matched in a `switch` (which needs a `default:`, as codes may be added
    /// in later versions without breaking callers).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: Hashable, Sendable {
            case notFound
            case io
            case changedOnDisk
            case kindMismatch
            case package
            case symbolicLink
            case specialFile
        }

        private var wrapped: Wrapped

        private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

        /// The document or version is not there.
        public static var notFound: Self { Self(.notFound) }
        /// A file-system call failed.
        public static var io: Self { Self(.io) }
        /// The document or a version changed after it was listed.
        public static var changedOnDisk: Self { Self(.changedOnDisk) }
        /// A version is not an item of the document's kind (a file where
        /// the document is a package, or the other way round).
        public static var kindMismatch: Self { Self(.kindMismatch) }
        /// Reading or saving a package failed (the message says how).
        public static var package: Self { Self(.package) }
        /// A version is a symbolic link, or holds one among its entry copies:
        /// moved into the document's place, it would make later edits write
        /// through it to whatever it points to, maybe outside the folder.
        public static var symbolicLink: Self { Self(.symbolicLink) }
        /// The document or a version is a device, FIFO or socket, which no
        /// document is: read, it could block forever; moved into the
        /// document's place, the document's bytes would be gone.
        public static var specialFile: Self { Self(.specialFile) }

        /// The code's name, stable across versions: `notFound`.
        public var description: String {
            switch wrapped {
            case .notFound: "notFound"
            case .io: "io"
            case .changedOnDisk: "changedOnDisk"
            case .kindMismatch: "kindMismatch"
            case .package: "package"
            case .symbolicLink: "symbolicLink"
            case .specialFile: "specialFile"
            }
        }
    }

    /// What went wrong.
    public var code: Code
    /// The file-system path the error is about, byte for byte.
    public var path: FilePath {
        get { RawFileName.filePath(pathText) }
        set { pathText = RawFileName.text(newValue) }
    }
    /// `path` as the text the message shows (bytes that are not UTF-8
    /// carried as `RawFileName` carries them; a URL that is not a `file:`
    /// URL as it was given).
    package var pathText: String
    /// The entry inside a package, when the error is about one.
    public var entry: String
    /// What happened, for people.
    public var message: String

    /// Makes an error about the item at `path`.
    public init(_ code: Code, path: FilePath, entry: String = "", _ message: String) {
        self.init(code, pathText: RawFileName.text(path), entry: entry, message)
    }

    /// Makes an error about the item at `pathText`, a path held as the
    /// kit's text, for the kit's own callers.
    package init(_ code: Code, pathText: String, entry: String = "", _ message: String) {
        self.code = code
        self.pathText = pathText
        self.entry = entry
        self.message = message
    }

    /// `PATH[:ENTRY]: message`.
    public var description: String { "\(pathText)\(entry.isEmpty ? "" : ":" + entry): \(message)" }
}
