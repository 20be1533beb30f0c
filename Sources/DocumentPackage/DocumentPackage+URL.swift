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
// URL is refused with a thrown `.io` error whose `fileSystemPath` is the URL,
// never fetched. A `FilePath` that is not valid UTF-8 is decoded with
// replacement characters and so may not name the same file.

extension PackageWrapper {
    /// Reads the package directory at the file URL `url`, as `init(readingFrom:mode:limits:)`.
    ///
    /// With `.lazy`, no file's bytes are read until asked for; the listing is.
    ///
    /// - Throws: `DocumentPackageError` `.io` naming `url` when it is not a
    ///   `file:` URL; otherwise as the `String` form (`.notFound` or
    ///   `.notADirectory` for the path, `.io`, `.invalidName`,
    ///   `.duplicateName`, `.unsupportedFileType`, `.limitExceeded`).
    public convenience init(
        readingFrom url: URL, mode: PackageReadingMode = .lazy,
        limits: DocumentPackageLimits = .default
    ) throws(DocumentPackageError) {
        try self.init(readingFrom: try FileURL.fileSystemPath(of: url, else: DocumentPackageError.notAFileURL), mode: mode, limits: limits)
    }

    /// Reads the package directory at `filePath`, as `init(readingFrom:mode:limits:)`.
    ///
    /// With `.lazy`, no file's bytes are read until asked for; the listing is.
    ///
    /// - Throws: `DocumentPackageError` as the `String` form.
    public convenience init(
        readingFrom filePath: FilePath, mode: PackageReadingMode = .lazy,
        limits: DocumentPackageLimits = .default
    ) throws(DocumentPackageError) {
        try self.init(readingFrom: filePath.string, mode: mode, limits: limits)
    }

    /// Saves this directory wrapper as a package at the file URL `url`, as `save(to:options:)`.
    ///
    /// Writes the whole package beside `url` and swaps it in; unchanged files
    /// are linked or cloned, not copied byte by byte.
    ///
    /// - Throws: `DocumentPackageError` `.io` naming `url` when it is not a
    ///   `file:` URL (nothing is written); otherwise as the `String` form.
    public func save(to url: URL, options: PackageSaveOptions = PackageSaveOptions()) throws(DocumentPackageError) {
        try save(to: try FileURL.fileSystemPath(of: url, else: DocumentPackageError.notAFileURL), options: options)
    }

    /// Saves this directory wrapper as a package at `filePath`, as `save(to:options:)`.
    ///
    /// Writes the whole package beside `filePath` and swaps it in; unchanged
    /// files are linked or cloned, not copied byte by byte.
    ///
    /// - Throws: `DocumentPackageError` as the `String` form.
    public func save(to filePath: FilePath, options: PackageSaveOptions = PackageSaveOptions()) throws(DocumentPackageError) {
        try save(to: filePath.string, options: options)
    }
}

extension PackageZipArchive {
    /// Writes `package` as a zip at the file URL `url`, as `write(_:to:rootName:limits:)`.
    ///
    /// Time and memory grow linearly with the entries.
    ///
    /// - Throws: `DocumentPackageError` `.io` naming `url` when it is not a
    ///   `file:` URL (nothing is written); otherwise as the `String` form.
    public static func write(
        _ package: PackageWrapper, to url: URL, rootName: String,
        limits: DocumentPackageLimits = .default
    ) throws(DocumentPackageError) {
        try write(package, to: try FileURL.fileSystemPath(of: url, else: DocumentPackageError.notAFileURL), rootName: rootName, limits: limits)
    }

    /// Writes `package` as a zip at `filePath`, as `write(_:to:rootName:limits:)`.
    ///
    /// Time and memory grow linearly with the entries.
    ///
    /// - Throws: `DocumentPackageError` as the `String` form.
    public static func write(
        _ package: PackageWrapper, to filePath: FilePath, rootName: String,
        limits: DocumentPackageLimits = .default
    ) throws(DocumentPackageError) {
        try write(package, to: filePath.string, rootName: rootName, limits: limits)
    }

    /// Reads the zip at the file URL `url` as a package, as `read(at:limits:)`.
    ///
    /// Reads the central directory; file bytes are read when asked for.
    ///
    /// - Throws: `DocumentPackageError` `.io` naming `url` when it is not a
    ///   `file:` URL; otherwise as the `String` form.
    public static func read(at url: URL, limits: DocumentPackageLimits = .default) throws(DocumentPackageError)
        -> PackageWrapper
    {
        try read(at: try FileURL.fileSystemPath(of: url, else: DocumentPackageError.notAFileURL), limits: limits)
    }

    /// Reads the zip at `filePath` as a package, as `read(at:limits:)`.
    ///
    /// Reads the central directory; file bytes are read when asked for.
    ///
    /// - Throws: `DocumentPackageError` as the `String` form.
    public static func read(at filePath: FilePath, limits: DocumentPackageLimits = .default) throws(DocumentPackageError)
        -> PackageWrapper
    {
        try read(at: filePath.string, limits: limits)
    }
}

extension PackageSaveOptions {
    /// `originalContentsPath` as a directory's file URL; nil when none.
    ///
    /// Setting a URL that is not a `file:` URL is a programmer's error (a
    /// precondition failure naming it): a setter cannot throw, and no other
    /// scheme can name a package to link files from.
    public var originalContentsURL: URL? {
        get { originalContentsPath.map { URL(filePath: $0, directoryHint: .isDirectory) } }
        set {
            if let newValue {
                guard let path = FileURL.path(of: newValue) else {
                    preconditionFailure("originalContentsURL \(newValue.absoluteString) is not a file URL")
                }
                originalContentsPath = path
            } else {
                originalContentsPath = nil
            }
        }
    }
}

extension DocumentPackageError {
    /// `.io` naming `url`, which is not a `file:` URL: what the `URL` forms
    /// throw for any other scheme (through `FileURL.fileSystemPath(of:else:)`).
    static func notAFileURL(_ url: URL) -> Self { DocumentPackageError(.io, fileSystemPath: url.absoluteString, "not a file URL") }
}
