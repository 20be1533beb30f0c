import KeyedArchive
import PackageFormat
import PropertyList

/// An error opening, decoding, editing or saving an `.ict` document, saying
/// where: the entry (`ctdocument.data`) and the key inside it (`VERSION`),
/// or the file-system path for package errors.
public struct ICTDocumentError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong: one of the static members, compared with `==` or
    /// matched in a `switch` (which needs a `default:`, as codes may be added
    /// in later versions without breaking callers).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: Hashable, Sendable {
            case missingEntry
            case invalidArchive
            case wrongClass
            case unsupportedVersion
            case wrongType
            case missingKey
            case damagedImage
            case imageTooLarge
            case inconsistent
            case package
            case invalidSchema
            case alreadyExists
            case invalidJSON
            case unreadableFile
            case invalidKeyPath
            case missingValue
            case unwritableValue
            case invalidText
        }

        private var wrapped: Wrapped

        private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

        /// A required entry is not in the package.
        public static var missingEntry: Self { Self(.missingEntry) }
        /// An entry is not a readable keyed archive; `archiveError` says why.
        public static var invalidArchive: Self { Self(.invalidArchive) }
        /// The archive's root object is of another class than the entry needs.
        public static var wrongClass: Self { Self(.wrongClass) }
        /// `VERSION` is one this project does not know.
        public static var unsupportedVersion: Self { Self(.unsupportedVersion) }
        /// A field holds a value of the wrong type.
        public static var wrongType: Self { Self(.wrongType) }
        /// A field required by the schema is absent.
        public static var missingKey: Self { Self(.missingKey) }
        /// Image bytes are not a PNG libpng can decode (or encode).
        public static var damagedImage: Self { Self(.damagedImage) }
        /// An image has more pixels than the limit allows (`ImageLimits.pixelLimit`).
        public static var imageTooLarge: Self { Self(.imageTooLarge) }
        /// Metadata and data disagree (display name, thumbnail).
        public static var inconsistent: Self { Self(.inconsistent) }
        /// The package could not be read or written; `packageError` says why.
        public static var package: Self { Self(.package) }
        /// A schema file is not a schema this project can read.
        public static var invalidSchema: Self { Self(.invalidSchema) }
        /// A document exists where a new one was to be created.
        public static var alreadyExists: Self { Self(.alreadyExists) }
        /// The JSON form is not JSON as ICTKit reads it, `$data` that is not
        /// base64 for one; `propertyListError` says where in the text.
        public static var invalidJSON: Self { Self(.invalidJSON) }
        /// A file could not be read: the JSON form, or an image file it
        /// names; `propertyListError` says why. Also a document's entry a
        /// key path names that is a symbolic link or a folder (`KeyPathAddress`).
        public static var unreadableFile: Self { Self(.unreadableFile) }
        /// A key path into a document is not `ENTRY:PATH` with an entry's name (`KeyPathAddress`).
        public static var invalidKeyPath: Self { Self(.invalidKeyPath) }
        /// Nothing is at a key path (`KeyPathTarget`).
        public static var missingValue: Self { Self(.missingValue) }
        /// A property list cannot be written in its file's form: OpenStep is
        /// read only (`KeyPathTarget`); `propertyListError` says why.
        public static var unwritableValue: Self { Self(.unwritableValue) }
        /// A text note's bytes are not UTF-8 text; `byteOffset` says where.
        public static var invalidText: Self { Self(.invalidText) }

        /// The code's name, stable across versions: `missingEntry`.
        public var description: String {
            switch wrapped {
            case .missingEntry: "missingEntry"
            case .invalidArchive: "invalidArchive"
            case .wrongClass: "wrongClass"
            case .unsupportedVersion: "unsupportedVersion"
            case .wrongType: "wrongType"
            case .missingKey: "missingKey"
            case .damagedImage: "damagedImage"
            case .imageTooLarge: "imageTooLarge"
            case .inconsistent: "inconsistent"
            case .package: "package"
            case .invalidSchema: "invalidSchema"
            case .alreadyExists: "alreadyExists"
            case .invalidJSON: "invalidJSON"
            case .unreadableFile: "unreadableFile"
            case .invalidKeyPath: "invalidKeyPath"
            case .missingValue: "missingValue"
            case .unwritableValue: "unwritableValue"
            case .invalidText: "invalidText"
            }
        }
    }

    /// What went wrong.
    public var code: Code
    /// The entry concerned (`ctdocument.metadata`), empty when none.
    public var entry: String
    /// The key path inside the entry's archive (`DATA.PHOTO`), empty when none.
    public var keyPath: String
    /// The byte offset in the entry (or in a one-file document) where the
    /// problem is, nil when none is known.
    public var byteOffset: Int?
    /// A sentence for people.
    public var message: String
    /// The keyed-archive error behind an `.invalidArchive` error.
    public var archiveError: KeyedArchiveError?
    /// The package error behind a `.package` error.
    public var packageError: DocumentPackageError?
    /// The reader's error behind an `.invalidJSON` or `.unreadableFile` error.
    public var propertyListError: PropertyListError?

    /// Makes an error.
    public init(_ code: Code, entry: String = "", keyPath: String = "", byteOffset: Int? = nil, _ message: String) {
        self.code = code
        self.entry = entry
        self.keyPath = keyPath
        self.byteOffset = byteOffset
        self.message = message
    }

    package init(_ error: KeyedArchiveError, entry: String) {
        // A disallowed class at `$top.DATA` is the root object's; deeper, a field's.
        let code: Code =
            switch error.code {
            case .disallowedClass: error.keyPath.components.count <= 2 ? .wrongClass : .wrongType
            case .invalidObject: .wrongType
            default: .invalidArchive
            }
        self.init(code, entry: entry, keyPath: error.keyPath.description, error.message)
        archiveError = error
    }

    package init(_ error: DocumentPackageError) {
        self.init(.package, entry: error.pathInPackage, error.description)
        packageError = error
    }

    package init(invalidJSON error: PropertyListError) {
        self.init(.invalidJSON, keyPath: error.keyPath.description, error.location == .none ? error.message : "\(error.location): \(error.message)")
        propertyListError = error
    }

    package init(unreadableFile error: PropertyListError) {
        self.init(.unreadableFile, error.description)
        propertyListError = error
    }

    /// `entry: message (at key path)`; `entry:byte N: message` with a byte offset.
    public var description: String {
        let place = byteOffset.map { entry.isEmpty ? "byte \($0)" : "\(entry):byte \($0)" } ?? entry
        var text = place.isEmpty ? message : "\(place): \(message)"
        if !keyPath.isEmpty { text += " (at \(keyPath))" }
        return text
    }
}
