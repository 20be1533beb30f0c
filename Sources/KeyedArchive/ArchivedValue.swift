import OrderedCollections
import PropertyList

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An archived object decoded without knowing the caller's types: Foundation's
/// built-in classes become Swift values, any other class an `ArchivedObject`
/// with its fields decoded the same way.
///
/// Built-ins, as `NSKeyedArchiver` encodes them: `NSString`/`NSMutableString`
/// (a plain string, or `NS.string`), `NSData`/`NSMutableData` (plain data, or
/// `NS.data`), `NSNumber` (a plain integer, real or boolean),
/// `NSArray`/`NSMutableArray` and `NSSet`/`NSMutableSet` (`NS.objects`),
/// `NSDictionary`/`NSMutableDictionary` (`NS.keys`/`NS.objects`), `NSDate`
/// (`NS.time`), `NSURL` (`NS.base`/`NS.relative`), `NSUUID` (`NS.uuidbytes`),
/// `NSNull`, and `NSValue` holding a range, point, size, rect or edge insets
/// (`NS.special`) or a C array (`NS.objcType`-less `$0`/`$1` form); and, as
/// FoundationValues' types, `NSOrderedSet`, `NSIndexSet`,
/// `NSAttributedString` (`NSString`, `NSAttributes`, `NSAttributeInfo`),
/// `NSColor`/`UIColor`, `NSFont`/`UIFont`, `NSDateComponents`, `NSLocale`,
/// `NSTimeZone` and `NSError` (see `ArchivedFoundationClasses.swift`), with
/// their mutable subclasses.
public indirect enum ArchivedValue: Hashable, Sendable {
    /// `$null`: no object.
    case null
    /// `NSNull`.
    case nsNull
    /// A string.
    case string(String)
    /// Bytes.
    case data(Data)
    /// An integer `NSNumber`.
    case integer(PropertyListInteger)
    /// A 64-bit real `NSNumber`.
    case real(Double)
    /// A 32-bit real `NSNumber`.
    case real32(Float)
    /// A boolean `NSNumber`.
    case bool(Bool)
    /// An `NSDate`.
    case date(Date)
    /// An `NSURL`: its relative string and its base URL's string, if any.
    case url(relative: String, base: String?)
    /// An `NSUUID`.
    case uuid(UUID)
    /// An `NSArray` or `NSMutableArray`.
    case array([ArchivedValue])
    /// An `NSSet` or `NSMutableSet`, elements in the file's order.
    case set([ArchivedValue])
    /// An `NSDictionary` or `NSMutableDictionary`, entries in the file's order.
    case dictionary([ArchivedDictionaryEntry])
    /// An `NSValue`.
    case nsValue(ArchivedNSValue)
    /// An `NSOrderedSet` or `NSMutableOrderedSet`, elements in order.
    case orderedSet([ArchivedValue])
    /// An `NSIndexSet` or `NSMutableIndexSet`.
    case indexSet(FoundationIndexSet)
    /// An `NSAttributedString` or `NSMutableAttributedString`: its text and runs of attributes.
    case attributedString(AttributedText<ArchivedValue>)
    /// An `NSColor` or `UIColor`.
    case color(FoundationColor)
    /// An `NSFont` or `UIFont`.
    case font(FoundationFont)
    /// An `NSDateComponents`.
    case dateComponents(FoundationDateComponents)
    /// An `NSLocale`.
    case locale(FoundationLocale)
    /// An `NSTimeZone`.
    case timeZone(FoundationTimeZone)
    /// An `NSError`: domain, code and user info.
    case error(FoundationError<ArchivedValue>)
    /// An instance of any other class.
    case object(ArchivedObject)
    /// A reference back to an object still being decoded (a cycle), by its index in `$objects`.
    case cycle(Int)
}

/// One key and value of an archived dictionary (FoundationValues' entry of `ArchivedValue`s).
public typealias ArchivedDictionaryEntry = FoundationEntry<ArchivedValue>

/// What an archived `NSValue` holds.
public enum ArchivedNSValue: Hashable, Sendable {
    /// `NSRange` (`NS.special` 4).
    case range(location: Int64, length: Int64)
    /// A point, size or rect (`NS.special` 1, 2, 3), typed, with the text the
    /// archive holds (`NSStringFromRect`'s form, `{{400, 300}, {200, 300}}`,
    /// or `{{0.0, 0.0}, {10.0, 10.0}}` as Foundation on Linux writes it).
    case geometry(FoundationGeometry, text: String)
    /// Edge insets (`NS.special` 12).
    case edgeInsets(top: Double, left: Double, bottom: Double, right: Double)
    /// A C array of numbers with its Objective-C type encoding, `"[3i]"`.
    case cArray(objCType: String, elements: [ArchivedValue])
}

/// An instance of a class without a built-in meaning.
public struct ArchivedObject: Hashable, Sendable {
    /// Its index in `$objects`.
    public var index: Int
    /// Its class.
    public var classDescription: KeyedArchiveClass
    /// Its fields, decoded, in the file's order.
    public var fields: OrderedDictionary<String, ArchivedValue>

    /// Makes an object.
    public init(index: Int, classDescription: KeyedArchiveClass, fields: OrderedDictionary<String, ArchivedValue>) {
        self.index = index
        self.classDescription = classDescription
        self.fields = fields
    }
}

extension ArchivedValue {
    /// The class names decoded as built-ins.
    public static let builtInClassNames: Set<String> = [
        "NSString", "NSMutableString", "NSData", "NSMutableData", "NSNumber", "NSArray", "NSMutableArray",
        "NSSet", "NSMutableSet", "NSDictionary", "NSMutableDictionary", "NSDate", "NSURL", "NSUUID", "NSNull",
        "NSValue", "NSOrderedSet", "NSMutableOrderedSet", "NSIndexSet", "NSMutableIndexSet", "NSAttributedString",
        "NSMutableAttributedString", "NSColor", "UIColor", "NSFont", "UIFont", "NSDateComponents", "NSLocale",
        "NSTimeZone", "NSError",
    ]
}

extension KeyedArchiveObjectGraph {
    /// Decodes the object under `$top.key` with its whole graph: built-ins
    /// become Swift values, other classes `ArchivedObject`s. An object shared
    /// by several references is decoded once and appears at each; a
    /// reference back to an object still being decoded is `.cycle(index)`.
    ///
    /// - Parameters:
    ///   - key: the key in `$top` (`root`, or `DATA` in an `.ict` entry).
    ///   - allowedClassNames: the classes that may occur (secure decoding);
    ///     nil allows any.
    ///   - limits: the depth and size limits of decoding.
    /// - Returns: `.null` when `$top.key` holds `$null`.
    /// - Throws: `KeyedArchiveError` with code `.missingValue` when `$top` has
    ///   no such key, `.disallowedClass` for a class not allowed,
    ///   `.invalidObject` for a built-in of the wrong shape,
    ///   `.depthLimitExceeded` past `limits.maximumDepth` — each with the key
    ///   path from `$top` and the object index.
    public func decodeValue(
        forTopKey key: String, allowedClassNames: Set<String>? = nil,
        limits: KeyedArchiveLimits = .default
    ) throws(KeyedArchiveError) -> ArchivedValue {
        guard let value = top[key] else {
            throw KeyedArchiveError(.missingValue, at: .top(key), "$top has no key \"\(key)\"")
        }
        var decoder = ArchivedValueDecoder(archive: self, allowedClassNames: allowedClassNames, maximumDepth: limits.maximumDepth)
        return try decoder.decodeField(value, path: .top(key), depth: 0)
    }
}

/// Decodes an archive's objects into `ArchivedValue`s, memoising each object.
///
/// The key path to the value being decoded is kept as a stack of steps,
/// pushed and popped on the way down and up, and made into a
/// `PropertyListKeyPath` only for an error.
struct ArchivedValueDecoder {
    let archive: KeyedArchiveObjectGraph
    let allowedClassNames: Set<String>?
    let maximumDepth: Int
    /// Each object's value once decoded, by index.
    private var decoded: [ArchivedValue?]
    /// Which objects are being decoded, by index (a reference to one is a cycle).
    private var inProgress: [Bool]
    /// Class descriptions already read, by index.
    private var classes: [Int: KeyedArchiveClass] = [:]
    /// The steps of the key path to the value being decoded.
    var pathSteps: [PropertyListPathComponent] = []

    init(archive: KeyedArchiveObjectGraph, allowedClassNames: Set<String>?, maximumDepth: Int) {
        self.archive = archive
        self.allowedClassNames = allowedClassNames
        self.maximumDepth = maximumDepth
        decoded = Array(repeating: nil, count: archive.objects.count)
        inProgress = Array(repeating: false, count: archive.objects.count)
    }

    /// A field's value at `path`: a reference, a plain scalar, or an array of those.
    mutating func decodeField(_ value: PropertyListValue, path: PropertyListKeyPath, depth: Int) throws(KeyedArchiveError) -> ArchivedValue {
        pathSteps = path.components
        return try decodeField(value, depth: depth)
    }

    /// The key path to the value being decoded.
    private var path: PropertyListKeyPath { PropertyListKeyPath(pathSteps) }

    /// A field's value at the current path.
    private mutating func decodeField(_ value: PropertyListValue, depth: Int) throws(KeyedArchiveError) -> ArchivedValue {
        switch value {
        case .uid(let uid):
            guard uid < UInt64(archive.objects.count) else {
                throw KeyedArchiveError(.danglingReference, at: path, "UID \(uid) refers past the \(archive.objects.count) objects")
            }
            return try decodeObject(Int(uid), depth: depth)
        case .array(let elements):
            return .array(try decodeElements(elements, depth: depth))
        default:
            return try scalar(value, objectIndex: nil)
        }
    }

    /// The field under `key` of the object being decoded, at the current path plus `key`.
    mutating func decodeField(_ value: PropertyListValue, key: String, depth: Int) throws(KeyedArchiveError) -> ArchivedValue {
        pathSteps.append(.key(key))
        defer { pathSteps.removeLast() }
        return try decodeField(value, depth: depth)
    }

    /// Each element of an array, at the current path plus its index.
    private mutating func decodeElements(_ elements: [PropertyListValue], depth: Int) throws(KeyedArchiveError) -> [ArchivedValue] {
        var result: [ArchivedValue] = []
        result.reserveCapacity(elements.count)
        pathSteps.append(.index(0))
        defer { pathSteps.removeLast() }
        for (position, element) in elements.enumerated() {
            pathSteps[pathSteps.count - 1] = .index(position)
            result.append(try decodeField(element, depth: depth + 1))
        }
        return result
    }

    private func scalar(_ value: PropertyListValue, objectIndex: Int?) throws(KeyedArchiveError) -> ArchivedValue {
        switch value {
        case .string(let string): return .string(string)
        case .data(let data): return .data(data)
        case .integer(let integer): return .integer(integer)
        case .real(let real): return .real(real)
        case .real32(let real): return .real32(real)
        case .bool(let flag): return .bool(flag)
        case .date(let date): return .date(date)
        case .uid, .array, .dictionary:
            throw KeyedArchiveError(.invalidObject, at: path, object: objectIndex, "\(value.kindNameWithArticle) where a plain value belongs")
        }
    }

    private mutating func decodeObject(_ index: Int, depth: Int) throws(KeyedArchiveError) -> ArchivedValue {
        if index == 0 { return .null }
        if let known = decoded[index] { return known }
        if inProgress[index] { return .cycle(index) }
        guard depth < maximumDepth else {
            throw KeyedArchiveError(.depthLimitExceeded, at: path, object: index, "objects nest more than \(maximumDepth) deep")
        }
        let result: ArchivedValue
        switch classify(index) {
        case .null: result = .null
        case .value(let value):
            if let allowedClassNames, !allowedClassNames.contains(Self.impliedClassName(value)) {
                throw KeyedArchiveError(
                    .disallowedClass, at: path, object: index,
                    "class \(Self.impliedClassName(value)) is not among the allowed classes")
            }
            result = try scalar(value, objectIndex: index)
        case .classDescription:
            throw KeyedArchiveError(.invalidClass, at: path, object: index, "a reference to a class description where an object belongs")
        case .instance(let instance):
            let name = instance.classDescription.name
            if let allowedClassNames, !allowedClassNames.contains(name) {
                throw KeyedArchiveError(.disallowedClass, at: path, object: index, "class \(name) is not among the allowed classes")
            }
            inProgress[index] = true
            defer { inProgress[index] = false }
            result = try decodeInstance(instance, depth: depth)
        }
        decoded[index] = result
        return result
    }

    /// `KeyedArchiveObjectGraph.object(at:)` without copying the fields (they keep `$class`) and with class descriptions cached.
    private mutating func classify(_ index: Int) -> KeyedArchiveObject {
        guard case .dictionary(let fields) = archive.objects[index], fields["$classname"] == nil,
            case .uid(let classUID)? = fields["$class"], classUID < UInt64(archive.objects.count)
        else { return archive.object(at: index) }
        let classIndex = Int(classUID)
        if classes[classIndex] == nil, case .classDescription(let description) = archive.object(at: classIndex) {
            classes[classIndex] = description
        }
        guard let description = classes[classIndex] else { return archive.object(at: index) }
        return .instance(KeyedArchiveInstance(index: index, classIndex: classIndex, classDescription: description, fields: fields))
    }

    /// `NSString` for a plain string, and so on: the class a plain value stands for.
    static func impliedClassName(_ value: PropertyListValue) -> String {
        switch value {
        case .string: "NSString"
        case .data: "NSData"
        case .date: "NSDate"
        default: "NSNumber"
        }
    }

    private mutating func decodeInstance(_ instance: KeyedArchiveInstance, depth: Int) throws(KeyedArchiveError) -> ArchivedValue {
        let fields = instance.fields
        func field(_ key: String) -> PropertyListValue? { fields[key] }
        func fail(_ message: String) -> KeyedArchiveError { invalid(instance, message) }
        switch instance.classDescription.name {
        case "NSString", "NSMutableString":
            guard case .string(let string)? = field("NS.string") else { throw fail("has no NS.string string") }
            return .string(string)
        case "NSData", "NSMutableData":
            switch field("NS.data") {
            case .data(let data)?: return .data(data)
            case .uid(let uid)?:
                let inner = try decodeField(.uid(uid), key: "NS.data", depth: depth + 1)
                guard case .data = inner else { throw fail("has an NS.data that is not data") }
                return inner
            default: throw fail("has no NS.data")
            }
        case "NSArray", "NSMutableArray", "NSSet", "NSMutableSet":
            guard case .array(let references)? = field("NS.objects") else { throw fail("has no NS.objects array") }
            let elements = try decodeReferences(references, key: "NS.objects", depth: depth)
            return instance.classDescription.name.hasSuffix("Set") ? .set(elements) : .array(elements)
        case "NSDictionary", "NSMutableDictionary":
            guard case .array(let keyReferences)? = field("NS.keys"), case .array(let valueReferences)? = field("NS.objects"),
                keyReferences.count == valueReferences.count
            else { throw fail("needs NS.keys and NS.objects arrays of one length") }
            let keys = try decodeReferences(keyReferences, key: "NS.keys", depth: depth)
            let values = try decodeReferences(valueReferences, key: "NS.objects", depth: depth)
            return .dictionary(zip(keys, values).map { ArchivedDictionaryEntry(key: $0, value: $1) })
        case "NSDate":
            switch field("NS.time") {
            case .real(let seconds)?: return .date(Date(timeIntervalSinceReferenceDate: seconds))
            case .integer(let seconds)?: return .date(Date(timeIntervalSinceReferenceDate: Double(seconds.int64Value ?? 0)))
            default: throw fail("has no NS.time number")
            }
        case "NSURL":
            let relative = try decodeField(field("NS.relative") ?? .uid(0), key: "NS.relative", depth: depth + 1)
            let base = try decodeField(field("NS.base") ?? .uid(0), key: "NS.base", depth: depth + 1)
            guard case .string(let relativeString) = relative else { throw fail("has no NS.relative string") }
            switch base {
            case .null: return .url(relative: relativeString, base: nil)
            case .url(let baseRelative, nil): return .url(relative: relativeString, base: baseRelative)
            default: throw fail("has an NS.base that is not an absolute URL")
            }
        case "NSUUID":
            guard case .data(let bytes)? = field("NS.uuidbytes"), bytes.count == 16 else { throw fail("needs NS.uuidbytes of 16 bytes") }
            let b = Array(bytes)
            return .uuid(UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])))
        case "NSNull":
            return .nsNull
        case "NSValue":
            return .nsValue(try decodeNSValue(instance, depth: depth))
        case let name where Self.foundationClassNames.contains(name):
            return try decodeFoundationInstance(instance, as: name, depth: depth)
        default:
            if let name = instance.classDescription.chain.first(where: Self.privateSubclassedNames.contains) {
                return try decodeFoundationInstance(instance, as: name, depth: depth)
            }
            // A private subclass of NSString (PyObjC's OC_PythonUnicode, say) archived with NS.string.
            if instance.classDescription.chain.contains("NSString"), case .string(let string)? = field("NS.string") {
                return .string(string)
            }
            var decodedFields = OrderedDictionary<String, ArchivedValue>()
            decodedFields.reserveCapacity(fields.count)
            for (key, value) in fields where key != "$class" {
                decodedFields[key] = try decodeField(value, key: key, depth: depth + 1)
            }
            return .object(ArchivedObject(index: instance.index, classDescription: instance.classDescription, fields: decodedFields))
        }
    }

    /// The objects an array of references under `key` refers to, at the current path plus `key`.
    mutating func decodeReferences(_ references: [PropertyListValue], key: String, depth: Int) throws(KeyedArchiveError) -> [ArchivedValue] {
        pathSteps.append(.key(key))
        defer { pathSteps.removeLast() }
        return try decodeElements(references, depth: depth)
    }

    /// An `.invalidObject` error for `instance` at the current path.
    func invalid(_ instance: KeyedArchiveInstance, _ message: String) -> KeyedArchiveError {
        KeyedArchiveError(.invalidObject, at: path, object: instance.index, "\(instance.classDescription.name) \(message)")
    }

    private mutating func decodeNSValue(_ instance: KeyedArchiveInstance, depth: Int) throws(KeyedArchiveError) -> ArchivedNSValue {
        let fields = instance.fields
        func fail(_ message: String) -> KeyedArchiveError { invalid(instance, message) }
        func number(_ key: String) throws(KeyedArchiveError) -> ArchivedValue {
            try decodeField(fields[key] ?? .uid(0), key: key, depth: depth + 1)
        }
        guard case .integer(let special)? = fields["NS.special"], let kind = special.int64Value else {
            // The C-array form: $0 is the type encoding, $1 an old-style array of numbers.
            guard case .string(let objCType) = try number("$0"), case .object(let array) = try number("$1") else {
                throw fail("has neither NS.special nor a $0/$1 C array")
            }
            let count =
                array.fields["NS.count"].flatMap { value -> Int? in
                    if case .integer(let count) = value { return count.int64Value.map(Int.init) }
                    return nil
                } ?? 0
            let elements = (0..<max(0, min(count, array.fields.count))).compactMap { array.fields["$\($0)"] }
            return .cArray(objCType: objCType, elements: elements)
        }
        switch kind {
        case 4:
            guard case .integer(let location) = try number("NS.rangeval.location"), case .integer(let length) = try number("NS.rangeval.length"),
                let location64 = location.int64Value, let length64 = length.int64Value
            else { throw fail("needs integer NS.rangeval.location and NS.rangeval.length") }
            return .range(location: location64, length: length64)
        case 1, 2, 3:
            let (key, shape, name): (String, FoundationGeometry.Kind, String) =
                kind == 1 ? ("NS.pointval", .point, "point") : kind == 2 ? ("NS.sizeval", .size, "size") : ("NS.rectval", .rect, "rect")
            guard case .string(let text) = try number(key) else { throw fail("needs an \(key) string") }
            guard let geometry = FoundationGeometry(text: text, kind: shape) else {
                throw fail("has an \(key) that is not a \(name) as NSStringFromRect and its kin write one: \"\(text)\"")
            }
            return .geometry(geometry, text: text)
        case 12:
            func edge(_ name: String) throws(KeyedArchiveError) -> Double {
                switch try number("NS.edgeval.\(name)") {
                case .real(let value): return value
                case .real32(let value): return Double(value)
                default: throw fail("needs a real NS.edgeval.\(name)")
                }
            }
            return .edgeInsets(top: try edge("top"), left: try edge("left"), bottom: try edge("bottom"), right: try edge("right"))
        default:
            throw fail("has NS.special \(kind), which is not a range, point, size, rect or edge insets")
        }
    }
}
