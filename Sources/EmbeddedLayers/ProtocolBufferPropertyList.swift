import DataLayers
import OrderedCollections
import PropertyList

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A protocol buffer read without its schema as a property list, so key
/// paths step into it (`ZDATA!.2.3.2`): a message is a dictionary keyed by
/// field number (in the order the numbers first appear), a number used
/// more than once an array of its values in order; a varint or fixed value
/// an integer as stored; bytes that are UTF-8 a string, other bytes data.
/// The wire types are in the fields themselves (`EmbeddedArchive.fields`).
public enum ProtocolBufferPropertyList {
    /// The property list of a message's `fields`.
    public static func value(of fields: [ProtocolBufferField]) -> PropertyListValue {
        var grouped = OrderedDictionary<String, [PropertyListValue]>()
        for field in fields { grouped[String(field.number), default: []].append(value(of: field.value)) }
        var dictionary = OrderedDictionary<String, PropertyListValue>()
        dictionary.reserveCapacity(grouped.count)
        for (number, values) in grouped { dictionary[number] = values.count == 1 ? values[0] : .array(values) }
        return .dictionary(dictionary)
    }

    /// The fields as they were on the wire, for programs: each one's
    /// `number`, `wireType` (0, 1, 2, 3 or 5), `offset`, and its value:
    /// `value` (an integer as stored), `fields` (a message or group), `text`
    /// (UTF-8 bytes) or `data` (other bytes).
    public static func fieldsForm(_ fields: [ProtocolBufferField]) -> PropertyListValue {
        .array(
            fields.map { field in
                var form: OrderedDictionary<String, PropertyListValue> = [
                    "number": .integer(PropertyListInteger(field.number)), "wireType": .integer(PropertyListInteger(field.value.wireType)),
                    "offset": .integer(PropertyListInteger(field.offset)),
                ]
                switch field.value {
                case .varint(let number), .fixed64(let number): form["value"] = .integer(PropertyListInteger(number))
                case .fixed32(let number): form["value"] = .integer(PropertyListInteger(UInt64(number)))
                case .message(let inner), .group(let inner): form["fields"] = fieldsForm(inner)
                case .bytes(let data):
                    if let text = field.value.text { form["text"] = .string(text) } else { form["data"] = .data(data) }
                }
                return .dictionary(form)
            })
    }

    private static func value(of value: ProtocolBufferValue) -> PropertyListValue {
        switch value {
        case .varint(let number), .fixed64(let number): .integer(PropertyListInteger(number))
        case .fixed32(let number): .integer(PropertyListInteger(UInt64(number)))
        case .message(let fields), .group(let fields): Self.value(of: fields)
        case .bytes(let data): value.text.map(PropertyListValue.string) ?? .data(data)
        }
    }
}
