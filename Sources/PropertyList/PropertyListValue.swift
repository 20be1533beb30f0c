import OrderedCollections

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A property-list value: the one model every reader produces and every
/// writer consumes, whatever the serialised form.
///
/// Dictionaries keep their keys in the order they were read or inserted, so a
/// value read from a file and written back keeps the file's object order.
/// 32-bit and 64-bit reals are kept apart, as binary property lists keep them.
public enum PropertyListValue: Hashable, Sendable {
    /// A Unicode string.
    case string(String)
    /// An integer anywhere in `Int64.min ... UInt64.max`.
    case integer(PropertyListInteger)
    /// A 64-bit real (`double`).
    case real(Double)
    /// A 32-bit real (`float`), as binary property lists store `numberWithFloat:`.
    case real32(Float)
    /// A boolean.
    case bool(Bool)
    /// A date (an instant; property lists carry no time zone).
    case date(Date)
    /// Raw bytes.
    case data(Data)
    /// An ordered list of values.
    case array([PropertyListValue])
    /// String keys to values, in key order.
    case dictionary(OrderedDictionary<String, PropertyListValue>)
    /// A keyed-archive object reference (`CFKeyedArchiverUID`), binary form only.
    case uid(UInt64)
}

extension PropertyListValue {
    /// A short name of this value's kind, as used in messages: `string`, `integer`, …
    public var kindName: String {
        switch self {
        case .string: "string"
        case .integer: "integer"
        case .real: "real"
        case .real32: "real (32-bit)"
        case .bool: "boolean"
        case .date: "date"
        case .data: "data"
        case .array: "array"
        case .dictionary: "dictionary"
        case .uid: "UID"
        }
    }

    /// The kind's name with its article, for messages: "an integer", "a
    /// string", "a UID", "data".
    public var kindNameWithArticle: String {
        switch self {
        case .data: "data"
        case .integer, .array: "an \(kindName)"
        default: "a \(kindName)"
        }
    }

    /// The string, if this value is one.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The dictionary, if this value is one.
    public var dictionaryValue: OrderedDictionary<String, PropertyListValue>? {
        if case .dictionary(let d) = self { return d }
        return nil
    }

    /// The array, if this value is one.
    public var arrayValue: [PropertyListValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// The value under `key`, if this value is a dictionary holding it.
    public subscript(key: String) -> PropertyListValue? {
        dictionaryValue?[key]
    }
}

extension PropertyListValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .integer(PropertyListInteger(value)) }
    public init(floatLiteral value: Double) { self = .real(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: PropertyListValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, PropertyListValue)...) {
        self = .dictionary(OrderedDictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

/// An integer in the range property lists can hold: `Int64.min ... UInt64.max`.
///
/// Binary property lists store values above `Int64.max` as 16-byte integers;
/// this type keeps such values exactly, and compares equal whichever
/// initialiser made it.
public struct PropertyListInteger: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The value's two's-complement bits.
    public let bitPattern: UInt64
    /// True when the value is above `Int64.max` (the bits are then unsigned).
    public let isAboveInt64Max: Bool

    /// Makes a signed integer.
    public init(_ value: Int64) {
        bitPattern = UInt64(bitPattern: value)
        isAboveInt64Max = false
    }

    /// Makes an unsigned integer.
    public init(_ value: UInt64) {
        bitPattern = value
        isAboveInt64Max = value > UInt64(Int64.max)
    }

    /// Makes an integer from a platform `Int`.
    public init(_ value: Int) { self.init(Int64(value)) }

    /// The value as `Int64`, or nil when it is above `Int64.max`.
    public var int64Value: Int64? { isAboveInt64Max ? nil : Int64(bitPattern: bitPattern) }

    /// The value as `UInt64`, or nil when it is negative.
    public var uint64Value: UInt64? {
        if isAboveInt64Max { return bitPattern }
        let signed = Int64(bitPattern: bitPattern)
        return signed < 0 ? nil : UInt64(signed)
    }

    /// True when the value is below zero.
    public var isNegative: Bool { !isAboveInt64Max && Int64(bitPattern: bitPattern) < 0 }

    public var description: String {
        isAboveInt64Max ? String(bitPattern) : String(Int64(bitPattern: bitPattern))
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        switch (lhs.isAboveInt64Max, rhs.isAboveInt64Max) {
        case (false, false): Int64(bitPattern: lhs.bitPattern) < Int64(bitPattern: rhs.bitPattern)
        case (true, true): lhs.bitPattern < rhs.bitPattern
        case (false, true): true
        case (true, false): false
        }
    }
}

extension PropertyListInteger: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int64) { self.init(value) }
}

extension PropertyListValue {
    /// This value with the keys of every dictionary in it sorted (by
    /// `String`'s `<`, as `JSONPropertyListWriter.sortedKeys` sorts them), for
    /// canonical, diff-friendly output; dictionaries keep their order otherwise.
    public func withSortedKeys() -> PropertyListValue {
        switch self {
        case .array(let elements):
            return .array(elements.map { $0.withSortedKeys() })
        case .dictionary(let dictionary):
            var sorted = OrderedDictionary<String, PropertyListValue>(minimumCapacity: dictionary.count)
            for key in dictionary.keys.sorted() { sorted[key] = dictionary[key]!.withSortedKeys() }  // `key` is one of its keys.
            return .dictionary(sorted)
        default:
            return self
        }
    }
}
