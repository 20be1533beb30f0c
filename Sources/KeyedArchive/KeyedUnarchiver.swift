import OrderedCollections
import PropertyList

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A type decoded from a keyed archive: it names the archived classes it
/// decodes from and reads its fields from a `KeyedArchiveDecoder`.
///
/// Only objects of `archivedClassNames` decode as this type, so decoding
/// with `decodeObject(of:forKey:)` is secure decoding: any other class in
/// the file is an error naming the class, the key path and the object index.
public protocol KeyedArchiveDecodable {
    /// The archived class names this type accepts (`["CTMetadata"]`,
    /// `["NSString", "NSMutableString"]`). Plain values stored in `$objects`
    /// count as `NSString`, `NSData`, `NSNumber` or `NSDate`.
    static var archivedClassNames: Set<String> { get }

    /// Decodes one object.
    ///
    /// - Throws: `KeyedArchiveError`, with the decoder's key path.
    init(from decoder: inout KeyedArchiveDecoder) throws(KeyedArchiveError)
}

/// Decodes typed objects from a checked keyed archive.
public struct KeyedUnarchiver: Sendable {
    /// The archive decoded from.
    public let archive: KeyedArchiveObjectGraph
    /// The limits applied while decoding.
    public var limits: KeyedArchiveLimits

    /// Makes an unarchiver over an archive already read.
    public init(archive: KeyedArchiveObjectGraph, limits: KeyedArchiveLimits = .default) {
        self.archive = archive
        self.limits = limits
    }

    /// Reads the archive in `bytes` (binary or XML) and makes an unarchiver over it.
    ///
    /// - Throws: `KeyedArchiveError` from `KeyedArchiveReader`.
    public init(bytes: [UInt8], limits: KeyedArchiveLimits = .default) throws(KeyedArchiveError) {
        self.init(archive: try KeyedArchiveReader(limits: limits).read(bytes), limits: limits)
    }

    /// Decodes the top-level object under `key` (`root` for
    /// `archivedData(withRootObject:)`, `DATA` in `.ict` entries) as `type`.
    ///
    /// - Returns: nil when `$top` holds `$null` there.
    /// - Throws: `KeyedArchiveError` with code `.missingValue` (with key path
    ///   `$top.key`) when `$top` has no such key, `.disallowedClass` when the
    ///   object's class is not one of `type`'s, or what `type` throws.
    public func decodeTopLevelObject<T: KeyedArchiveDecodable>(of type: T.Type, forKey key: String = "root") throws(KeyedArchiveError) -> T? {
        guard let value = archive.top[key] else {
            throw KeyedArchiveError(.missingValue, at: .top(key), "$top has no key \"\(key)\"")
        }
        let context = KeyedArchiveDecodingContext(archive: archive, maximumDepth: limits.maximumDepth)
        return try context.decode(type, from: value, path: .top(key), depth: 0)
    }

    /// A decoder whose fields are `$top`'s keys, so top-level values and
    /// objects are read as the fields of one object (key paths `$top.key`).
    /// Absent keys read as zero or nil, as for any object's fields.
    public func topLevelDecoder() -> KeyedArchiveDecoder {
        let context = KeyedArchiveDecodingContext(archive: archive, maximumDepth: limits.maximumDepth)
        return KeyedArchiveDecoder(
            context: context, index: nil, className: "$top", classChain: [], fields: archive.top,
            storedValue: nil, keyPath: [.key("$top")], depth: -1)
    }
}

/// The state shared by the decoders of one decoding: which objects are being decoded (to catch cycles).
final class KeyedArchiveDecodingContext {
    let archive: KeyedArchiveObjectGraph
    let maximumDepth: Int
    private var inProgress: Set<Int> = []

    init(archive: KeyedArchiveObjectGraph, maximumDepth: Int) {
        self.archive = archive
        self.maximumDepth = maximumDepth
    }

    func decode<T: KeyedArchiveDecodable>(_ type: T.Type, from value: PropertyListValue, path: PropertyListKeyPath, depth: Int) throws(KeyedArchiveError) -> T?
    {
        try decode(from: value, path: path, depth: depth) { (decoder) throws(KeyedArchiveError) -> T in try Self.decodeChecked(&decoder) }
    }

    /// Decodes the object as `T` when its class is one of `T`'s.
    static func decodeChecked<T: KeyedArchiveDecodable>(_ decoder: inout KeyedArchiveDecoder) throws(KeyedArchiveError) -> T {
        guard T.archivedClassNames.contains(decoder.className) else {
            throw KeyedArchiveError(
                .disallowedClass, at: decoder.keyPath, object: decoder.objectIndex,
                "class \(decoder.className) is not allowed here (expected \(T.archivedClassNames.sorted().joined(separator: " or ")))")
        }
        return try T(from: &decoder)
    }

    /// Resolves the reference `value` and hands the object's decoder to
    /// `body`, which checks the class and decodes; nil for `$null`.
    func decode<T>(
        from value: PropertyListValue, path: PropertyListKeyPath, depth: Int,
        _ body: (inout KeyedArchiveDecoder) throws(KeyedArchiveError) -> T
    ) throws(KeyedArchiveError) -> T? {
        guard case .uid(let uid) = value else {
            throw KeyedArchiveError(.invalidObject, at: path, "\(value.kindNameWithArticle) where a reference to an object belongs")
        }
        guard uid < UInt64(archive.objects.count) else {
            throw KeyedArchiveError(.danglingReference, at: path, "UID \(uid) refers past the \(archive.objects.count) objects")
        }
        let index = Int(uid)
        if index == 0 { return nil }
        guard depth < maximumDepth else {
            throw KeyedArchiveError(.depthLimitExceeded, at: path, object: index, "objects nest more than \(maximumDepth) deep")
        }
        guard !inProgress.contains(index) else {
            throw KeyedArchiveError(.cycle, at: path, object: index, "object \(index) refers back to itself through its fields")
        }
        var decoder: KeyedArchiveDecoder
        switch archive.object(at: index) {
        case .null: return nil
        case .value(let stored):
            decoder = KeyedArchiveDecoder(
                context: self, index: index, className: ArchivedValueDecoder.impliedClassName(stored),
                classChain: [], fields: [:], storedValue: stored, keyPath: path, depth: depth)
        case .instance(let instance):
            decoder = KeyedArchiveDecoder(
                context: self, index: index, className: instance.classDescription.name,
                classChain: instance.classDescription.chain, fields: instance.fields,
                storedValue: nil, keyPath: path, depth: depth)
        case .classDescription:
            throw KeyedArchiveError(.invalidClass, at: path, object: index, "a reference to a class description where an object belongs")
        }
        inProgress.insert(index)
        defer { inProgress.remove(index) }
        return try body(&decoder)
    }
}

/// Reads the fields of one archived object, for a `KeyedArchiveDecodable`
/// type's `init(from:)`. Missing numeric fields read as zero and missing
/// objects as nil, as `NSKeyedUnarchiver` reads them; a field of the wrong
/// kind is an error with its key path.
public struct KeyedArchiveDecoder {
    let context: KeyedArchiveDecodingContext
    /// The object's index in `$objects`; 0 for the decoder over `$top`.
    public var objectIndex: Int { index ?? 0 }
    let index: Int?
    /// The archived class name (`NSString` etc. for a plain stored value).
    public let className: String
    /// The archived class chain, most derived first (empty for a plain stored value).
    public let classChain: [String]
    /// The object's fields without `$class`, as stored; UIDs are references.
    public let fields: OrderedDictionary<String, PropertyListValue>
    /// The value itself when the object is stored plainly (a string, data, number), else nil.
    public let storedValue: PropertyListValue?
    /// The key path from `$top` to this object.
    public let keyPath: PropertyListKeyPath
    private let depth: Int

    init(
        context: KeyedArchiveDecodingContext, index: Int?, className: String, classChain: [String],
        fields: OrderedDictionary<String, PropertyListValue>, storedValue: PropertyListValue?, keyPath: PropertyListKeyPath, depth: Int
    ) {
        self.context = context
        self.index = index
        self.className = className
        self.classChain = classChain
        self.fields = fields
        self.storedValue = storedValue
        self.keyPath = keyPath
        self.depth = depth
    }

    /// True when the object has a field `key`.
    public func containsValue(forKey key: String) -> Bool { fields[key] != nil }

    /// An error with `code` at `key` of this object, for decoders' own checks.
    public func error(_ code: KeyedArchiveError.Code, forKey key: String?, _ message: String) -> KeyedArchiveError {
        KeyedArchiveError(code, at: key.map { keyPath.appending(.key($0)) } ?? keyPath, object: index, message)
    }

    /// The integer at `key` (`encodeInt:forKey:`); 0 when absent.
    ///
    /// - Throws: `.invalidObject` when the field is not an integer that fits `Int`.
    public func decodeInt(forKey key: String) throws(KeyedArchiveError) -> Int {
        Int(try decodeInt64(forKey: key))
    }

    /// The integer at `key` as `Int32`; 0 when absent.
    ///
    /// - Throws: `.invalidObject` when the field is not an integer that fits `Int32`.
    public func decodeInt32(forKey key: String) throws(KeyedArchiveError) -> Int32 {
        let value = try decodeInt64(forKey: key)
        guard let narrow = Int32(exactly: value) else { throw error(.invalidObject, forKey: key, "\(value) does not fit a 32-bit integer") }
        return narrow
    }

    /// The integer at `key` as `Int64`; 0 when absent.
    ///
    /// - Throws: `.invalidObject` when the field is not an integer in `Int64`'s range.
    public func decodeInt64(forKey key: String) throws(KeyedArchiveError) -> Int64 {
        switch fields[key] {
        case nil: return 0
        case .integer(let integer)?:
            guard let value = integer.int64Value else { throw error(.invalidObject, forKey: key, "\(integer) does not fit a 64-bit integer") }
            return value
        case .bool(let flag)?: return flag ? 1 : 0
        case let other?: throw error(.invalidObject, forKey: key, "\(other.kindNameWithArticle) where an integer belongs")
        }
    }

    /// The boolean at `key` (`encodeBool:forKey:`); false when absent.
    ///
    /// - Throws: `.invalidObject` when the field is neither a boolean nor an integer.
    public func decodeBool(forKey key: String) throws(KeyedArchiveError) -> Bool {
        switch fields[key] {
        case nil: return false
        case .bool(let flag)?: return flag
        case .integer(let integer)?: return integer != 0
        case let other?: throw error(.invalidObject, forKey: key, "\(other.kindNameWithArticle) where a boolean belongs")
        }
    }

    /// The real at `key` (`encodeDouble:forKey:`, also a 32-bit real or an integer); 0 when absent.
    ///
    /// - Throws: `.invalidObject` when the field is not a number.
    public func decodeDouble(forKey key: String) throws(KeyedArchiveError) -> Double {
        switch fields[key] {
        case nil: return 0
        case .real(let real)?: return real
        case .real32(let real)?: return Double(real)
        case .integer(let integer)?:
            if let signed = integer.int64Value { return Double(signed) }
            return Double(integer.bitPattern)
        case let other?: throw error(.invalidObject, forKey: key, "\(other.kindNameWithArticle) where a real belongs")
        }
    }

    /// The real at `key` as `Float`; 0 when absent.
    ///
    /// - Throws: `.invalidObject` when the field is not a number.
    public func decodeFloat(forKey key: String) throws(KeyedArchiveError) -> Float {
        Float(try decodeDouble(forKey: key))
    }

    /// The object at `key`, decoded as `type` (secure decoding: its class
    /// must be one of `type.archivedClassNames`).
    ///
    /// - Returns: nil when the field is absent or `$null`.
    /// - Throws: `.disallowedClass` naming the class, key path and object
    ///   index; `.cycle` when the object is one being decoded; what `type` throws.
    public func decodeObject<T: KeyedArchiveDecodable>(of type: T.Type, forKey key: String) throws(KeyedArchiveError) -> T? {
        guard let value = fields[key] else { return nil }
        return try context.decode(type, from: value, path: keyPath.appending(.key(key)), depth: depth + 1)
    }

    /// The object at `key`, handed to `body` with its own decoder (whose
    /// `className` and `classChain` say what it is); `body` checks the class
    /// and decodes. For callers whose allowed classes are known only at run
    /// time; `decodeObject(of:forKey:)` is this with `type`'s class check.
    ///
    /// - Returns: nil when the field is absent or `$null`.
    /// - Throws: `.invalidObject`, `.danglingReference`, `.cycle` or
    ///   `.depthLimitExceeded` for a bad reference, with the key path; what `body` throws.
    public func decodeObject<T>(forKey key: String, using body: (inout KeyedArchiveDecoder) throws(KeyedArchiveError) -> T) throws(KeyedArchiveError) -> T? {
        guard let value = fields[key] else { return nil }
        return try context.decode(from: value, path: keyPath.appending(.key(key)), depth: depth + 1, body)
    }

    /// The objects referred to by the array of UIDs at `key` (`NS.objects`),
    /// each handed to `body` with its own decoder, as `decodeObject(forKey:using:)`.
    ///
    /// - Returns: nil when the field is absent.
    /// - Throws: `.invalidObject` when the field is not an array of UIDs or an
    ///   element is `$null`; errors of `decodeObject(forKey:using:)`.
    public func decodeReferences<T>(forKey key: String, using body: (inout KeyedArchiveDecoder) throws(KeyedArchiveError) -> T) throws(KeyedArchiveError)
        -> [T]?
    {
        guard let value = fields[key] else { return nil }
        guard case .array(let references) = value else {
            throw error(.invalidObject, forKey: key, "\(value.kindNameWithArticle) where an array of references belongs")
        }
        var result: [T] = []
        result.reserveCapacity(references.count)
        let path = keyPath.appending(.key(key))
        for (position, reference) in references.enumerated() {
            guard let element = try context.decode(from: reference, path: path.appending(.index(position)), depth: depth + 1, body) else {
                throw KeyedArchiveError(.invalidObject, at: path.appending(.index(position)), object: index, "$null inside a collection")
            }
            result.append(element)
        }
        return result
    }

    /// The objects referred to by the array of UIDs at `key` (`NS.objects`), each decoded as `type`.
    ///
    /// - Returns: nil when the field is absent.
    /// - Throws: `.invalidObject` when the field is not an array of UIDs or an
    ///   element is `$null`; errors of `decodeObject(of:forKey:)`.
    public func decodeReferences<T: KeyedArchiveDecodable>(of type: T.Type, forKey key: String) throws(KeyedArchiveError) -> [T]? {
        try decodeReferences(forKey: key) { (decoder) throws(KeyedArchiveError) -> T in try KeyedArchiveDecodingContext.decodeChecked(&decoder) }
    }

    /// The object at `key` with its whole graph as an `ArchivedValue`.
    ///
    /// - Parameters:
    ///   - key: the object's field.
    ///   - allowedClassNames: the classes that may occur; the built-ins by default.
    /// - Returns: nil when the field is absent.
    /// - Throws: errors of `KeyedArchiveObjectGraph.decodeValue(forTopKey:allowedClassNames:limits:)`.
    public func decodeValue(forKey key: String, allowedClassNames: Set<String>? = ArchivedValue.builtInClassNames) throws(KeyedArchiveError) -> ArchivedValue? {
        guard let value = fields[key] else { return nil }
        var decoder = ArchivedValueDecoder(archive: context.archive, allowedClassNames: allowedClassNames, maximumDepth: context.maximumDepth)
        return try decoder.decodeField(value, path: keyPath.appending(.key(key)), depth: depth + 1)
    }
}
