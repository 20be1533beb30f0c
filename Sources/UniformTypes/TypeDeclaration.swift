import OrderedCollections
import PropertyList
import SystemPackage
import SystemSupport

/// A class of tags that map other type systems onto uniform type identifiers:
/// filename extensions, MIME types, classic Mac OS type codes, pasteboard types.
public struct TypeTagClass: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The class's identifier, as used in `UTTypeTagSpecification`.
    public let rawValue: String

    /// Makes a tag class from its identifier.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `public.filename-extension`: extensions without the dot, compared without regard to case.
    public static let filenameExtension = TypeTagClass(rawValue: "public.filename-extension")
    /// `public.mime-type`: MIME types, compared without regard to case.
    public static let mimeType = TypeTagClass(rawValue: "public.mime-type")
    /// `com.apple.ostype`: four-character classic Mac OS type codes, compared exactly.
    public static let osType = TypeTagClass(rawValue: "com.apple.ostype")
    /// `com.apple.nspboard-type`: legacy pasteboard type names.
    public static let pasteboardType = TypeTagClass(rawValue: "com.apple.nspboard-type")

    /// True for classes whose tags are compared without regard to case.
    var isCaseInsensitive: Bool { self == .filenameExtension || self == .mimeType }

    /// `tag` as it is indexed: lower-cased for case-insensitive classes.
    func normalized(_ tag: String) -> String { isCaseInsensitive ? tag.lowercasedIfNeeded : tag }

    public var description: String { rawValue }
}

extension String {
    /// `lowercased()`, without making a new string when there is nothing to
    /// lower: no upper-case ASCII letter and no non-ASCII byte, as in most
    /// identifiers and tags (`lowercased()` copies a string over 15 bytes).
    var lowercasedIfNeeded: String {
        let needsLowering =
            utf8.withContiguousStorageIfAvailable { bytes in
                bytes.contains { $0 >= 0x80 || (0x41...0x5A).contains($0) }
            } ?? true
        return needsLowering ? lowercased() : self
    }
}

/// Where a type's declaration came from, in order of precedence.
public enum TypeOrigin: String, Sendable, Hashable, CaseIterable, Comparable {
    /// ICTKit's own declarations of the system's types; apps cannot override them.
    case system
    /// An app's `UTExportedTypeDeclarations`: the app owns the type.
    case exported
    /// ICTKit's stand-in for a type a well-known app exports
    /// (`Schemas/well-known-app-types.plist`: Xcode projects, nibs…); the
    /// app's own exported declaration replaces it.
    case wellKnown = "well-known"
    /// An app's `UTImportedTypeDeclarations`: the app uses a type someone else owns.
    case imported
    /// A type nobody declared: made up for a tag (`dyn.…`), or a type the
    /// freedesktop shared-mime-info database knows and no declaration does.
    case dynamic

    private var rank: Int {
        switch self {
        case .system: 0
        case .exported: 1
        case .wellKnown: 2
        case .imported: 3
        case .dynamic: 4
        }
    }

    public static func < (lhs: TypeOrigin, rhs: TypeOrigin) -> Bool { lhs.rank < rhs.rank }
}

/// Where a declaration was read: a file (nil for ICTKit's built-in
/// declarations), and the key path or line in it.
public struct DeclarationSource: Hashable, Sendable, CustomStringConvertible {
    /// The file, or nil for built-in declarations and made-up dynamic types.
    public var file: FilePath? {
        get { fileText.map { RawFileName.filePath($0) } }
        set { fileText = newValue.map(RawFileName.text) }
    }
    /// `file` as text for messages (bytes that are not UTF-8 carried as `RawFileName` carries them).
    package var fileText: String?
    /// The path of the declaration in a property list (`UTExportedTypeDeclarations[0]`).
    public var keyPath: PropertyListKeyPath
    /// The 1-based line, for declarations read from XML by element.
    public var line: Int?
    /// Where the declaration's facts come from, as its `ICTKitSource` key
    /// names it (`macos-13.3.1`; `Schemas/system-types-SOURCES.md` lists them).
    public var reference: String?

    /// Makes a source.
    public init(file: FilePath?, keyPath: PropertyListKeyPath = [], line: Int? = nil, reference: String? = nil) {
        self.init(
            fileText: file.map(RawFileName.text), keyPath: keyPath, line: line,
            reference: reference)
    }

    /// Makes a source whose file is named by text (bytes that are not UTF-8
    /// carried as `RawFileName` carries them), for the kit's own readers.
    package init(fileText: String?, keyPath: PropertyListKeyPath = [], line: Int? = nil, reference: String? = nil) {
        self.fileText = fileText
        self.keyPath = keyPath
        self.line = line
        self.reference = reference
    }

    /// `file:line`, `file (at keyPath)`, or `built-in (at keyPath)`; with a
    /// reference, `built-in, source macos-13.3.1 (at keyPath)`.
    public var description: String {
        var text = fileText ?? "built-in"
        if let line { text += ":\(line)" }
        if let reference { text += ", source \(reference)" }
        if !keyPath.components.isEmpty { text += " (at \(keyPath))" }
        return text
    }
}

/// One declared uniform type: what `UTExportedTypeDeclarations` and
/// `UTImportedTypeDeclarations` entries say, with where they said it.
public struct TypeDeclaration: Hashable, Sendable {
    /// The identifier, as declared (`com.example.doc`).
    public var identifier: String
    /// The identifiers of the types this one directly conforms to.
    public var conformsTo: [String]
    /// The tags by class, each list in order of preference.
    public var tags: OrderedDictionary<TypeTagClass, [String]>
    /// `UTTypeDescription`.
    public var typeDescription: String?
    /// `UTTypeReferenceURL`.
    public var referenceURL: String?
    /// `UTTypeIconName`, else `UTTypeIconFile`.
    public var iconName: String?
    /// `UTTypeVersion`.
    public var version: String?
    /// Which kind of declaration this is.
    public var origin: TypeOrigin
    /// Where it was read.
    public var source: DeclarationSource

    /// Key paths of the `conformsTo` entries, one for each (for findings).
    var conformsToPaths: [PropertyListKeyPath] = []
    /// Key paths of the tags, parallel to `tags`.
    var tagPaths: [TypeTagClass: [PropertyListKeyPath]] = [:]

    /// Makes a declaration.
    public init(
        identifier: String, conformsTo: [String] = [], tags: OrderedDictionary<TypeTagClass, [String]> = [:],
        typeDescription: String? = nil, referenceURL: String? = nil, iconName: String? = nil,
        version: String? = nil, origin: TypeOrigin, source: DeclarationSource
    ) {
        self.identifier = identifier
        self.conformsTo = conformsTo
        self.tags = tags
        self.typeDescription = typeDescription
        self.referenceURL = referenceURL
        self.iconName = iconName
        self.version = version
        self.origin = origin
        self.source = source
    }

    /// The first tag of `tagClass`, the one to use when making a name or a header.
    public func preferredTag(_ tagClass: TypeTagClass) -> String? { tags[tagClass]?.first }
}

/// One entry of `CFBundleDocumentTypes`: the documents an app opens, by
/// content type or by legacy tags.
public struct DocumentTypeDeclaration: Hashable, Sendable {
    /// `CFBundleTypeName`.
    public var name: String?
    /// `CFBundleTypeRole`: `Editor`, `Viewer`, `Shell`, `QLGenerator`, `MDImporter` or `None`.
    public var role: String?
    /// `LSHandlerRank`: `Owner`, `Default`, `Alternate` or `None`.
    public var handlerRank: String?
    /// `LSTypeIsPackage`, when given.
    public var isPackage: Bool?
    /// `LSItemContentTypes`: the uniform types handled. When present, macOS
    /// ignores the legacy tag lists below.
    public var contentTypes: [String]
    /// `CFBundleTypeExtensions` (legacy).
    public var filenameExtensions: [String]
    /// `CFBundleTypeMIMETypes` (legacy).
    public var mimeTypes: [String]
    /// `CFBundleTypeOSTypes` (legacy).
    public var osTypes: [String]
    /// Where it was read.
    public var source: DeclarationSource

    /// Makes a document type.
    public init(
        name: String? = nil, role: String? = nil, handlerRank: String? = nil, isPackage: Bool? = nil,
        contentTypes: [String] = [], filenameExtensions: [String] = [], mimeTypes: [String] = [],
        osTypes: [String] = [], source: DeclarationSource
    ) {
        self.name = name
        self.role = role
        self.handlerRank = handlerRank
        self.isPackage = isPackage
        self.contentTypes = contentTypes
        self.filenameExtensions = filenameExtensions
        self.mimeTypes = mimeTypes
        self.osTypes = osTypes
        self.source = source
    }
}

/// A problem in type declarations, found while reading or validating them.
public struct TypeDeclarationFinding: Hashable, Sendable, CustomStringConvertible {
    /// How bad it is.
    public enum Severity: String, Hashable, Sendable {
        /// The declaration does not do what its author meant.
        case error
        /// The declaration works, but not as well or as portably as it could.
        case warning
    }

    /// Which check found it.
    public enum Kind: String, Hashable, Sendable {
        /// A value of the wrong kind, a missing key, or a value outside the allowed set.
        case invalidValue
        /// An identifier that is not a well-formed uniform type identifier.
        case malformedIdentifier
        /// A `public.*`, `com.apple.*` or `dyn.*` identifier exported by a third party.
        case reservedIdentifier
        /// Conformance to an identifier nobody declares.
        case unknownConformance
        /// A type that conforms to itself through its parents.
        case conformanceCycle
        /// The same identifier, parent or tag declared twice.
        case duplicate
        /// A document type naming a type nobody declares.
        case undeclaredDocumentType
        /// `LSTypeIsPackage` and conformance to `com.apple.package` disagree.
        case packageMismatch
        /// A filename extension or MIME type written wrongly.
        case malformedTag
        /// A tag a system type already owns; lookups will prefer the system type.
        case systemOwnedTag
        /// A type whose parents never reach `public.item`.
        case notUnderItem
    }

    /// How bad it is.
    public var severity: Severity
    /// Which check found it.
    public var kind: Kind
    /// The file, when known.
    public var file: FilePath? {
        get { fileText.map { RawFileName.filePath($0) } }
        set { fileText = newValue.map(RawFileName.text) }
    }
    /// `file` as text for messages (bytes that are not UTF-8 carried as `RawFileName` carries them).
    package var fileText: String?
    /// The key path of the value concerned (`UTExportedTypeDeclarations[0].UTTypeConformsTo[1]`).
    public var keyPath: PropertyListKeyPath
    /// A sentence for people.
    public var message: String

    /// Makes a finding.
    public init(_ severity: Severity, _ kind: Kind, file: FilePath?, keyPath: PropertyListKeyPath, _ message: String) {
        self.init(severity, kind, fileText: file.map(RawFileName.text), keyPath: keyPath, message)
    }

    /// Makes a finding whose file is named by text (bytes that are not UTF-8
    /// carried as `RawFileName` carries them), for the kit's own checks.
    package init(_ severity: Severity, _ kind: Kind, fileText: String?, keyPath: PropertyListKeyPath, _ message: String) {
        self.severity = severity
        self.kind = kind
        self.fileText = fileText
        self.keyPath = keyPath
        self.message = message
    }

    /// `file: error: message (at keyPath)`.
    public var description: String {
        var text = fileText.map { "\($0): " } ?? ""
        text += "\(severity.rawValue): \(message)"
        if !keyPath.components.isEmpty { text += " (at \(keyPath))" }
        return text
    }
}
