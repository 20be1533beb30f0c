// Code written against Apple's API, as a macOS developer writes it. The
// only line changed from the macOS original is the import of
// AppleCompatibility, which on macOS was `import UniformTypeIdentifiers`.
import AppleCompatibility
import Foundation

/// A document stored as a package directory: its files are read through a
/// file wrapper, one is replaced, and the package is written back with the
/// original's location so that unchanged files are not copied.
final class PackageDocument {
    let fileWrapper: FileWrapper

    init(contentsOf url: URL) throws {
        let wrapper = try FileWrapper(url: url, options: [])
        guard wrapper.isDirectory else {
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSURLErrorKey: url])
        }
        fileWrapper = wrapper
    }

    /// The names of the package's files.
    var fileNames: [String] { (fileWrapper.fileWrappers ?? [:]).keys.sorted() }

    /// The bytes of one file of the package.
    func contents(ofFile name: String) -> Data? {
        fileWrapper.fileWrappers?[name]?.regularFileContents
    }

    /// Replaces one file of the package with new bytes.
    func setContents(_ data: Data, ofFile name: String) {
        if let existing = fileWrapper.fileWrappers?[name] {
            fileWrapper.removeFileWrapper(existing)
        }
        fileWrapper.addRegularFile(withContents: data, preferredFilename: name)
    }

    /// Writes the package, hard-linking what did not change in the original.
    func write(to url: URL, originalContentsURL: URL?) throws {
        try fileWrapper.write(to: url, options: [.atomic, .withNameUpdating], originalContentsURL: originalContentsURL)
    }
}

/// The types the app reads and writes.
enum DocumentTypes {
    /// The app's own package type, declared in its Info.plist.
    static let sessionPackage = UTType(exportedAs: "com.sequel-ace.sequel-ace.spfs", conformingTo: .package)

    /// The type of a file or package, by its extension. (Packages are
    /// directories, not data: the default `conformingTo: .data` would miss them.)
    static func type(of url: URL) -> UTType? {
        UTType(filenameExtension: url.pathExtension, conformingTo: .item)
    }

    /// Whether a file is opened as a package rather than a flat file.
    static func isPackage(_ url: URL) -> Bool {
        type(of: url)?.conforms(to: .package) ?? false
    }

    /// Whether an HTTP body of this MIME type is an image the app shows.
    static func isImage(mimeType: String) -> Bool {
        UTType(mimeType: mimeType)?.conforms(to: .image) ?? false
    }

    /// The name to save data of a MIME type under.
    static func fileName(_ stem: String, mimeType: String) -> String {
        guard let type = UTType(mimeType: mimeType), let filenameExtension = type.preferredFilenameExtension else {
            return stem
        }
        return stem + "." + filenameExtension
    }

    /// The types a document-based app lists in its open panel.
    static let readableTypes: [UTType] = [.rtfd, .plainText, .propertyList, sessionPackage]
}
