import SystemPackage
import SystemSupport

/// A limit that protects package readers from hostile input.
public enum DocumentPackageLimit: String, Hashable, Sendable {
    /// `DocumentPackageLimits.maximumEntryCount`.
    case entryCount
    /// `DocumentPackageLimits.maximumDepth`.
    case depth
    /// `DocumentPackageLimits.maximumTotalSize`.
    case totalSize
    /// `DocumentPackageLimits.maximumEntrySize`.
    case entrySize
}

/// The limits applied when reading a package directory or a zip, and when
/// writing a zip (so that every zip written can be read back with the same
/// limits); each is reported by name when hit.
public struct DocumentPackageLimits: Hashable, Sendable {
    /// How many entries (files, directories and links, the root not counted)
    /// one package may hold.
    public var maximumEntryCount: Int
    /// How deeply directories may nest below the root.
    public var maximumDepth: Int
    /// The largest sum of regular-file sizes accepted, in bytes.
    public var maximumTotalSize: Int64
    /// The largest regular file a zip may hold, in bytes: checked against
    /// each entry's declared size before anything is written, and against
    /// the bytes it really inflates to. (A package directory's files are
    /// bounded by `maximumTotalSize` alone; zipping one refuses a larger file.)
    public var maximumEntrySize: Int64

    /// Makes a set of limits.
    public init(
        maximumEntryCount: Int = 100_000, maximumDepth: Int = 64, maximumTotalSize: Int64 = 8 << 30,
        maximumEntrySize: Int64 = 2 << 30
    ) {
        self.maximumEntryCount = maximumEntryCount
        self.maximumDepth = maximumDepth
        self.maximumTotalSize = maximumTotalSize
        self.maximumEntrySize = maximumEntrySize
    }

    /// The defaults: 100,000 entries, 64 levels, 8 GiB of file contents,
    /// 2 GiB in one zip entry.
    public static let `default` = DocumentPackageLimits()
}

/// An error reading, writing or converting a document package, saying what
/// went wrong, where inside the package, and at which file-system path.
public struct DocumentPackageError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong: one of the static members, compared with `==` or
    /// matched in a `switch` (which needs a `default:`, as codes may be added
    /// in later versions without breaking callers).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: Hashable, Sendable {
            case notADirectory
            case notFound
            case invalidName
            case duplicateName
            case alreadyExists
            case unsupportedFileType
            case wrongKind
            case changedOnDisk
            case limitExceeded(DocumentPackageLimit)
            case unsafePath
            case invalidArchive
            case invalidManifest
            case io
        }

        private var wrapped: Wrapped

        private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

        /// The package path names something that is not a directory.
        public static var notADirectory: Self { Self(.notADirectory) }
        /// An entry that was asked for does not exist.
        public static var notFound: Self { Self(.notFound) }
        /// A child name is empty, `.`, `..`, holds `/` or NUL, is over 255
        /// bytes of UTF-8, or (on disk) is not valid UTF-8.
        public static var invalidName: Self { Self(.invalidName) }
        /// Two children of one directory have names that differ only by case.
        public static var duplicateName: Self { Self(.duplicateName) }
        /// Something already exists where a new package was to be created.
        public static var alreadyExists: Self { Self(.alreadyExists) }
        /// An entry on disk is neither a directory, a regular file nor a
        /// symbolic link (a device, a FIFO, a socket).
        public static var unsupportedFileType: Self { Self(.unsupportedFileType) }
        /// The operation needs a different kind of wrapper (the children of a
        /// regular file, say).
        public static var wrongKind: Self { Self(.wrongKind) }
        /// A file read lazily was replaced or modified on disk after the
        /// package was read, so its original bytes are gone.
        public static var changedOnDisk: Self { Self(.changedOnDisk) }
        /// A limit was hit; ``limit`` says which.
        public static func limitExceeded(_ limit: DocumentPackageLimit) -> Self { Self(.limitExceeded(limit)) }
        /// A zip entry or link would land outside the target, or has an
        /// absolute path.
        public static var unsafePath: Self { Self(.unsafePath) }
        /// The zip archive is unreadable or inconsistent.
        public static var invalidArchive: Self { Self(.invalidArchive) }
        /// The package's manifest (`PackageManifest`) is not one: not a
        /// binary property list, or a key missing or of the wrong type.
        public static var invalidManifest: Self { Self(.invalidManifest) }
        /// A system call failed; `systemErrorNumber` holds its `errno`.
        public static var io: Self { Self(.io) }

        /// The limit hit, for a ``limitExceeded(_:)`` code; nil for every other code.
        public var limit: DocumentPackageLimit? {
            if case .limitExceeded(let limit) = wrapped { limit } else { nil }
        }

        /// The code's name, stable across versions: `notFound`, `limitExceeded(entryCount)`.
        public var description: String {
            switch wrapped {
            case .notADirectory: "notADirectory"
            case .notFound: "notFound"
            case .invalidName: "invalidName"
            case .duplicateName: "duplicateName"
            case .alreadyExists: "alreadyExists"
            case .unsupportedFileType: "unsupportedFileType"
            case .wrongKind: "wrongKind"
            case .changedOnDisk: "changedOnDisk"
            case .limitExceeded(let limit): "limitExceeded(\(limit.rawValue))"
            case .unsafePath: "unsafePath"
            case .invalidArchive: "invalidArchive"
            case .invalidManifest: "invalidManifest"
            case .io: "io"
            }
        }
    }

    /// What went wrong.
    public var code: Code
    /// The path inside the package, `Contents/Resources/x.nib`; empty for the
    /// package itself.
    public var pathInPackage: String
    /// The file-system path concerned, byte for byte; empty when none is
    /// (an in-memory tree).
    public var fileSystemPath: FilePath {
        get { RawFileName.filePath(fileSystemPathText) }
        set { fileSystemPathText = RawFileName.text(newValue) }
    }
    /// `fileSystemPath` as the text the message shows (bytes that are not
    /// UTF-8 carried as `RawFileName` carries them; a URL that is not a
    /// `file:` URL as it was given); empty when none is.
    package var fileSystemPathText: String
    /// The `errno` of the failed system call, for `.io`.
    public var systemErrorNumber: Int32?
    /// A sentence for people.
    public var message: String

    /// Makes an error about the item at `fileSystemPath` (empty for none).
    public init(
        _ code: Code, pathInPackage: String = "", fileSystemPath: FilePath = FilePath(),
        systemErrorNumber: Int32? = nil, _ message: String
    ) {
        self.init(
            code, pathInPackage: pathInPackage, fileSystemPathText: RawFileName.text(fileSystemPath),
            systemErrorNumber: systemErrorNumber, message)
    }

    /// Makes an error about the item at `fileSystemPathText`, a path held as
    /// the kit's text (empty for none), for the kit's own callers.
    package init(
        _ code: Code, pathInPackage: String = "", fileSystemPathText: String,
        systemErrorNumber: Int32? = nil, _ message: String
    ) {
        self.code = code
        self.pathInPackage = pathInPackage
        self.fileSystemPathText = fileSystemPathText
        self.systemErrorNumber = systemErrorNumber
        self.message = message
    }

    /// `/path/on/disk: message (at Contents/x.nib)`.
    public var description: String {
        var text = fileSystemPathText.isEmpty ? message : fileSystemPathText + ": " + message
        if !pathInPackage.isEmpty { text += " (at \(pathInPackage))" }
        return text
    }
}
