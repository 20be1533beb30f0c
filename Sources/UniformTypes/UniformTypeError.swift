import PropertyList
import SystemPackage
import SystemSupport

/// An error reading type declarations, shared-mime-info files or a
/// `mime.cache`, or identifying an item, saying where: the file, the byte
/// (a `mime.cache`) or line and column (XML and other text), and the key path
/// inside a property list.
public struct UniformTypeError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong: one of the static members, compared with `==` or
    /// matched in a `switch` (which needs a `default:`, as codes may be added
    /// in later versions without breaking callers).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: Hashable, Sendable {
            case io
            case invalidPropertyList
            case malformedSharedMimeInfo
            case malformedMimeCache
            case inconsistentMimeDatabase
        }

        private var wrapped: Wrapped

        private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

        /// A file or folder cannot be read or examined, or a URL is not a `file:` URL.
        public static var io: Self { Self(.io) }
        /// A declaration file (an Info.plist) is not a property list, or is
        /// over a reading limit; `propertyListError` holds the reader's error.
        public static var invalidPropertyList: Self { Self(.invalidPropertyList) }
        /// Shared-mime-info XML that is not well-formed, or a `mime-type` without its type.
        public static var malformedSharedMimeInfo: Self { Self(.malformedSharedMimeInfo) }
        /// A `mime.cache` whose bytes are not a version 1 cache: an offset or
        /// count past the end, a string without its NUL, a suffix tree that loops.
        public static var malformedMimeCache: Self { Self(.malformedMimeCache) }
        /// A `mime.cache` that disagrees with its database: a type name that is
        /// not MEDIA/SUBTYPE, or aliases its type's XML file does not list.
        public static var inconsistentMimeDatabase: Self { Self(.inconsistentMimeDatabase) }

        /// The code's name, stable across versions: `malformedMimeCache`.
        public var description: String {
            switch wrapped {
            case .io: "io"
            case .invalidPropertyList: "invalidPropertyList"
            case .malformedSharedMimeInfo: "malformedSharedMimeInfo"
            case .malformedMimeCache: "malformedMimeCache"
            case .inconsistentMimeDatabase: "inconsistentMimeDatabase"
            }
        }
    }

    /// What went wrong.
    public var code: Code
    /// The file or item concerned, as the caller named it; nil when reading
    /// bytes given without a file name.
    public var path: FilePath? {
        get { pathText.map { RawFileName.filePath($0) } }
        set { pathText = newValue.map(RawFileName.text) }
    }
    /// `path` as text for the message (bytes that are not UTF-8 carried as
    /// `RawFileName` carries them; a URL that is not a `file:` URL as it is written).
    package var pathText: String?
    /// Where in the file: a byte offset (`mime.cache`), a line and column
    /// (XML, text property lists), or none.
    public var location: PropertyListLocation
    /// The path from a property list's root to the value concerned, when known.
    public var keyPath: PropertyListKeyPath
    /// What happened, for people.
    public var message: String
    /// The error of PropertyList's reading (of a property list, of XML, of
    /// a mapped file) this one reports, when there was one.
    public var propertyListError: PropertyListError?

    /// Makes an error.
    public init(
        _ code: Code, path: FilePath?, at location: PropertyListLocation = .none, keyPath: PropertyListKeyPath = [], _ message: String
    ) {
        self.init(
            code, pathText: path.map(RawFileName.text), at: location, keyPath: keyPath, message)
    }

    /// Makes an error whose place is named by text (bytes that are not UTF-8
    /// carried as `RawFileName` carries them), for the kit's own readers.
    package init(
        _ code: Code, pathText: String?, at location: PropertyListLocation = .none, keyPath: PropertyListKeyPath = [],
        _ message: String
    ) {
        self.code = code
        self.pathText = pathText
        self.location = location
        self.keyPath = keyPath
        self.message = message
    }

    /// The error for `error`, met reading `path`: `.io` when it is one (a file
    /// that cannot be read), else `code`; its location, key path and message kept.
    init(_ error: PropertyListError, path: String?, as code: Code) {
        self.init(error.code == .io ? .io : code, pathText: path, at: error.location, keyPath: error.keyPath, error.message)
        propertyListError = error
    }

    /// `PATH:LOCATION: message (at KEY.PATH)`, the parts that are known.
    ///
    /// The message of an `.io` error names its path too (as given).
    public var description: String {
        var place = pathText ?? ""
        let location = location.description
        if !location.isEmpty { place += place.isEmpty ? location : ":" + location }
        var text = place.isEmpty ? message : place + ": " + message
        if !keyPath.components.isEmpty { text += " (at \(keyPath))" }
        return text
    }
}

/// Maps the file at `path`, for reading as `code` says.
///
/// - Throws: `UniformTypeError` `.io` when it cannot be read; `code` when it
///   is over the input size limit.
func mapFile(_ path: String, readingAs code: UniformTypeError.Code) throws(UniformTypeError) -> MappedFile {
    do {
        return try MappedFile(path: path)
    } catch {
        throw UniformTypeError(error, path: path, as: code)
    }
}
