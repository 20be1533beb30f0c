import DocumentPackage
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
// A `FilePath` that is not valid UTF-8 is decoded with replacement
// characters and so may not name the same file.

extension ICTDocumentFile {
    /// Where the document was opened or last saved, as a directory's file
    /// URL (`path`); nil for a new document.
    public var fileURL: URL? { path.map { URL(filePath: $0, directoryHint: .isDirectory) } }

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
        try self.init(contentsOf: filePath.string, imageLimits: imageLimits)
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
        try save(to: filePath.string)
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
        try freeFileName(for: baseName, in: filePath.string)
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
    /// - Throws: `ICTDocumentError` as the `String` form.
    public init(ofDocumentAt filePath: FilePath) throws(ICTDocumentError) {
        try self.init(ofDocumentAt: filePath.string)
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
        validate(packageAt: filePath.string)
    }
}

extension ICTDocumentError {
    /// `.package` naming `url`, which is not a `file:` URL: what the `URL` forms
    /// throw for any other scheme (through `FileURL.fileSystemPath(of:else:)`).
    static func notAFileURL(_ url: URL) -> Self { ICTDocumentError(DocumentPackageError(.io, fileSystemPath: url.absoluteString, "not a file URL")) }
}
