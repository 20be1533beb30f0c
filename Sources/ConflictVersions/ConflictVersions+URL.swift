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
// URL is refused with a thrown `.io` error whose `path` is the URL. A
// `FilePath` names its item byte for byte, valid UTF-8 or not. (The `String`
// forms are `package`: the kit's own callers hold names as text.)

extension DocumentVersion {
    /// The document this is a version of, as a file URL (`itemPath`), a
    /// directory's when `isDirectory` (a version is of its document's kind:
    /// `replaceItem` refuses any other). Reads nothing.
    public var itemURL: URL { URL(filePath: itemPathText, directoryHint: isDirectory ? .isDirectory : .notDirectory) }

    /// Where the version is, as a file URL (`path`), a directory's when
    /// `isDirectory`. Reads nothing.
    public var url: URL { URL(filePath: pathText, directoryHint: isDirectory ? .isDirectory : .notDirectory) }

    /// The document at the file URL `url` as it is now, as `currentVersionOfItem(at:)`.
    ///
    /// - Throws: `DocumentVersionError` `.io` naming `url` when it is not a
    ///   `file:` URL; `.notFound` when there is no item there, `.io` when its
    ///   status cannot be read. Costs one `lstat`.
    public static func currentVersionOfItem(at url: URL) throws(DocumentVersionError) -> DocumentVersion {
        try currentVersionOfItem(at: try FileURL.fileSystemPath(of: url, else: DocumentVersionError.notAFileURL))
    }

    /// The document at `filePath` as it is now, as `currentVersionOfItem(at:)`.
    ///
    /// - Throws: `DocumentVersionError` `.notFound` when there is no item
    ///   there, `.io` when its status cannot be read. Costs one `lstat`.
    public static func currentVersionOfItem(at filePath: FilePath) throws(DocumentVersionError) -> DocumentVersion {
        try currentVersionOfItem(at: RawFileName.text(filePath))
    }

    /// Every conflict version of the document at the file URL `url`, oldest
    /// first, as `otherVersionsOfItem(at:)`.
    ///
    /// - Throws: `DocumentVersionError` `.io` naming `url` when it is not a
    ///   `file:` URL; otherwise as the `String` form. Costs the folder
    ///   listings and one `lstat` per candidate; no file is read.
    public static func otherVersionsOfItem(at url: URL) throws(DocumentVersionError) -> [DocumentVersion] {
        try otherVersionsOfItem(at: try FileURL.fileSystemPath(of: url, else: DocumentVersionError.notAFileURL))
    }

    /// Every conflict version of the document at `filePath`, oldest first,
    /// as `otherVersionsOfItem(at:)`.
    ///
    /// - Throws: `DocumentVersionError` as the `String` form. Costs the
    ///   folder listings and one `lstat` per candidate; no file is read.
    public static func otherVersionsOfItem(at filePath: FilePath) throws(DocumentVersionError) -> [DocumentVersion] {
        try otherVersionsOfItem(at: RawFileName.text(filePath))
    }

    /// The conflict versions of the document at the file URL `url` not yet
    /// resolved, as `unresolvedConflictVersionsOfItem(at:)`.
    ///
    /// - Throws: `DocumentVersionError` `.io` naming `url` when it is not a
    ///   `file:` URL; otherwise as `otherVersionsOfItem(at:)`.
    public static func unresolvedConflictVersionsOfItem(at url: URL) throws(DocumentVersionError) -> [DocumentVersion] {
        try unresolvedConflictVersionsOfItem(at: try FileURL.fileSystemPath(of: url, else: DocumentVersionError.notAFileURL))
    }

    /// The conflict versions of the document at `filePath` not yet resolved,
    /// as `unresolvedConflictVersionsOfItem(at:)`.
    ///
    /// - Throws: `DocumentVersionError` as `otherVersionsOfItem(at:)`.
    public static func unresolvedConflictVersionsOfItem(at filePath: FilePath) throws(DocumentVersionError)
        -> [DocumentVersion]
    {
        try unresolvedConflictVersionsOfItem(at: RawFileName.text(filePath))
    }

    /// Makes this version the contents of the document at the file URL
    /// `url`, in one step, as `replaceItem(at:options:)`. Returns `url`.
    ///
    /// Reads the version and writes the document (a package saved safely).
    ///
    /// - Throws: `DocumentVersionError` `.io` naming `url` when it is not a
    ///   `file:` URL (nothing is touched); otherwise as the `String` form.
    @discardableResult
    public func replaceItem(at url: URL, options: ReplacingOptions = []) throws(DocumentVersionError) -> URL {
        try replaceItem(at: try FileURL.fileSystemPath(of: url, else: DocumentVersionError.notAFileURL), options: options)
        return url
    }

    /// Makes this version the contents of the document at `filePath`, in
    /// one step, as `replaceItem(at:options:)`. Returns `filePath`.
    ///
    /// Reads the version and writes the document (a package saved safely).
    ///
    /// - Throws: `DocumentVersionError` as the `String` form.
    @discardableResult
    public func replaceItem(at filePath: FilePath, options: ReplacingOptions = []) throws(DocumentVersionError)
        -> FilePath
    {
        try replaceItem(at: RawFileName.text(filePath), options: options)
        return filePath
    }

    /// Removes every conflict version of the document at the file URL `url`,
    /// as `removeOtherVersionsOfItem(at:)`.
    ///
    /// - Throws: `DocumentVersionError` `.io` naming `url` when it is not a
    ///   `file:` URL (nothing is removed); otherwise as the `String` form.
    public static func removeOtherVersionsOfItem(at url: URL) throws(DocumentVersionError) {
        try removeOtherVersionsOfItem(at: try FileURL.fileSystemPath(of: url, else: DocumentVersionError.notAFileURL))
    }

    /// Removes every conflict version of the document at `filePath`, as
    /// `removeOtherVersionsOfItem(at:)`.
    ///
    /// - Throws: `DocumentVersionError` as the `String` form.
    public static func removeOtherVersionsOfItem(at filePath: FilePath) throws(DocumentVersionError) {
        try removeOtherVersionsOfItem(at: RawFileName.text(filePath))
    }
}

extension VersionFingerprint {
    /// The fingerprint of the document at the file URL `url` and its
    /// versions, as `ofItem(at:)`: equal to it for the URL's path.
    ///
    /// - Throws: `DocumentVersionError` `.io` naming `url` when it is not a
    ///   `file:` URL; otherwise as `ofItem(at:)`. Costs the listings that find
    ///   versions plus one `lstat` per entry.
    public static func ofItem(at url: URL) throws(DocumentVersionError) -> String {
        try ofItem(at: try FileURL.fileSystemPath(of: url, else: DocumentVersionError.notAFileURL))
    }

    /// The fingerprint of the document at `filePath` and its versions, as `ofItem(at:)`.
    ///
    /// - Throws: `DocumentVersionError` as `ofItem(at:)`. Costs the listings
    ///   that find versions plus one `lstat` per entry.
    public static func ofItem(at filePath: FilePath) throws(DocumentVersionError) -> String {
        try ofItem(at: RawFileName.text(filePath))
    }
}

extension DocumentVersionError {
    /// `.io` naming `url`, which is not a `file:` URL: what the `URL` forms
    /// throw for any other scheme (through `FileURL.fileSystemPath(of:else:)`).
    static func notAFileURL(_ url: URL) -> Self { DocumentVersionError(.io, pathText: url.absoluteString, "not a file URL") }
}
