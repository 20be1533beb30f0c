import KeyedArchive
import PropertyList

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes objects into an `NSKeyedArchiver` archive through `ArchiveCoding`'s
/// `encode(with:)` (Foundation's `NSKeyedArchiver`), numbering objects and
/// naming classes as Foundation does: an object gets its index when first
/// encoded, its class description (`$classname`, `$classes` up to
/// `NSObject`) after its fields, Foundation's values their own classes
/// (`NSString`, `NSData`, `NSNumber` stored plainly; `NSDate`, `NSUUID`,
/// `NSURL`, `NSNull`, `NSArray`, `NSDictionary`, `NSSet`). Built on `KeyedArchiver`.
public final class KeyedObjectArchiver: ArchiveCoder {
    /// The serialisation `encodedData` uses; binary unless set.
    public var outputFormat: KeyedArchiveWriter.Format = .binary

    private var archiver = KeyedArchiver()
    /// Plain values encoded at the top level (`$top.key = 1`).
    private var topLevelValues: [(key: String, value: PropertyListValue)] = []
    /// The fields of the objects whose `encode(with:)` is running, innermost last.
    private var fieldRecordings: [[EncodedField]] = []
    /// Every node made, kept alive so that the identities `KeyedArchiver` dedupes by stay unique.
    private var nodes: [EncodedNode] = []
    private var nodesByInstance: [ObjectIdentifier: EncodedNode] = [:]
    private var classNames: [ObjectIdentifier: String] = [:]
    private var finished = false
    /// The index in `$objects` of each instance encoded so far.
    private var instanceIndices: [ObjectIdentifier: Int] = [:]
    /// References encoded conditionally: the holder's index (nil for `$top`),
    /// the key, and the instance referred to (kept alive so that its identity stays unique).
    private var conditionalReferences: [(holder: Int?, key: String, target: any ArchiveCoding)] = []

    /// An archiver (`init(requiringSecureCoding:)`).
    public init(requiringSecureCoding: Bool) {
        super.init(requiresSecureCoding: requiringSecureCoding)
    }

    /// An archiver that does not require secure coding.
    public convenience init() {
        self.init(requiringSecureCoding: false)
    }

    /// Archives `object` under `root` (`NSKeyedArchiveRootObjectKey`) in one step.
    ///
    /// - Throws: `KeyedArchiveError` for an object that cannot be archived
    ///   (or not securely, with `requiringSecureCoding`), or the error an
    ///   object's `encode(with:)` passed to `failWithError(_:)`.
    public static func archivedData(withRootObject object: Any, requiringSecureCoding: Bool) throws -> Data {
        let archiver = KeyedObjectArchiver(requiringSecureCoding: requiringSecureCoding)
        archiver.encode(object, forKey: "root")
        archiver.finishEncoding()
        if let error = archiver.error { throw error }
        return archiver.encodedData
    }

    // MARK: Class names

    /// Archives instances of `type` under `name` in this archiver (nil removes the mapping).
    public func setClassName(_ name: String?, for type: any ArchiveCoding.Type) {
        classNames[ObjectIdentifier(type)] = name
    }

    /// Archives instances of `type` under `name` in every archiver that does
    /// not map it itself (nil removes the mapping).
    public class func setClassName(_ name: String?, for type: any ArchiveCoding.Type) {
        ClassNameMapping.shared.setName(name, for: type)
    }

    /// The name this archiver gives `type`, if it maps it.
    public func className(for type: any ArchiveCoding.Type) -> String? {
        classNames[ObjectIdentifier(type)]
    }

    /// The name every archiver gives `type`, if it is mapped process-wide.
    public class func className(for type: any ArchiveCoding.Type) -> String? {
        ClassNameMapping.shared.name(for: type)
    }

    /// The archived name of `type`: this archiver's mapping, the process-wide
    /// one, else `ClassNameMapping.defaultName(for:)`.
    func archivedName(of type: AnyClass) -> String {
        classNames[ObjectIdentifier(type)] ?? ClassNameMapping.shared.name(for: type) ?? ClassNameMapping.defaultName(for: type)
    }

    /// `$classes` for `type`: its archived name and its superclasses' up to `NSObject`.
    func archivedClassChain(of type: AnyClass) -> [String] {
        var chain: [String] = []
        var current: AnyClass? = type
        while let step = current {
            chain.append(archivedName(of: step))
            if step == ArchivableObject.self { break }
            current = _getSuperclass(step)
        }
        return chain
    }

    // MARK: Encoding

    /// Ends encoding; later encoding calls are a programmer's error. Called by `encodedData`.
    public func finishEncoding() {
        finished = true
    }

    /// The archive, serialised in `outputFormat` (ends encoding first).
    /// Empty when writing failed; the error is then in `error`.
    public var encodedData: Data {
        finishEncoding()
        var archive = archiver.archive
        for (key, value) in topLevelValues { archive.top[key] = value }
        for reference in conditionalReferences {
            guard let index = instanceIndices[ObjectIdentifier(reference.target)] else { continue }
            if let holder = reference.holder {
                guard case .dictionary(var fields) = archive.objects[holder] else { continue }
                fields[reference.key] = .uid(UInt64(index))
                archive.objects[holder] = .dictionary(fields)
            } else {
                archive.top[reference.key] = .uid(UInt64(index))
            }
        }
        do {
            return Data(try KeyedArchiveWriter(format: outputFormat).encode(archive))
        } catch {
            failWithError(error)
            return Data()
        }
    }

    /// Encodes `object` under `key`; see `ArchiveCoder.encode(_:forKey:)`. A failure is recorded in `error`.
    override public func encode(_ object: Any?, forKey key: String) {
        precondition(!finished, "encoding into an KeyedObjectArchiver after finishEncoding()")
        guard error == nil else { return }
        do {
            try encode(node: object.map(node(for:)), forKey: key)
        } catch {
            failWithError(error)
        }
    }

    /// Encodes a reference to `object` under `key` that is kept only if
    /// `object` is encoded unconditionally somewhere in the archive, before
    /// or after; otherwise `$null` (`encodeConditionalObject:forKey:`). For a
    /// value that is not an `ArchiveCoding` instance, as `encode(_:forKey:)`.
    override public func encodeConditionalObject(_ object: Any?, forKey key: String) {
        guard let target = object as? any ArchiveCoding else { return encode(object, forKey: key) }
        precondition(!finished, "encoding into an KeyedObjectArchiver after finishEncoding()")
        if fieldRecordings.isEmpty {
            topLevelValues.append((key, .uid(0)))
            conditionalReferences.append((nil, key, target))
        } else {
            fieldRecordings[fieldRecordings.count - 1].append(.conditional(key: key, target: target))
        }
    }

    /// Encodes an integer under `key` (`encodeInteger:forKey:`).
    override public func encode(_ value: Int, forKey key: String) { encodePlain(.integer(PropertyListInteger(value)), forKey: key) }
    /// Encodes a 32-bit integer under `key` (`encodeInt32:forKey:`).
    override public func encode(_ value: Int32, forKey key: String) { encodePlain(.integer(PropertyListInteger(Int64(value))), forKey: key) }
    /// Encodes a 64-bit integer under `key` (`encodeInt64:forKey:`).
    override public func encode(_ value: Int64, forKey key: String) { encodePlain(.integer(PropertyListInteger(value)), forKey: key) }
    /// Encodes a boolean under `key` (`encodeBool:forKey:`).
    override public func encode(_ value: Bool, forKey key: String) { encodePlain(.bool(value), forKey: key) }
    /// Encodes a 64-bit real under `key` (`encodeDouble:forKey:`).
    override public func encode(_ value: Double, forKey key: String) { encodePlain(.real(value), forKey: key) }
    /// Encodes a 32-bit real under `key` (`encodeFloat:forKey:`).
    override public func encode(_ value: Float, forKey key: String) { encodePlain(.real32(value), forKey: key) }

    private func encodePlain(_ value: PropertyListValue, forKey key: String) {
        precondition(!finished, "encoding into an KeyedObjectArchiver after finishEncoding()")
        if fieldRecordings.isEmpty {
            topLevelValues.append((key, value))
        } else {
            fieldRecordings[fieldRecordings.count - 1].append(.plain(key: key, value: value))
        }
    }

    /// Encodes a node (nil as `$null`) under `key` of the object being encoded, or of `$top`.
    func encode(node: EncodedNode?, forKey key: String) throws(KeyedArchiveError) {
        if fieldRecordings.isEmpty {
            try archiver.encodeTopLevelObject(node, forKey: key)
        } else {
            fieldRecordings[fieldRecordings.count - 1].append(.object(key: key, node: node))
        }
    }

    /// Runs `object.encode(with:)` for the object at `index` of `$objects`
    /// and returns the fields it encoded, in order.
    ///
    /// - Throws: a `.unsupportedValue` error when the object (or one it
    ///   holds) failed; the cause is in `error`.
    func recordFields(of object: any ArchiveCoding, at index: Int) throws(KeyedArchiveError) -> [EncodedField] {
        instanceIndices[ObjectIdentifier(object)] = index
        fieldRecordings.append([])
        object.encode(with: self)
        let fields = fieldRecordings.removeLast()
        if error != nil {
            throw KeyedArchiveError(.unsupportedValue, at: [], "\(type(of: object)) could not be encoded")
        }
        for case .conditional(let key, let target) in fields {
            conditionalReferences.append((index, key, target))
        }
        return fields
    }

    /// The node standing for `value` (one per `ArchiveCoding` instance).
    ///
    /// - Throws: `.unsupportedValue` for a value of no archivable type, or
    ///   a class that does not support secure coding when that is required.
    func node(for value: Any) throws(KeyedArchiveError) -> EncodedNode {
        if let object = value as? any ArchiveCoding {
            if let known = nodesByInstance[ObjectIdentifier(object)] { return known }
            if requiresSecureCoding {
                guard let secure = type(of: object) as? any ArchiveSecureCoding.Type, secure.supportsSecureCoding else {
                    throw KeyedArchiveError(
                        .unsupportedValue, at: [],
                        "class \(archivedName(of: type(of: object))) does not support secure coding, which this archiver requires")
                }
            }
            let made = EncodedNode(archiver: self, content: .object(object), chain: archivedClassChain(of: type(of: object)))
            nodesByInstance[ObjectIdentifier(object)] = made
            return keep(made)
        }
        if let builtIn = EncodedNode.builtInValue(value) {
            return keep(EncodedNode(archiver: self, content: .value(builtIn), chain: builtIn.archivedClassChain))
        }
        switch value {
        case let array as [Any]:
            return keep(EncodedNode(archiver: self, content: .array(try array.map(node(for:))), chain: ["NSArray", "NSObject"]))
        case let set as Set<AnyHashable>:
            return keep(
                EncodedNode(
                    archiver: self, content: .array(try set.map { (element) throws(KeyedArchiveError) in try node(for: element.base) }),
                    chain: ["NSSet", "NSObject"]))
        case let dictionary as [AnyHashable: Any]:
            var keys: [EncodedNode] = []
            var values: [EncodedNode] = []
            for (key, value) in dictionary {
                keys.append(try node(for: key.base))
                values.append(try node(for: value))
            }
            return keep(EncodedNode(archiver: self, content: .dictionary(keys: keys, values: values), chain: ["NSDictionary", "NSObject"]))
        default:
            throw KeyedArchiveError(
                .unsupportedValue, at: [],
                "a value of type \(type(of: value)) cannot be archived: it is not ArchiveCoding nor a property-list value")
        }
    }

    /// The node for a property-list value: dictionaries and arrays as
    /// `NSMutableDictionary` and `NSMutableArray`, as the property-list
    /// encoder behind Foundation's `encodeEncodable(_:forKey:)` makes them.
    func node(forPropertyList value: PropertyListValue) -> EncodedNode {
        switch value {
        case .array(let elements):
            return keep(
                EncodedNode(
                    archiver: self, content: .array(elements.map(node(forPropertyList:))),
                    chain: ["NSMutableArray", "NSArray", "NSObject"]))
        case .dictionary(let entries):
            return keep(
                EncodedNode(
                    archiver: self,
                    content: .dictionary(
                        keys: entries.keys.map { node(forPropertyList: .string($0)) },
                        values: entries.values.map(node(forPropertyList:))),
                    chain: ["NSMutableDictionary", "NSDictionary", "NSObject"]))
        case .string(let string): return keep(EncodedNode(archiver: self, content: .value(.string(string)), chain: ["NSString", "NSObject"]))
        case .data(let data): return keep(EncodedNode(archiver: self, content: .value(.data(data)), chain: ["NSData", "NSObject"]))
        case .date(let date): return keep(EncodedNode(archiver: self, content: .value(.date(date)), chain: ["NSDate", "NSObject"]))
        case .integer, .real, .real32, .bool:
            guard let number = ArchivedNumber(value) else { preconditionFailure("\(value) is a number") }
            return keep(EncodedNode(archiver: self, content: .value(number.archivedValue), chain: ["NSNumber", "NSValue", "NSObject"]))
        case .uid:
            preconditionFailure("a property-list encoder writes no UID")
        }
    }

    private func keep(_ node: EncodedNode) -> EncodedNode {
        nodes.append(node)
        return node
    }
}

/// One field an object's `encode(with:)` wrote.
enum EncodedField {
    case plain(key: String, value: PropertyListValue)
    case object(key: String, node: EncodedNode?)
    /// A conditional reference: `$null` until `encodedData` finds the target encoded.
    case conditional(key: String, target: any ArchiveCoding)
}

/// An object to be written: an `ArchiveCoding` instance, a Foundation value or a
/// collection. A class, so that `KeyedArchiver` stores an instance encoded
/// twice once (it dedupes class instances by identity).
final class EncodedNode: KeyedArchiveEncodable {
    enum Content {
        case value(ArchivedValue)
        case object(any ArchiveCoding)
        case array([EncodedNode])
        case dictionary(keys: [EncodedNode], values: [EncodedNode])
    }

    unowned let archiver: KeyedObjectArchiver
    let content: Content
    let archivedClassChain: [String]

    init(archiver: KeyedObjectArchiver, content: Content, chain: [String]) {
        self.archiver = archiver
        self.content = content
        archivedClassChain = chain
    }

    func encode(to encoder: inout KeyedArchiveEncoder) throws(KeyedArchiveError) {
        switch content {
        case .value(let value):
            try value.encode(to: &encoder)
        case .object(let object):
            for field in try archiver.recordFields(of: object, at: encoder.objectIndex) {
                switch field {
                case .plain(let key, let value): encoder.encodeRaw(value, forKey: key)
                case .object(let key, let node): try encoder.encode(node, forKey: key)
                case .conditional(let key, _): encoder.encodeRaw(.uid(0), forKey: key)
                }
            }
        case .array(let elements):
            try encoder.encodeReferences(elements, forKey: "NS.objects")
        case .dictionary(let keys, let values):
            try encoder.encodeReferences(keys, forKey: "NS.keys")
            try encoder.encodeReferences(values, forKey: "NS.objects")
        }
    }

    /// The `ArchivedValue` for a Foundation value that is not a collection;
    /// nil for anything else.
    static func builtInValue(_ value: Any) -> ArchivedValue? {
        switch value {
        case let string as String: .string(string)
        case let data as Data: .data(data)
        case let date as Date: .date(date)
        case let uuid as UUID: .uuid(uuid)
        case let url as URL: .url(relative: url.relativeString, base: url.baseURL?.absoluteString)
        case is ArchivedNull: .nsNull
        case let number as ArchivedNumber: number.archivedValue
        case let flag as Bool: .bool(flag)
        case let integer as Int: .integer(PropertyListInteger(integer))
        case let integer as Int32: .integer(PropertyListInteger(Int64(integer)))
        case let integer as Int64: .integer(PropertyListInteger(integer))
        case let real as Double: .real(real)
        case let real as Float: .real32(real)
        default: nil
        }
    }
}

extension ArchivedNumber {
    /// The number as an `ArchivedValue`.
    var archivedValue: ArchivedValue {
        switch storage {
        case .integer(let integer): .integer(integer)
        case .real(let real): .real(real)
        case .real32(let real): .real32(real)
        case .bool(let flag): .bool(flag)
        }
    }
}
