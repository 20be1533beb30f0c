import OrderedCollections
import PropertyList
import SystemPackage
import SystemSupport

/// The type declarations of one Info.plist (any property-list form):
/// `UTExportedTypeDeclarations`, `UTImportedTypeDeclarations` and
/// `CFBundleDocumentTypes`.
///
/// Reading never fails on a badly shaped entry: the entry is skipped, or the
/// bad value left out, and a finding of kind `.invalidValue` says where.
public struct TypeDeclarationSet: Hashable, Sendable {
    /// The file read, or nil for built-in declarations.
    public var file: FilePath? {
        get { fileText.map { RawFileName.filePath($0) } }
        set { fileText = newValue.map(RawFileName.text) }
    }
    /// `file` as text for messages (bytes that are not UTF-8 carried as `RawFileName` carries them).
    package var fileText: String?
    /// `CFBundleIdentifier`, when present.
    public var bundleIdentifier: String?
    /// `UTExportedTypeDeclarations`, in file order.
    public var exported: [TypeDeclaration] = []
    /// `UTImportedTypeDeclarations`, in file order.
    public var imported: [TypeDeclaration] = []
    /// `CFBundleDocumentTypes`, in file order.
    public var documentTypes: [DocumentTypeDeclaration] = []
    /// Problems with the shape of the declarations, found while reading.
    public var findings: [TypeDeclarationFinding] = []

    /// The keys that mark a property list as an Info.plist.
    public static let infoPlistKeys = [
        "CFBundleDocumentTypes", "UTExportedTypeDeclarations",
        "UTImportedTypeDeclarations", "CFBundleIdentifier",
    ]

    /// True when `value` is a dictionary holding any of `infoPlistKeys`.
    public static func looksLikeInfoPlist(_ value: PropertyListValue) -> Bool {
        guard let dictionary = value.dictionaryValue else { return false }
        return infoPlistKeys.contains { dictionary[$0] != nil }
    }

    /// Reads the declarations in an Info.plist's value.
    ///
    /// - Parameters:
    ///   - infoPlist: the Info.plist's whole value.
    ///   - file: the file it was read from, named in findings and `source`; nil for built-in text.
    ///   - exportedOrigin: the origin given to `UTExportedTypeDeclarations`
    ///     entries: `.exported`, or `.system` and `.wellKnown` for ICTKit's
    ///     own declarations.
    public init(infoPlist: PropertyListValue, file: FilePath?, exportedOrigin: TypeOrigin = .exported) {
        self.init(
            infoPlist: infoPlist, fileText: file.map(RawFileName.text),
            exportedOrigin: exportedOrigin)
    }

    /// `init(infoPlist:file:exportedOrigin:)` with the file named by text
    /// (bytes that are not UTF-8 carried as `RawFileName` carries them), for
    /// the kit's own readers.
    package init(infoPlist: PropertyListValue, fileText file: String?, exportedOrigin: TypeOrigin = .exported) {
        self.fileText = file
        guard let root = infoPlist.dictionaryValue else {
            findings.append(
                TypeDeclarationFinding(
                    .error, .invalidValue, fileText: file, keyPath: [],
                    "the property list's root is \(infoPlist.kindNameWithArticle), not a dictionary"))
            return
        }
        bundleIdentifier = root["CFBundleIdentifier"]?.stringValue
        exported = readTypes(root, key: "UTExportedTypeDeclarations", origin: exportedOrigin)
        imported = readTypes(root, key: "UTImportedTypeDeclarations", origin: .imported)
        for (index, entry) in entries(root, key: "CFBundleDocumentTypes").enumerated() {
            if let documentType = readDocumentType(entry, at: [.key("CFBundleDocumentTypes"), .index(index)]) {
                documentTypes.append(documentType)
            }
        }
    }

    /// Reads the Info.plist at `path`, in any property-list form.
    ///
    /// - Throws: `UniformTypeError` `.io` when the file cannot be read, or
    ///   `.invalidPropertyList` (with the reader's error) when it is not a property list.
    package static func read(contentsOf path: String) throws(UniformTypeError) -> TypeDeclarationSet {
        let file = try mapFile(path, readingAs: .invalidPropertyList)
        let value: PropertyListValue
        do {
            value = try PropertyListReader().read(file.bytes).value
        } catch {
            throw UniformTypeError(error, path: path, as: .invalidPropertyList)
        }
        return TypeDeclarationSet(infoPlist: value, fileText: path)
    }

    /// ICTKit's declarations of the system's types (`Schemas/system-types.plist`,
    /// built in), read on first use from the type table written at build time.
    public static let system = TypeDeclarationSet(typeTable: systemTypeTable, exportedOrigin: .system)

    /// ICTKit's stand-ins for the package and document types well-known apps
    /// export (`Schemas/well-known-app-types.plist`, built in), of origin `.wellKnown`.
    public static let wellKnownApps = TypeDeclarationSet(typeTable: wellKnownAppTypeTable, exportedOrigin: .wellKnown)

    /// The `.ict` document type's declarations (`Schemas/ict-types.plist`, built in).
    public static let ict: TypeDeclarationSet = builtIn(ictTypeDeclarationsText, exportedOrigin: .exported)

    private static func builtIn(_ text: String, exportedOrigin: TypeOrigin) -> TypeDeclarationSet {
        var bytes = Array(text.utf8)
        bytes.append(0x0A)
        let value: PropertyListValue
        do {
            value = try bytes.withUnsafeBytes { buffer throws(PropertyListError) in try PropertyListReader().read(buffer).value }
        } catch {
            preconditionFailure("a built-in declaration file does not read: \(error)")  // A test reads both.
        }
        return TypeDeclarationSet(infoPlist: value, file: nil, exportedOrigin: exportedOrigin)
    }

    // MARK: - Reading entries

    private mutating func entries(_ root: OrderedDictionary<String, PropertyListValue>, key: String) -> [PropertyListValue] {
        guard let value = root[key] else { return [] }
        guard let array = value.arrayValue else {
            invalid([.key(key)], "\(key) is \(value.kindNameWithArticle), not an array")
            return []
        }
        return array
    }

    private mutating func readTypes(
        _ root: OrderedDictionary<String, PropertyListValue>, key: String,
        origin: TypeOrigin
    ) -> [TypeDeclaration] {
        var result: [TypeDeclaration] = []
        for (index, entry) in entries(root, key: key).enumerated() {
            let path: PropertyListKeyPath = [.key(key), .index(index)]
            guard let dictionary = entry.dictionaryValue else {
                invalid(path, "a type declaration is \(entry.kindNameWithArticle), not a dictionary")
                continue
            }
            guard let identifier = string(dictionary, "UTTypeIdentifier", at: path) else {
                if dictionary["UTTypeIdentifier"] == nil { invalid(path, "a type declaration has no UTTypeIdentifier") }
                continue
            }
            let reference = string(dictionary, "ICTKitSource", at: path)
            var declaration = TypeDeclaration(
                identifier: identifier, origin: origin,
                source: DeclarationSource(fileText: fileText, keyPath: path, reference: reference))
            (declaration.conformsTo, declaration.conformsToPaths) = strings(dictionary, "UTTypeConformsTo", at: path)
            declaration.typeDescription = string(dictionary, "UTTypeDescription", at: path)
            declaration.referenceURL = string(dictionary, "UTTypeReferenceURL", at: path)
            declaration.iconName = string(dictionary, "UTTypeIconName", at: path) ?? string(dictionary, "UTTypeIconFile", at: path)
            declaration.version = string(dictionary, "UTTypeVersion", at: path)
            readTags(dictionary, at: path, into: &declaration)
            result.append(declaration)
        }
        return result
    }

    private mutating func readTags(
        _ dictionary: OrderedDictionary<String, PropertyListValue>, at path: PropertyListKeyPath,
        into declaration: inout TypeDeclaration
    ) {
        guard let value = dictionary["UTTypeTagSpecification"] else { return }
        let tagsPath = path.appending(.key("UTTypeTagSpecification"))
        guard let specification = value.dictionaryValue else {
            invalid(tagsPath, "UTTypeTagSpecification is \(value.kindNameWithArticle), not a dictionary")
            return
        }
        for key in specification.keys {
            let (tags, paths) = strings(specification, key, at: tagsPath)
            let tagClass = TypeTagClass(rawValue: key)
            declaration.tags[tagClass, default: []] += tags
            declaration.tagPaths[tagClass, default: []] += paths
        }
    }

    private mutating func readDocumentType(_ entry: PropertyListValue, at path: PropertyListKeyPath) -> DocumentTypeDeclaration? {
        guard let dictionary = entry.dictionaryValue else {
            invalid(path, "a document type is \(entry.kindNameWithArticle), not a dictionary")
            return nil
        }
        var documentType = DocumentTypeDeclaration(source: DeclarationSource(fileText: fileText, keyPath: path))
        documentType.name = string(dictionary, "CFBundleTypeName", at: path)
        documentType.role = string(dictionary, "CFBundleTypeRole", at: path)
        documentType.handlerRank = string(dictionary, "LSHandlerRank", at: path)
        documentType.contentTypes = strings(dictionary, "LSItemContentTypes", at: path).values
        documentType.filenameExtensions = strings(dictionary, "CFBundleTypeExtensions", at: path).values
        documentType.mimeTypes = strings(dictionary, "CFBundleTypeMIMETypes", at: path).values
        documentType.osTypes = strings(dictionary, "CFBundleTypeOSTypes", at: path).values
        if let value = dictionary["LSTypeIsPackage"] {
            let packagePath = path.appending(.key("LSTypeIsPackage"))
            switch value {
            case .bool(let flag): documentType.isPackage = flag
            case .integer(let number) where number == 0 || number == 1:
                // CFBundle reads 0 and 1 as false and true; the documented type is Boolean.
                documentType.isPackage = number == 1
                findings.append(
                    TypeDeclarationFinding(
                        .warning, .invalidValue, fileText: fileText, keyPath: packagePath,
                        "LSTypeIsPackage is the integer \(number); write <true/> or <false/>"))
            default: invalid(packagePath, "LSTypeIsPackage is \(value.kindNameWithArticle), not a boolean")
            }
        }
        return documentType
    }

    /// The string under `key`; a finding when it is there but not a string.
    private mutating func string(
        _ dictionary: OrderedDictionary<String, PropertyListValue>, _ key: String,
        at path: PropertyListKeyPath
    ) -> String? {
        guard let value = dictionary[key] else { return nil }
        guard let text = value.stringValue else {
            invalid(path.appending(.key(key)), "\(key) is \(value.kindNameWithArticle), not a string")
            return nil
        }
        return text
    }

    /// The strings under `key`, which may be one string or an array of
    /// strings, with their key paths; a finding for each value of another kind.
    private mutating func strings(
        _ dictionary: OrderedDictionary<String, PropertyListValue>, _ key: String,
        at path: PropertyListKeyPath
    ) -> (values: [String], paths: [PropertyListKeyPath]) {
        guard let value = dictionary[key] else { return ([], []) }
        let keyPath = path.appending(.key(key))
        switch value {
        case .string(let text): return ([text], [keyPath])
        case .array(let items):
            var values: [String] = []
            var paths: [PropertyListKeyPath] = []
            for (index, item) in items.enumerated() {
                guard let text = item.stringValue else {
                    invalid(keyPath.appending(.index(index)), "\(key) holds \(item.kindNameWithArticle), not a string")
                    continue
                }
                values.append(text)
                paths.append(keyPath.appending(.index(index)))
            }
            return (values, paths)
        default:
            invalid(keyPath, "\(key) is \(value.kindNameWithArticle), not a string or an array of strings")
            return ([], [])
        }
    }

    private mutating func invalid(_ path: PropertyListKeyPath, _ message: String) {
        findings.append(TypeDeclarationFinding(.error, .invalidValue, fileText: fileText, keyPath: path, message))
    }
}
