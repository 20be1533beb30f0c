import OrderedCollections
import PropertyList

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension TypedStreamDocument {
    /// The document as JSON-ready property-list values, losslessly: header,
    /// classes (name, version, superclass index), objects (class index, byte
    /// offset, groups of `{"type", <value>}` fields) and the root groups.
    ///
    /// A value is `{"type": "i", "integer": 1}`, `{"type": "f", "real": 0.5}`
    /// (`"real": "nan"`, `"inf"` or `"-inf"` when not finite),
    /// `{"type": "B", "bool": true}`, `{"type": "+", "string": "text"}` (or
    /// `"bytes"` in base64 when not UTF-8), `{"type": "@", "object": 3}`,
    /// `{"type": "#", "class": 0}`, `{"type": "[4c]", "bytes": …}`,
    /// `{"type": "[2f]", "elements": [...]}`, `{"type": "{…}", "name": "_NSPoint",
    /// "fields": [...]}`, and `"nil": true` for nil, NULL and Nil.
    public var jsonForm: PropertyListValue {
        var top: OrderedDictionary<String, PropertyListValue> = [:]
        top["format"] = .string("typedstream")
        top["byteOrder"] = .string(byteOrder.rawValue)
        top["streamerVersion"] = .integer(PropertyListInteger(Int64(streamerVersion)))
        top["systemVersion"] = .integer(PropertyListInteger(Int64(systemVersion)))
        top["classes"] = .array(
            classes.map { item in
                var entry: OrderedDictionary<String, PropertyListValue> = ["name": .string(item.name), "version": Self.integer(item.version)]
                if let superclass = item.superclass { entry["superclass"] = Self.integer(superclass) }
                return .dictionary(entry)
            })
        top["objects"] = .array(
            objects.map { object in
                .dictionary([
                    "class": Self.integer(object.classIndex), "offset": Self.integer(object.byteOffset),
                    "groups": .array(object.groups.map(Self.jsonForm)),
                ])
            })
        top["root"] = .array(root.map(Self.jsonForm))
        return .dictionary(top)
    }

    private static func integer(_ value: Int) -> PropertyListValue { .integer(PropertyListInteger(Int64(value))) }

    private static func jsonForm(_ group: TypedStreamGroup) -> PropertyListValue {
        .array(group.values.map { field in jsonForm(field.value, type: field.encoding) })
    }

    /// One value; `type` is its encoding, nil inside an array or struct (where the parent's encoding says it).
    static func jsonForm(_ value: TypedStreamValue, type: String?) -> PropertyListValue {
        var entry: OrderedDictionary<String, PropertyListValue> = [:]
        if let type { entry["type"] = .string(type) }
        switch value {
        case .integer(let integer): entry["integer"] = .integer(PropertyListInteger(integer))
        case .float(let float): entry["real"] = real(Double(float))
        case .double(let double): entry["real"] = real(double)
        case .bool(let bool): entry["bool"] = .bool(bool)
        case .string(let bytes?):
            if let text = String(validating: bytes, as: UTF8.self) { entry["string"] = .string(text) } else { entry["bytes"] = .data(Data(bytes)) }
        case .string(nil), .class(nil), .object(nil): entry["nil"] = .bool(true)
        case .class(let index?): entry["class"] = integer(index)
        case .object(let index?): entry["object"] = integer(index)
        case .bytes(let bytes): entry["bytes"] = .data(Data(bytes))
        case .array(let elements): entry["elements"] = .array(elements.map { jsonForm($0, type: nil) })
        case .structure(let name, let fields):
            if let name { entry["name"] = .string(name) }
            entry["fields"] = .array(fields.map { jsonForm($0, type: nil) })
        case .none: break
        }
        return .dictionary(entry)
    }

    private static func real(_ value: Double) -> PropertyListValue {
        if value.isNaN { return .string("nan") }
        if value.isInfinite { return .string(value < 0 ? "-inf" : "inf") }
        return .real(value)
    }
}

extension FoundationObject {
    /// The decoded value as JSON-ready property-list values: a string as a
    /// string, an attributed string as `{"class": "NSAttributedString",
    /// "string", "runs": [{"location", "length", "attributes": [{"key", "value"}]}]}`,
    /// numbers as numbers, other values as `{"class", …}` objects.
    public var jsonForm: PropertyListValue {
        switch self {
        case .string(let string): return .string(string)
        case .attributedString(let text):
            return .dictionary([
                "class": .string("NSAttributedString"), "string": .string(text.string),
                "runs": .array(
                    text.runs.map { run in
                        .dictionary([
                            "location": FoundationJSON.integer(run.range.location), "length": FoundationJSON.integer(run.range.length),
                            "attributes": Self.entries(run.attributes),
                        ])
                    }),
            ])
        case .number(let number), .scalar(let number): return Self.number(number)
        case .data(let bytes): return .data(Data(bytes))
        case .date(let date):
            return .dictionary(["class": .string("NSDate"), "secondsSinceReferenceDate": .real(date.secondsSinceReferenceDate)])
        case .url(let url): return url.jsonForm
        case .array(let elements): return .array(elements.map(\.jsonForm))
        case .set(let elements): return .dictionary(["class": .string("NSSet"), "elements": .array(elements.map(\.jsonForm))])
        case .dictionary(let entries): return .dictionary(["class": .string("NSDictionary"), "entries": Self.entries(entries)])
        case .font(let font): return font.jsonForm
        case .color(let color): return color.jsonForm
        case .geometry(let geometry): return geometry.jsonForm
        case .structure(let name, let fields):
            var entry: OrderedDictionary<String, PropertyListValue> = [:]
            if let name { entry["struct"] = .string(name) }
            entry["fields"] = .array(fields.map(\.jsonForm))
            return .dictionary(entry)
        case .cString(let bytes):
            if let text = String(validating: bytes, as: UTF8.self) { return .string(text) }
            return .data(Data(bytes))
        case .className(let name): return .dictionary(["classReference": .string(name)])
        case .null: return .dictionary(["nil": .bool(true)])
        case .reference(let index): return .dictionary(["objectReference": FoundationJSON.integer(index)])
        case .other(let object):
            return .dictionary([
                "class": .string(object.classNames.first ?? ""), "superclasses": .array(object.classNames.dropFirst().map { .string($0) }),
                "version": FoundationJSON.integer(object.version), "fields": .array(object.fields.map(\.jsonForm)),
            ])
        }
    }

    private static func number(_ number: FoundationNumber) -> PropertyListValue {
        switch number {
        case .integer(let value): return .integer(PropertyListInteger(value))
        case .real(let value): return FoundationJSON.real(value)
        case .bool(let value): return .bool(value)
        }
    }

    private static func entries(_ entries: [FoundationDictionaryEntry]) -> PropertyListValue {
        .array(entries.map { .dictionary(["key": $0.key.jsonForm, "value": $0.value.jsonForm]) })
    }

    /// The text of a string or attributed string; nil for any other value.
    public var text: String? {
        switch self {
        case .string(let string): string
        case .attributedString(let text): text.string
        default: nil
        }
    }
}
