import KeyedArchive
import PackageFormat
import PropertyList

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The archive keys, class names and entry names of the `.ict` format
/// (docs/ict-format.md sections 1–3), spelled exactly as the original app
/// spells them.
public enum ICTDocumentFormat {
    /// The entry holding `CTData`.
    public static let dataEntryName = "ctdocument.data"
    /// The entry holding `CTMetadata`.
    public static let metadataEntryName = "ctdocument.metadata"
    /// The `$top` key both entries store their object under.
    public static let topKey = "DATA"
    /// The only `VERSION` both objects have had.
    public static let version = 1
    /// The side of the square thumbnail, in pixels.
    public static let thumbnailSide = 280
    /// The largest side of a stored photo, in pixels.
    public static let photoSide = 560
    /// The package extension.
    public static let packageExtension = "ict"

    /// Keys shared by both objects and of `CTMetadata`.
    public static let versionKey = "VERSION"
    public static let thumbnailKey = "THUMBNAIL"
    /// The metadata's display-name key, with a space.
    public static let metadataDisplayNameKey = "DISPLAY NAME"
    /// Keys of `CTData`.
    public static let firstNameKey = "FIRST_NAME"
    public static let lastNameKey = "LAST_NAME"
    /// The data's display-name key, with an underscore.
    public static let dataDisplayNameKey = "DISPLAY_NAME"
    public static let favoriteNumberKey = "FAVORITE_NUMBER"
    public static let photoKey = "PHOTO"

    /// Why a package's `entry` cannot be read as a document entry: it is
    /// missing, or a link or folder (entries are regular files, and links are
    /// never followed out of a package); nil when it is a regular file.
    static func entryProblem(_ wrapper: PackageWrapper?) -> String? {
        guard let wrapper else { return "the entry is missing" }
        switch wrapper.kind {
        case .regularFile: return nil
        case .directory: return "the entry is a folder, not a file"
        case .symbolicLink:
            return "the entry is a symbolic link (to \(wrapper.symbolicLinkDestinationText ?? "?")), not a file; links in a document are not followed"
        }
    }

}

/// The name of ``ICTDocumentFormat`` before 1.0, when "ICT" also meant
/// "ICTKit's" (`ArchiveCoder`, `ArchivedNumber`).
@available(*, deprecated, renamed: "ICTDocumentFormat")
public typealias ICTFormat = ICTDocumentFormat

/// The lightweight metadata of a document (`CTMetadata`): what a list of
/// documents shows without reading the data.
public struct CTMetadata: Hashable, Sendable, KeyedArchiveCodable {
    /// `VERSION`; 1 for every document this project knows.
    public var version: Int
    /// `THUMBNAIL`: PNG bytes, nil when absent or `$null`.
    public var thumbnail: Data?
    /// `DISPLAY NAME`, nil when absent or `$null`.
    public var displayName: String?
    /// The keys this type does not know (a newer app's), with their values
    /// as stored: written back unchanged when the metadata is encoded, so an
    /// edit keeps them.
    public var unknownFields: PreservedArchiveFields

    /// Makes metadata; a new document's is version 1 and empty.
    public init(version: Int = ICTDocumentFormat.version, thumbnail: Data? = nil, displayName: String? = nil) {
        self.version = version
        self.thumbnail = thumbnail
        self.displayName = displayName
        unknownFields = PreservedArchiveFields()
    }

    /// The keys this type reads and writes; any other is kept in `unknownFields`.
    public static let knownKeys: Set<String> = [
        ICTDocumentFormat.versionKey, ICTDocumentFormat.thumbnailKey, ICTDocumentFormat.metadataDisplayNameKey,
    ]

    /// `CTMetadata` only.
    public static let archivedClassNames: Set<String> = ["CTMetadata"]
    /// `CTMetadata` → `NSObject`.
    public var archivedClassChain: [String] { ["CTMetadata", "NSObject"] }

    /// Reads the fields, and keeps every other key as stored in
    /// `unknownFields`; the version is checked by the document, which can
    /// name the entry.
    ///
    /// - Throws: `KeyedArchiveError` for a field of the wrong type, or a
    ///   reference past the archive's objects.
    public init(from decoder: inout KeyedArchiveDecoder) throws(KeyedArchiveError) {
        version = try decoder.decodeInt(forKey: ICTDocumentFormat.versionKey)
        thumbnail = try decoder.decodeObject(of: Data.self, forKey: ICTDocumentFormat.thumbnailKey)
        displayName = try decoder.decodeObject(of: String.self, forKey: ICTDocumentFormat.metadataDisplayNameKey)
        unknownFields = try decoder.preservedFields(excludingKeys: Self.knownKeys)
    }

    /// Writes the fields in the original app's order, nil fields as `$null`,
    /// then the unknown keys as they were read.
    public func encode(to encoder: inout KeyedArchiveEncoder) throws(KeyedArchiveError) {
        encoder.encode(version, forKey: ICTDocumentFormat.versionKey)
        try encoder.encode(thumbnail, forKey: ICTDocumentFormat.thumbnailKey)
        try encoder.encode(displayName, forKey: ICTDocumentFormat.metadataDisplayNameKey)
        encoder.encode(unknownFields)
    }
}

/// The data of a document (`CTData`): the person and their photo.
public struct CTData: Hashable, Sendable, KeyedArchiveCodable {
    /// `VERSION`; 1 for every document this project knows.
    public var version: Int
    /// `FIRST_NAME`.
    public var firstName: String?
    /// `LAST_NAME`.
    public var lastName: String?
    /// `DISPLAY_NAME`.
    public var displayName: String?
    /// `FAVORITE_NUMBER`: any integer or real when read; written as a 32-bit real.
    public var favoriteNumber: Double?
    /// `PHOTO`: PNG bytes.
    public var photo: Data?
    /// The keys this type does not know (a newer app's), with their values
    /// as stored: written back unchanged when the data is encoded, so an
    /// edit keeps them.
    public var unknownFields: PreservedArchiveFields

    /// Makes data; a new document's is version 1 and empty.
    public init(
        version: Int = ICTDocumentFormat.version, firstName: String? = nil, lastName: String? = nil,
        displayName: String? = nil, favoriteNumber: Double? = nil, photo: Data? = nil
    ) {
        self.version = version
        self.firstName = firstName
        self.lastName = lastName
        self.displayName = displayName
        self.favoriteNumber = favoriteNumber
        self.photo = photo
        unknownFields = PreservedArchiveFields()
    }

    /// The keys this type reads and writes; any other is kept in `unknownFields`.
    public static let knownKeys: Set<String> = [
        ICTDocumentFormat.versionKey, ICTDocumentFormat.firstNameKey, ICTDocumentFormat.lastNameKey,
        ICTDocumentFormat.dataDisplayNameKey, ICTDocumentFormat.favoriteNumberKey, ICTDocumentFormat.photoKey,
    ]

    /// `CTData` only.
    public static let archivedClassNames: Set<String> = ["CTData"]
    /// `CTData` → `NSObject`.
    public var archivedClassChain: [String] { ["CTData", "NSObject"] }

    /// Reads the fields, and keeps every other key as stored in
    /// `unknownFields`; the version is checked by the document, which can
    /// name the entry.
    ///
    /// - Throws: `KeyedArchiveError` for a field of the wrong type, or a
    ///   reference past the archive's objects.
    public init(from decoder: inout KeyedArchiveDecoder) throws(KeyedArchiveError) {
        version = try decoder.decodeInt(forKey: ICTDocumentFormat.versionKey)
        firstName = try decoder.decodeObject(of: String.self, forKey: ICTDocumentFormat.firstNameKey)
        lastName = try decoder.decodeObject(of: String.self, forKey: ICTDocumentFormat.lastNameKey)
        displayName = try decoder.decodeObject(of: String.self, forKey: ICTDocumentFormat.dataDisplayNameKey)
        favoriteNumber = try decoder.decodeObject(of: ArchivedNumber.self, forKey: ICTDocumentFormat.favoriteNumberKey)?.value
        photo = try decoder.decodeObject(of: Data.self, forKey: ICTDocumentFormat.photoKey)
        unknownFields = try decoder.preservedFields(excludingKeys: Self.knownKeys)
    }

    /// Writes the fields in the original app's order; nil fields as `$null`,
    /// the favourite number as a 32-bit real (`numberWithFloat:`); then the
    /// unknown keys as they were read.
    public func encode(to encoder: inout KeyedArchiveEncoder) throws(KeyedArchiveError) {
        encoder.encode(version, forKey: ICTDocumentFormat.versionKey)
        try encoder.encode(firstName, forKey: ICTDocumentFormat.firstNameKey)
        try encoder.encode(lastName, forKey: ICTDocumentFormat.lastNameKey)
        try encoder.encode(displayName, forKey: ICTDocumentFormat.dataDisplayNameKey)
        try encoder.encode(favoriteNumber.map { ArchivedNumber(value: Double(Float($0))) }, forKey: ICTDocumentFormat.favoriteNumberKey)
        try encoder.encode(photo, forKey: ICTDocumentFormat.photoKey)
        encoder.encode(unknownFields)
    }
}

/// An `NSNumber`: any integer, real or boolean read, a 32-bit real written.
struct ArchivedNumber: KeyedArchiveCodable {
    var value: Double

    init(value: Double) { self.value = value }

    static let archivedClassNames: Set<String> = ["NSNumber"]
    var archivedClassChain: [String] { ["NSNumber", "NSValue", "NSObject"] }

    init(from decoder: inout KeyedArchiveDecoder) throws(KeyedArchiveError) {
        switch decoder.storedValue {
        case .integer(let integer)?: value = integer.int64Value.map(Double.init) ?? Double(integer.bitPattern)
        case .real(let real)?: value = real
        case .real32(let real)?: value = Double(real)
        case .bool(let flag)?: value = flag ? 1 : 0
        default: throw decoder.error(.invalidObject, forKey: nil, "\(decoder.className) holds no number")
        }
    }

    func encode(to encoder: inout KeyedArchiveEncoder) throws(KeyedArchiveError) {
        encoder.encodeStoredValue(.real32(Float(value)))
    }
}
