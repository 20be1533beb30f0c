import KeyedArchive
import PackageFormat
import SystemPackage
import SystemSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The entry names, archive keys and class names of the photo app's `.ptk`
/// package (the format reference's section 9), spelled as the app's
/// published source (`PTKDocument.m`, `PTKData.m`, `PTKMetadata.m` of
/// raywenderlich's PhotoKeeper) spells them.
public enum PTKDocumentFormat {
    /// The entry holding `PTKData`.
    public static let dataEntryName = "photo.data"
    /// The entry holding `PTKMetadata`.
    public static let metadataEntryName = "photo.metadata"
    /// The `$top` key both entries store their object under.
    public static let topKey = "data"
    /// The only `Version` both objects have had (`encodeInt:1`).
    public static let version = 1
    /// The key of the version, in both objects.
    public static let versionKey = "Version"
    /// `PTKMetadata`'s thumbnail: PNG bytes.
    public static let thumbnailKey = "Thumbnail"
    /// `PTKData`'s photo: PNG bytes.
    public static let photoKey = "Photo"
    /// The side of the square thumbnail the app makes, in pixels.
    public static let thumbnailSide = 145
    /// The package extension.
    public static let packageExtension = "ptk"
}

/// The metadata of a `.ptk` document (`PTKMetadata`): its thumbnail.
public struct PTKMetadata: Hashable, Sendable, KeyedArchiveCodable {
    /// `Version`; 1 for every document the app wrote.
    public var version: Int
    /// `Thumbnail`: PNG bytes, nil when absent or `$null`.
    public var thumbnail: Data?
    /// The keys this type does not know, with their values as stored:
    /// written back unchanged when the metadata is encoded.
    public var unknownFields: PreservedArchiveFields

    /// Makes metadata; a new document's is version 1 without a thumbnail.
    public init(version: Int = PTKDocumentFormat.version, thumbnail: Data? = nil) {
        self.version = version
        self.thumbnail = thumbnail
        unknownFields = PreservedArchiveFields()
    }

    /// The keys this type reads and writes; any other is kept in `unknownFields`.
    public static let knownKeys: Set<String> = [PTKDocumentFormat.versionKey, PTKDocumentFormat.thumbnailKey]

    /// `PTKMetadata` only.
    public static let archivedClassNames: Set<String> = ["PTKMetadata"]
    /// `PTKMetadata` → `NSObject`.
    public var archivedClassChain: [String] { ["PTKMetadata", "NSObject"] }

    /// Reads the fields, and keeps every other key as stored in
    /// `unknownFields`; the version is checked by the document, which can
    /// name the entry.
    ///
    /// - Throws: `KeyedArchiveError` for a field of the wrong type, or a
    ///   reference past the archive's objects.
    public init(from decoder: inout KeyedArchiveDecoder) throws(KeyedArchiveError) {
        version = try decoder.decodeInt(forKey: PTKDocumentFormat.versionKey)
        thumbnail = try decoder.decodeObject(of: Data.self, forKey: PTKDocumentFormat.thumbnailKey)
        unknownFields = try decoder.preservedFields(excludingKeys: Self.knownKeys)
    }

    /// Writes the fields in the app's order, a missing thumbnail as `$null`;
    /// then the unknown keys as they were read.
    public func encode(to encoder: inout KeyedArchiveEncoder) throws(KeyedArchiveError) {
        encoder.encode(version, forKey: PTKDocumentFormat.versionKey)
        try encoder.encode(thumbnail, forKey: PTKDocumentFormat.thumbnailKey)
        encoder.encode(unknownFields)
    }
}

/// The data of a `.ptk` document (`PTKData`): its photo.
public struct PTKData: Hashable, Sendable, KeyedArchiveCodable {
    /// `Version`; 1 for every document the app wrote.
    public var version: Int
    /// `Photo`: PNG bytes, nil when absent or `$null`.
    public var photo: Data?
    /// The keys this type does not know, with their values as stored:
    /// written back unchanged when the data is encoded.
    public var unknownFields: PreservedArchiveFields

    /// Makes data; a new document's is version 1 without a photo.
    public init(version: Int = PTKDocumentFormat.version, photo: Data? = nil) {
        self.version = version
        self.photo = photo
        unknownFields = PreservedArchiveFields()
    }

    /// The keys this type reads and writes; any other is kept in `unknownFields`.
    public static let knownKeys: Set<String> = [PTKDocumentFormat.versionKey, PTKDocumentFormat.photoKey]

    /// `PTKData` only.
    public static let archivedClassNames: Set<String> = ["PTKData"]
    /// `PTKData` → `NSObject`.
    public var archivedClassChain: [String] { ["PTKData", "NSObject"] }

    /// Reads the fields, and keeps every other key as stored in
    /// `unknownFields`; the version is checked by the document, which can
    /// name the entry.
    ///
    /// - Throws: `KeyedArchiveError` for a field of the wrong type, or a
    ///   reference past the archive's objects.
    public init(from decoder: inout KeyedArchiveDecoder) throws(KeyedArchiveError) {
        version = try decoder.decodeInt(forKey: PTKDocumentFormat.versionKey)
        photo = try decoder.decodeObject(of: Data.self, forKey: PTKDocumentFormat.photoKey)
        unknownFields = try decoder.preservedFields(excludingKeys: Self.knownKeys)
    }

    /// Writes the fields in the app's order, a missing photo as `$null`;
    /// then the unknown keys as they were read.
    public func encode(to encoder: inout KeyedArchiveEncoder) throws(KeyedArchiveError) {
        encoder.encode(version, forKey: PTKDocumentFormat.versionKey)
        try encoder.encode(photo, forKey: PTKDocumentFormat.photoKey)
        encoder.encode(unknownFields)
    }
}

/// A `.ptk` document: a package holding `photo.metadata` (`PTKMetadata`)
/// and `photo.data` (`PTKData`), read lazily as `ICTDocumentFile` reads an
/// `.ict` (the same entry reading, errors naming the entry and key).
///
/// Opening reads only the package's listing; `metadata()` and `data()` each
/// read and decode their entry on first call. Entries this type does not
/// know are kept on save.
public final class PTKDocumentFile {
    /// Where the document was opened from or last saved to; nil for a new one.
    package var pathString: String? { document.pathString }
    /// What has been read from disk so far.
    public var statistics: ICTDocumentFile.Statistics { document.statistics }
    /// The limits on the images read.
    public let imageLimits: ImageLimits

    /// The package, its objects and where it is: the skeleton shared with `ICTDocumentFile`.
    private var document: ArchivedPackageDocument<PTKMetadata, PTKData>

    /// A new document without a photo, not yet on disk.
    public init(imageLimits: ImageLimits = .default) {
        document = ArchivedPackageDocument(.ptk, metadata: PTKMetadata(), data: PTKData())
        self.imageLimits = imageLimits
    }

    /// Opens the document at `path`, reading only its listing.
    ///
    /// - Throws: `ICTDocumentError` `.package` when `path` is not a readable package directory.
    package init(contentsOf path: String, imageLimits: ImageLimits = .default) throws(ICTDocumentError) {
        document = try ArchivedPackageDocument(.ptk, contentsOf: path)
        self.imageLimits = imageLimits
    }

    /// The names and sizes of the package's entries, from the listing (reads nothing).
    public var entrySizes: [(name: String, size: Int64?)] { document.entrySizes }

    /// The metadata, read and decoded on the first call.
    ///
    /// - Throws: `ICTDocumentError` `.missingEntry`, `.invalidArchive`,
    ///   `.wrongClass`, `.wrongType` or `.unsupportedVersion`, naming
    ///   `photo.metadata` and the key. Costs one read of the entry, once.
    public func metadata() throws(ICTDocumentError) -> PTKMetadata { try document.metadata() }

    /// The data, read and decoded on the first call.
    ///
    /// - Throws: as `metadata()`, for `photo.data`. Costs one read of the
    ///   entry (with the photo), once.
    public func data() throws(ICTDocumentError) -> PTKData { try document.data() }

    /// The name the app shows: the file name without `.ptk` (`PTKDocument`'s
    /// `description`); empty for a new document.
    public var displayName: String {
        pathString.map { DocumentKind.ptk.fileDisplayName(ofPath: $0) } ?? ""
    }

    /// Sets the photo from PNG bytes, stored as given, and makes the
    /// thumbnail as the app makes it: the photo's centred square scaled to
    /// 145 × 145. nil removes both.
    ///
    /// - Returns: false, changing nothing, when the stored photo has these bytes.
    /// - Throws: `ICTDocumentError` `.damagedImage` or `.imageTooLarge` for
    ///   the PNG (nothing is changed then); what `data()` and `metadata()`
    ///   throw. Costs decoding and resizing the image.
    @discardableResult
    public func setPhoto(pngBytes: [UInt8]?) throws(ICTDocumentError) -> Bool {
        var data = try data()
        var metadata = try metadata()
        guard data.photo.map([UInt8].init) != pngBytes else { return false }
        if let pngBytes {
            let image = try PNGImage(pngBytes: pngBytes, limits: imageLimits)
            metadata.thumbnail = Data(try image.croppedToSquare(side: PTKDocumentFormat.thumbnailSide).pngBytes())
            data.photo = Data(pngBytes)
        } else {
            data.photo = nil
            metadata.thumbnail = nil
        }
        document.store(data)
        document.store(metadata)
        return true
    }

    /// Saves the document safely (a new package written beside, then
    /// swapped in) where it was opened; `save(to:)` saves it elsewhere. Both
    /// entries are written when edited, with the keys their objects hold
    /// that this type does not know as they were read (`unknownFields`);
    /// entries this type does not know are kept.
    ///
    /// - Throws: `ICTDocumentError` `.alreadyExists` when a new document
    ///   would replace something at the destination; `.package` when writing
    ///   fails (the old document stays as it was).
    public func save() throws(ICTDocumentError) { try document.save(to: nil) }

    /// Saves the document safely to `filePath`, a name that is not UTF-8
    /// byte for byte, as `save()` saves it in place.
    ///
    /// - Throws: `ICTDocumentError` as `save()`.
    public func save(to filePath: FilePath) throws(ICTDocumentError) { try document.save(to: RawFileName.text(filePath)) }

    /// `save(to:)` with the destination as text (a byte that is not UTF-8 as
    /// U+10FF00 + byte), for the kit's own callers.
    package func save(to destination: String?) throws(ICTDocumentError) { try document.save(to: destination) }

    /// The document as the JSON form of `.ict` documents, with only its
    /// `version`, `photo` and `thumbnail` (`Schemas/ict-document.json-form.schema.json`):
    /// images embedded when `imageFileBase` is nil, else named
    /// `BASE.photo.png` and `BASE.thumbnail.png`, their bytes returned to be
    /// written there.
    ///
    /// - Throws: what `data()` and `metadata()` throw. Reads and decodes both entries.
    public func jsonForm(imageFileBase: String?) throws(ICTDocumentError)
        -> (form: ICTDocumentJSONForm, imageFiles: [(name: String, contents: [UInt8])])
    {
        let data = try data()
        let metadata = try metadata()
        var form = ICTDocumentJSONForm(version: data.version)
        let images = ICTDocumentJSONForm.images(photo: data.photo, thumbnail: metadata.thumbnail, imageFileBase: imageFileBase)
        (form.photo, form.thumbnail) = (images.photo, images.thumbnail)
        return (form, images.files)
    }
}
