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

/// What receives a decoded value's JSON form piece by piece, in order
/// (`FoundationObject.writeJSONForm(to:)`): a writer that streams the form
/// elsewhere makes no property-list value for each container on the way.
///
/// A container is `beginArray` or `beginDictionary`, then for each member
/// `index` (in an array) or `key` (in a dictionary) followed by its value,
/// then `end`. A value is `value` (a leaf, or a small form such as a
/// colour's, whole), a container, or `reference` for
/// `FoundationObject.reference(_:)`.
public protocol FoundationJSONFormWriter {
    /// What the writer may throw.
    associatedtype Failure: Error
    /// A value whole.
    mutating func value(_ value: PropertyListValue) throws(Failure)
    /// An array of `count` members begins.
    mutating func beginArray(count: Int) throws(Failure)
    /// A dictionary of `count` members begins.
    mutating func beginDictionary(count: Int) throws(Failure)
    /// The next member of the array being written is at `index`.
    mutating func index(_ index: Int) throws(Failure)
    /// The next member of the dictionary being written has `key`.
    mutating func key(_ key: String) throws(Failure)
    /// The array or dictionary being written ends.
    mutating func end() throws(Failure)
    /// Object `index` of the stream, as `FoundationObject.reference(_:)` names it.
    mutating func reference(_ index: Int) throws(Failure)
    /// `{"nil": true}`, the form of nil, NULL and Nil, which a nib's fields hold by the hundred. The default
    /// writes it piece by piece; a writer may write it at once.
    mutating func null() throws(Failure)
}

extension FoundationJSONFormWriter {
    /// `{"nil": true}`, piece by piece.
    @inlinable public mutating func null() throws(Failure) {
        try beginDictionary(count: 1)
        try key("nil")
        try value(.bool(true))
        try end()
    }
}

extension FoundationObject {
    /// The decoded value as JSON-ready property-list values: a string as a
    /// string, an attributed string as `{"class": "NSAttributedString",
    /// "string", "runs": [{"location", "length", "attributes": [{"key", "value"}]}]}`,
    /// numbers as numbers, other values as `{"class", …}` objects, a
    /// reference as `{"objectReference": index}`.
    public var jsonForm: PropertyListValue {
        var builder = JSONFormBuilder()
        writeJSONForm(to: &builder)
        return builder.result
    }

    /// Writes the value's JSON form (``jsonForm``) to `writer` piece by piece.
    ///
    /// - Throws: what `writer` throws.
    @inlinable public func writeJSONForm<Writer: FoundationJSONFormWriter>(to writer: inout Writer) throws(Writer.Failure) {
        try writeJSONForm(to: &writer) { index, writer throws(Writer.Failure) in try writer.reference(index) }
    }

    /// Writes the value's JSON form with each `.reference(index)` in it written by `references`
    /// (``TypedStreamFoundationDecoder/writeRoot(to:)`` writes the object there).
    @inlinable func writeJSONForm<Writer: FoundationJSONFormWriter>(
        to writer: inout Writer, references: (Int, inout Writer) throws(Writer.Failure) -> Void
    ) throws(Writer.Failure) {
        switch self {
        case .string(let string): try writer.value(.string(string))
        case .attributedString(let text):
            try writer.beginDictionary(count: 3)
            try writer.key("class")
            try writer.value(.string("NSAttributedString"))
            try writer.key("string")
            try writer.value(.string(text.string))
            try writer.key("runs")
            try writer.beginArray(count: text.runs.count)
            for (index, run) in text.runs.enumerated() {
                try writer.index(index)
                try writer.beginDictionary(count: 3)
                try writer.key("location")
                try writer.value(FoundationJSON.integer(run.range.location))
                try writer.key("length")
                try writer.value(FoundationJSON.integer(run.range.length))
                try writer.key("attributes")
                try Self.writeEntries(run.attributes, to: &writer, references: references)
                try writer.end()
            }
            try writer.end()
            try writer.end()
        case .number(let number), .scalar(let number): try Self.writeNumber(number, to: &writer)
        case .data(let bytes): try Self.writeData(bytes, to: &writer)
        case .date(let date):
            try writer.beginDictionary(count: 2)
            try writer.key("class")
            try writer.value(.string("NSDate"))
            try writer.key("secondsSinceReferenceDate")
            try writer.value(.real(date.secondsSinceReferenceDate))
            try writer.end()
        case .url(let url): try writer.value(url.jsonForm)
        case .array(let elements): try Self.writeArray(elements, to: &writer, references: references)
        case .set(let elements):
            try writer.beginDictionary(count: 2)
            try writer.key("class")
            try writer.value(.string("NSSet"))
            try writer.key("elements")
            try Self.writeArray(elements, to: &writer, references: references)
            try writer.end()
        case .dictionary(let entries):
            try writer.beginDictionary(count: 2)
            try writer.key("class")
            try writer.value(.string("NSDictionary"))
            try writer.key("entries")
            try Self.writeEntries(entries, to: &writer, references: references)
            try writer.end()
        case .font(let font): try writer.value(font.jsonForm)
        case .color(let color): try writer.value(color.jsonForm)
        case .geometry(let geometry): try writer.value(geometry.jsonForm)
        case .structure(let name, let fields):
            try Self.writeStructure(name: name, fieldCount: fields.count, to: &writer) { writer throws(Writer.Failure) in
                for (index, field) in fields.enumerated() {
                    try writer.index(index)
                    try field.writeJSONForm(to: &writer, references: references)
                }
            }
        case .cString(let bytes): try Self.writeCString(bytes, to: &writer)
        case .className(let name): try Self.writeClassReference(name, to: &writer)
        case .null: try Self.writeNull(to: &writer)
        case .reference(let index): try references(index, &writer)
        case .other(let object):
            try Self.writeOther(
                className: object.classNames.first ?? "", superclasses: object.classNames.dropFirst(), version: object.version,
                fieldCount: object.fields.count, to: &writer
            ) { writer throws(Writer.Failure) in
                for (index, field) in object.fields.enumerated() {
                    try writer.index(index)
                    try field.writeJSONForm(to: &writer, references: references)
                }
            }
        }
    }

    // The forms of the values a typed stream's fields hold, for `writeJSONForm` and for the decoder's
    // `writeRoot(to:)`, which writes an object's fields from the stream's values with no `FoundationObject` made.

    /// A number: an integer, a real (`FoundationJSON.real`) or a bool.
    @inlinable static func writeNumber<Writer: FoundationJSONFormWriter>(_ number: FoundationNumber, to writer: inout Writer) throws(Writer.Failure) {
        try writer.value(Self.number(number))
    }

    /// Bytes, as data.
    @inlinable static func writeData<Writer: FoundationJSONFormWriter>(_ bytes: [UInt8], to writer: inout Writer) throws(Writer.Failure) {
        try writer.value(.data(Data(bytes)))
    }

    /// A C string, atom or selector: a string when its bytes are UTF-8, else its bytes.
    @inlinable static func writeCString<Writer: FoundationJSONFormWriter>(_ bytes: [UInt8], to writer: inout Writer) throws(Writer.Failure) {
        if let text = String(validating: bytes, as: UTF8.self) { try writer.value(.string(text)) } else { try writer.value(.data(Data(bytes))) }
    }

    /// `{"classReference": name}`. Written piece by piece, not as a dictionary value (as `nil` is).
    @inlinable static func writeClassReference<Writer: FoundationJSONFormWriter>(_ name: String, to writer: inout Writer) throws(Writer.Failure) {
        try writeEntry("classReference", .string(name), to: &writer)
    }

    /// `{"nil": true}` (the writer's `null()`).
    @inlinable static func writeNull<Writer: FoundationJSONFormWriter>(to writer: inout Writer) throws(Writer.Failure) {
        try writer.null()
    }

    /// `{"struct": name, "fields": [...]}` (no `struct` when unnamed); `fields` writes each member after its index.
    @inlinable static func writeStructure<Writer: FoundationJSONFormWriter>(
        name: String?, fieldCount: Int, to writer: inout Writer, fields: (inout Writer) throws(Writer.Failure) -> Void
    ) throws(Writer.Failure) {
        try writer.beginDictionary(count: name == nil ? 1 : 2)
        if let name {
            try writer.key("struct")
            try writer.value(.string(name))
        }
        try writer.key("fields")
        try writer.beginArray(count: fieldCount)
        try fields(&writer)
        try writer.end()
        try writer.end()
    }

    /// `{"class", "superclasses", "version", "fields": [...]}`; `fields` writes each member after its index.
    @inlinable static func writeOther<Writer: FoundationJSONFormWriter>(
        className: String, superclasses: ArraySlice<String>, version: Int, fieldCount: Int, to writer: inout Writer,
        fields: (inout Writer) throws(Writer.Failure) -> Void
    ) throws(Writer.Failure) {
        try writer.beginDictionary(count: 4)
        try writer.key("class")
        try writer.value(.string(className))
        try writer.key("superclasses")
        try writer.beginArray(count: superclasses.count)
        for (index, name) in superclasses.enumerated() {
            try writer.index(index)
            try writer.value(.string(name))
        }
        try writer.end()
        try writer.key("version")
        try writer.value(FoundationJSON.integer(version))
        try writer.key("fields")
        try writer.beginArray(count: fieldCount)
        try fields(&writer)
        try writer.end()
        try writer.end()
    }

    @inlinable static func writeEntry<Writer: FoundationJSONFormWriter>(
        _ key: String, _ value: PropertyListValue, to writer: inout Writer
    ) throws(Writer.Failure) {
        try writer.beginDictionary(count: 1)
        try writer.key(key)
        try writer.value(value)
        try writer.end()
    }

    @inlinable static func writeArray<Writer: FoundationJSONFormWriter>(
        _ elements: [FoundationObject], to writer: inout Writer, references: (Int, inout Writer) throws(Writer.Failure) -> Void
    ) throws(Writer.Failure) {
        try writer.beginArray(count: elements.count)
        for (index, element) in elements.enumerated() {
            try writer.index(index)
            try element.writeJSONForm(to: &writer, references: references)
        }
        try writer.end()
    }

    /// `[{"key", "value"}]`.
    @inlinable static func writeEntries<Writer: FoundationJSONFormWriter>(
        _ entries: [FoundationDictionaryEntry], to writer: inout Writer, references: (Int, inout Writer) throws(Writer.Failure) -> Void
    ) throws(Writer.Failure) {
        try writer.beginArray(count: entries.count)
        for (index, entry) in entries.enumerated() {
            try writer.index(index)
            try writer.beginDictionary(count: 2)
            try writer.key("key")
            try entry.key.writeJSONForm(to: &writer, references: references)
            try writer.key("value")
            try entry.value.writeJSONForm(to: &writer, references: references)
            try writer.end()
        }
        try writer.end()
    }

    @inlinable static func number(_ number: FoundationNumber) -> PropertyListValue {
        switch number {
        case .integer(let value): return .integer(PropertyListInteger(value))
        case .real(let value): return FoundationJSON.real(value)
        case .bool(let value): return .bool(value)
        }
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

/// Builds `FoundationObject.jsonForm` from the pieces `FoundationObject.writeJSONForm(to:)` writes.
private struct JSONFormBuilder: FoundationJSONFormWriter {
    typealias Failure = Never

    /// The containers being built, innermost last, each with the key of its next member.
    private var open: [(items: [PropertyListValue], fields: OrderedDictionary<String, PropertyListValue>, isArray: Bool, key: String)] = []
    private(set) var result: PropertyListValue = .dictionary([:])

    private mutating func add(_ value: PropertyListValue) {
        guard !open.isEmpty else {
            result = value
            return
        }
        let last = open.count - 1
        if open[last].isArray { open[last].items.append(value) } else { open[last].fields[open[last].key] = value }
    }

    mutating func value(_ value: PropertyListValue) { add(value) }

    mutating func beginArray(count: Int) {
        var items: [PropertyListValue] = []
        items.reserveCapacity(count)
        open.append((items, [:], true, ""))
    }

    mutating func beginDictionary(count: Int) { open.append(([], OrderedDictionary(minimumCapacity: count), false, "")) }

    mutating func index(_ index: Int) {}

    mutating func key(_ key: String) { open[open.count - 1].key = key }

    mutating func end() {
        let container = open.removeLast()
        add(container.isArray ? .array(container.items) : .dictionary(container.fields))
    }

    mutating func reference(_ index: Int) { add(.dictionary(["objectReference": FoundationJSON.integer(index)])) }
}
