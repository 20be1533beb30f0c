import KeyedArchive
import OrderedCollections
import PropertyList

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// Codable values in keyed archives, as Foundation's Swift overlay stores
// them: `encodeEncodable(_:forKey:)` encodes the value with
// `PropertyListEncoder` and archives the resulting property list as objects
// (`NSMutableDictionary`, `NSMutableArray`, `NSString`, `NSNumber`, `NSData`,
// `NSDate`) under the key; `decodeDecodable(_:forKey:)` decodes that object
// graph and hands it to `PropertyListDecoder`. The property list passes
// through its binary form on the way, which changes no value.

extension KeyedObjectArchiver {
    /// Encodes `value` under `key` as the property-list objects
    /// `PropertyListEncoder` makes of it (`encodeEncodable(_:forKey:)`).
    ///
    /// - Throws: `EncodingError` from `PropertyListEncoder` (say, for a
    ///   value that encodes nothing); `KeyedArchiveError` when its output
    ///   cannot be read back.
    public func encodeEncodable<T: Encodable>(_ value: T, forKey key: String) throws {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .binary
        let propertyList = try PropertyListReader().read(try encoder.encode(value), format: .binary).value
        try encode(node: node(forPropertyList: propertyList), forKey: key)
    }
}

extension KeyedObjectUnarchiver {
    /// The property-list classes a Codable value's objects may be of.
    static let propertyListClassNames: Set<String> = [
        "NSString", "NSMutableString", "NSNumber", "NSData", "NSMutableData", "NSDate",
        "NSArray", "NSMutableArray", "NSDictionary", "NSMutableDictionary",
    ]

    /// The value `encodeEncodable(_:forKey:)` stored under `key`, decoded
    /// with `PropertyListDecoder` (`decodeDecodable(_:forKey:)`).
    ///
    /// - Returns: nil when the key is absent or `$null`, or when decoding
    ///   fails; the failure is then recorded in `error`.
    public func decodeDecodable<T: Decodable>(_ type: T.Type, forKey key: String) -> T? {
        guard error == nil else { return nil }
        do {
            return try decodeTopLevelDecodable(type, forKey: key)
        } catch {
            failWithError(error)
            return nil
        }
    }

    /// The value `encodeEncodable(_:forKey:)` stored under `key`, decoded
    /// with `PropertyListDecoder` (`decodeTopLevelDecodable(_:forKey:)`).
    ///
    /// - Returns: nil when the key is absent or `$null`.
    /// - Throws: `KeyedArchiveError` for an object that is not a property
    ///   list (a class other than `propertyListClassNames`, a dictionary key
    ///   that is not a string), with its key path; `DecodingError` from
    ///   `PropertyListDecoder` when the values do not make a `T`.
    public func decodeTopLevelDecodable<T: Decodable>(_ type: T.Type, forKey key: String) throws -> T? {
        guard let archived = try currentDecoder.decodeValue(forKey: key, allowedClassNames: Self.propertyListClassNames),
            archived != .null
        else { return nil }
        let propertyList = try Self.propertyList(archived, at: currentDecoder.keyPath.appending(.key(key)))
        let bytes = try PropertyListWriter().encode(propertyList, format: .binary)
        return try PropertyListDecoder().decode(type, from: Data(bytes))
    }

    /// The property list an archived value of property-list classes stands for.
    static func propertyList(_ value: ArchivedValue, at path: PropertyListKeyPath) throws(KeyedArchiveError) -> PropertyListValue {
        switch value {
        case .string(let string): return .string(string)
        case .data(let data): return .data(data)
        case .integer(let integer): return .integer(integer)
        case .real(let real): return .real(real)
        case .real32(let real): return .real32(real)
        case .bool(let flag): return .bool(flag)
        case .date(let date): return .date(date)
        case .array(let elements):
            var result: [PropertyListValue] = []
            result.reserveCapacity(elements.count)
            for (position, element) in elements.enumerated() {
                result.append(try propertyList(element, at: path.appending(.index(position))))
            }
            return .array(result)
        case .dictionary(let entries):
            var result = OrderedDictionary<String, PropertyListValue>()
            for entry in entries {
                guard case .string(let key) = entry.key else {
                    throw KeyedArchiveError(.invalidObject, at: path, "a dictionary key that is not a string cannot be decoded as Codable")
                }
                result[key] = try propertyList(entry.value, at: path.appending(.key(key)))
            }
            return .dictionary(result)
        default:
            throw KeyedArchiveError(.invalidObject, at: path, "\(value) is not a property-list value")
        }
    }
}
