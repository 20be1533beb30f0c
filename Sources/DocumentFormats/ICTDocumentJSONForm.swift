import OrderedCollections
import PropertyList
import SystemPackage
import SystemSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A document's fields as JSON, the form `ict convert DOC.ict --format json`
/// writes and `--format ict` reads back (`Schemas/ict-document.json-form.schema.json`):
///
/// ```json
/// {
///   "version": 1,
///   "firstName": "Ada",
///   "lastName": "Lovelace",
///   "displayName": "Ada",
///   "favoriteNumber": 3.5,
///   "photo": {
///     "file": "Ada.photo.png"
///   },
///   "thumbnail": {"$data": "iVBORw0KGgo…"}
/// }
/// ```
///
/// Absent fields are left out. Each image is either a PNG file named
/// relative to the JSON's folder (or absolute), `{"file": NAME}`, or the PNG
/// bytes in base64, `{"$data": BASE64}`. The JSON is ICTKit's JSON form of
/// property lists (`JSONPropertyListWriter`), so a favourite number that is
/// not finite is `{"$real": "nan"}`. Keys this form does not have are ignored.
public struct ICTDocumentJSONForm: Hashable, Sendable {
    /// Where the PNG bytes of an image are.
    public enum Image: Hashable, Sendable {
        /// In the JSON, base64 under `$data`.
        case embedded([UInt8])
        /// In a file, named relative to the JSON's folder unless it is absolute
        /// (in the JSON, the path as text: a byte that is not UTF-8 as U+10FF00 + byte).
        case file(FilePath)
    }

    /// `version`: the document's `VERSION`.
    public var version: Int
    /// `firstName`: `FIRST_NAME`.
    public var firstName: String?
    /// `lastName`: `LAST_NAME`.
    public var lastName: String?
    /// `displayName`: `DISPLAY_NAME` (and the metadata's `DISPLAY NAME`).
    public var displayName: String?
    /// `favoriteNumber`: `FAVORITE_NUMBER`.
    public var favoriteNumber: Double?
    /// `photo`: the data's `PHOTO`.
    public var photo: Image?
    /// `thumbnail`: the metadata's `THUMBNAIL`; a document made from the form
    /// makes its thumbnail from the photo instead.
    public var thumbnail: Image?

    /// Makes a form from its fields.
    public init(
        version: Int = ICTDocumentFormat.version, firstName: String? = nil, lastName: String? = nil, displayName: String? = nil,
        favoriteNumber: Double? = nil, photo: Image? = nil, thumbnail: Image? = nil
    ) {
        self.version = version
        self.firstName = firstName
        self.lastName = lastName
        self.displayName = displayName
        self.favoriteNumber = favoriteNumber
        self.photo = photo
        self.thumbnail = thumbnail
    }

    /// The name of an image file written beside the JSON: `BASE.photo.png`,
    /// `BASE.thumbnail.png`, `key` being the image's JSON key.
    static func imageFileName(base: String, key: String) -> String {
        "\(base).\(key).png"
    }

    /// A document's photo and thumbnail as the form's images: embedded when
    /// `imageFileBase` is nil, else named `BASE.photo.png` and
    /// `BASE.thumbnail.png`, with the files' bytes to write there.
    static func images(photo: Data?, thumbnail: Data?, imageFileBase: String?)
        -> (photo: Image?, thumbnail: Image?, files: [(name: String, contents: [UInt8])])
    {
        var files: [(name: String, contents: [UInt8])] = []
        func image(_ bytes: Data?, key: String) -> Image? {
            guard let bytes else { return nil }
            guard let imageFileBase else { return .embedded([UInt8](bytes)) }
            let name = imageFileName(base: imageFileBase, key: key)
            files.append((name, [UInt8](bytes)))
            return .file(RawFileName.filePath(name))
        }
        let photoImage = image(photo, key: "photo")
        let thumbnailImage = image(thumbnail, key: "thumbnail")
        return (photoImage, thumbnailImage, files)
    }

    // MARK: Writing

    /// The JSON text, pretty-printed as `JSONPropertyListWriter` prints,
    /// without a final newline.
    public func jsonBytes() -> [UInt8] {
        var value: OrderedDictionary<String, PropertyListValue> = ["version": .integer(PropertyListInteger(Int64(version)))]
        value["firstName"] = firstName.map(PropertyListValue.string)
        value["lastName"] = lastName.map(PropertyListValue.string)
        value["displayName"] = displayName.map(PropertyListValue.string)
        value["favoriteNumber"] = favoriteNumber.map(PropertyListValue.real)
        value["photo"] = photo.map(Self.jsonValue)
        value["thumbnail"] = thumbnail.map(Self.jsonValue)
        do {
            return try JSONPropertyListWriter(prettyPrinted: true).encode(.dictionary(value))
        } catch {
            preconditionFailure("a form of strings, numbers and data always encodes: \(error)")
        }
    }

    private static func jsonValue(_ image: Image) -> PropertyListValue {
        switch image {
        case .embedded(let bytes): .data(Data(bytes))
        case .file(let path): .dictionary(["file": .string(RawFileName.text(path))])
        }
    }

    // MARK: Reading

    /// Reads the form from JSON text, as `PropertyListReader` reads JSON
    /// (`$data` is base64, `$real32` a number, …). Image files are named, not read.
    ///
    /// - Throws: `ICTDocumentError` with the JSON key path (`photo.file`):
    ///   `.invalidJSON` for text that is not that JSON, such as `$data` that
    ///   is not base64 (`propertyListError` says where, by line and column);
    ///   `.missingKey` for a missing `version` or an image object without
    ///   `file`; `.wrongType` for a value of the wrong type;
    ///   `.unsupportedVersion` for a version other than `ICTDocumentFormat.version`.
    public init(jsonBytes bytes: UnsafeRawBufferPointer) throws(ICTDocumentError) {
        let value: PropertyListValue
        do throws(PropertyListError) {
            value = try PropertyListReader().read(bytes, format: .json).value
        } catch {
            throw ICTDocumentError(invalidJSON: error)
        }
        guard case .dictionary(let object) = value else {
            throw ICTDocumentError(.wrongType, "the JSON form is \(Self.jsonKindName(value)), not an object")
        }
        guard let versionValue = object["version"] else {
            throw ICTDocumentError(.missingKey, keyPath: "version", "the JSON form has no version")
        }
        guard case .integer(let versionInteger) = versionValue, let version = versionInteger.int64Value.flatMap(Int.init(exactly:)) else {
            throw Self.wrongType(versionValue, at: "version", expected: "an integer")
        }
        guard version == ICTDocumentFormat.version else {
            throw ICTDocumentError(
                .unsupportedVersion, keyPath: "version",
                "unsupported version \(version) (this version of ICTKit reads \(ICTDocumentFormat.version))")
        }
        self.init(
            version: version, firstName: try Self.string(object, "firstName"), lastName: try Self.string(object, "lastName"),
            displayName: try Self.string(object, "displayName"), favoriteNumber: try Self.number(object, "favoriteNumber"),
            photo: try Self.image(object, "photo"), thumbnail: try Self.image(object, "thumbnail"))
    }

    private static func string(_ object: OrderedDictionary<String, PropertyListValue>, _ key: String) throws(ICTDocumentError) -> String? {
        guard let value = object[key] else { return nil }
        guard case .string(let string) = value else { throw wrongType(value, at: key, expected: "a string") }
        return string
    }

    private static func number(_ object: OrderedDictionary<String, PropertyListValue>, _ key: String) throws(ICTDocumentError) -> Double? {
        switch object[key] {
        case nil: return nil
        case .real(let real)?: return real
        case .real32(let real)?: return Double(real)
        case .integer(let integer)?: return integer.int64Value.map(Double.init) ?? integer.uint64Value.map(Double.init)
        case let other?: throw wrongType(other, at: key, expected: "a number")
        }
    }

    private static func image(_ object: OrderedDictionary<String, PropertyListValue>, _ key: String) throws(ICTDocumentError) -> Image? {
        switch object[key] {
        case nil:
            return nil
        case .data(let bytes)?:
            return .embedded([UInt8](bytes))
        case .dictionary(let reference)?:
            guard let file = reference["file"] else {
                throw ICTDocumentError(.missingKey, keyPath: "\(key).file", "the image has neither \"file\" nor \"$data\"")
            }
            guard case .string(let name) = file else { throw wrongType(file, at: "\(key).file", expected: "a string") }
            return .file(RawFileName.filePath(name))
        case let other?:
            throw wrongType(other, at: key, expected: "{\"file\": NAME} or {\"$data\": BASE64}")
        }
    }

    private static func wrongType(_ value: PropertyListValue, at keyPath: String, expected: String) -> ICTDocumentError {
        ICTDocumentError(.wrongType, keyPath: keyPath, "expected \(expected), found \(jsonKindName(value))")
    }

    /// The JSON name of a value: "a string", "an object", "data" (`$data`).
    private static func jsonKindName(_ value: PropertyListValue) -> String {
        switch value {
        case .integer, .real, .real32: "a number"
        case .bool: "a boolean"
        case .array: "an array"
        case .dictionary: "an object"
        default: value.kindNameWithArticle
        }
    }
}

extension ICTDocumentFile {
    /// The document's fields as the JSON form: images embedded when
    /// `imageFileBase` is nil, else named `BASE.photo.png` and
    /// `BASE.thumbnail.png` (relative to the JSON's folder, as the form
    /// names them), their bytes returned to be written there.
    ///
    /// - Throws: what `data()` and `metadata()` throw. Reads and decodes both entries.
    public func jsonForm(imageFileBase: String?) throws(ICTDocumentError)
        -> (form: ICTDocumentJSONForm, imageFiles: [(name: String, contents: [UInt8])])
    {
        let data = try data()
        let metadata = try metadata()
        var form = ICTDocumentJSONForm(
            version: data.version, firstName: data.firstName, lastName: data.lastName,
            displayName: data.displayName, favoriteNumber: data.favoriteNumber)
        let images = ICTDocumentJSONForm.images(photo: data.photo, thumbnail: metadata.thumbnail, imageFileBase: imageFileBase)
        (form.photo, form.thumbnail) = (images.photo, images.thumbnail)
        return (form, images.files)
    }

    /// A new document (not yet on disk) with the form's fields; the
    /// thumbnail is made from the photo, the form's own is not used. A photo
    /// `.file` is read from `imageFolder` (ending in `/`, or empty for the
    /// current directory) unless its name starts with `/`.
    ///
    /// - Throws: `ICTDocumentError` `.unreadableFile` when the photo file
    ///   cannot be read (`propertyListError` says why); what `setPhoto(pngBytes:)`
    ///   throws for the photo. Costs decoding and resizing the photo.
    package convenience init(jsonForm form: ICTDocumentJSONForm, imageFolder: String, imageLimits: ImageLimits = .default)
        throws(ICTDocumentError)
    {
        self.init(imageLimits: imageLimits)
        try setFirstName(form.firstName)
        try setLastName(form.lastName)
        try setDisplayName(form.displayName)
        try setFavoriteNumber(form.favoriteNumber)
        switch form.photo {
        case .embedded(let bytes)?:
            try setPhoto(pngBytes: bytes)
        case .file(let path)?:
            let name = RawFileName.text(path)
            try setPhoto(pngBytes: try Self.readFile(path.isAbsolute ? name : imageFolder + name))
        case nil:
            break
        }
    }

    /// A new document (not yet on disk) from the JSON form in the file at
    /// `path`, its photo file named relative to that file's folder.
    ///
    /// - Throws: `ICTDocumentError` `.unreadableFile` when the JSON file
    ///   cannot be read; what `ICTDocumentJSONForm(jsonBytes:)` and
    ///   `init(jsonForm:imageFolder:imageLimits:)` throw.
    package convenience init(jsonFormAt path: String, imageLimits: ImageLimits = .default) throws(ICTDocumentError) {
        let bytes = try Self.readFile(path)
        let read: Result<ICTDocumentJSONForm, ICTDocumentError> = bytes.withUnsafeBytes { buffer in
            Result { () throws(ICTDocumentError) in try ICTDocumentJSONForm(jsonBytes: buffer) }
        }
        let form = try read.get()
        let folder = PathName.folderPrefix(of: path)
        try self.init(jsonForm: form, imageFolder: folder, imageLimits: imageLimits)
    }

    private static func readFile(_ path: String) throws(ICTDocumentError) -> [UInt8] {
        do throws(PropertyListError) {
            let file = try MappedFile(path: path)
            // The mapping lives as long as `file`: copy the bytes out before it goes.
            return withExtendedLifetime(file) { [UInt8](file.bytes) }
        } catch {
            throw ICTDocumentError(unreadableFile: error)
        }
    }
}
