import KeyedArchive
import PropertyList

import SystemSupport

/// What a list of documents shows about one document: its display name and
/// its thumbnail's size, read from the metadata entry alone — and from only
/// the parts of it that hold them, not the thumbnail's pixels unless asked
/// for (a contact sheet shows them).
public struct ICTDocumentSummary: Hashable, Sendable {
    /// A width and a height in pixels.
    public struct PixelSize: Hashable, Sendable {
        public var width: Int
        public var height: Int

        /// Makes a size.
        public init(width: Int, height: Int) {
            self.width = width
            self.height = height
        }
    }

    /// The name to show: the metadata's `DISPLAY NAME`, else the package's
    /// file name without `.ict` (as `ICTDocumentFile.displayName()`).
    public var displayName: String
    /// The thumbnail's size in bytes; nil when the metadata has none.
    public var thumbnailByteCount: Int?
    /// The thumbnail's size in pixels, from its PNG header; nil when the metadata has none.
    public var thumbnailSize: PixelSize?
    /// The thumbnail's PNG bytes, when read with `readingThumbnailUpTo:` and
    /// not over that limit; nil otherwise (and when the metadata has none).
    /// Only the PNG header of these bytes has been checked.
    public var thumbnailPNG: [UInt8]?
    /// The bytes read from the metadata entry to make this summary.
    public var bytesRead: Int

    /// Reads the summary of the document at `path` (relative to the
    /// directory open as `directory`, by default the working directory).
    ///
    /// Reads only the metadata entry, and of it the trailer, the small
    /// objects (keys, class, name) and the thumbnail's first bytes — usually
    /// two 4 KB reads, whatever the thumbnail's size. Checks what it reads
    /// as `ICTDocumentFile.metadata()` does: the archive's top level, the class
    /// `CTMetadata`, `VERSION` 1 and the fields' types; the thumbnail's PNG
    /// header but not its pixels (`ict validate` checks those). The entry is
    /// opened without following a symbolic link.
    ///
    /// With `thumbnailByteLimit`, also reads the thumbnail's bytes into
    /// `thumbnailPNG` when there are at most that many of them (a larger
    /// thumbnail is left unread: `thumbnailByteCount` says how large it is).
    /// That reads the thumbnail whole — usually 60 to 130 KB more — but still
    /// nothing of the data entry.
    ///
    /// - Throws: `ICTDocumentError` `.package` when `path` is not a package
    ///   directory, `.missingEntry` when it has no metadata entry,
    ///   `.invalidArchive`, `.wrongClass`, `.unsupportedVersion`, `.wrongType`
    ///   or `.damagedImage` naming `ctdocument.metadata` and the key.
    package init(ofDocumentAt path: String, readingThumbnailUpTo thumbnailByteLimit: Int? = nil) throws(ICTDocumentError) {
        try self.init(ofDocumentAt: path, relativeTo: nil, readingThumbnailUpTo: thumbnailByteLimit)
    }

    /// `init(ofDocumentAt:readingThumbnailUpTo:)` with `path` relative to the
    /// directory open as `directory` (the working directory when it is nil).
    package init(
        ofDocumentAt path: String, relativeTo directory: Int32?, readingThumbnailUpTo thumbnailByteLimit: Int? = nil
    ) throws(ICTDocumentError) {
        let entry = ICTDocumentFormat.metadataEntryName
        let propertyList: PartialBinaryPropertyList
        do {
            propertyList = try PartialBinaryPropertyList(path: "\(path)/\(entry)", relativeTo: directory, followingSymbolicLinks: false)
        } catch  where error.code == .io {
            throw Self.openingError(path, relativeTo: directory ?? CurrentDirectory.descriptor, error)
        } catch {
            throw ICTDocumentError(.invalidArchive, entry: entry, "not a readable keyed archive: \(error)")
        }
        let archive = try Self.reading { () throws(KeyedArchiveError) in try PartialKeyedArchive(propertyList: propertyList) }
        let fields = try Self.readFields(of: archive)
        displayName = fields.name ?? ICTDocumentFile.fileDisplayName(ofPath: path)
        if let thumbnail = fields.thumbnail {
            thumbnailByteCount = thumbnail.count
            do {
                let header = try propertyList.bytes(at: thumbnail.offset, count: min(thumbnail.count, PNGImage.headerByteCount))
                let size = try PNGImage.size(ofPNGHeader: header)
                thumbnailSize = PixelSize(width: size.width, height: size.height)
                if let thumbnailByteLimit, thumbnail.count <= thumbnailByteLimit {
                    thumbnailPNG = try propertyList.bytes(at: thumbnail.offset, count: thumbnail.count)
                }
            } catch let error as ICTDocumentError {
                throw ICTDocumentError(error.code, entry: entry, keyPath: Self.keyPath(ICTDocumentFormat.thumbnailKey), error.message)
            } catch {
                throw ICTDocumentError(.invalidArchive, entry: entry, keyPath: Self.keyPath(ICTDocumentFormat.thumbnailKey), "\(error)")
            }
        }
        bytesRead = propertyList.bytesRead
    }

    /// The root object's display name and where the thumbnail's bytes lie, with its class, version and field types checked.
    private static func readFields(of archive: PartialKeyedArchive) throws(ICTDocumentError) -> (name: String?, thumbnail: (offset: Int, count: Int)?) {
        let entry = ICTDocumentFormat.metadataEntryName
        guard let rootIndex = try reading({ () throws(KeyedArchiveError) in try archive.topObjectIndex(forKey: ICTDocumentFormat.topKey) }) else {
            throw ICTDocumentError(.wrongClass, entry: entry, keyPath: ICTDocumentFormat.topKey, "the root object is $null")
        }
        let root = try reading { () throws(KeyedArchiveError) in try archive.instance(at: rootIndex) }
        let rootClass = try reading { () throws(KeyedArchiveError) in try archive.className(of: root) }
        guard CTMetadata.archivedClassNames.contains(rootClass.name) else {
            throw ICTDocumentError(
                .wrongClass, entry: entry, keyPath: "$top.\(ICTDocumentFormat.topKey)",
                "class \(rootClass.name) is not allowed here (expected CTMetadata)")
        }
        func field(_ key: String) throws(ICTDocumentError) -> PartialKeyedArchive.Field? {
            try reading { () throws(KeyedArchiveError) in try archive.field(key, of: root) }
        }
        let version: Int? =
            switch try field(ICTDocumentFormat.versionKey) {
            case .inline(.integer(let integer))?, .reference(_, .integer(let integer))?: integer.int64Value.map { Int(clamping: $0) }
            case nil: 0
            default: nil
            }
        guard let version else { throw wrongType(ICTDocumentFormat.versionKey, "VERSION is not an integer") }
        guard version == ICTDocumentFormat.version else {
            throw ICTDocumentError(
                .unsupportedVersion, entry: entry, keyPath: keyPath(ICTDocumentFormat.versionKey),
                "unsupported VERSION \(version) (this version of ICTKit reads \(ICTDocumentFormat.version))")
        }
        var name: String?
        switch try field(ICTDocumentFormat.metadataDisplayNameKey) {
        case .reference(_, .string(let text))?: name = text
        case .null?, nil: name = nil
        default: throw wrongType(ICTDocumentFormat.metadataDisplayNameKey, "DISPLAY NAME is not a string")
        }
        var thumbnail: (offset: Int, count: Int)?
        switch try field(ICTDocumentFormat.thumbnailKey) {
        case .reference(_, .data(let offset, let count))?: thumbnail = (offset, count)
        case .null?, nil: thumbnail = nil
        default: throw wrongType(ICTDocumentFormat.thumbnailKey, "THUMBNAIL is not data")
        }
        return (name, thumbnail)
    }

    /// Runs one step of reading the archive, its error made an `.invalidArchive` of the metadata entry.
    private static func reading<T>(_ step: () throws(KeyedArchiveError) -> T) throws(ICTDocumentError) -> T {
        do {
            return try step()
        } catch {
            throw ICTDocumentError(
                .invalidArchive, entry: ICTDocumentFormat.metadataEntryName, keyPath: error.keyPath.description,
                "not a readable keyed archive: \(error.message)")
        }
    }

    private static func keyPath(_ key: String) -> String { "\(ICTDocumentFormat.topKey).\(key)" }

    private static func wrongType(_ key: String, _ message: String) -> ICTDocumentError {
        ICTDocumentError(.wrongType, entry: ICTDocumentFormat.metadataEntryName, keyPath: keyPath(key), message)
    }

    /// Why the metadata entry of `path` could not be opened: no package
    /// there, no entry in it, or the system's reason.
    private static func openingError(_ path: String, relativeTo directory: Int32, _ error: PropertyListError) -> ICTDocumentError {
        guard (try? FileInfo.of(path, in: directory))?.kind == .directory else {
            return ICTDocumentError(.package, "\(path): not a package directory")
        }
        guard let entry = try? FileInfo.of("\(path)/\(ICTDocumentFormat.metadataEntryName)", in: directory, followingLink: false) else {
            return ICTDocumentError(.missingEntry, entry: ICTDocumentFormat.metadataEntryName, "the entry is missing")
        }
        guard entry.kind == .regular else {
            let what = entry.kind == .symbolicLink ? "a symbolic link" : entry.kind == .directory ? "a folder" : "a special file"
            return ICTDocumentError(
                .missingEntry, entry: ICTDocumentFormat.metadataEntryName,
                "the entry is \(what), not a file; links in a document are not followed")
        }
        return ICTDocumentError(.package, entry: ICTDocumentFormat.metadataEntryName, error.message)
    }
}
