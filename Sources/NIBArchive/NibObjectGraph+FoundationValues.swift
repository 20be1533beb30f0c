import KeyedArchive

// UIKit's `UIColor` and `UIFont` in a nib, decoded by class name to
// FoundationValues' types: what their fields mean is read by the same code
// as a keyed archive's (`FoundationColor(uikitFields:string:fail:)`,
// `FoundationFont(uikitFields:string:descriptor:fail:)`,
// `FoundationFontDescriptor(archivedAttributes:key:fail:)`); this file only
// finds the fields among the nib's objects.

extension NibObjectGraph {
    /// A nib object decoded by its class to one of Foundation's or UIKit's
    /// values that read best as text.
    public enum ReadableValue: Hashable, Sendable {
        /// A `UIColor`.
        case color(FoundationColor)
        /// A `UIFont`, with its `UIFontDescriptor`'s attributes when it has one.
        case font(FoundationFont)

        /// The value on one line for people, as `ict inspect` writes it for a
        /// keyed archive's colour or font (`ArchivedValue.readableText`):
        /// `".SFUIText" 14 pt, usage CTFontRegularUsage`, `uikitWhite(white 0.5, alpha 1)`.
        public var readableText: String {
            switch self {
            case .color(let color): color.description
            case .font(let font): font.description
            }
        }
    }

    /// The classes `decodeReadableValue(ofObjectAt:limits:)` decodes, by their exact name.
    public static let readableClassNames: Set<String> = ["UIColor", "UIFont"]

    /// The object at `index` decoded, when it is a `UIColor` or `UIFont`
    /// in UIKit's form; nil for other objects and for one that does not
    /// decode (its fields then say what is there), as
    /// `KeyedArchiveObjectGraph.readableValue(ofObjectAt:limits:)` does for a keyed archive.
    ///
    /// Cost: for one of those classes, reads the object and the objects it
    /// refers to (a font's name, descriptor and its attributes), each once.
    public func readableValue(ofObjectAt index: Int, limits: NIBArchiveLimits = .default) -> ReadableValue? {
        readableValueAndParts(ofObjectAt: index, limits: limits)?.value
    }

    /// The object at `index` decoded, when it is a `UIColor` or `UIFont`
    /// (``readableClassNames``); nil for an object of another class or no object.
    ///
    /// Cost: as ``readableValue(ofObjectAt:limits:)``.
    ///
    /// - Throws: `NIBArchiveError` `.invalidObject` when a field the class
    ///   needs is missing or not of its type (the message names the object's
    ///   class and index and the key; the byte offset is the field's in a
    ///   compiled nib); `.limitExceeded(.depth)` for references nested deeper
    ///   than `limits.maximumDepth`.
    public func decodeReadableValue(ofObjectAt index: Int, limits: NIBArchiveLimits = .default) throws(NIBArchiveError) -> ReadableValue? {
        var decoder = NibReadableValueDecoder(graph: self, maximumDepth: limits.maximumDepth)
        return try decoder.decode(index)
    }

    /// The object at `index` decoded as ``readableValue(ofObjectAt:limits:)``
    /// does, and the indices of the objects its value was read from (itself,
    /// its strings, descriptor, …), which the text form then need not show.
    func readableValueAndParts(ofObjectAt index: Int, limits: NIBArchiveLimits) -> (value: ReadableValue, parts: Set<Int>)? {
        var decoder = NibReadableValueDecoder(graph: self, maximumDepth: limits.maximumDepth)
        guard let value = (try? decoder.decode(index)) ?? nil else { return nil }
        return (value, decoder.visited)
    }
}

/// Reads a `UIColor` or `UIFont` object's fields for the shared readings of FoundationValues.
private struct NibReadableValueDecoder {
    let graph: NibObjectGraph
    let maximumDepth: Int
    /// The objects read so far.
    var visited: Set<Int> = []
    /// The objects being resolved, to refuse a reference back to one of them.
    private var resolving: Set<Int> = []
    /// Each object resolved to a value once.
    private var resolved: [Int: FoundationObject] = [:]

    init(graph: NibObjectGraph, maximumDepth: Int) {
        self.graph = graph
        self.maximumDepth = maximumDepth
    }

    mutating func decode(_ index: Int) throws(NIBArchiveError) -> NibObjectGraph.ReadableValue? {
        guard let object = graph.object(index), NibObjectGraph.readableClassNames.contains(object.className) else { return nil }
        visited.insert(index)
        if object.className == "UIColor" {
            let color = try FoundationColor(
                uikitFields: { key throws(NIBArchiveError) in try number(key, of: object) },
                string: { key throws(NIBArchiveError) in try string(key, of: object) },
                fail: { Self.invalid(object, $0) })
            guard let color else { throw Self.invalid(object, "has none of UIColor's UIRed, UIWhite or UISystemColorName") }
            return .color(color)
        }
        let descriptor = try fontDescriptor(of: object)
        return .font(
            try FoundationFont(
                uikitFields: { key throws(NIBArchiveError) in try number(key, of: object) },
                string: { key throws(NIBArchiveError) in try string(key, of: object) }, descriptor: descriptor,
                fail: { Self.invalid(object, $0) }))
    }

    /// `UIColor object 86 has a UIRed that is not a number`, at the field's byte offset when there is one.
    private static func invalid(_ object: NibObjectGraph.Object, _ message: String, at field: NibObjectGraph.Field? = nil) -> NIBArchiveError {
        NIBArchiveError(.invalidObject, at: field?.byteOffset, "\(object.className) object \(object.index) \(message)")
    }

    /// A number field (an integer or real, or a reference to an `NSNumber`); nil when absent.
    private mutating func number(_ key: String, of object: NibObjectGraph.Object) throws(NIBArchiveError) -> Double? {
        guard let field = object.fields.first(where: { $0.key == key }) else { return nil }
        guard let number = try resolve(field.value, depth: 1).fieldNumber else {
            throw Self.invalid(object, "has a \(key) that is not a number", at: field)
        }
        return number
    }

    /// A string field (a reference to an `NSString`, or a keyed nib's string); nil when absent or nil.
    private mutating func string(_ key: String, of object: NibObjectGraph.Object) throws(NIBArchiveError) -> String? {
        guard let field = object.fields.first(where: { $0.key == key }) else { return nil }
        switch try resolve(field.value, depth: 1) {
        case .null: return nil
        case .string(let text): return text
        default: throw Self.invalid(object, "has a \(key) that is not a string", at: field)
        }
    }

    /// The descriptor under `NSDescriptor` or `UIFontDescriptor`, as a keyed archive's font reads it; nil when none or nil.
    private mutating func fontDescriptor(of font: NibObjectGraph.Object) throws(NIBArchiveError) -> FoundationFontDescriptor? {
        guard let field = font.fields.first(where: { $0.key == "NSDescriptor" || $0.key == "UIFontDescriptor" }) else { return nil }
        let key = field.key
        if field.value == .nil { return nil }
        guard case .object(let index) = field.value, let object = graph.object(index),
            object.className == "UIFontDescriptor" || object.className == "NSFontDescriptor"
        else { throw Self.invalid(font, "has a \(key) that is not a UIFontDescriptor or NSFontDescriptor", at: field) }
        visited.insert(index)
        func fail(_ message: String) -> NIBArchiveError {
            Self.invalid(font, "has a \(key) (\(object.className), object \(index)) that \(message)", at: field)
        }
        guard let attributes = object.fields.first(where: { FoundationFontDescriptor.archivedAttributesKeys.contains($0.key) }) else {
            throw fail("has neither UIFontDescriptorAttributes nor NSFontDescriptorAttributes")
        }
        guard let entries = try resolve(attributes.value, depth: 2).fieldEntries else {
            throw fail("has a \(attributes.key) that is not a dictionary")
        }
        return try FoundationFontDescriptor(archivedAttributes: entries, key: attributes.key, fail: fail)
    }

    /// A value with the objects it refers to resolved: a string object as
    /// its text, an `NSNumber` as its number, an array's and a dictionary's
    /// `UINibEncoderEmptyKey` fields as elements and (key, value) pairs;
    /// another object as `.other`, with its class name and no fields.
    private mutating func resolve(_ value: NibObjectGraph.Value, depth: Int) throws(NIBArchiveError) -> FoundationObject {
        switch value {
        case .integer(let integer): return .number(.integer(integer))
        case .real(let real): return .number(.real(real))
        case .bool(let flag): return .number(.bool(flag))
        case .data(let bytes): return .data(bytes)
        case .string(let text): return .string(text)
        case .nil: return .null
        case .list(let list):
            var elements: [FoundationObject] = []
            for element in list { elements.append(try resolve(element, depth: depth + 1)) }
            return .array(elements)
        case .object(let index): return try resolveObject(index, depth: depth)
        }
    }

    private mutating func resolveObject(_ index: Int, depth: Int) throws(NIBArchiveError) -> FoundationObject {
        if let known = resolved[index] { return known }
        guard let object = graph.object(index) else { return .null }
        guard depth <= maximumDepth else {
            throw NIBArchiveError(
                .limitExceeded(.depth), at: nil, "object \(index) is nested \(depth) references deep, more than the limit of \(maximumDepth)")
        }
        guard !resolving.contains(index) else {
            throw NIBArchiveError(.invalidObject, at: nil, "\(object.className) object \(index) refers back to itself")
        }
        visited.insert(index)
        resolving.insert(index)
        defer { resolving.remove(index) }
        let elements = object.fields.filter { $0.key == "UINibEncoderEmptyKey" }
        let value: FoundationObject
        if let text = object.string {
            value = .string(text)
        } else if object.className == "NSNumber", let first = object.fields.first {
            value = try resolve(first.value, depth: depth + 1)
        } else if ["NSArray", "NSMutableArray"].contains(object.className) {
            var list: [FoundationObject] = []
            for element in elements { list.append(try resolve(element.value, depth: depth + 1)) }
            value = .array(list)
        } else if ["NSDictionary", "NSMutableDictionary"].contains(object.className) {
            guard elements.count.isMultiple(of: 2) else {
                throw NIBArchiveError(
                    .invalidObject, at: elements.last?.byteOffset,
                    "\(object.className) object \(index) has \(elements.count) UINibEncoderEmptyKey fields, not (key, value) pairs")
            }
            var entries: [FoundationDictionaryEntry] = []
            for pair in stride(from: 0, to: elements.count, by: 2) {
                entries.append(
                    FoundationDictionaryEntry(
                        key: try resolve(elements[pair].value, depth: depth + 1), value: try resolve(elements[pair + 1].value, depth: depth + 1)))
            }
            value = .dictionary(entries)
        } else {
            value = .other(FoundationOtherObject(classNames: [object.className], version: 0, fields: []))
        }
        resolved[index] = value
        return value
    }
}
