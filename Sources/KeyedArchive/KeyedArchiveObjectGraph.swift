import OrderedCollections
import PropertyList
import SystemPackage

/// An `NSKeyedArchiver` archive as an untyped object graph: the `$top` keys
/// and the `$objects` table, each object a plain value, an instance of a
/// named class with keyed fields, or a class description.
///
/// A value of this type made by `init(propertyList:)` or `KeyedArchiveReader`
/// has been checked in full: `$archiver`, `$version`, `$null` at index 0,
/// every UID inside the table, every `$class` reference and class
/// description. Built directly with `init(top:objects:)` it is not checked
/// until written or decoded. References are UIDs (`.uid(n)`, index `n` of
/// `objects`; 0 is `$null`, no object).
public struct KeyedArchiveObjectGraph: Hashable, Sendable {
    /// `NSKeyedArchiver`, the only `$archiver` read.
    public static let archiverName = "NSKeyedArchiver"
    /// 100000, the only `$version` read.
    public static let formatVersion: Int64 = 100_000

    /// `$top`: the archive's top-level keys (`root`, `DATA`, `$0`, …), usually
    /// UIDs of objects, in the file's order.
    public var top: OrderedDictionary<String, PropertyListValue>
    /// `$objects`: index 0 is the string `$null`.
    public var objects: [PropertyListValue]
    /// How the binary file it was read from numbered its objects where that
    /// differs from `KeyedArchiveWriter`'s rule; nil when it does not, or
    /// when not recorded (see `KeyedArchiveReader.keepsLayout`).
    public var layout: KeyedArchiveLayout?

    /// Makes an archive from its parts without checking them.
    public init(top: OrderedDictionary<String, PropertyListValue>, objects: [PropertyListValue], layout: KeyedArchiveLayout? = nil) {
        self.top = top
        self.objects = objects
        self.layout = layout
    }

    /// Checks and takes apart the top dictionary of a keyed archive.
    ///
    /// - Throws: `KeyedArchiveError` for the first structural problem found
    ///   (in `KeyedArchiveValidator`'s order), with its key path and object index.
    public init(propertyList: PropertyListValue) throws(KeyedArchiveError) {
        var validator = KeyedArchiveValidator(stopAtFirstProblem: true)
        let parts = validator.check(propertyList)
        if let problem = validator.problems.first { throw problem }
        guard let parts else { preconditionFailure("the validator returns parts when it finds no problem") }
        self = parts
    }

    /// True when `value` is a dictionary with `$archiver` or `$objects`: what
    /// `ict` takes to be a keyed archive rather than a plain property list.
    public static func looksLikeArchive(_ value: PropertyListValue) -> Bool {
        guard let dictionary = value.dictionaryValue else { return false }
        return dictionary["$archiver"] != nil || dictionary["$objects"] != nil
    }

    /// True when the file at `filePath` is a binary property list whose top
    /// object is a dictionary with a string under `$archiver` (any archiver
    /// name, not only `NSKeyedArchiver`): how a package's entry is told to be
    /// a keyed archive without reading it. False when the file cannot be
    /// mapped or is not a binary property list.
    ///
    /// Only the trailer, the offset table and the top dictionary's keys and
    /// that one value are read (`BinaryPropertyListDocument`), so a large
    /// archive costs no more than a small one. A name that is not UTF-8 is
    /// opened byte for byte.
    public static func isBinaryArchive(at filePath: FilePath) -> Bool {
        guard let file = try? MappedFile(filePath: filePath) else { return false }
        return isBinaryArchive(file)
    }

    /// `isBinaryArchive(at:)` for a path held as text (bytes that are not
    /// UTF-8 carried as `RawFileName` carries them), for the kit's own callers.
    package static func isBinaryArchive(atPath path: String) -> Bool {
        guard let file = try? MappedFile(path: path) else { return false }
        return isBinaryArchive(file)
    }

    /// Whether the mapped `file` is a binary property list whose top object
    /// holds a string under `$archiver`.
    private static func isBinaryArchive(_ file: MappedFile) -> Bool {
        guard let document = try? BinaryPropertyListDocument(file: file),
            let archiver = try? document.value(at: [.key("$archiver")])
        else { return false }
        if case .string = archiver { return true }
        return false
    }

    /// The archive as a property list, keys in the order `NSKeyedArchiver`
    /// writes them: `$version`, `$objects`, `$archiver`, `$top`.
    public var propertyList: PropertyListValue {
        .dictionary([
            "$version": .integer(PropertyListInteger(Self.formatVersion)),
            "$objects": .array(objects),
            "$archiver": .string(Self.archiverName),
            "$top": .dictionary(top),
        ])
    }

    /// The index of the top object under `key`, or nil when `$top` has no
    /// such key or holds `$null` or a non-reference there.
    public func topObjectIndex(forKey key: String) -> Int? {
        guard case .uid(let uid)? = top[key], uid != 0, uid < UInt64(objects.count) else { return nil }
        return Int(uid)
    }

    /// The object at `index` of `$objects`, classified.
    ///
    /// An index outside `objects` is a programmer's error (a precondition).
    public func object(at index: Int) -> KeyedArchiveObject {
        precondition(index >= 0 && index < objects.count, "object index \(index) outside $objects")
        if index == 0 { return .null }
        let value = objects[index]
        guard case .dictionary(let fields) = value else { return .value(value) }
        if case .string(let name)? = fields["$classname"] {
            let chain = Self.strings(fields["$classes"])
            return .classDescription(KeyedArchiveClass(name: name, chain: chain.isEmpty ? [name] : chain))
        }
        guard case .uid(let classUID)? = fields["$class"], classUID < UInt64(objects.count),
            case .classDescription(let classDescription) = object(at: Int(classUID))
        else { return .value(value) }
        var ownFields = fields
        ownFields.removeValue(forKey: "$class")
        return .instance(KeyedArchiveInstance(index: index, classIndex: Int(classUID), classDescription: classDescription, fields: ownFields))
    }

    private static func strings(_ value: PropertyListValue?) -> [String] {
        guard case .array(let elements)? = value else { return [] }
        return elements.compactMap(\.stringValue)
    }
}

/// One entry of `$objects`, classified.
public enum KeyedArchiveObject: Hashable, Sendable {
    /// `$null` (index 0): no object.
    case null
    /// A value stored as itself: a string (`NSString`), number (`NSNumber`), data (`NSData`), …
    case value(PropertyListValue)
    /// An instance of an archived class.
    case instance(KeyedArchiveInstance)
    /// A class description (`$classname`, usually `$classes`), what `$class` refers to.
    case classDescription(KeyedArchiveClass)
}

/// An archived class: its name and its chain of class names, most derived first.
public struct KeyedArchiveClass: Hashable, Sendable {
    /// `$classname`.
    public var name: String
    /// `$classes`: the class and its superclasses, `["NSMutableArray", "NSArray", "NSObject"]`;
    /// `[name]` for a description without `$classes` (or with an empty one).
    public var chain: [String]

    /// Makes a class description.
    public init(name: String, chain: [String]) {
        self.name = name
        self.chain = chain
    }
}

/// An instance of an archived class: its class and its keyed fields.
public struct KeyedArchiveInstance: Hashable, Sendable {
    /// Its index in `$objects`.
    public var index: Int
    /// The index in `$objects` of its class description.
    public var classIndex: Int
    /// Its class.
    public var classDescription: KeyedArchiveClass
    /// Its fields without `$class`, in the file's order; UIDs are references.
    public var fields: OrderedDictionary<String, PropertyListValue>

    /// The objects this instance refers to: each UID in its fields (and in
    /// arrays inside them) with the key path to it, in field order.
    public var references: [(path: PropertyListKeyPath, index: Int)] {
        var found: [(path: PropertyListKeyPath, index: Int)] = []
        for (key, value) in fields {
            collectReferences(value, path: [.key(key)], into: &found)
        }
        return found
    }

    private func collectReferences(
        _ value: PropertyListValue, path: PropertyListKeyPath,
        into found: inout [(path: PropertyListKeyPath, index: Int)]
    ) {
        switch value {
        case .uid(let uid): found.append((path, Int(clamping: uid)))
        case .array(let elements):
            for (position, element) in elements.enumerated() {
                collectReferences(element, path: path.appending(.index(position)), into: &found)
            }
        case .dictionary(let dictionary):
            for (key, element) in dictionary {
                collectReferences(element, path: path.appending(.key(key)), into: &found)
            }
        default: break
        }
    }
}

/// The name of ``KeyedArchiveObjectGraph`` before 1.0.
///
/// A type named as its module breaks qualification: `KeyedArchive.KeyedArchive`
/// does not compile where another module declares a `KeyedArchive`. So long
/// as this alias exists, that remains so.
@available(*, deprecated, renamed: "KeyedArchiveObjectGraph")
public typealias KeyedArchive = KeyedArchiveObjectGraph
