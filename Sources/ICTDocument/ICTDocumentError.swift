import DocumentPackage
import KeyedArchive
import PropertyList

/// An error opening, decoding, editing or saving an `.ict` document, saying
/// where: the entry (`ctdocument.data`) and the key inside it (`VERSION`),
/// or the file-system path for package errors.
public struct ICTDocumentError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Hashable, Sendable {
        /// A required entry is not in the package.
        case missingEntry
        /// An entry is not a readable keyed archive; `archiveError` says why.
        case invalidArchive
        /// The archive's root object is of another class than the entry needs.
        case wrongClass
        /// `VERSION` is one this project does not know.
        case unsupportedVersion
        /// A field holds a value of the wrong type.
        case wrongType
        /// A field required by the schema is absent.
        case missingKey
        /// Image bytes are not a PNG libpng can decode (or encode).
        case damagedImage
        /// An image has more pixels than the limit allows (`ImageLimits.pixelLimit`).
        case imageTooLarge
        /// Metadata and data disagree (display name, thumbnail).
        case inconsistent
        /// The package could not be read or written; `packageError` says why.
        case package
        /// A schema file is not a schema this project can read.
        case invalidSchema
        /// A document exists where a new one was to be created.
        case alreadyExists
        /// The JSON form is not JSON as ICTKit reads it, `$data` that is not
        /// base64 for one; `propertyListError` says where in the text.
        case invalidJSON
        /// A file could not be read: the JSON form, or an image file it
        /// names; `propertyListError` says why.
        case unreadableFile
    }

    /// What went wrong.
    public var kind: Kind
    /// The entry concerned (`ctdocument.metadata`), empty when none.
    public var entry: String
    /// The key path inside the entry's archive (`DATA.PHOTO`), empty when none.
    public var keyPath: String
    /// A sentence for people.
    public var message: String
    /// The keyed-archive error behind an `.invalidArchive` error.
    public var archiveError: KeyedArchiveError?
    /// The package error behind a `.package` error.
    public var packageError: DocumentPackageError?
    /// The reader's error behind an `.invalidJSON` or `.unreadableFile` error.
    public var propertyListError: PropertyListError?

    /// Makes an error.
    public init(_ kind: Kind, entry: String = "", keyPath: String = "", _ message: String) {
        self.kind = kind
        self.entry = entry
        self.keyPath = keyPath
        self.message = message
    }

    init(_ error: KeyedArchiveError, entry: String) {
        // A disallowed class at `$top.DATA` is the root object's; deeper, a field's.
        let kind: Kind =
            switch error.kind {
            case .disallowedClass: error.keyPath.components.count <= 2 ? .wrongClass : .wrongType
            case .invalidObject: .wrongType
            default: .invalidArchive
            }
        self.init(kind, entry: entry, keyPath: error.keyPath.description, error.message)
        archiveError = error
    }

    init(_ error: DocumentPackageError) {
        self.init(.package, entry: error.pathInPackage, error.description)
        packageError = error
    }

    init(invalidJSON error: PropertyListError) {
        self.init(.invalidJSON, keyPath: error.keyPath.description, error.location == .none ? error.message : "\(error.location): \(error.message)")
        propertyListError = error
    }

    init(unreadableFile error: PropertyListError) {
        self.init(.unreadableFile, error.description)
        propertyListError = error
    }

    /// `entry: message (at key path)`.
    public var description: String {
        var text = entry.isEmpty ? message : "\(entry): \(message)"
        if !keyPath.isEmpty { text += " (at \(keyPath))" }
        return text
    }
}
