import KeyedArchive
import PropertyList

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads objects from an `NSKeyedArchiver` archive through `ArchiveCoding`'s
/// `init?(coder:)` (Foundation's `NSKeyedUnarchiver`). Foundation's classes
/// decode as Swift values: `NSString` as `String`, `NSData` as `Data`,
/// `NSDate` as `Date`, `NSUUID` as `UUID`, `NSURL` as `URL`, `NSNumber` as
/// `ArchivedNumber`, `NSNull` as `ArchivedNull`,
/// `NSArray` as `[Any]`, `NSDictionary` as `[AnyHashable: Any]`, `NSSet` as
/// `Set<AnyHashable>` (and their mutable subclasses likewise). Other classes
/// decode as the `ArchiveCoding` class mapped to their name (`setClass(_:forClassName:)`)
/// or named in the allowed types; an archived class nobody maps is read as the
/// first class of its `$classes` chain that is known.
///
/// Errors are `KeyedArchiveError`s naming the key path from `$top`
/// (`$top.DATA.FIRST_NAME`) and the object index. An object that refers back
/// to itself through its fields is a `.cycle` error (a Swift initialiser
/// cannot hand out the object it is making); an instance referred to twice
/// decodes once.
public final class KeyedObjectUnarchiver: ArchiveCoder {
    /// A Foundation class that decodes as a Swift value.
    enum FoundationClass: CaseIterable {
        case string, data, date, uuid, url, number, null, array, dictionary, set

        /// The archived names of the class and its mutable subclass.
        var archivedNames: [String] {
            switch self {
            case .string: ["NSString", "NSMutableString"]
            case .data: ["NSData", "NSMutableData"]
            case .date: ["NSDate"]
            case .uuid: ["NSUUID"]
            case .url: ["NSURL"]
            case .number: ["NSNumber"]
            case .null: ["NSNull"]
            case .array: ["NSArray", "NSMutableArray"]
            case .dictionary: ["NSDictionary", "NSMutableDictionary"]
            case .set: ["NSSet", "NSMutableSet"]
            }
        }

        static let byArchivedName: [String: FoundationClass] = Dictionary(
            uniqueKeysWithValues: allCases.flatMap { kind in kind.archivedNames.map { ($0, kind) } })

        /// The class a Swift type stands for in an allow-list; nil for other types.
        init?(standingFor type: Any.Type) {
            switch type {
            case is String.Type: self = .string
            case is Data.Type: self = .data
            case is Date.Type: self = .date
            case is UUID.Type: self = .uuid
            case is URL.Type: self = .url
            case is ArchivedNumber.Type: self = .number
            case is ArchivedNull.Type: self = .null
            case is [Any].Type: self = .array
            case is [AnyHashable: Any].Type: self = .dictionary
            case is Set<AnyHashable>.Type: self = .set
            default: return nil
            }
        }
    }

    /// The classes a decoding call allows (where an `AllowedClasses?` is nil, any class the unarchiver resolves).
    struct AllowedClasses {
        var foundation: Set<FoundationClass>
        var classes: [any ArchiveCoding.Type]
        var names: String

        init(_ types: [Any.Type]) {
            foundation = []
            classes = []
            for type in types {
                if let kind = FoundationClass(standingFor: type) {
                    foundation.insert(kind)
                } else if let codingClass = type as? any ArchiveCoding.Type {
                    classes.append(codingClass)
                } else {
                    preconditionFailure("\(type) is neither an ArchiveCoding class nor a type standing for a Foundation class")
                }
            }
            names = types.map { FoundationClass(standingFor: $0)?.archivedNames[0] ?? "\($0)" }.joined(separator: " or ")
        }
    }

    /// What an archived object resolved to.
    enum ResolvedClass {
        case foundation(FoundationClass)
        case coding(any ArchiveCoding.Type)
    }

    private let unarchiver: KeyedUnarchiver
    /// The decoders of the objects whose `init?(coder:)` is running, innermost last; first, `$top`'s.
    private var decoders: [KeyedArchiveDecoder]
    /// The classes the innermost typed call allowed (what `decodeObject(forKey:)` allows with secure coding).
    private var allowedStack: [AllowedClasses?] = [nil]
    /// Instances decoded, by object index, so that an instance referred to twice decodes once.
    private var instances: [Int: any ArchiveCoding] = [:]
    private var classesByName: [String: any ArchiveCoding.Type] = [:]

    /// Reads the archive in `data` (binary or XML) for secure decoding
    /// (`init(forReadingFrom:)`): `requiresSecureCoding` is true and failures
    /// are recorded in `error`.
    ///
    /// - Throws: `KeyedArchiveError` when `data` is not a well-formed keyed
    ///   archive, with the byte offset or key path of the problem.
    public init(forReadingFrom data: Data, limits: KeyedArchiveLimits = .default) throws(KeyedArchiveError) {
        unarchiver = KeyedUnarchiver(archive: try KeyedArchiveReader(limits: limits).read(data), limits: limits)
        decoders = [unarchiver.topLevelDecoder()]
        super.init(requiresSecureCoding: true)
    }

    /// Decodes the root object (`root`) of `data` as `type`, securely.
    ///
    /// - Returns: nil when the root is `$null`.
    /// - Throws: `KeyedArchiveError` for a malformed archive, a class that is
    ///   not `type` or does not support secure coding, a field of the wrong
    ///   kind; or the error an `init?(coder:)` passed to `failWithError(_:)`.
    public static func unarchivedObject<T>(ofClass type: T.Type, from data: Data) throws -> T? {
        try unarchivedObject(ofClasses: [type], from: data) as? T
    }

    /// Decodes the root object (`root`) of `data` as one of `types`, securely.
    ///
    /// - Throws: as `unarchivedObject(ofClass:from:)`.
    public static func unarchivedObject(ofClasses types: [Any.Type], from data: Data) throws -> Any? {
        let unarchiver = try KeyedObjectUnarchiver(forReadingFrom: data)
        let object = unarchiver.decodeObject(of: types, forKey: "root")
        if let error = unarchiver.error { throw error }
        return object
    }

    /// Ends decoding (`finishDecoding`); nothing is left to release.
    public func finishDecoding() {}

    // MARK: Class names

    /// Decodes objects archived as `name` as instances of `type` in this
    /// unarchiver (nil removes the mapping).
    public func setClass(_ type: (any ArchiveCoding.Type)?, forClassName name: String) {
        classesByName[name] = type
    }

    /// Decodes objects archived as `name` as instances of `type` in every
    /// unarchiver that does not map the name itself (nil removes the mapping).
    public class func setClass(_ type: (any ArchiveCoding.Type)?, forClassName name: String) {
        ClassNameMapping.shared.setClass(type, forName: name)
    }

    /// The class this unarchiver decodes `name` as, if it maps the name.
    public func `class`(forClassName name: String) -> (any ArchiveCoding.Type)? {
        classesByName[name]
    }

    /// The class every unarchiver decodes `name` as, if it is mapped process-wide.
    public class func `class`(forClassName name: String) -> (any ArchiveCoding.Type)? {
        ClassNameMapping.shared.class(forName: name)
    }

    // MARK: Decoding

    /// The decoder of the object being decoded (`$top`'s outside any `init?(coder:)`).
    var currentDecoder: KeyedArchiveDecoder { decoders[decoders.count - 1] }

    /// True when the object being decoded (or `$top`) has a value under `key`.
    override public func containsValue(forKey key: String) -> Bool {
        currentDecoder.containsValue(forKey: key)
    }

    /// The object under `key`; with `requiresSecureCoding`, only of the classes the enclosing typed call allowed. Failures are recorded in `error`.
    override public func decodeObject(forKey key: String) -> Any? {
        decodeObject(forKey: key, allowed: requiresSecureCoding ? allowedStack[allowedStack.count - 1] ?? AllowedClasses([]) : nil)
    }

    /// The object under `key` if it is a `type`; failures (another class, a bad reference) are recorded in `error`.
    override public func decodeObject<T>(of type: T.Type, forKey key: String) -> T? {
        decodeObject(forKey: key, allowed: AllowedClasses([type])) as? T
    }

    /// The object under `key` if it is one of `types`; failures are recorded in `error`.
    override public func decodeObject(of types: [Any.Type]?, forKey key: String) -> Any? {
        guard let types else { return decodeObject(forKey: key) }
        return decodeObject(forKey: key, allowed: AllowedClasses(types))
    }

    /// The integer under `key`; 0 when absent, or on failure (recorded in `error`).
    override public func decodeInteger(forKey key: String) -> Int {
        decodeScalar(0) { (decoder) throws(KeyedArchiveError) in try decoder.decodeInt(forKey: key) }
    }
    /// The 32-bit integer under `key`; 0 when absent, or on failure (recorded in `error`).
    override public func decodeInt32(forKey key: String) -> Int32 {
        decodeScalar(0) { (decoder) throws(KeyedArchiveError) in try decoder.decodeInt32(forKey: key) }
    }
    /// The 64-bit integer under `key`; 0 when absent, or on failure (recorded in `error`).
    override public func decodeInt64(forKey key: String) -> Int64 {
        decodeScalar(0) { (decoder) throws(KeyedArchiveError) in try decoder.decodeInt64(forKey: key) }
    }
    /// The boolean under `key`; false when absent, or on failure (recorded in `error`).
    override public func decodeBool(forKey key: String) -> Bool {
        decodeScalar(false) { (decoder) throws(KeyedArchiveError) in try decoder.decodeBool(forKey: key) }
    }
    /// The real under `key`; 0 when absent, or on failure (recorded in `error`).
    override public func decodeDouble(forKey key: String) -> Double {
        decodeScalar(0) { (decoder) throws(KeyedArchiveError) in try decoder.decodeDouble(forKey: key) }
    }
    /// The real under `key` as a 32-bit real; 0 when absent, or on failure (recorded in `error`).
    override public func decodeFloat(forKey key: String) -> Float {
        decodeScalar(0) { (decoder) throws(KeyedArchiveError) in try decoder.decodeFloat(forKey: key) }
    }

    private func decodeScalar<T>(_ fallback: T, _ read: (KeyedArchiveDecoder) throws(KeyedArchiveError) -> T) -> T {
        guard error == nil else { return fallback }
        do {
            return try read(currentDecoder)
        } catch {
            failWithError(error)
            return fallback
        }
    }

    /// The object under `key` of the object being decoded; nil `allowed` allows any known class.
    private func decodeObject(forKey key: String, allowed: AllowedClasses?) -> Any? {
        guard error == nil else { return nil }
        do {
            let decoded = try currentDecoder.decodeObject(forKey: key) { (decoder: inout KeyedArchiveDecoder) throws(KeyedArchiveError) -> Any? in
                try decode(&decoder, allowed: allowed)
            }
            return decoded ?? nil
        } catch {
            failWithError(error)
            return nil
        }
    }

    /// Decodes the object `decoder` reads, checking its class against `allowed`.
    private func decode(_ decoder: inout KeyedArchiveDecoder, allowed: AllowedClasses?) throws(KeyedArchiveError) -> Any? {
        switch try resolve(decoder, allowed: allowed) {
        case .foundation(let kind):
            return try decodeFoundation(kind, &decoder, allowed: allowed)
        case .coding(let codingClass):
            if let known = instances[decoder.objectIndex] { return known }
            decoders.append(decoder)
            allowedStack.append(allowed)
            let object = codingClass.init(coder: self)
            decoders.removeLast()
            allowedStack.removeLast()
            guard error == nil, let object else { return nil }
            instances[decoder.objectIndex] = object
            return object
        }
    }

    /// The class an archived object decodes as: the first name of its
    /// `$classes` chain that is mapped, allowed or Foundation's; then checked
    /// against `allowed` and, with `requiresSecureCoding`, for secure coding.
    private func resolve(_ decoder: KeyedArchiveDecoder, allowed: AllowedClasses?) throws(KeyedArchiveError) -> ResolvedClass {
        let chain = decoder.classChain.isEmpty ? [decoder.className] : decoder.classChain
        var resolved: ResolvedClass?
        for name in chain {
            if let mapped = classesByName[name] ?? ClassNameMapping.shared.class(forName: name)
                ?? allowed?.classes.first(where: { ClassNameMapping.defaultName(for: $0) == name })
            {
                resolved = .coding(mapped)
            } else if let kind = FoundationClass.byArchivedName[name] {
                resolved = .foundation(kind)
            }
            if resolved != nil { break }
        }
        guard let resolved else {
            if let allowed {
                throw decoder.error(.disallowedClass, forKey: nil, "class \(decoder.className) is not allowed here (expected \(allowed.names))")
            }
            throw decoder.error(
                .disallowedClass, forKey: nil,
                "class \(decoder.className) is not known to this unarchiver (map it with setClass(_:forClassName:))")
        }
        switch resolved {
        case .foundation(let kind):
            if let allowed, !allowed.foundation.contains(kind) {
                throw decoder.error(.disallowedClass, forKey: nil, "class \(decoder.className) is not allowed here (expected \(allowed.names))")
            }
        case .coding(let codingClass):
            if let allowed, !allowed.classes.contains(where: { Self.isClass(codingClass, kindOf: $0) }) {
                throw decoder.error(.disallowedClass, forKey: nil, "class \(decoder.className) is not allowed here (expected \(allowed.names))")
            }
            if requiresSecureCoding {
                guard let secure = codingClass as? any ArchiveSecureCoding.Type, secure.supportsSecureCoding else {
                    throw decoder.error(
                        .disallowedClass, forKey: nil,
                        "class \(decoder.className) does not support secure coding, which this unarchiver requires")
                }
            }
        }
        return resolved
    }

    /// An `NSURL`: `NS.relative` resolved against `NS.base`, itself an `NSURL` or `$null`.
    private static func decodeURL(_ decoder: inout KeyedArchiveDecoder) throws(KeyedArchiveError) -> URL {
        let base = try decoder.decodeObject(forKey: "NS.base") { (base: inout KeyedArchiveDecoder) throws(KeyedArchiveError) -> URL in
            guard base.className == "NSURL" else {
                throw base.error(.invalidObject, forKey: nil, "the base of a URL is a \(base.className), not an NSURL")
            }
            return try decodeURL(&base)
        }
        guard let relative = try decoder.decodeObject(of: String.self, forKey: "NS.relative"),
            let url = URL(string: relative, relativeTo: base)
        else {
            throw decoder.error(.invalidObject, forKey: "NS.relative", "NSURL has no NS.relative string that is a URL")
        }
        return url
    }

    private static func isClass(_ type: AnyClass, kindOf ancestor: AnyClass) -> Bool {
        var current: AnyClass? = type
        while let step = current {
            if step == ancestor { return true }
            current = _getSuperclass(step)
        }
        return false
    }

    /// Decodes a Foundation class's object as its Swift value; collection
    /// elements are checked against `allowed` too.
    private func decodeFoundation(
        _ kind: FoundationClass, _ decoder: inout KeyedArchiveDecoder,
        allowed: AllowedClasses?
    ) throws(KeyedArchiveError) -> Any {
        func elements(_ key: String) throws(KeyedArchiveError) -> [Any] {
            guard
                let decoded = try decoder.decodeReferences(
                    forKey: key,
                    using: { (element: inout KeyedArchiveDecoder) throws(KeyedArchiveError) -> Any? in
                        try decode(&element, allowed: allowed)
                    })
            else {
                throw decoder.error(.invalidObject, forKey: key, "\(decoder.className) has no \(key)")
            }
            return try decoded.enumerated().map { (position, element) throws(KeyedArchiveError) -> Any in
                guard let element else {
                    throw decoder.error(.invalidObject, forKey: key, "element \(position) of \(key) did not decode")
                }
                return element
            }
        }
        func hashable(_ value: Any, _ key: String) throws(KeyedArchiveError) -> AnyHashable {
            guard let hashable = value as? AnyHashable else {
                throw decoder.error(.invalidObject, forKey: key, "a \(type(of: value)) cannot be a set element or dictionary key")
            }
            return hashable
        }
        switch kind {
        case .string: return try String(from: &decoder)
        case .data: return try Data(from: &decoder)
        case .date: return try Date(from: &decoder)
        case .uuid: return try UUID(from: &decoder)
        case .url: return try Self.decodeURL(&decoder)
        case .null: return ArchivedNull()
        case .number:
            guard let stored = decoder.storedValue, let number = ArchivedNumber(stored) else {
                throw decoder.error(.invalidObject, forKey: nil, "\(decoder.className) holds no number")
            }
            return number
        case .array:
            return try elements("NS.objects")
        case .set:
            var set = Set<AnyHashable>()
            for element in try elements("NS.objects") { set.insert(try hashable(element, "NS.objects")) }
            return set
        case .dictionary:
            let keys = try elements("NS.keys")
            let values = try elements("NS.objects")
            guard keys.count == values.count else {
                throw decoder.error(.invalidObject, forKey: "NS.keys", "\(keys.count) keys for \(values.count) values")
            }
            var dictionary: [AnyHashable: Any] = [:]
            for (key, value) in zip(keys, values) { dictionary[try hashable(key, "NS.keys")] = value }
            return dictionary
        }
    }
}
