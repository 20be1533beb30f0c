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
    /// What went wrong.
    public enum Kind: Hashable, Sendable {
        /// The package path names something that is not a directory.
        case notADirectory
        /// An entry that was asked for does not exist.
        case notFound
        /// A child name is empty, `.`, `..`, holds `/` or NUL, is over 255
        /// bytes of UTF-8, or (on disk) is not valid UTF-8.
        case invalidName
        /// Two children of one directory have names that differ only by case.
        case duplicateName
        /// Something already exists where a new package was to be created.
        case alreadyExists
        /// An entry on disk is neither a directory, a regular file nor a
        /// symbolic link (a device, a FIFO, a socket).
        case unsupportedFileType
        /// The operation needs a different kind of wrapper (the children of a
        /// regular file, say).
        case wrongKind
        /// A file read lazily was replaced or modified on disk after the
        /// package was read, so its original bytes are gone.
        case changedOnDisk
        /// A limit was hit.
        case limitExceeded(DocumentPackageLimit)
        /// A zip entry or link would land outside the target, or has an
        /// absolute path.
        case unsafePath
        /// The zip archive is unreadable or inconsistent.
        case invalidArchive
        /// A system call failed; `systemErrorNumber` holds its `errno`.
        case io
    }

    /// What went wrong.
    public var kind: Kind
    /// The path inside the package, `Contents/Resources/x.nib`; empty for the
    /// package itself.
    public var pathInPackage: String
    /// The file-system path concerned; empty when none is (an in-memory tree).
    public var fileSystemPath: String
    /// The `errno` of the failed system call, for `.io`.
    public var systemErrorNumber: Int32?
    /// A sentence for people.
    public var message: String

    /// Makes an error.
    public init(
        _ kind: Kind, pathInPackage: String = "", fileSystemPath: String = "",
        systemErrorNumber: Int32? = nil, _ message: String
    ) {
        self.kind = kind
        self.pathInPackage = pathInPackage
        self.fileSystemPath = fileSystemPath
        self.systemErrorNumber = systemErrorNumber
        self.message = message
    }

    /// `/path/on/disk: message (at Contents/x.nib)`.
    public var description: String {
        var text = fileSystemPath.isEmpty ? message : fileSystemPath + ": " + message
        if !pathInPackage.isEmpty { text += " (at \(pathInPackage))" }
        return text
    }
}
