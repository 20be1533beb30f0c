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
    /// Maps the regular file at the file URL `url`, as `init(filePath:)`.
    ///
    /// - Throws: `PropertyListError` `.io` naming `url` when it is not a
    ///   `file:` URL; otherwise as `init(filePath:)`.
    public convenience init(url: URL) throws(PropertyListError) {
        try self.init(path: try FileURL.fileSystemPath(of: url, else: PropertyListError.notAFileURL))
    }

    /// Maps the regular file at `filePath` (relative to the working
    /// directory), byte for byte as the path names it, valid UTF-8 or not;
    /// `path` is then its text, each byte that is not UTF-8 carried as
    /// U+10FF00 + byte.
    ///
    /// Costs an `open`, an `fstat` and an `mmap` (a read to the end for a
    /// file whose status says 0 bytes, as `/proc` files do).
    ///
    /// - Throws: `PropertyListError` `.io` naming the path when the file
    ///   cannot be opened, is not a regular file or cannot be mapped.
    public convenience init(filePath: FilePath) throws(PropertyListError) {
        try self.init(path: RawFileName.text(filePath))
    }
}

extension PartialBinaryPropertyList {
    /// Opens the binary property list at the file URL `url` and reads its
    /// header and trailer, as `init(filePath:followingSymbolicLinks:limits:)`.
    ///
    /// Costs an `open`, an `fstat` and one or two reads of at most 4 KB.
    ///
    /// - Throws: `PropertyListError` `.io` naming `url` when it is not a
    ///   `file:` URL; otherwise as `init(filePath:followingSymbolicLinks:limits:)`.
    public convenience init(
        url: URL, followingSymbolicLinks: Bool = true,
        limits: PropertyListLimits = .default
    ) throws(PropertyListError) {
        let path = try FileURL.fileSystemPath(of: url, else: PropertyListError.notAFileURL)
        try self.init(path: path, followingSymbolicLinks: followingSymbolicLinks, limits: limits)
    }

    /// Opens the binary property list at `filePath` (relative to the working
    /// directory, byte for byte as the path names it, valid UTF-8 or not) and
    /// reads its header and trailer. With `followingSymbolicLinks` false, a
    /// symbolic link at `filePath` is refused (`.io`) rather than followed.
    ///
    /// Costs an `open`, an `fstat` and one or two reads of at most 4 KB.
    ///
    /// - Throws: `PropertyListError` `.io` when the file cannot be opened or
    ///   read or is not a regular file; `.unrecognizedFormat`, `.truncated` or
    ///   `.invalidTrailer` as `BinaryPropertyListReader`, at the byte concerned.
    public convenience init(
        filePath: FilePath, followingSymbolicLinks: Bool = true, limits: PropertyListLimits = .default
    ) throws(PropertyListError) {
        let path = RawFileName.text(filePath)
        try self.init(path: path, followingSymbolicLinks: followingSymbolicLinks, limits: limits)
    }
}

extension PropertyListError {
    /// `.io` naming `url`, which is not a `file:` URL: what the `URL` forms
    /// throw for any other scheme (through `FileURL.fileSystemPath(of:else:)`).
    static func notAFileURL(_ url: URL) -> Self { PropertyListError(.io, at: .none, "\(url.absoluteString) is not a file URL") }
}
