import PropertyList

/// Decodes the objects of a ``TypedStreamDocument`` into
/// `FoundationObject` values, by class name: `NSString`,
/// `NSAttributedString` (text and runs), `NSNumber`, `NSValue`, `NSData`,
/// `NSDate`, `NSURL`, `NSArray`, `NSSet`, `NSDictionary`, `NSFont`,
/// `NSColor` and their mutable subclasses; an object of any other class
/// becomes `FoundationObject.other` with its fields in order.
///
/// A shared object is decoded once and reused. An object of another class
/// met again inside itself (a view's subview refers to its superview) is
/// `FoundationObject.reference`; a string, number, collection or other
/// object of a class decoded by name that holds itself is refused with
/// ``TypedStreamError/Code/cycle`` at its byte offset.
public struct TypedStreamFoundationDecoder {
    /// The document decoded.
    public let document: TypedStreamDocument
    /// When true, an object met as another object's field, as a collection's
    /// element or as the root, whose value is itself a container (an
    /// `FoundationObject.other(_:)` object, an array, a set, a dictionary or
    /// an attributed string), is given as `FoundationObject.reference(_:)`
    /// with its index, and its value is read with ``decodedObject(at:)``: a
    /// caller writing a graph writes each shared object once. False (the
    /// default): such an object is given in full wherever it is met, which
    /// for a nib whose views name each other can be a hundred times the
    /// objects decoded. Strings, numbers, data, dates and URLs are given in
    /// full either way.
    public var referencesSharedObjects = false
    /// Each object decoded so far, by its index (an array, not a dictionary:
    /// hashing the index cost a tenth of decoding a small stream).
    private var decoded: [FoundationObject?]
    /// Objects that failed, so that many references to one do not decode it again each time.
    private var failed: [Int: TypedStreamError] = [:]
    private var inProgress: [Bool]
    /// For each class, the first class of its chain decoded by name once it
    /// has been looked for (`.some(nil)`: none is), so that each class's
    /// chain is walked once, not once per object.
    @usableFromInline var knownClassNames: [KnownClass??]
    /// While ``writeRoot(to:)`` writes: an object of a class not decoded by name is given as a reference
    /// and written from the stream's values, never made into a `FoundationObject`.
    @usableFromInline var writesOthersFromFields = false
    /// The shared objects ``writeRoot(to:)`` is writing, by index.
    @usableFromInline var writing: [Bool] = []
    /// Each class's name and its superclasses' names, once ``writeRoot(to:)`` has needed them.
    @usableFromInline var classNameChains: [[String]?] = []

    /// Makes a decoder for `document`.
    public init(document: TypedStreamDocument) {
        self.document = document
        decoded = [FoundationObject?](repeating: nil, count: document.objects.count)
        inProgress = [Bool](repeating: false, count: document.objects.count)
        knownClassNames = [KnownClass??](repeating: nil, count: document.classes.count)
    }

    /// The document's root value (its first top-level value) decoded;
    /// `FoundationObject.null` for an empty stream.
    ///
    /// Throws ``TypedStreamError`` when an object of a known class does not
    /// have the fields its class writes, or holds itself.
    public mutating func decodeRoot() throws(TypedStreamError) -> FoundationObject {
        guard let value = document.rootValue else { return .null }
        return try decode(value, at: document.root.first?.byteOffset ?? 0)
    }

    /// The object at `index` in the document's objects, decoded.
    public mutating func decodeObject(at index: Int) throws(TypedStreamError) -> FoundationObject {
        if let done = decoded[index] { return done }
        if let error = failed[index] { throw error }
        let object = document.objects[index]
        guard !inProgress[index] else {
            if knownClassName(of: object) == nil { return .reference(index) }
            throw TypedStreamError(.cycle, at: object.byteOffset, "object \(index) holds itself")
        }
        inProgress[index] = true
        defer { inProgress[index] = false }
        do {
            let result = try decodeFields(of: object, index: index)
            decoded[index] = result
            return result
        } catch {
            failed[index] = error
            throw error
        }
    }

    /// The value of the object at `index` once it is decoded, nil before
    /// (or when it failed). With ``referencesSharedObjects``, this is where a
    /// `FoundationObject.reference(_:)` leads.
    public func decodedObject(at index: Int) -> FoundationObject? {
        decoded.indices.contains(index) ? decoded[index] : nil
    }

    /// The object at `index` decoded, or with ``referencesSharedObjects`` a
    /// reference to it when its value is a container.
    private mutating func sharedObject(at index: Int) throws(TypedStreamError) -> FoundationObject {
        if writesOthersFromFields, knownClassName(of: document.objects[index]) == nil { return .reference(index) }
        let value = try decodeObject(at: index)
        guard referencesSharedObjects else { return value }
        switch value {
        case .other, .array, .set, .dictionary, .attributedString: return .reference(index)
        default: return value
        }
    }

    /// A value of any C type, decoded.
    public mutating func decode(_ value: TypedStreamValue, at offset: Int) throws(TypedStreamError) -> FoundationObject {
        switch value {
        case .integer(let integer): return .scalar(.integer(integer))
        case .float(let float): return .scalar(.real(Double(float)))
        case .double(let double): return .scalar(.real(double))
        case .bool(let bool): return .scalar(.bool(bool))
        case .string(let bytes): return bytes.map(FoundationObject.cString) ?? .null
        case .class(let index): return index.map { .className(document.classes[$0].name) } ?? .null
        case .object(let index): return try index.map { index throws(TypedStreamError) in try sharedObject(at: index) } ?? .null
        case .bytes(let bytes): return .data(bytes)
        case .array(let elements):
            var result: [FoundationObject] = []
            for element in elements { result.append(try decode(element, at: offset)) }
            return .array(result)
        case .structure(let name, let fields):
            if let geometry = Self.geometry(name: name, fields: fields) { return .geometry(geometry) }
            var result: [FoundationObject] = []
            for field in fields { result.append(try decode(field, at: offset)) }
            return .structure(name: name, fields: result)
        case .none: return .null
        }
    }

    // MARK: Writing the graph

    /// Writes the root's JSON form (`FoundationObject.jsonForm` of ``decodeRoot()``) to `writer`, each object
    /// whose value is a container (an object of a class not decoded by name, an array, a set, a dictionary or
    /// an attributed string) offered to the writer as shared: its value is written the first time the writer
    /// takes it, and a later meeting is the writer's to write (a reference to the first). An object of a class
    /// not decoded by name met again inside itself is written as `{"objectReference": index}`, as its JSON form
    /// has it; a string, collection or other object of a class decoded by name that holds itself is refused
    /// as ``decodeRoot()`` refuses it. Objects of classes not decoded by name, a nib's many, are written from
    /// the stream's values: no `FoundationObject` is made for them or their fields.
    ///
    /// - Throws: what `writer` throws, and a decoding error as `writer` makes it its own.
    @inlinable public mutating func writeRoot<Writer: FoundationGraphWriter>(to writer: inout Writer) throws(Writer.Failure) {
        let (wasReferencing, wasWriting) = (referencesSharedObjects, writesOthersFromFields)
        (referencesSharedObjects, writesOthersFromFields) = (true, true)
        defer { (referencesSharedObjects, writesOthersFromFields) = (wasReferencing, wasWriting) }
        if writing.count != document.objects.count {
            writing = [Bool](repeating: false, count: document.objects.count)
            classNameChains = [[String]?](repeating: nil, count: document.classes.count)
        }
        guard let root = document.root.first, let value = root.values.first?.value else {
            try FoundationObject.writeNull(to: &writer)
            return
        }
        try write(value, at: root.byteOffset, to: &writer)
    }

    /// One value of the stream, written as `decode(_:at:)` then `writeJSONForm` would write it.
    @inlinable mutating func write<Writer: FoundationGraphWriter>(
        _ value: borrowing TypedStreamValue, at offset: Int, to writer: inout Writer
    ) throws(Writer.Failure) {
        switch value {
        case .integer(let integer): try FoundationObject.writeNumber(.integer(integer), to: &writer)
        case .float(let float): try FoundationObject.writeNumber(.real(Double(float)), to: &writer)
        case .double(let double): try FoundationObject.writeNumber(.real(double), to: &writer)
        case .bool(let bool): try FoundationObject.writeNumber(.bool(bool), to: &writer)
        case .string(let bytes?): try FoundationObject.writeCString(bytes, to: &writer)
        case .class(let index?): try FoundationObject.writeClassReference(document.classes[index].name, to: &writer)
        case .object(let index?): try writeObject(at: index, to: &writer)
        case .string(nil), .class(nil), .object(nil), .none: try FoundationObject.writeNull(to: &writer)
        case .bytes(let bytes): try FoundationObject.writeData(bytes, to: &writer)
        case .array(let elements):
            try writer.beginArray(count: elements.count)
            for (index, element) in elements.enumerated() {
                try writer.index(index)
                try write(element, at: offset, to: &writer)
            }
            try writer.end()
        case .structure(let name, let fields):
            if let geometry = Self.geometry(name: name, fields: fields) {
                try writer.value(geometry.jsonForm)
                return
            }
            try FoundationObject.writeStructure(name: name, fieldCount: fields.count, to: &writer) { writer throws(Writer.Failure) in
                for (index, field) in fields.enumerated() {
                    try writer.index(index)
                    try write(field, at: offset, to: &writer)
                }
            }
        }
    }

    /// Object `index`: a value of a class decoded by name that is not a container in full, a container offered
    /// to the writer as shared.
    @inlinable mutating func writeObject<Writer: FoundationGraphWriter>(at index: Int, to writer: inout Writer) throws(Writer.Failure) {
        let classIndex = document.objects[index].classIndex
        var value: FoundationObject?
        let known = knownClass(classIndex)
        if known == .string {
            // A nib's many strings: written from their bytes, as `decodeObject(at:)` would give them, with no value kept.
            let text: String
            do {
                text = try stringText(at: index)
            } catch {
                throw writer.failure(error)
            }
            try writer.value(.string(text))
            return
        }
        if known != nil {
            let decodedValue: FoundationObject
            do {
                decodedValue = try decodeObject(at: index)
            } catch {
                throw writer.failure(error)
            }
            switch decodedValue {
            case .array, .set, .dictionary, .attributedString: value = decodedValue
            default:
                // An NSValue's struct may hold objects: they are written as any object is.
                try decodedValue.writeJSONForm(to: &writer) { member, writer throws(Writer.Failure) in try writeObject(at: member, to: &writer) }
                return
            }
        }
        if writing[index] {
            // Met again inside itself: an object of another class is a reference; one decoded by name is a cycle.
            guard value == nil else {
                throw writer.failure(TypedStreamError(.cycle, at: document.objects[index].byteOffset, "object \(index) holds itself"))
            }
            try writer.reference(index)
            return
        }
        guard try writer.beginShared(index) else { return }
        writing[index] = true
        defer { writing[index] = false }
        if let value {
            try value.writeJSONForm(to: &writer) { member, writer throws(Writer.Failure) in try writeObject(at: member, to: &writer) }
        } else {
            try writeOther(at: index, classIndex: classIndex, to: &writer)
        }
        writer.endShared(index)
    }

    /// Object `index`, of a class not decoded by name, from the stream's values: the groups' values in order, not
    /// flattened into one array (`fields(of:)`), since a nib's objects write several groups.
    @inlinable mutating func writeOther<Writer: FoundationGraphWriter>(at index: Int, classIndex: Int, to writer: inout Writer) throws(Writer.Failure) {
        let names = classNames(classIndex)
        let groups = document.objects[index].groups
        let byteOffset = document.objects[index].byteOffset
        var fieldCount = 0
        for group in groups.indices { fieldCount += groups[group].values.count }
        try FoundationObject.writeOther(
            className: names.first ?? "", superclasses: names.dropFirst(), version: names.isEmpty ? 0 : document.classes[classIndex].version,
            fieldCount: fieldCount, to: &writer
        ) { writer throws(Writer.Failure) in
            var position = 0
            for group in groups.indices {
                for field in groups[group].values.indices {
                    try writer.index(position)
                    try write(groups[group].values[field].value, at: byteOffset, to: &writer)
                    position += 1
                }
            }
        }
    }

    /// The class decoded by name that the class at `index` is or descends from (`knownClassName(ofClass:)`), from
    /// what is known once asked.
    @inlinable mutating func knownClass(_ index: Int) -> KnownClass? {
        if index >= 0, index < knownClassNames.count, let known = knownClassNames[index] { return known }
        return knownClassName(ofClass: index)
    }

    /// The text of the NSString at `index`, as `decodeObject(at:)` decodes it.
    @usableFromInline func stringText(at index: Int) throws(TypedStreamError) -> String {
        let object = document.objects[index]
        var fields = FieldCursor(document.fields(of: object), object: object, index: index)
        return try fields.text()
    }

    /// The names of the class at `index` and its superclasses, most derived first (`classChain(of:)`'s), made once per class.
    @inlinable mutating func classNames(_ index: Int) -> [String] {
        if let names = classNameChains[index] { return names }
        var names: [String] = []
        var next: Int? = index
        while let at = next, names.count < document.classes.count {
            names.append(document.classes[at].name)
            next = document.classes[at].superclass
        }
        classNameChains[index] = names
        return names
    }

    // MARK: Classes by name

    private mutating func decodeFields(of object: TypedStreamObject, index: Int) throws(TypedStreamError) -> FoundationObject {
        var fields = FieldCursor(document.fields(of: object), object: object, index: index)
        let known = knownClassName(of: object)
        switch known {
        case .string:
            return .string(try fields.text())
        case .attributedString:
            return .attributedString(try attributedText(object, index: index))
        case .number:
            _ = try fields.cString()
            return .number(try fields.number())
        case .value:
            _ = try fields.cString()
            let value = try fields.next("a value")
            return try decode(value, at: object.byteOffset)
        case .data:
            _ = try fields.integer()
            guard case .bytes(let bytes) = try fields.next("the bytes") else { throw fields.fail("its bytes are not an array of char") }
            return .data(bytes)
        case .date:
            guard case .scalar(.real(let seconds)) = try decode(try fields.next("the time"), at: object.byteOffset) else {
                throw fields.fail("its time is not a double")
            }
            return .date(FoundationDate(secondsSinceReferenceDate: seconds))
        case .url:
            var base: String?
            if try fields.integer() != 0 {
                guard case .url(let baseURL) = try objectField(&fields) else { throw fields.fail("its base is not a URL") }
                base = baseURL.string
            }
            guard case .string(let string) = try objectField(&fields) else { throw fields.fail("its string is not an NSString") }
            return .url(FoundationURL(string: string, base: base))
        case .array, .set:
            let count = try fields.integer()
            var elements: [FoundationObject] = []
            for _ in 0..<max(0, min(count, Int64(fields.remaining))) { elements.append(try objectField(&fields, shared: true)) }
            guard Int64(elements.count) == count else { throw fields.fail("it says \(count) elements but holds \(elements.count)") }
            return known == .set ? .set(elements) : .array(elements)
        case .dictionary:
            let count = try fields.integer()
            var entries: [FoundationDictionaryEntry] = []
            for _ in 0..<max(0, min(count, Int64(fields.remaining / 2))) {
                entries.append(FoundationDictionaryEntry(key: try objectField(&fields, shared: true), value: try objectField(&fields, shared: true)))
            }
            guard Int64(entries.count) == count else { throw fields.fail("it says \(count) entries but holds \(entries.count)") }
            return .dictionary(entries)
        case .color:
            return .color(try color(&fields))
        case .font:
            return .font(try font(&fields))
        default:
            var values: [FoundationObject] = []
            while fields.remaining > 0 { values.append(try decode(try fields.next("a field"), at: object.byteOffset)) }
            let chain = document.classChain(of: object)
            return .other(FoundationOtherObject(classNames: chain.map(\.name), version: chain.first?.version ?? 0, fields: values))
        }
    }

    /// The first class of the object's chain that is decoded by name, nil when none is.
    private mutating func knownClassName(of object: TypedStreamObject) -> KnownClass? { knownClassName(ofClass: object.classIndex) }

    /// The first class of the chain of the class at `classIndex` that is decoded by name, nil when none is.
    @usableFromInline mutating func knownClassName(ofClass classIndex: Int) -> KnownClass? {
        let classes = document.classes
        guard classes.indices.contains(classIndex) else { return nil }
        if let known = knownClassNames[classIndex] { return known }
        // Up the chain as `classChain(of:)` goes (at most one step per class, so a crafted cycle ends), to
        // the first class decoded by name or one whose answer is known; every class passed has that answer.
        var passed: [Int] = []
        var next: Int? = classIndex
        var found: KnownClass?
        while let index = next, passed.count < classes.count {
            if let known = knownClassNames[index] {
                found = known
                break
            }
            passed.append(index)
            if let known = Self.knownClasses[classes[index].name] {
                found = known
                break
            }
            next = classes[index].superclass
        }
        for index in passed { knownClassNames[index] = .some(found) }
        return found
    }

    /// The classes decoded by name, their mutable subclasses with them.
    @usableFromInline enum KnownClass: Sendable {
        case string, attributedString, number, value, data, date, url, array, set, dictionary, color, font
    }

    private static let knownClasses: [String: KnownClass] = [
        "NSString": .string, "NSMutableString": .string, "NSAttributedString": .attributedString,
        "NSMutableAttributedString": .attributedString, "NSNumber": .number, "NSValue": .value, "NSData": .data,
        "NSMutableData": .data, "NSDate": .date, "NSURL": .url, "NSArray": .array, "NSMutableArray": .array, "NSSet": .set,
        "NSMutableSet": .set, "NSDictionary": .dictionary, "NSMutableDictionary": .dictionary, "NSColor": .color, "NSFont": .font,
    ]

    /// The next field, an object, decoded; `shared`: a container may be given as a reference (see
    /// ``referencesSharedObjects``), for a caller that does not look inside it.
    private mutating func objectField(_ fields: inout FieldCursor, shared: Bool = false) throws(TypedStreamError) -> FoundationObject {
        guard case .object(let index) = try fields.next("an object") else { throw fields.fail("a field that should be an object is not") }
        guard let index else { return .null }
        return shared ? try sharedObject(at: index) : try decodeObject(at: index)
    }

    /// The text, then (run attribute number, run length) pairs each followed
    /// by the run's attribute dictionary when its number is new.
    private mutating func attributedText(_ object: TypedStreamObject, index: Int) throws(TypedStreamError) -> AttributedText<FoundationObject> {
        var fields = FieldCursor(document.fields(of: object), object: object, index: index)
        guard case .string(let string) = try objectField(&fields) else { throw fields.fail("its text is not an NSString") }
        var dictionaries: [[FoundationDictionaryEntry]] = []
        var runs: [AttributedTextRun<FoundationObject>] = []
        var location = 0
        let utf16Count = string.utf16.count
        while fields.remaining > 0 {
            let number = try fields.integer()
            let length = try fields.integer()
            guard length >= 0, length <= Int64(utf16Count - location) else {
                throw fields.fail("a run of \(length) past the text's end (\(utf16Count) UTF-16 units)")
            }
            let attributes: [FoundationDictionaryEntry]
            if number == Int64(dictionaries.count) + 1 {
                guard case .dictionary(let entries) = try objectField(&fields) else { throw fields.fail("a run's attributes are not a dictionary") }
                dictionaries.append(entries)
                attributes = entries
            } else if number >= 1, number <= Int64(dictionaries.count) {
                attributes = dictionaries[Int(number) - 1]
            } else {
                throw fields.fail("run attributes number \(number), but \(dictionaries.count) are read")
            }
            runs.append(AttributedTextRun(range: TextRange(location: location, length: Int(length)), attributes: attributes))
            location += Int(length)
        }
        return AttributedText(string: string, runs: runs)
    }

    private mutating func color(_ fields: inout FieldCursor) throws(TypedStreamError) -> FoundationColor {
        let kind = try fields.integer()
        // The same numbers as a keyed archive's NSColorSpace; a typed stream's NSColor writes kinds 1 to 6.
        guard kind <= 6, let space = FoundationColor.Space(archivedNumber: kind) else { throw fields.fail("colour kind \(kind) (1 to 6 expected)") }
        if let count = space.componentCount {
            var components: [Double] = []
            for _ in 0..<count { components.append(try fields.real()) }
            return FoundationColor(space: space, components: components)
        }
        guard case .string(let catalog) = try objectField(&fields), case .string(let name) = try objectField(&fields) else {
            throw fields.fail("a named colour's catalog and name are not strings")
        }
        _ = try objectField(&fields)  // The colour it stands for, in case the catalog is missing.
        return FoundationColor(space: .named, components: [], catalog: catalog, name: name)
    }

    /// Version 21 and 30: the name as an `NSArchiver` property list (an
    /// `i` length, then its bytes), then the size.
    private mutating func font(_ fields: inout FieldCursor) throws(TypedStreamError) -> FoundationFont {
        _ = try fields.integer()
        guard case .bytes(let plist) = try fields.next("the font name") else { throw fields.fail("a font's name is not an array of bytes") }
        return FoundationFont(name: Self.serializedString(plist), size: try fields.real())
    }

    /// The string an `NSSerializer` property list holds (what `encodePropertyList:`
    /// writes): a little-endian 4-byte type, 6 for UTF-16 with a byte order
    /// mark or 5 for NeXTSTEP's 8-bit set (read here when ASCII), a 4-byte
    /// length and the bytes. nil for any other value.
    static func serializedString(_ bytes: [UInt8]) -> String? {
        func word(_ offset: Int) -> Int? {
            guard offset + 4 <= bytes.count else { return nil }
            return Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2]) << 16 | Int(bytes[offset + 3]) << 24
        }
        guard let type = word(0), let length = word(4), length <= bytes.count - 8 else { return nil }
        let body = bytes[8..<8 + length]
        switch type {
        case 5:
            guard body.allSatisfy({ $0 < 0x80 }) else { return nil }
            return String(decoding: body, as: UTF8.self)
        case 6:
            guard length % 2 == 0, length >= 2 else { return nil }
            let bigEndian: Bool
            switch (body[body.startIndex], body[body.startIndex + 1]) {
            case (0xFE, 0xFF): bigEndian = true
            case (0xFF, 0xFE): bigEndian = false
            default: return nil
            }
            var units: [UInt16] = []
            units.reserveCapacity(length / 2)
            for index in stride(from: body.startIndex + 2, to: body.endIndex, by: 2) {
                let (high, low) = bigEndian ? (body[index], body[index + 1]) : (body[index + 1], body[index])
                units.append(UInt16(high) << 8 | UInt16(low))
            }
            return String(validating: units, as: UTF16.self)
        default:
            return nil
        }
    }

    @usableFromInline static func geometry(name: String?, fields: [TypedStreamValue]) -> FoundationGeometry? {
        func real(_ value: TypedStreamValue) -> Double? {
            switch value {
            case .float(let float): Double(float)
            case .double(let double): double
            default: nil
            }
        }
        switch (name, fields.count) {
        case ("_NSPoint", 2), ("CGPoint", 2):
            guard let x = real(fields[0]), let y = real(fields[1]) else { return nil }
            return .point(x: x, y: y)
        case ("_NSSize", 2), ("CGSize", 2):
            guard let width = real(fields[0]), let height = real(fields[1]) else { return nil }
            return .size(width: width, height: height)
        case ("_NSRect", 2), ("CGRect", 2):
            guard case .point(let x, let y)? = geometry(name: name == "CGRect" ? "CGPoint" : "_NSPoint", fields: Self.fields(fields[0])),
                case .size(let width, let height)? = geometry(name: name == "CGRect" ? "CGSize" : "_NSSize", fields: Self.fields(fields[1]))
            else { return nil }
            return .rect(x: x, y: y, width: width, height: height)
        case ("_NSRange", 2):
            guard case .integer(let location) = fields[0], case .integer(let length) = fields[1] else { return nil }
            return .range(TextRange(location: Int(location), length: Int(length)))
        default:
            return nil
        }
    }

    private static func fields(_ value: TypedStreamValue) -> [TypedStreamValue] {
        if case .structure(_, let fields) = value { fields } else { [] }
    }
}

/// What ``TypedStreamFoundationDecoder/writeRoot(to:)`` writes a typed stream's object graph to: the pieces
/// of the JSON form, with each shared object offered once.
public protocol FoundationGraphWriter: FoundationJSONFormWriter {
    /// Object `index`, whose value is a container, is met: true when its value is to be written now (then
    /// ``endShared(_:)`` follows it); false when the writer has written what stands for it instead.
    mutating func beginShared(_ index: Int) throws(Failure) -> Bool
    /// The value of the shared object `index` is written.
    mutating func endShared(_ index: Int)
    /// A decoding error met while writing, as the writer's own failure.
    mutating func failure(_ error: TypedStreamError) -> Failure
}

/// Walks an object's fields in order, failing at the object's byte offset.
private struct FieldCursor {
    let fields: [TypedStreamField]
    let object: TypedStreamObject
    let index: Int
    var position = 0

    init(_ fields: [TypedStreamField], object: TypedStreamObject, index: Int) {
        self.fields = fields
        self.object = object
        self.index = index
    }

    var remaining: Int { fields.count - position }

    func fail(_ message: String) -> TypedStreamError {
        TypedStreamError(.invalidValue, at: object.byteOffset, "object \(index): \(message)")
    }

    mutating func next(_ what: String) throws(TypedStreamError) -> TypedStreamValue {
        guard position < fields.count else { throw fail("\(what) is missing") }
        defer { position += 1 }
        return fields[position].value
    }

    mutating func integer() throws(TypedStreamError) -> Int64 {
        guard case .integer(let value) = try next("an integer") else { throw fail("a field that should be an integer is not") }
        return value
    }

    mutating func real() throws(TypedStreamError) -> Double {
        switch try next("a number") {
        case .float(let value): return Double(value)
        case .double(let value): return value
        case .integer(let value): return Double(value)
        default: throw fail("a field that should be a number is not")
        }
    }

    mutating func cString() throws(TypedStreamError) -> [UInt8]? {
        guard case .string(let bytes) = try next("a type encoding") else { throw fail("a field that should be a C string is not") }
        return bytes
    }

    mutating func number() throws(TypedStreamError) -> FoundationNumber {
        switch try next("the number") {
        case .integer(let value): return .integer(value)
        case .float(let value): return .real(Double(value))
        case .double(let value): return .real(value)
        case .bool(let value): return .bool(value)
        default: throw fail("an NSNumber's value is not a number")
        }
    }

    /// An `NSString`'s UTF-8 bytes as text.
    mutating func text() throws(TypedStreamError) -> String {
        guard case .string(let bytes?) = try next("the text") else { throw fail("an NSString without its bytes") }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw fail("an NSString whose bytes are not UTF-8") }
        return text
    }
}
