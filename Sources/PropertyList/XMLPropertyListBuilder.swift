import OrderedCollections

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The elements of the property-list vocabulary.
enum PropertyListElement: Int, CaseIterable {
    case key, string, integer, real, dict, array, `true`, `false`, date, data, plist

    /// The element's name, NUL-terminated for interning.
    var name: StaticString {
        switch self {
        case .key: "key"
        case .string: "string"
        case .integer: "integer"
        case .real: "real"
        case .dict: "dict"
        case .array: "array"
        case .true: "true"
        case .false: "false"
        case .date: "date"
        case .data: "data"
        case .plist: "plist"
        }
    }
}

/// Receives the SAX2 events of one read (`parseXMLEvents`) and hands them
/// to its `XMLPropertyListBuilder`, which it owns. The builder sits behind a
/// pointer: a stored property would be checked for exclusive access at
/// every event.
final class XMLPropertyListEventReceiver: XMLDocumentEventHandler {
    private let builder: UnsafeMutablePointer<XMLPropertyListBuilder>

    init(builder: consuming XMLPropertyListBuilder) {
        self.builder = .allocate(capacity: 1)
        self.builder.initialize(to: builder)
    }

    deinit {
        builder.deinitialize(count: 1)
        builder.deallocate()
    }

    /// The value read, or the first error (`XMLPropertyListBuilder.finish(_:)`).
    func finish(_ sink: XMLEventSink) throws(PropertyListError) -> PropertyListValue { try builder.pointee.finish(sink) }

    func parseWillStart(_ sink: XMLEventSink) { builder.pointee.parseWillStart(sink) }
    func startElement(_ element: XMLElementStart) throws(PropertyListError) { try builder.pointee.startElement(element) }
    func endElement() throws(PropertyListError) { try builder.pointee.endElement(wasEmpty: false) }
    func endElement(wasEmpty: Bool) throws(PropertyListError) { try builder.pointee.endElement(wasEmpty: wasEmpty) }
    func text(_ utf8: UnsafeBufferPointer<UInt8>) { builder.pointee.receiveText(utf8) }
    func cdata(_ utf8: UnsafeBufferPointer<UInt8>) throws(PropertyListError) { try builder.pointee.cdata(utf8) }
    func commentOrProcessingInstruction() throws(PropertyListError) { try builder.pointee.checkStrayText() }
    func undeclaredEntityReference() throws(PropertyListError) { try builder.pointee.undeclaredEntityReference() }
    func documentTypeEnded(hasDeclarations: Bool) throws(PropertyListError) {
        try builder.pointee.documentTypeEnded(hasDeclarations: hasDeclarations)
    }
}

/// The state of one read: a stack of open arrays and dictionaries over flat
/// stacks of finished values and keys, so each container costs one
/// allocation when it closes.
struct XMLPropertyListBuilder: ~Copyable {
    /// An array or dictionary whose end tag has not been read yet.
    struct Frame {
        var isDictionary: Bool
        /// Where this container's values start in `values`.
        var valueStart: Int
        /// Where this dictionary's keys start in `keys`.
        var keyStart: Int
        /// Whether every key so far is ASCII and follows the one before in
        /// byte order (see `XMLPropertyListBuilder.keyFollows`).
        var keysAscendAsASCII = true
    }

    let input: UnsafeRawBufferPointer
    let encoding: XMLInputEncoding
    /// What stands for the raw control characters and carriage returns of the text, if any.
    let placeholders: XMLTextPlaceholders?
    let limits: PropertyListLimits
    /// The parser's interned element names, in `PropertyListElement` order.
    var internedNames: [UnsafePointer<UInt8>?] = []
    /// The parse, for where the parser is when no tag can say where. Not
    /// retained: the sink owns this builder's receiver and outlives its use;
    /// a weak reference would give the sink a side table and make every
    /// retain of it, one per event, take the slow path.
    unowned(unsafe) var sink: XMLEventSink?
    /// The sink's `dropsBlankText`, kept true while this builder would keep
    /// nothing of text that is white space alone; nil before the parse.
    var dropsBlankText: UnsafeMutablePointer<Bool>?

    var frames: [Frame] = []
    var values: [PropertyListValue] = []
    var keys: [String] = []
    /// The keys of the last dictionary of each count from 1 to
    /// `largestReusedKeyCount`, distinct (index: count − 1), given to the
    /// next dictionary whose keys are the same strings (see `distinctKeys`).
    var recentKeys = [ContiguousArray<String>](repeating: [], count: Self.largestReusedKeyCount)
    /// Up to this count an `OrderedDictionary` keeps its keys in an array
    /// alone, with no hash table, so one array can serve many dictionaries.
    static let largestReusedKeyCount = 15
    var root: PropertyListValue?
    var sawElement = false
    var producedCount = 0
    /// Start and end tags read so far (`<x/>` is one); locates errors in the input.
    var tagCount = 0
    /// The scalar element whose text is being gathered, and its start tag.
    var openScalar: PropertyListElement?
    var openScalarTag = 0
    var text = XMLTextBuffer()
    /// Text outside any value element since the last tag, comment or CDATA
    /// section (one text node of libxml2's tree), kept from its first byte
    /// that is not white space.
    var strayText: [UInt8] = []

    init(
        input: UnsafeRawBufferPointer, encoding: XMLInputEncoding, placeholders: XMLTextPlaceholders?,
        limits: PropertyListLimits
    ) {
        self.input = input
        self.encoding = encoding
        self.placeholders = placeholders
        self.limits = limits
    }

    mutating func parseWillStart(_ sink: XMLEventSink) {
        self.sink = sink
        dropsBlankText = sink.dropsBlankText
        sink.dropsBlankText.pointee = true
        internedNames = PropertyListElement.allCases.map { sink.intern($0.name) }
    }

    /// The value read, once the parse is over; else the first of: an entity
    /// declaration; libxml2's first error when the document is not
    /// well-formed, wherever it is (libxml2's tree reader, which parsed ahead
    /// of the nodes it returned, reported it first in all but large
    /// documents); what this builder threw; any other error of libxml2's (a
    /// namespace error); stray text.
    mutating func finish(_ sink: XMLEventSink) throws(PropertyListError) -> PropertyListValue {
        if sink.refusedEntityDeclaration { throw entityError(at: declarationLocation()) }
        if !sink.wasWellFormed { throw parserError(sink) }
        if let thrown = sink.thrown { throw thrown }
        if sink.diagnostics.firstError != nil { throw parserError(sink) }
        try checkStrayText()
        guard let root else {
            throw PropertyListError(
                .unexpectedElement, at: location(afterTag: tagCount - 1),
                "the document holds no property-list value")
        }
        return root
    }

    /// The value read by the quick read, which met no stray text and no
    /// parser error; nil when the document held no value.
    var quickReadValue: PropertyListValue? { root }

    // MARK: Document type

    mutating func documentTypeEnded(hasDeclarations: Bool) throws(PropertyListError) {
        guard hasDeclarations else { return }
        throw error(.malformedXML, at: declarationLocation(), "declarations inside <!DOCTYPE plist [...]> are not supported")
    }

    mutating func undeclaredEntityReference() throws(PropertyListError) {
        try checkStrayText()
        throw entityError(at: location(afterTag: tagCount - 1))
    }

    // MARK: Elements

    mutating func startElement(_ start: XMLElementStart) throws(PropertyListError) {
        try checkStrayText()
        let tag = tagCount
        tagCount += 1
        guard let element = Self.element(of: start, internedNames: internedNames) else {
            let name = start.qualifiedName
            if !sawElement, let other = NonPropertyListFormat(rootElement: name) {
                throw other.error(at: location(ofTag: tag))
            }
            throw error(.unexpectedElement, at: location(ofTag: tag), "unknown element <\(name)>")
        }
        try begin(element, tag: tag)
    }

    /// A vocabulary element starts, as the quick read
    /// (`XMLPropertyListQuickReader`) finds it: no stray text can come first.
    mutating func startElement(_ element: PropertyListElement) throws(PropertyListError) {
        let tag = tagCount
        tagCount += 1
        try begin(element, tag: tag)
    }

    /// The `tag`th tag starts `element`.
    private mutating func begin(_ element: PropertyListElement, tag: Int) throws(PropertyListError) {
        if let openScalar {
            throw error(
                .unexpectedElement, at: location(ofTag: tag),
                "<\(element.name)> inside <\(openScalar.name)>, which holds only text")
        }
        let isFirstElement = !sawElement
        sawElement = true
        if element == .plist {
            guard isFirstElement else {
                throw error(.unexpectedElement, at: location(ofTag: tag), "<plist> can only be the document's root element")
            }
            return
        }
        try checkPlacement(of: element, tag: tag)
        switch element {
        case .dict, .array:
            guard frames.count < limits.maximumDepth else {
                throw error(
                    .limitExceeded(.depth), at: location(ofTag: tag),
                    "arrays and dictionaries nest more than \(limits.maximumDepth) deep")
            }
            frames.append(Frame(isDictionary: element == .dict, valueStart: values.count, keyStart: keys.count))
        default:
            text.removeAll()
            openScalar = element
            openScalarTag = tag
            dropsBlankText?.pointee = false
        }
    }

    /// Checks that `element` may stand where it starts: keys only in
    /// dictionaries, alternating with values; one value at the top level.
    /// Mutating though it changes nothing: called from a mutating method, a
    /// non-mutating one made the compiler copy all of `self` for each element.
    private mutating func checkPlacement(of element: PropertyListElement, tag: Int) throws(PropertyListError) {
        guard let frame = frames.last else {
            if element == .key {
                throw error(.unexpectedElement, at: location(ofTag: tag), "<key> outside a dictionary")
            }
            if root != nil {
                throw error(
                    .unexpectedElement, at: location(ofTag: tag),
                    "a second value, <\(element.name)>, at the top level; a property list holds one")
            }
            return
        }
        let expectingValue = keys.count - frame.keyStart > values.count - frame.valueStart
        if element == .key {
            guard frame.isDictionary else {
                throw error(.unexpectedElement, at: location(ofTag: tag), "<key> in an array")
            }
            guard !expectingValue else {
                throw error(.invalidKey, at: location(ofTag: tag), "key \"\(keys[keys.count - 1])\" has no value")
            }
        } else if frame.isDictionary && !expectingValue {
            throw error(.invalidKey, at: location(ofTag: tag), "<\(element.name)> in a dictionary where a <key> is expected")
        }
    }

    /// An element ends: at its end tag, or right after its start tag when
    /// it was written `<name/>` (`wasEmpty`), one tag for both.
    mutating func endElement(wasEmpty: Bool) throws(PropertyListError) {
        try checkStrayText()
        let tag = wasEmpty ? tagCount - 1 : tagCount
        if !wasEmpty { tagCount += 1 }
        if let element = openScalar {
            openScalar = nil
            dropsBlankText?.pointee = true  // checkStrayText() found no stray text.
            try finishScalar(element, tag: openScalarTag)
            return
        }
        // libxml2 has matched the tags; with no frame open this ends <plist>.
        guard let frame = frames.last else { return }
        let valueCount = values.count - frame.valueStart
        let value: PropertyListValue
        if frame.isDictionary {
            guard keys.count - frame.keyStart == valueCount else {
                throw error(.invalidKey, at: location(ofTag: tag), "key \"\(keys[keys.count - 1])\" has no value")
            }
            value = makeDictionary(frame, count: valueCount)
            keys.removeSubrange(frame.keyStart...)
        } else {
            value = .array(Array(values[frame.valueStart...]))
        }
        values.removeSubrange(frame.valueStart...)
        frames.removeLast()
        try complete(value, tag: tag)
    }

    private mutating func makeDictionary(_ frame: Frame, count: Int) -> PropertyListValue {
        if count == 1, keys[frame.keyStart] == "CF$UID", case .integer(let number) = values[frame.valueStart],
            let uid = number.uint64Value
        {
            return .uid(uid)
        }
        let keyRange = frame.keyStart..<(frame.keyStart + count)
        let valueRange = frame.valueStart..<(frame.valueStart + count)
        if frame.keysAscendAsASCII {
            return .dictionary(OrderedDictionary(uncheckedUniqueKeys: distinctKeys(keyRange), values: values[valueRange]))
        }
        // A duplicated key keeps its last value; so may keys that are only canonically equal.
        var dictionary = OrderedDictionary<String, PropertyListValue>(minimumCapacity: count)
        for offset in 0..<count {
            dictionary[keys[frame.keyStart + offset]] = values[frame.valueStart + offset]
        }
        return .dictionary(dictionary)
    }

    /// The keys in `range` of `keys`, known to be distinct, as an array: the
    /// array of the last dictionary with as many keys when they are the
    /// same strings (records of one kind repeat their keys), so that
    /// dictionaries of one kind share one key array; else a new one, kept
    /// for the next.
    private mutating func distinctKeys(_ range: Range<Int>) -> ContiguousArray<String> {
        guard (1...Self.largestReusedKeyCount).contains(range.count) else { return ContiguousArray(keys[range]) }
        let slot = range.count - 1
        if recentKeys[slot].elementsEqual(keys[range]) { return recentKeys[slot] }
        let fresh = ContiguousArray(keys[range])
        recentKeys[slot] = fresh
        return fresh
    }

    /// Whether `key`'s bytes are ASCII and come strictly after those of
    /// `previous` (nil: the dictionary's first key), as plistlib,
    /// CoreFoundation and most writers write keys. When every key of a
    /// dictionary does, no two are equal (ASCII spellings are equal as Swift
    /// compares them exactly when their bytes are): the dictionary is built
    /// with no hashing and no pairs compared. Checked as each key is read,
    /// from its bytes.
    static func keyFollows(_ previous: String?, _ key: UnsafeBufferPointer<UInt8>) -> Bool {
        var high: UInt8 = 0
        for byte in key { high |= byte }
        guard high < 0x80 else { return false }
        guard var previous else { return true }
        return previous.withUTF8 { earlier in
            let common = min(earlier.count, key.count)
            var index = 0
            while index < common {
                if earlier[index] != key[index] { return earlier[index] < key[index] }
                index &+= 1
            }
            return earlier.count < key.count
        }
    }

    /// Adds a finished value to the open container, or makes it the root.
    private mutating func complete(_ value: PropertyListValue, tag: Int) throws(PropertyListError) {
        producedCount += 1
        guard producedCount <= limits.maximumObjectCount else {
            throw error(
                .limitExceeded(.objectCount), at: location(ofTag: tag),
                "the property list holds more than \(limits.maximumObjectCount) values")
        }
        if frames.isEmpty { root = value } else { values.append(value) }
    }

    /// Which vocabulary element `start` is, comparing interned name
    /// pointers first and bytes only when they miss; nil for an unknown
    /// element or a prefixed name.
    /// Static, with the interned names passed: a method of this
    /// non-copyable struct called from a mutating one made the compiler copy
    /// all of `self` (176 bytes) for every element.
    private static func element(of start: XMLElementStart, internedNames: [UnsafePointer<UInt8>?]) -> PropertyListElement? {
        guard !start.hasPrefix else { return nil }
        let name = start.internedLocalName
        for (index, interned) in internedNames.enumerated() where interned == name {
            return PropertyListElement(rawValue: index)
        }
        return PropertyListElement.allCases.first { xmlNamesEqual(name, $0.name) }
    }

    // MARK: Text and scalars

    /// A run of text: part of the open scalar's value, else stray text,
    /// kept for `checkStrayText()` once its text node ends.
    mutating func receiveText(_ bytes: UnsafeBufferPointer<UInt8>) {
        defer { if openScalar == nil { dropsBlankText?.pointee = strayText.isEmpty } }
        if openScalar != nil {
            guard let placeholders else { return text.append(bytes) }
            var restored: [UInt8] = []
            placeholders.restore(bytes, appendingTo: &restored)
            restored.withUnsafeBufferPointer { text.append($0) }
            return
        }
        if strayText.isEmpty {
            guard let placeholders else {
                if !XMLText.isWhitespace(bytes) { strayText.append(contentsOf: bytes) }
                return
            }
            placeholders.restore(bytes, appendingTo: &strayText)
            if strayText.withUnsafeBufferPointer({ XMLText.isWhitespace($0) }) { strayText.removeAll(keepingCapacity: true) }
            return
        }
        if let placeholders { placeholders.restore(bytes, appendingTo: &strayText) } else { strayText.append(contentsOf: bytes) }
    }

    /// A CDATA section: part of the open scalar's value, else a text node of its own.
    mutating func cdata(_ bytes: UnsafeBufferPointer<UInt8>) throws(PropertyListError) {
        if openScalar != nil { return receiveText(bytes) }
        try checkStrayText()
        receiveText(bytes)
        try checkStrayText()
    }

    /// Throws for the text other than white space outside a value element
    /// read since the last tag, comment or CDATA section.
    mutating func checkStrayText() throws(PropertyListError) {
        guard !strayText.isEmpty else { return }
        let excerpt = strayText.withUnsafeBufferPointer { XMLText.excerpt(XMLText.trimmed($0)) }
        throw error(.unexpectedElement, at: location(afterTag: tagCount - 1), "text \"\(excerpt)\" outside a value element")
    }

    private mutating func finishScalar(_ element: PropertyListElement, tag: Int) throws(PropertyListError) {
        let value: PropertyListValue
        switch element {
        case .key:
            if let last = frames.indices.last, frames[last].keysAscendAsASCII {
                let previous = keys.count > frames[last].keyStart ? keys[keys.count - 1] : nil
                frames[last].keysAscendAsASCII = text.withUnsafeBufferPointer { Self.keyFollows(previous, $0) }
            }
            keys.append(text.withUnsafeBufferPointer { String(decoding: $0, as: UTF8.self) })
            return
        case .string:
            value = .string(text.withUnsafeBufferPointer { String(decoding: $0, as: UTF8.self) })
        case .integer:
            guard let number = text.withUnsafeBufferPointer({ XMLText.parseInteger(XMLText.trimmed($0)) }) else {
                throw invalidText("an integer", tag: tag)
            }
            value = .integer(number)
        case .real:
            guard let number = text.withUnsafeBufferPointer({ XMLText.parseReal(XMLText.trimmed($0)) }) else {
                throw invalidText("a real number", tag: tag)
            }
            value = .real(number)
        case .true, .false:
            guard text.withUnsafeBufferPointer({ XMLText.isWhitespace($0) }) else {
                throw invalidText("empty, as <\(element.name)/> must be", tag: tag)
            }
            value = .bool(element == .true)
        case .date:
            guard let date = text.withUnsafeBufferPointer({ PropertyListDateFormat.parse(XMLText.trimmed($0)) }) else {
                throw invalidText("a date of the form 2004-10-26T10:33:33Z", tag: tag)
            }
            value = .date(date)
        case .data:
            guard let bytes = text.withUnsafeBufferPointer({ Base64.decode($0) }) else {
                throw invalidText("base64", tag: tag)
            }
            value = .data(Data(bytes))
        case .dict, .array, .plist:
            preconditionFailure("<\(element.name)> is not a scalar element")
        }
        try complete(value, tag: tag)
    }

    private func invalidText(_ expected: String, tag: Int) -> PropertyListError {
        let excerpt = text.withUnsafeBufferPointer { XMLText.excerpt(XMLText.trimmed($0)) }
        return error(.invalidValue, at: location(ofTag: tag), "\"\(excerpt)\" is not \(expected)")
    }

    // MARK: Errors

    private func error(_ code: PropertyListError.Code, at location: PropertyListLocation, _ message: String) -> PropertyListError {
        PropertyListError(code, at: location, keyPath: currentKeyPath(), message)
    }

    /// The path to the value being read: for each open dictionary the key
    /// whose value is open, for each open array the index being filled.
    private func currentKeyPath() -> PropertyListKeyPath {
        var components: [PropertyListPathComponent] = []
        for (depth, frame) in frames.enumerated() {
            let next = depth + 1 < frames.count ? frames[depth + 1] : nil
            let valueEnd = next?.valueStart ?? values.count
            let keyEnd = next?.keyStart ?? keys.count
            if frame.isDictionary {
                if keyEnd - frame.keyStart > valueEnd - frame.valueStart { components.append(.key(keys[keyEnd - 1])) }
            } else {
                components.append(.index(valueEnd - frame.valueStart))
            }
        }
        return PropertyListKeyPath(components)
    }

    private func entityError(at location: PropertyListLocation) -> PropertyListError {
        error(.malformedXML, at: location, "entity declarations/references are not supported")
    }

    /// The first error libxml2 reported, or a general one when it gave none.
    /// Its key path is the one libxml2's tree reader gave, which parsed
    /// ahead of the nodes it returned: the value being read when libxml2
    /// refused the document only at its end (an element left open), else none.
    private func parserError(_ sink: XMLEventSink) -> PropertyListError {
        let keyPath = sink.refusedAtEnd ? currentKeyPath() : PropertyListKeyPath([])
        if let diagnostic = sink.diagnostics.firstError {
            let location = PropertyListLocation.lineColumn(line: diagnostic.line, column: diagnostic.column)
            if diagnostic.isDepthLimit {
                return PropertyListError(
                    .limitExceeded(.depth), at: location, keyPath: keyPath,
                    "elements nest deeper than libxml2 allows: \(diagnostic.message)")
            }
            return PropertyListError(.malformedXML, at: location, keyPath: keyPath, diagnostic.message)
        }
        let position = sink.parserPosition()
        return PropertyListError(
            .malformedXML, at: .lineColumn(line: position.line, column: position.column), keyPath: keyPath, "the XML parser stopped")
    }

    /// Where the `index`th tag (start or end, counted from 0) begins.
    private func location(ofTag index: Int) -> PropertyListLocation {
        XMLTagLocator.locate(tag: index, in: input, encoding: encoding).map { .lineColumn(line: $0.start.line, column: $0.start.column) }
            ?? fallbackLocation()
    }

    /// Where the text after the `index`th tag begins (the document start before any tag).
    private func location(afterTag index: Int) -> PropertyListLocation {
        guard index >= 0 else { return .lineColumn(line: 1, column: 1) }
        return XMLTagLocator.locate(tag: index, in: input, encoding: encoding).map { .lineColumn(line: $0.end.line, column: $0.end.column) }
            ?? fallbackLocation()
    }

    /// Where the first entity declaration (`<!ENTITY`) begins, else the
    /// document type declaration (`<!DOCTYPE`), else where the parser is.
    private func declarationLocation() -> PropertyListLocation {
        XMLTagLocator.locateDeclaration(in: input, encoding: encoding).map { .lineColumn(line: $0.line, column: $0.column) }
            ?? fallbackLocation()
    }

    private func fallbackLocation() -> PropertyListLocation {
        let position = sink?.parserPosition() ?? (line: 1, column: 1)
        return .lineColumn(line: position.line, column: position.column)
    }
}

/// The text of the scalar element being read, gathered from libxml2's
/// pieces: appended to, emptied at each element with its storage kept. An
/// array's append of a buffer and its `removeAll(keepingCapacity:)` cost
/// more than the copy itself, once for every element of a document.
struct XMLTextBuffer: ~Copyable {
    private var storage: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private(set) var count = 0

    init() {
        capacity = 256
        storage = .allocate(capacity: capacity)
    }

    deinit { storage.deallocate() }

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        // At most the document's size: libxml2 hands over no more than it read.
        let needed = count + bytes.count
        if needed > capacity {
            let grown = Swift.max(needed, capacity * 2)
            let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
            larger.update(from: storage, count: count)
            storage.deallocate()
            storage = larger
            capacity = grown
        }
        (storage + count).update(from: source, count: bytes.count)
        count = needed
    }

    mutating func removeAll() { count = 0 }

    func withUnsafeBufferPointer<Result, Failure: Error>(
        _ body: (UnsafeBufferPointer<UInt8>) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try body(UnsafeBufferPointer(start: storage, count: count))
    }
}
