#if canImport(UIKit)
import UIKit
#else
import AppleCompatibility
import KeyedCodingAppleNames
#endif

/// The photo-and-name app's document (`.ict`): a package of two entries,
/// `ctdocument.metadata` (CTMetadata: display name, thumbnail) and
/// `ctdocument.data` (CTData: the person and the photo), each an
/// NSKeyedArchiver archive with its object under `DATA`. As the original:
/// `load(fromContents:ofType:)` keeps the file wrapper and each object is
/// decoded on first access, so a list shows the metadata without decoding
/// the data; `contents(forType:)` archives both into a new directory wrapper.
/// (The original returned nil from an accessor it could not decode; these throw.)
final class CTDocument: UIDocument {
    static let metadataFilename = "ctdocument.metadata"
    static let dataFilename = "ctdocument.data"

    private var fileWrapper: FileWrapper?
    private var decodedMetadata: CTMetadata?
    private var decodedData: CTData?
    /// The last error reported to `handleError`, shown by the tool.
    private(set) var lastError: Error?

    /// The metadata, decoded from its entry on first access (a new document's is empty).
    func metadata() throws -> CTMetadata {
        if let decodedMetadata { return decodedMetadata }
        let metadata =
            fileWrapper == nil
            ? CTMetadata() : try decodeObject(CTMetadata.self, archivedAs: "CTMetadata", fromWrapperWithPreferredFilename: Self.metadataFilename)
        decodedMetadata = metadata
        return metadata
    }

    /// The data, decoded from its entry on first access (a new document's is empty).
    func data() throws -> CTData {
        if let decodedData { return decodedData }
        let data =
            fileWrapper == nil ? CTData() : try decodeObject(CTData.self, archivedAs: "CTData", fromWrapperWithPreferredFilename: Self.dataFilename)
        decodedData = data
        return data
    }

    /// The name shown for the document: the metadata's, else the file name without extension.
    func displayName() throws -> String {
        try metadata().displayName ?? fileURL.deletingPathExtension().lastPathComponent
    }

    /// Sets the display name in both objects, as the app's setter does; a
    /// name already stored changes nothing (no save for a non-change).
    func setDisplayName(_ name: String) throws {
        let metadata = try metadata(), data = try data()
        guard metadata.displayName != name || data.displayName != name else { return }
        metadata.displayName = name
        data.displayName = name
        updateChangeCount(.done)
    }

    override func contents(forType typeName: String) throws -> Any {
        var wrappers: [String: FileWrapper] = [:]
        try encodeObject(try metadata(), archivedAs: "CTMetadata", toWrappers: &wrappers, preferredFilename: Self.metadataFilename)
        try encodeObject(try data(), archivedAs: "CTData", toWrappers: &wrappers, preferredFilename: Self.dataFilename)
        return FileWrapper(directoryWithFileWrappers: wrappers)
    }

    override func load(fromContents contents: Any, ofType typeName: String?) throws {
        fileWrapper = contents as? FileWrapper
        decodedMetadata = nil
        decodedData = nil
    }

    override func handleError(_ error: Error, userInteractionPermitted: Bool) {
        lastError = error
        super.handleError(error, userInteractionPermitted: userInteractionPermitted)
    }

    private func encodeObject(
        _ object: NSObject & NSSecureCoding, archivedAs className: String, toWrappers wrappers: inout [String: FileWrapper],
        preferredFilename: String
    ) throws {
        let wrapper = FileWrapper(regularFileWithContents: try CTDocumentFiles.archive(object, archivedAs: className))
        wrapper.preferredFilename = preferredFilename
        wrappers[preferredFilename] = wrapper
    }

    private func decodeObject<T: NSObject & NSSecureCoding>(
        _ type: T.Type, archivedAs className: String, fromWrapperWithPreferredFilename preferredFilename: String
    ) throws -> T {
        guard let wrapper = fileWrapper?.fileWrappers?[preferredFilename], let bytes = wrapper.regularFileContents else {
            throw CTDocumentError.noObject(entry: preferredFilename)
        }
        do {
            let unarchiver = try NSKeyedUnarchiver(forReadingFrom: bytes)
            unarchiver.setClass(type, forClassName: className)
            defer { unarchiver.finishDecoding() }
            guard let object = unarchiver.decodeObject(of: type, forKey: CTDocumentFiles.rootKey) else {
                throw unarchiver.error ?? CTDocumentError.noObject(entry: preferredFilename)
            }
            return object
        } catch let error as CTDocumentError {
            throw error
        } catch {
            throw CTEntryError(entry: preferredFilename, underlying: error)
        }
    }
}

/// An entry whose archive cannot be read, with the unarchiver's error (which says at which byte).
struct CTEntryError: Error, CustomStringConvertible {
    let entry: String
    let underlying: Error

    var description: String { "\(entry): not a readable keyed archive: \(underlying)" }
}
