import Foundation
import PropertyList

/// The Foundation object graph (NSDictionary, NSArray, NSString, NSNumber,
/// NSData, NSDate) holding the same value, as `PropertyListSerialization`
/// takes it. Built with the Foundation classes themselves, so the peer pays
/// no bridging from Swift collections when it writes.
func foundationObject(_ value: PropertyListValue) -> AnyObject {
    switch value {
    case .string(let string):
        return NSString(string: string)
    case .integer(let integer):
        if let signed = integer.int64Value { return NSNumber(value: signed) }
        return NSNumber(value: integer.uint64Value!)
    case .real(let real):
        return NSNumber(value: real)
    case .real32(let real):
        return NSNumber(value: real)
    case .bool(let bool):
        return NSNumber(value: bool)
    case .date(let date):
        return NSDate(timeIntervalSinceReferenceDate: date.timeIntervalSinceReferenceDate)
    case .data(let data):
        return NSData(data: data)
    case .array(let elements):
        return NSArray(array: elements.map(foundationObject))
    case .dictionary(let entries):
        let dictionary = NSMutableDictionary(capacity: entries.count)
        for (key, element) in entries {
            dictionary.setObject(foundationObject(element), forKey: NSString(string: key))
        }
        return dictionary
    case .uid:
        preconditionFailure("the benchmark inputs hold no keyed-archiver UID; Foundation has no public type for one")
    }
}

/// The number of entries in a top-level dictionary Foundation returned,
/// whichever way it bridged it; nil when it is not a dictionary.
func foundationDictionaryCount(_ object: Any) -> Int? {
    if let dictionary = object as? NSDictionary { return dictionary.count }
    if let dictionary = object as? [String: Any] { return dictionary.count }
    return nil
}
