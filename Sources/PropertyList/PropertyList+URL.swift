import SystemPackage
import SystemSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// `URL` and `FilePath` forms of the initialisers that take a `String` path.
// A URL must be a `file:` URL: as Foundation's `FileManager` does for other
// schemes (`CocoaError.fileReadUnsupportedScheme` naming the URL), any other
// URL is refused with a thrown `.io` error naming it, never fetched.

extension MappedFile {
    /// Maps the regular file at the file URL `url`, as `init(path:)`.
    ///
    /// - Throws: `PropertyListError` `.io` naming `url` when it is not a
    ///   `file:` URL; otherwise as `init(path:)` (`.io` naming the path when
    ///   the file cannot be opened, is not a regular file or cannot be mapped).
    public convenience init(url: URL) throws(PropertyListError) {
        try self.init(path: try FileURL.fileSystemPath(of: url, else: PropertyListError.notAFileURL))
    }

    /// Maps the regular file at `filePath`, as `init(path:)`.
    ///
    /// A path that is not valid UTF-8 is decoded with replacement characters
    /// and so may not name the same file.
    ///
    /// - Throws: `PropertyListError` `.io` naming the path when the file
    ///   cannot be opened, is not a regular file or cannot be mapped.
    public convenience init(filePath: FilePath) throws(PropertyListError) {
        try self.init(path: filePath.string)
    }
}

extension PartialBinaryPropertyList {
    /// Opens the binary property list at the file URL `url` and reads its
    /// header and trailer, as `init(path:followingSymbolicLinks:limits:)`.
    ///
    /// Costs an `open`, an `fstat` and one or two reads of at most 4 KB.
    ///
    /// - Throws: `PropertyListError` `.io` naming `url` when it is not a
    ///   `file:` URL; otherwise as the `String` form.
    public convenience init(
        url: URL, followingSymbolicLinks: Bool = true,
        limits: PropertyListLimits = .default
    ) throws(PropertyListError) {
        let path = try FileURL.fileSystemPath(of: url, else: PropertyListError.notAFileURL)
        try self.init(path: path, followingSymbolicLinks: followingSymbolicLinks, limits: limits)
    }

    /// Opens the binary property list at `filePath` (relative to the working
    /// directory), as the `String` form.
    ///
    /// Costs an `open`, an `fstat` and one or two reads of at most 4 KB.
    ///
    /// - Throws: `PropertyListError` as `init(path:followingSymbolicLinks:limits:)`.
    public convenience init(
        filePath: FilePath, followingSymbolicLinks: Bool = true, limits: PropertyListLimits = .default
    ) throws(PropertyListError) {
        try self.init(path: filePath.string, followingSymbolicLinks: followingSymbolicLinks, limits: limits)
    }
}

extension PropertyListError {
    /// `.io` naming `url`, which is not a `file:` URL: what the `URL` forms
    /// throw for any other scheme (through `FileURL.fileSystemPath(of:else:)`).
    static func notAFileURL(_ url: URL) -> Self { PropertyListError(.io, at: .none, "\(url.absoluteString) is not a file URL") }
}
