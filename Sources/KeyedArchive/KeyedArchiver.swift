import OrderedCollections
import PropertyList

/// A type encoded into a keyed archive: it names its archived class chain
/// and writes its fields into a `KeyedArchiveEncoder`.
public protocol KeyedArchiveEncodable {
    /// The archived class and its superclasses, most derived first
    /// (`["CTMetadata", "NSObject"]`). Ignored for a value that stores itself
    /// plainly with `encodeStoredValue(_:)`.
    var archivedClassChain: [String] { get }

    /// Encodes this value's fields.
    ///
    /// - Throws: `KeyedArchiveError` for a value that cannot be archived.
    func encode(to encoder: inout KeyedArchiveEncoder) throws(KeyedArchiveError)
}

/// A type that is both decoded from and encoded into keyed archives.
public typealias KeyedArchiveCodable = KeyedArchiveDecodable & KeyedArchiveEncodable

/// Builds a keyed archive from typed objects, numbering objects as
/// `NSKeyedArchiver` does: an object gets its index when first encoded,
/// before its fields; its class description is added after its fields, once
/// per class chain. Class instances (reference types) encoded twice are
/// stored once and referred to twice, so shared objects and cycles survive.
public struct KeyedArchiver {
    private let state = KeyedArchiveEncodingState()

    /// Makes an empty archiver.
    public init() {}

    /// Encodes `object` under `key` of `$top` (`root`, `DATA`).
    ///
    /// - Throws: what the object's `encode(to:)` throws.
    public mutating func encodeTopLevelObject<T: KeyedArchiveEncodable>(_ object: T?, forKey key: String = "root") throws(KeyedArchiveError) {
        state.top[key] = .uid(UInt64(try state.encode(object)))
    }

    /// The archive built so far.
    public var archive: KeyedArchiveObjectGraph {
        KeyedArchiveObjectGraph(top: state.top, objects: state.objects)
    }

    /// The archive built so far, serialised.
    ///
    /// - Throws: `KeyedArchiveError` from `KeyedArchiveWriter`.
    public func encodedArchive(format: KeyedArchiveWriter.Format = .binary) throws(KeyedArchiveError) -> [UInt8] {
        try KeyedArchiveWriter(format: format).encode(archive)
    }

    /// Archives `object` under `$top.key` in one step.
    ///
    /// - Throws: what the object's `encode(to:)` or the writer throws.
    public static func archive<T: KeyedArchiveEncodable>(
        _ object: T, forKey key: String = "root",
        format: KeyedArchiveWriter.Format = .binary
    ) throws(KeyedArchiveError) -> [UInt8] {
        var archiver = KeyedArchiver()
        try archiver.encodeTopLevelObject(object, forKey: key)
        return try archiver.encodedArchive(format: format)
    }
}

/// The objects and classes of one archive being built.
final class KeyedArchiveEncodingState {
    var top = OrderedDictionary<String, PropertyListValue>()
    var objects: [PropertyListValue] = [.string("$null")]
    private var classIndices: [[String]: Int] = [:]
    private var instanceIndices: [ObjectIdentifier: Int] = [:]

    /// Encodes `object` (or `$null`) and returns its index.
    func encode<T: KeyedArchiveEncodable>(_ object: T?) throws(KeyedArchiveError) -> Int {
        guard let object else { return 0 }
        if let value = object as? ArchivedValue, value == .null { return 0 }
        var identity: ObjectIdentifier?
        if type(of: object as Any) is AnyClass {
            let key = ObjectIdentifier(object as AnyObject)
            if let known = instanceIndices[key] { return known }
            identity = key
        }
        let index = objects.count
        objects.append(.string("$null"))
        if let identity { instanceIndices[identity] = index }
        var encoder = KeyedArchiveEncoder(state: self, objectIndex: index)
        try object.encode(to: &encoder)
        if let stored = encoder.storedValue {
            objects[index] = stored
        } else {
            var fields = encoder.fields
            fields["$class"] = .uid(UInt64(classIndex(object.archivedClassChain)))
            objects[index] = .dictionary(fields)
        }
        return index
    }

    private func classIndex(_ chain: [String]) -> Int {
        if let known = classIndices[chain] { return known }
        precondition(!chain.isEmpty, "an archived class chain names at least the class itself")
        objects.append(.dictionary(["$classname": .string(chain[0]), "$classes": .array(chain.map(PropertyListValue.string))]))
        classIndices[chain] = objects.count - 1
        return objects.count - 1
    }
}

/// Collects the fields of one object, for a `KeyedArchiveEncodable` type's `encode(to:)`.
public struct KeyedArchiveEncoder {
    let state: KeyedArchiveEncodingState
    /// The index in `$objects` of the object whose fields this encoder collects.
    public let objectIndex: Int
    var fields = OrderedDictionary<String, PropertyListValue>()
    fileprivate(set) var storedValue: PropertyListValue?

    fileprivate init(state: KeyedArchiveEncodingState, objectIndex: Int) {
        self.state = state
        self.objectIndex = objectIndex
    }

    /// Stores the object as a plain value instead of a keyed instance, as
    /// `NSKeyedArchiver` stores `NSString`, `NSData` and `NSNumber`: a string,
    /// data, integer, real or boolean.
    ///
    /// Anything else (an array, dictionary or UID) is a programmer's error.
    public mutating func encodeStoredValue(_ value: PropertyListValue) {
        switch value {
        case .array, .dictionary, .uid: preconditionFailure("only scalars are stored plainly in $objects")
        default: storedValue = value
        }
    }

    /// Stores an integer (`encodeInt:forKey:`).
    public mutating func encode(_ value: Int, forKey key: String) { fields[key] = .integer(PropertyListInteger(value)) }
    /// Stores an integer (`encodeInt64:forKey:`).
    public mutating func encode(_ value: Int64, forKey key: String) { fields[key] = .integer(PropertyListInteger(value)) }
    /// Stores a boolean (`encodeBool:forKey:`).
    public mutating func encode(_ value: Bool, forKey key: String) { fields[key] = .bool(value) }
    /// Stores a 64-bit real (`encodeDouble:forKey:`).
    public mutating func encode(_ value: Double, forKey key: String) { fields[key] = .real(value) }
    /// Stores a 32-bit real (`encodeFloat:forKey:`).
    public mutating func encode(_ value: Float, forKey key: String) { fields[key] = .real32(value) }
    /// Stores a plain value in the object itself (`NS.time`, `NS.uuidbytes`).
    public mutating func encodeRaw(_ value: PropertyListValue, forKey key: String) { fields[key] = value }

    /// Encodes `object` as its own archived object and stores a reference to
    /// it (`$null` for nil), as `encodeObject:forKey:`.
    ///
    /// - Throws: what the object's `encode(to:)` throws.
    public mutating func encode<T: KeyedArchiveEncodable>(_ object: T?, forKey key: String) throws(KeyedArchiveError) {
        fields[key] = .uid(UInt64(try state.encode(object)))
    }

    /// Encodes each element as its own object and stores the array of
    /// references (`NS.objects`).
    ///
    /// - Throws: what an element's `encode(to:)` throws.
    public mutating func encodeReferences<T: KeyedArchiveEncodable>(_ objects: [T], forKey key: String) throws(KeyedArchiveError) {
        var references: [PropertyListValue] = []
        references.reserveCapacity(objects.count)
        for object in objects {
            references.append(.uid(UInt64(try state.encode(object))))
        }
        fields[key] = .array(references)
    }
}
