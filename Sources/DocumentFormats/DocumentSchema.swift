import PropertyList

/// What a valid data + metadata package is, read from a schema file such as
/// `Schemas/ict-document.schema.plist`: its entries, their archived classes,
/// keys, value types, which are required, the supported versions, and the
/// consistency rules between entries. The format's rules are data, so
/// another package format (a `.ptk` photo document) is checked by writing
/// another schema.
public struct DocumentSchema: Hashable, Sendable {
    /// The type a key's value must have.
    public enum ValueType: String, Hashable, Sendable {
        /// An integer stored in the object (`encodeInt:`).
        case integer
        /// An `NSNumber`: any integer or real.
        case number
        /// An `NSString`.
        case string
        /// An `NSData`.
        case data
        /// An `NSData` holding a PNG that decodes.
        case png
    }

    /// One key of an entry's root object.
    public struct Key: Hashable, Sendable {
        public var key: String
        public var type: ValueType
        public var isRequired: Bool
    }

    /// One entry of the package: a keyed archive with one root object.
    public struct Entry: Hashable, Sendable {
        public var name: String
        public var isRequired: Bool
        /// The `$top` key of the root object (`DATA`).
        public var rootKey: String
        public var className: String
        /// The class chain, most derived first; empty when not checked.
        public var classChain: [String]
        /// The key holding the version, nil when the format has none.
        public var versionKey: String?
        /// The versions supported.
        public var versions: [Int64]
        public var keys: [Key]
    }

    /// A field of one entry, written `entry:key` in schemas.
    public struct FieldReference: Hashable, Sendable, CustomStringConvertible {
        public var entry: String
        public var key: String
        public var description: String { "\(entry):\(key)" }
    }

    /// A consistency rule between entries.
    public enum Rule: Hashable, Sendable {
        /// Both fields hold the same value when both are set.
        case equal(FieldReference, FieldReference)
        /// `thumbnail` is `width × height` and shows `image` resized to
        /// that size with a peak signal-to-noise ratio of at least `minimumPSNR` dB.
        case thumbnail(thumbnail: FieldReference, image: FieldReference, width: Int, height: Int, minimumPSNR: Double)
    }

    /// The format's name, for messages.
    public var name: String
    /// The package directory's extension (`ict`).
    public var packageExtension: String
    public var entries: [Entry]
    public var rules: [Rule]

    /// The `.ict` schema built into ICTKit: `Schemas/ict-document.schema.plist`.
    public static let ictDocument: DocumentSchema = {
        do {
            return try DocumentSchema(propertyListText: ictDocumentSchemaText)
        } catch {
            preconditionFailure("the built-in schema does not read: \(error)")
        }
    }()

    /// The `.ptk` schema built into ICTKit: `Schemas/ptk-document.schema.plist`.
    public static let ptkDocument: DocumentSchema = {
        do {
            return try DocumentSchema(propertyListText: ptkDocumentSchemaText)
        } catch {
            preconditionFailure("the built-in schema does not read: \(error)")
        }
    }()

    /// Reads a schema from the text of an XML (or any) property list.
    ///
    /// - Throws: `ICTDocumentError` `.invalidSchema` naming the key path of
    ///   what is missing or wrong.
    public init(propertyListText text: String) throws(ICTDocumentError) {
        let value: PropertyListValue
        do {
            value = try Array(text.utf8).withUnsafeBytes { bytes throws(PropertyListError) in
                try PropertyListReader().read(bytes).value
            }
        } catch let error as PropertyListError {
            throw ICTDocumentError(.invalidSchema, "not a property list: \(error.message)")
        } catch {
            throw ICTDocumentError(.invalidSchema, "not a property list: \(error)")
        }
        try self.init(propertyList: value)
    }

    /// Reads a schema from a property-list value.
    ///
    /// - Throws: `ICTDocumentError` `.invalidSchema` naming the key path.
    public init(propertyList value: PropertyListValue) throws(ICTDocumentError) {
        let reader = SchemaReader()
        name = try reader.string(value, "name")
        packageExtension = try reader.string(value, "packageExtension")
        entries = try reader.array(value, "entries").enumerated().map { (index, entry) throws(ICTDocumentError) in
            try reader.entry(entry, at: "entries[\(index)]")
        }
        var rules: [Rule] = []
        for (index, rule) in (value["rules"]?.arrayValue ?? []).enumerated() {
            rules.append(try reader.rule(rule, at: "rules[\(index)]"))
        }
        self.rules = rules
    }

    /// The entry named `name`, if the schema has one.
    public func entry(named name: String) -> Entry? {
        entries.first { $0.name == name }
    }
}

/// Reads the parts of a schema, throwing errors with their key paths.
private struct SchemaReader {
    func fail(_ path: String, _ message: String) -> ICTDocumentError {
        ICTDocumentError(.invalidSchema, keyPath: path, message)
    }

    func string(_ value: PropertyListValue, _ key: String, at path: String = "") throws(ICTDocumentError) -> String {
        guard let string = value[key]?.stringValue else { throw fail(join(path, key), "a string is needed") }
        return string
    }

    func array(_ value: PropertyListValue, _ key: String, at path: String = "") throws(ICTDocumentError) -> [PropertyListValue] {
        guard let array = value[key]?.arrayValue else { throw fail(join(path, key), "an array is needed") }
        return array
    }

    func bool(_ value: PropertyListValue, _ key: String) -> Bool {
        if case .bool(let flag)? = value[key] { return flag }
        return false
    }

    func integer(_ value: PropertyListValue?, at path: String) throws(ICTDocumentError) -> Int64 {
        guard case .integer(let integer)? = value, let result = integer.int64Value else { throw fail(path, "an integer is needed") }
        return result
    }

    func real(_ value: PropertyListValue?, at path: String) throws(ICTDocumentError) -> Double {
        switch value {
        case .real(let real)?: return real
        case .integer(let integer)?: return Double(integer.int64Value ?? 0)
        default: throw fail(path, "a number is needed")
        }
    }

    func entry(_ value: PropertyListValue, at path: String) throws(ICTDocumentError) -> DocumentSchema.Entry {
        var keys: [DocumentSchema.Key] = []
        for (index, key) in try array(value, "keys", at: path).enumerated() {
            let keyPath = "\(path).keys[\(index)]"
            let typeName = try string(key, "type", at: keyPath)
            guard let type = DocumentSchema.ValueType(rawValue: typeName) else {
                throw fail(keyPath + ".type", "unknown type \"\(typeName)\" (integer, number, string, data or png)")
            }
            keys.append(DocumentSchema.Key(key: try string(key, "key", at: keyPath), type: type, isRequired: bool(key, "required")))
        }
        var versions: [Int64] = []
        for (index, version) in (value["versions"]?.arrayValue ?? []).enumerated() {
            versions.append(try integer(version, at: "\(path).versions[\(index)]"))
        }
        return DocumentSchema.Entry(
            name: try string(value, "name", at: path), isRequired: bool(value, "required"),
            rootKey: try string(value, "rootKey", at: path), className: try string(value, "className", at: path),
            classChain: (value["classChain"]?.arrayValue ?? []).compactMap(\.stringValue),
            versionKey: value["versionKey"]?.stringValue, versions: versions, keys: keys)
    }

    func rule(_ value: PropertyListValue, at path: String) throws(ICTDocumentError) -> DocumentSchema.Rule {
        switch try string(value, "rule", at: path) {
        case "equal":
            return .equal(try field(value, "a", at: path), try field(value, "b", at: path))
        case "thumbnail":
            return .thumbnail(
                thumbnail: try field(value, "thumbnail", at: path), image: try field(value, "image", at: path),
                width: Int(try integer(value["width"], at: path + ".width")),
                height: Int(try integer(value["height"], at: path + ".height")),
                minimumPSNR: try real(value["minimumPSNR"], at: path + ".minimumPSNR"))
        case let other:
            throw fail(path + ".rule", "unknown rule \"\(other)\" (equal or thumbnail)")
        }
    }

    func field(_ value: PropertyListValue, _ key: String, at path: String) throws(ICTDocumentError) -> DocumentSchema.FieldReference {
        let text = try string(value, key, at: path)
        guard let colon = text.firstIndex(of: ":") else { throw fail(join(path, key), "\"\(text)\" is not entry:key") }
        return DocumentSchema.FieldReference(entry: String(text[..<colon]), key: String(text[text.index(after: colon)...]))
    }

    private func join(_ path: String, _ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }
}
