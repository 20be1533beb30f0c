import PackageFormat
import SystemPackage
import SystemSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// `URL` and `FilePath` forms of the operations that take a `String` path.
// A URL must be a `file:` URL: as Foundation's `FileManager` does for other
// schemes (`CocoaError.fileReadUnsupportedScheme` naming the URL), any other
// URL is refused with a thrown `.package` error naming it (its
// `packageError` is `.io` with the URL as `fileSystemPath`), never fetched.
// A `FilePath` names its item byte for byte, valid UTF-8 or not (a byte that
// is not UTF-8 is carried in the `String` forms as `RawFileName` does). (The
// `String` forms are `package`: the kit's own callers hold names as text.)

extension ICTDocumentFile {
    /// Where the document was opened or last saved, as a directory's file
    /// URL (`path`); nil for a new document.
    public var fileURL: URL? { pathString.map { URL(filePath: $0, directoryHint: .isDirectory) } }

    /// Where the document was opened from or last saved to; nil for a new one.
    public var path: FilePath? { pathString.map { RawFileName.withPath($0) { FilePath(platformString: $0) } } }

    /// Opens a document from a package already read (lazily), such as a
    /// version of it that is not on disk as a package of its own, giving it
    /// `path` as where it is (its display name's fallback, where `save()`
    /// writes). Reads nothing.
    public convenience init(package: PackageWrapper, path: FilePath? = nil, imageLimits: ImageLimits = .default) {
        self.init(
            package: package, pathString: path.map(RawFileName.text), imageLimits: imageLimits)
    }

    /// A new document (not yet on disk) with the form's fields, as
    /// `init(jsonForm:imageFolder:imageLimits:)`: a photo `.file` is read
    /// from the folder `imageFolder` (empty for the current directory)
    /// unless its name starts with `/`.
    ///
    /// - Throws: `ICTDocumentError` `.unreadableFile` when the photo file
    ///   cannot be read; what `setPhoto(pngBytes:)` throws for the photo.
    ///   Costs decoding and resizing the photo.
    public convenience init(jsonForm form: ICTDocumentJSONForm, imageFolder: FilePath, imageLimits: ImageLimits = .default)
        throws(ICTDocumentError)
    {
        var folder = RawFileName.text(imageFolder)
        if !folder.isEmpty, !folder.hasSuffix("/") { folder += "/" }
        try self.init(jsonForm: form, imageFolder: folder, imageLimits: imageLimits)
    }

    /// A new document (not yet on disk) from the JSON form in the file at
    /// `filePath`, its photo file named relative to that file's folder.
    ///
    /// - Throws: `ICTDocumentError` `.unreadableFile` when the JSON file
    ///   cannot be read; what `ICTDocumentJSONForm(jsonBytes:)` and
    ///   `init(jsonForm:imageFolder:imageLimits:)` throw. Costs reading the file.
    public convenience init(jsonFormAt filePath: FilePath, imageLimits: ImageLimits = .default) throws(ICTDocumentError) {
        try self.init(jsonFormAt: RawFileName.text(filePath), imageLimits: imageLimits)
    }

    /// Opens the document at the file URL `url`, reading only its listing
    /// (names and sizes), as `init(contentsOf:imageLimits:)`.
    ///
    /// - Throws: `ICTDocumentError` `.package` naming `url` when it is not a
    ///   `file:` URL, or when the path is not a readable package directory.
    public convenience init(contentsOf url: URL, imageLimits: ImageLimits = .default) throws(ICTDocumentError) {
        try self.init(contentsOf: try FileURL.fileSystemPath(of: url, else: ICTDocumentError.notAFileURL), imageLimits: imageLimits)
    }

    /// Opens the document at `filePath`, reading only its listing (names and
    /// sizes), as `init(contentsOf:imageLimits:)`.
    ///
    /// - Throws: `ICTDocumentError` `.package` when the path is not a readable package directory.
    public convenience init(contentsOf filePath: FilePath, imageLimits: ImageLimits = .default) throws(ICTDocumentError) {
        try self.init(contentsOf: RawFileName.text(filePath), imageLimits: imageLimits)
    }

    /// Saves the document safely to the file URL `url`, as `save(to:)`.
    ///
    /// Encodes and writes only the entries edited; the others are linked or copied.
    ///
    /// - Throws: `ICTDocumentError` `.package` naming `url` when it is not a
    ///   `file:` URL (nothing is written); otherwise as `save(to:)`.
    public func save(to url: URL) throws(ICTDocumentError) {
        try save(to: try FileURL.fileSystemPath(of: url, else: ICTDocumentError.notAFileURL))
    }

    /// Saves the document safely to `filePath`, as `save(to:)`.
    ///
    /// Encodes and writes only the entries edited; the others are linked or copied.
    ///
    /// - Throws: `ICTDocumentError` as `save(to:)`.
    public func save(to filePath: FilePath) throws(ICTDocumentError) {
        try save(to: RawFileName.text(filePath))
    }

    /// The first free document name for `baseName` in the directory at the
    /// file URL `url`, as `freeFileName(for:in:)`. Lists the directory once.
    ///
    /// - Throws: `ICTDocumentError` `.package` naming `url` when it is not a
    ///   `file:` URL, or the path when the directory cannot be listed.
    public static func freeFileName(for baseName: String, in url: URL) throws(ICTDocumentError) -> String {
        try freeFileName(for: baseName, in: try FileURL.fileSystemPath(of: url, else: ICTDocumentError.notAFileURL))
    }

    /// The first free document name for `baseName` in the directory at
    /// `filePath`, as `freeFileName(for:in:)`. Lists the directory once.
    ///
    /// - Throws: `ICTDocumentError` `.package` naming the path when the directory cannot be listed.
    public static func freeFileName(for baseName: String, in filePath: FilePath) throws(ICTDocumentError) -> String {
        try freeFileName(for: baseName, in: RawFileName.text(filePath))
    }
}

extension ICTDocumentSummary {
    /// Reads the summary of the document at the file URL `url`, as
    /// `init(ofDocumentAt:readingThumbnailUpTo:)`: usually two 4 KB reads of the metadata entry.
    ///
    /// - Throws: `ICTDocumentError` `.package` naming `url` when it is not a
    ///   `file:` URL; otherwise as the `String` form.
    public init(ofDocumentAt url: URL) throws(ICTDocumentError) {
        try self.init(ofDocumentAt: try FileURL.fileSystemPath(of: url, else: ICTDocumentError.notAFileURL))
    }

    /// Reads the summary of the document at `filePath` (relative to the
    /// working directory), as
    /// `init(ofDocumentAt:readingThumbnailUpTo:)`: usually two 4 KB reads of the metadata entry.
    ///
    /// With `thumbnailByteLimit`, a thumbnail larger than that many bytes is
    /// left unread (`thumbnailByteCount` says how large it is).
    ///
    /// - Throws: `ICTDocumentError` `.package` when the path is not a package
    ///   directory, `.missingEntry` when it has no metadata entry, or what
    ///   decoding the metadata entry throws, naming the entry and key.
    public init(ofDocumentAt filePath: FilePath, readingThumbnailUpTo thumbnailByteLimit: Int? = nil) throws(ICTDocumentError) {
        try self.init(
            ofDocumentAt: RawFileName.text(filePath), readingThumbnailUpTo: thumbnailByteLimit)
    }
}

extension DocumentValidator {
    /// The problems of the package at the file URL `url`, as
    /// `validate(packageAt:)`; a URL that is not a `file:` URL gives one
    /// `.error` finding naming it. Reads and decodes every entry checked.
    public func validate(packageAt url: URL) -> [DocumentFinding] {
        do {
            return validate(packageAt: try FileURL.fileSystemPath(of: url, else: ICTDocumentError.notAFileURL))
        } catch {
            return [DocumentFinding(entry: "", keyPath: "", message: error.message)]
        }
    }

    /// The problems of the package at `filePath`, as `validate(packageAt:)`.
    /// Reads and decodes every entry checked.
    public func validate(packageAt filePath: FilePath) -> [DocumentFinding] {
        validate(packageAt: RawFileName.text(filePath))
    }
}

extension PTKDocumentFile {
    /// Where the document was opened from or last saved to; nil for a new one.
    public var path: FilePath? { pathString.map { RawFileName.withPath($0) { FilePath(platformString: $0) } } }

    /// Opens the document at `filePath`, reading only its listing.
    ///
    /// - Throws: `ICTDocumentError` `.package` when the path is not a readable package directory.
    public convenience init(contentsOf filePath: FilePath, imageLimits: ImageLimits = .default) throws(ICTDocumentError) {
        try self.init(contentsOf: RawFileName.text(filePath), imageLimits: imageLimits)
    }
}

extension TextNoteFile {
    /// Reads the note at `filePath`, its kind from its name unless `kind` is
    /// given, as the `String` form. Reads the file once; a symbolic link is followed.
    ///
    /// - Precondition: `kind`, or the kind the path names, is a text kind.
    /// - Throws: `ICTDocumentError` `.unreadableFile` when the file cannot be
    ///   opened or read, is not a regular file or is over `maximumByteCount`;
    ///   `.invalidText` as `init(bytes:kind:)`.
    public init(contentsOf filePath: FilePath, kind: DocumentKind? = nil) throws(ICTDocumentError) {
        try self.init(contentsOf: RawFileName.text(filePath), kind: kind)
    }

    /// Writes `text` as a note at `filePath`, as the `String` form: atomically,
    /// never through a link or into a stream, and without `replacingExisting`
    /// never over an item already there.
    ///
    /// - Throws: `ICTDocumentError` `.alreadyExists`, or `.unreadableFile`
    ///   saying what refused the write (nothing is changed then).
    public static func write(_ text: String, to filePath: FilePath, replacingExisting: Bool) throws(ICTDocumentError) {
        try write(text, to: RawFileName.text(filePath), replacingExisting: replacingExisting)
    }
}

extension ICTDocumentFormat {
    /// Whether `filePath` names an `.ict` package: a directory (a symbolic
    /// link to one is followed) whose name ends in `.ict` in any case,
    /// trailing slashes aside. Reads the item's status only.
    public static func isPackage(atPath filePath: FilePath) -> Bool {
        isPackage(atPath: RawFileName.text(filePath))
    }

    /// Whether `filePath` names an `.ict` document: an `.ict` package with an
    /// item named `ctdocument.metadata` in it. Reads the status of the
    /// package and of the entry only.
    public static func isDocument(atPath filePath: FilePath) -> Bool {
        isDocument(atPath: RawFileName.text(filePath))
    }
}

extension DocumentKind {
    /// The kind of the item at `filePath` when it is a document of a kind its
    /// name says: a package kind only as a directory, a text kind only as a
    /// regular file (a symbolic link to either is followed). Reads the item's status only.
    public static func of(itemAtPath filePath: FilePath) -> DocumentKind? {
        of(itemAtPath: RawFileName.text(filePath))
    }

    /// The name a document of this kind shows when it has no display name of
    /// its own: the last part of `filePath` without the kind's extension
    /// (`Shopping List` for `notes/Shopping List.icfnote`). Reads nothing.
    public func fileDisplayName(ofPath filePath: FilePath) -> String {
        fileDisplayName(ofPath: RawFileName.text(filePath))
    }
}

extension ICTDocumentError {
    /// `.package` naming `url`, which is not a `file:` URL: what the `URL` forms
    /// throw for any other scheme (through `FileURL.fileSystemPath(of:else:)`).
    static func notAFileURL(_ url: URL) -> Self { ICTDocumentError(DocumentPackageError(.io, fileSystemPathText: url.absoluteString, "not a file URL")) }
}
