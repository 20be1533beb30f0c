import PropertyList
import SystemPackage
import SystemSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// `URL`, `FilePath` and `Data` forms of the operations that take a `String`
// path or only an `UnsafeRawBufferPointer`. A URL must be a `file:` URL: as
// Foundation's `FileManager` does for other schemes
// (`CocoaError.fileReadUnsupportedScheme` naming the URL), any other URL is
// refused with a thrown `.io` error naming it, never fetched. A `FilePath`
// names its file byte for byte, valid UTF-8 or not.

extension TypeRegistry {
    /// The type of the item at the file URL `url`, as `identifyItem(atPath:)`.
    ///
    /// Reads the item's status and, for sniffing, its first kilobyte.
    ///
    /// - Throws: `UniformTypeError` `.io` naming `url` when it is not a
    ///   `file:` URL, or naming the path when it cannot be examined.
    public func identifyItem(at url: URL) throws(UniformTypeError) -> TypeDeclaration {
        try identifyItem(atPath: try FileURL.fileSystemPath(of: url, else: UniformTypeError.notAFileURL))
    }

    /// The type of the item at `filePath`: a folder's (a package's by its
    /// extension), a link's, a special file's, else a file's by its extension
    /// and, where the extension does not say, its content.
    ///
    /// Reads the item's status and, for sniffing, its first kilobyte.
    ///
    /// - Throws: `UniformTypeError` `.io` naming the path when it cannot be examined.
    public func identifyItem(at filePath: FilePath) throws(UniformTypeError) -> TypeDeclaration {
        try identifyItem(atPath: RawFileName.text(filePath))
    }

    /// Adds every `*.xml` file of the shared-mime-info `packages` directory
    /// at the file URL `url`, in name order, as `addSharedMimeInfo(directory:)`.
    ///
    /// Reads every file in full.
    ///
    /// - Returns: the files read.
    /// - Throws: `UniformTypeError` `.io` naming `url` when it is not a
    ///   `file:` URL (nothing is added); else from the first file that cannot be read.
    @discardableResult
    public mutating func addSharedMimeInfo(directory url: URL) throws(UniformTypeError) -> [URL] {
        try addSharedMimeInfo(directory: try FileURL.fileSystemPath(of: url, else: UniformTypeError.notAFileURL)).map { URL(filePath: $0) }
    }

    /// Adds every `*.xml` file of the shared-mime-info `packages` directory
    /// at `filePath`, in name order, as `addSharedMimeInfo(directory:)`.
    ///
    /// Reads every file in full.
    ///
    /// - Returns: the files read.
    /// - Throws: `UniformTypeError` from the first file that cannot be read.
    @discardableResult
    public mutating func addSharedMimeInfo(directory filePath: FilePath = SharedMimeInfoReader.systemPackagesDirectory)
        throws(UniformTypeError) -> [FilePath]
    {
        try addSharedMimeInfo(directory: RawFileName.text(filePath)).map(RawFileName.filePath)
    }
}

extension SharedMimeInfoReader {
    /// Reads the `<mime-type>` elements of `data`, as `read(_:file:)` on bytes.
    ///
    /// - Throws: `UniformTypeError` `.malformedSharedMimeInfo` with line and column when
    ///   the XML is not well-formed or a `mime-type` has no `type`.
    public static func read(_ data: Data, file: FilePath?) throws(UniformTypeError) -> [MimeTypeDeclaration] {
        let result: Result<[MimeTypeDeclaration], UniformTypeError> = data.withUnsafeBytes { bytes in
            Result { () throws(UniformTypeError) in try read(bytes, file: file) }
        }
        return try result.get()
    }

    /// Reads the shared-mime-info file at the file URL `url`, as `read(contentsOf:)`.
    ///
    /// Maps the file and parses it in full.
    ///
    /// - Throws: `UniformTypeError` `.io` naming `url` when it is not a
    ///   `file:` URL, or naming the path when the file cannot be read; else
    ///   as `read(_:file:)`.
    public static func read(contentsOf url: URL) throws(UniformTypeError) -> [MimeTypeDeclaration] {
        try read(contentsOf: try FileURL.fileSystemPath(of: url, else: UniformTypeError.notAFileURL))
    }

    /// Reads the `<mime-type>` elements of the shared-mime-info file at `filePath`.
    ///
    /// Maps the file and parses it in full.
    ///
    /// - Throws: `UniformTypeError` `.io` naming the path when the file
    ///   cannot be read, else as `read(_:file:)`.
    public static func read(contentsOf filePath: FilePath) throws(UniformTypeError) -> [MimeTypeDeclaration] {
        try read(contentsOf: RawFileName.text(filePath))
    }
}

extension TypeDeclarationSet {
    /// Reads the Info.plist at the file URL `url`, in any property-list
    /// form, as `read(contentsOf:)`.
    ///
    /// Maps the file and decodes it in full.
    ///
    /// - Throws: `UniformTypeError` `.io` naming `url` when it is not a
    ///   `file:` URL, or naming the path when the file cannot be read; else
    ///   the reader's error when it is not a property list.
    public static func read(contentsOf url: URL) throws(UniformTypeError) -> TypeDeclarationSet {
        try read(contentsOf: try FileURL.fileSystemPath(of: url, else: UniformTypeError.notAFileURL))
    }

    /// Reads the type declarations of the Info.plist at `filePath`, in any property-list form.
    ///
    /// Maps the file and decodes it in full.
    ///
    /// - Throws: `UniformTypeError` `.io` naming the path when the file
    ///   cannot be read, else the reader's error when it is not a property list.
    public static func read(contentsOf filePath: FilePath) throws(UniformTypeError) -> TypeDeclarationSet {
        try read(contentsOf: RawFileName.text(filePath))
    }
}

extension UniformTypeError {
    /// `.io` naming `url`, which is not a `file:` URL: what the `URL` forms
    /// throw for any other scheme (through `FileURL.fileSystemPath(of:else:)`).
    static func notAFileURL(_ url: URL) -> Self { UniformTypeError(.io, pathText: url.absoluteString, "\(url.absoluteString) is not a file URL") }
}
