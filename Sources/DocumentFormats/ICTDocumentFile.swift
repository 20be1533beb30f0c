import KeyedArchive
import PackageFormat
import SystemPackage
import SystemSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An `.ict` document: a package holding `ctdocument.metadata` (`CTMetadata`)
/// and `ctdocument.data` (`CTData`), read lazily and edited with metadata
/// kept in step with the data.
///
/// Opening reads only the package's listing. `metadata()` reads and decodes
/// the metadata entry on first call; `data()` (and every setter) reads and
/// decodes the data entry on first call. `statistics` counts both, so the
/// laziness can be checked. Entries this type does not know are kept on
/// save, and so are keys of `CTData` and `CTMetadata` it does not know (a
/// newer app's), with their values as stored (`unknownFields`).
public final class ICTDocumentFile {
    /// What has been read from disk so far.
    public struct Statistics: Hashable, Sendable {
        /// Bytes of entries read.
        public var bytesRead = 0
        /// The entries decoded, in order.
        public var entriesDecoded: [String] = []
    }

    /// Where the document was opened from or last saved to; nil for a new one.
    package var pathString: String? { document.pathString }
    /// What has been read from disk so far.
    public var statistics: Statistics { document.statistics }
    /// The limits on the images read.
    public let imageLimits: ImageLimits
    /// True when an edit has not been saved.
    public var hasUnsavedChanges: Bool { document.hasUnsavedChanges }

    /// The package, its objects and where it is: the skeleton shared with `PTKDocumentFile`.
    private var document: ArchivedPackageDocument<CTMetadata, CTData>

    /// A new, empty document (version 1, no fields), not yet on disk.
    public init(imageLimits: ImageLimits = .default) {
        document = ArchivedPackageDocument(.ict, metadata: CTMetadata(), data: CTData())
        self.imageLimits = imageLimits
    }

    /// Opens the document at `path`, reading only its listing (names and sizes).
    ///
    /// - Throws: `ICTDocumentError` `.package` when `path` is not a readable
    ///   package directory.
    package init(contentsOf path: String, imageLimits: ImageLimits = .default) throws(ICTDocumentError) {
        document = try ArchivedPackageDocument(.ict, contentsOf: path)
        self.imageLimits = imageLimits
    }

    /// Opens a document from a package already read (lazily), such as a
    /// version of it that is not on disk as a package of its own, at `path`. Reads nothing.
    package init(package: PackageWrapper, pathString path: String?, imageLimits: ImageLimits = .default) {
        document = ArchivedPackageDocument(.ict, package: package, pathString: path)
        self.imageLimits = imageLimits
    }

    /// The names and sizes of the package's entries, from the listing (reads nothing).
    public var entrySizes: [(name: String, size: Int64?)] { document.entrySizes }

    // MARK: Reading

    /// The metadata, read and decoded on the first call.
    ///
    /// - Throws: `ICTDocumentError` `.missingEntry`, `.invalidArchive`,
    ///   `.wrongClass`, `.wrongType` or `.unsupportedVersion`, naming the
    ///   entry and key. Costs one read of the metadata entry, once.
    public func metadata() throws(ICTDocumentError) -> CTMetadata { try document.metadata() }

    /// The data, read and decoded on the first call.
    ///
    /// - Throws: as `metadata()`, for `ctdocument.data`. Costs one read of
    ///   the data entry (with the photo), once.
    public func data() throws(ICTDocumentError) -> CTData { try document.data() }

    /// The name to show: the metadata's display name, else the file name
    /// without its extension. Reads only the metadata.
    ///
    /// - Throws: as `metadata()`.
    public func displayName() throws(ICTDocumentError) -> String {
        if let name = try metadata().displayName { return name }
        return pathString.map(Self.fileDisplayName(ofPath:)) ?? ""
    }

    /// The name shown for a document without a display name: the last
    /// component of `path`, without `.ict`.
    package static func fileDisplayName(ofPath path: String) -> String {
        let fileName = PathName.split(path).name
        return fileName.hasSuffix(".\(ICTDocumentFormat.packageExtension)") ? String(fileName.dropLast(4)) : fileName
    }

    // MARK: Editing

    /// Sets the display name in both the data and the metadata.
    ///
    /// - Returns: false, changing nothing, when both already hold `name`.
    /// - Throws: what `data()` and `metadata()` throw; nothing is changed then.
    @discardableResult
    public func setDisplayName(_ name: String?) throws(ICTDocumentError) -> Bool {
        var data = try data()
        var metadata = try metadata()
        guard data.displayName != name || metadata.displayName != name else { return false }
        data.displayName = name
        metadata.displayName = name
        store(data)
        store(metadata)
        return true
    }

    /// Sets the first name.
    ///
    /// - Returns: false, changing nothing, when it is already `name`.
    /// - Throws: what `data()` throws.
    @discardableResult
    public func setFirstName(_ name: String?) throws(ICTDocumentError) -> Bool {
        try editData { $0.firstName = name }
    }

    /// Sets the last name.
    ///
    /// - Returns: false, changing nothing, when it is already `name`.
    /// - Throws: what `data()` throws.
    @discardableResult
    public func setLastName(_ name: String?) throws(ICTDocumentError) -> Bool {
        try editData { $0.lastName = name }
    }

    /// Sets the favourite number, stored as a 32-bit real; a number equal to
    /// the stored one as a 32-bit real is no change.
    ///
    /// - Returns: false, changing nothing, when it is already `number`.
    /// - Throws: `ICTDocumentError` with code `.unwritableValue` at
    ///   `FAVORITE_NUMBER`, changing nothing, when `number` is not finite
    ///   as a 32-bit real (NaN, infinite, or beyond ±3.4028235e+38);
    ///   what `data()` throws.
    @discardableResult
    public func setFavoriteNumber(_ number: Double?) throws(ICTDocumentError) -> Bool {
        if let number, !Float(number).isFinite {
            throw ICTDocumentError(
                .unwritableValue, entry: ICTDocumentFormat.dataEntryName, keyPath: ICTDocumentFormat.favoriteNumberKey,
                "the favourite number \(number) is not a finite 32-bit real (at most ±\(Float.greatestFiniteMagnitude))")
        }
        let stored = try data().favoriteNumber
        if stored.map(Float.init) == number.map(Float.init) { return false }
        return try editData { $0.favoriteNumber = number.map { Double(Float($0)) } }
    }

    /// Sets the photo from PNG bytes: stored as given when it fits in
    /// 560 × 560, else resized to fit and re-encoded; the thumbnail is
    /// regenerated (280 × 280). nil removes both.
    ///
    /// - Returns: false, changing nothing, when the stored photo has these bytes.
    /// - Throws: `ICTDocumentError` `.damagedImage` or `.imageTooLarge` for
    ///   the PNG (nothing is changed then); what `data()` and `metadata()` throw.
    ///   Costs decoding and resizing the image.
    @discardableResult
    public func setPhoto(pngBytes: [UInt8]?) throws(ICTDocumentError) -> Bool {
        var data = try data()
        var metadata = try metadata()
        guard data.photo.map([UInt8].init) != pngBytes else { return false }
        if let pngBytes {
            let image = try PNGImage(pngBytes: pngBytes, limits: imageLimits)
            let fitted = image.fitting(within: ICTDocumentFormat.photoSide)
            data.photo = Data(fitted == image ? pngBytes : try fitted.pngBytes())
            metadata.thumbnail = Data(try Self.thumbnail(of: fitted).pngBytes())
        } else {
            data.photo = nil
            metadata.thumbnail = nil
        }
        store(data)
        store(metadata)
        return true
    }

    /// The thumbnail of a photo: resized to exactly 280 × 280.
    public static func thumbnail(of photo: PNGImage, side: Int = ICTDocumentFormat.thumbnailSide) -> PNGImage {
        photo.resized(width: side, height: side)
    }

    private func editData(_ edit: (inout CTData) -> Void) throws(ICTDocumentError) -> Bool {
        var data = try data()
        let before = data
        edit(&data)
        guard data != before else { return false }
        store(data)
        return true
    }

    private func store(_ data: CTData) { document.store(data) }

    private func store(_ metadata: CTMetadata) { document.store(metadata) }

    // MARK: Saving

    /// Saves the document safely (a new package written beside, then swapped
    /// in) where it was opened; `save(to:)` saves it elsewhere. Only the entries
    /// edited are encoded and written, with the keys their objects hold that
    /// this type does not know as they were read (`unknownFields`); the other
    /// entries, and entries this type does not know, are hard-linked or
    /// copied unchanged.
    ///
    /// - Throws: `ICTDocumentError` `.alreadyExists` when a new document
    ///   would replace something at `path`; `.package` when writing fails
    ///   (the old document stays as it was); `.invalidArchive` when an
    ///   object cannot be encoded.
    public func save() throws(ICTDocumentError) { try document.save(to: nil) }

    /// `save(to:)` with the destination as text (a byte that is not UTF-8 as
    /// U+10FF00 + byte), for the kit's own callers.
    package func save(to destination: String?) throws(ICTDocumentError) { try document.save(to: destination) }
}

/// The name of ``ICTDocumentFile`` before 1.0.
///
/// A type named as a module breaks qualification: the deprecated module
/// `ICTDocument` (this module's name before 0.13) shares this alias's name, so
/// `ICTDocument.ICTDocument` does not compile where another module declares an
/// `ICTDocument`. So long as the two exist, that remains so.
@available(*, deprecated, renamed: "ICTDocumentFile")
public typealias ICTDocument = ICTDocumentFile
