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
    }

    let reader: XMLTextReader
    let input: UnsafeRawBufferPointer
    let encoding: XMLInputEncoding
    /// What stands for the raw control characters and carriage returns of the text, if any.
    let placeholders: XMLTextPlaceholders?
    let limits: PropertyListLimits
    /// The reader's interned element names, in `PropertyListElement` order.
    let internedNames: [UnsafePointer<UInt8>?]

    var frames: [Frame] = []
    var values: [PropertyListValue] = []
    var keys: [String] = []
    var root: PropertyListValue?
    var sawElement = false
    var producedCount = 0
    /// Start and end tags read so far; locates errors in the input.
    var tagCount = 0
    /// The scalar element whose text is being gathered, and its start tag.
    var openScalar: PropertyListElement?
    var openScalarTag = 0
    var text: [UInt8] = []

    init(
        reader: consuming XMLTextReader, input: UnsafeRawBufferPointer, encoding: XMLInputEncoding,
        placeholders: XMLTextPlaceholders?, limits: PropertyListLimits
    ) {
        internedNames = PropertyListElement.allCases.map { reader.intern($0.name) }
        self.reader = reader
        self.input = input
        self.encoding = encoding
        self.placeholders = placeholders
        self.limits = limits
        text.reserveCapacity(256)
    }

    mutating func run() throws(PropertyListError) -> PropertyListValue {
        while true {
            let status = reader.read()
            if status == 0 { break }
            if status < 0 { throw parserError() }
            switch reader.nodeType() {
            case XMLNodeType.element.rawValue:
                try startElement()
            case XMLNodeType.endElement.rawValue:
                try endElement()
            case XMLNodeType.text.rawValue, XMLNodeType.cdata.rawValue:
                try readText(mayBeSignificant: true)
            case XMLNodeType.whitespace.rawValue, XMLNodeType.significantWhitespace.rawValue:
                try readText(mayBeSignificant: false)
            case XMLNodeType.entityReference.rawValue:
                throw entityError(at: location(afterTag: tagCount - 1))
            case XMLNodeType.documentType.rawValue:
                // libxml2 has parsed ahead by now (to the end of a small input): say where the declarations
                // are. Found only for an error: the search copies and scans the whole input.
                if reader.documentDeclaresEntities() { throw entityError(at: declarationLocation()) }
                if reader.documentHasInternalSubsetDeclarations() {
                    throw error(
                        .malformedXML, at: declarationLocation(), "declarations inside <!DOCTYPE plist [...]> are not supported")
                }
            default:
                break
            }
        }
        if reader.diagnostics.firstError != nil { throw parserError() }
        guard let root else {
            throw PropertyListError(
                .unexpectedElement, at: location(afterTag: tagCount - 1),
                "the document holds no property-list value")
        }
        return root
    }

    // MARK: Elements

    private mutating func startElement() throws(PropertyListError) {
        let tag = tagCount
        tagCount += 1
        guard let element = currentElement() else {
            let name = reader.name().map { String(cString: $0) } ?? "?"
            if !sawElement, let other = NonPropertyListFormat(rootElement: name) {
                throw other.error(at: location(ofTag: tag))
            }
            throw error(.unexpectedElement, at: location(ofTag: tag), "unknown element <\(name)>")
        }
        if let openScalar {
            throw error(
                .unexpectedElement, at: location(ofTag: tag),
                "<\(element.name)> inside <\(openScalar.name)>, which holds only text")
        }
        let isFirstElement = !sawElement
        sawElement = true
        let isEmpty = reader.isEmptyElement()
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
            if isEmpty {
                try complete(element == .dict ? .dictionary([:]) : .array([]), tag: tag)
            } else {
                frames.append(Frame(isDictionary: element == .dict, valueStart: values.count, keyStart: keys.count))
            }
        default:
            text.removeAll(keepingCapacity: true)
            if isEmpty {
                try finishScalar(element, tag: tag)
            } else {
                openScalar = element
                openScalarTag = tag
            }
        }
    }

    /// Checks that `element` may stand where it starts: keys only in
    /// dictionaries, alternating with values; one value at the top level.
    private func checkPlacement(of element: PropertyListElement, tag: Int) throws(PropertyListError) {
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

    private mutating func endElement() throws(PropertyListError) {
        let tag = tagCount
        tagCount += 1
        if let element = openScalar {
            openScalar = nil
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

    private func makeDictionary(_ frame: Frame, count: Int) -> PropertyListValue {
        if count == 1, keys[frame.keyStart] == "CF$UID", case .integer(let number) = values[frame.valueStart],
            let uid = number.uint64Value
        {
            return .uid(uid)
        }
        var dictionary = OrderedDictionary<String, PropertyListValue>(minimumCapacity: count)
        for offset in 0..<count {
            dictionary[keys[frame.keyStart + offset]] = values[frame.valueStart + offset]
        }
        return .dictionary(dictionary)
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

    /// Which vocabulary element the current node is, comparing interned
    /// name pointers first and bytes only when they miss.
    private func currentElement() -> PropertyListElement? {
        guard let name = reader.name() else { return nil }
        for (index, interned) in internedNames.enumerated() where interned == name {
            return PropertyListElement(rawValue: index)
        }
        return PropertyListElement.allCases.first { xmlNamesEqual(name, $0.name) }
    }

    // MARK: Text and scalars

    private mutating func readText(mayBeSignificant: Bool) throws(PropertyListError) {
        guard let bytes = reader.value() else { return }
        if openScalar != nil {
            if let placeholders { placeholders.restore(bytes, appendingTo: &text) } else { text.append(contentsOf: bytes) }
            return
        }
        guard mayBeSignificant else { return }
        guard let placeholders else { return try checkBlank(bytes) }
        var restored: [UInt8] = []
        placeholders.restore(bytes, appendingTo: &restored)
        try restored.withUnsafeBufferPointer { (bytes) throws(PropertyListError) in try checkBlank(bytes) }
    }

    /// Throws for text other than white space outside a value element.
    private func checkBlank(_ bytes: UnsafeBufferPointer<UInt8>) throws(PropertyListError) {
        guard !XMLText.isWhitespace(bytes) else { return }
        let excerpt = XMLText.excerpt(XMLText.trimmed(bytes))
        throw error(.unexpectedElement, at: location(afterTag: tagCount - 1), "text \"\(excerpt)\" outside a value element")
    }

    private mutating func finishScalar(_ element: PropertyListElement, tag: Int) throws(PropertyListError) {
        let value: PropertyListValue
        switch element {
        case .key:
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
    /// libxml2 parses ahead of the node being read, so it may stumble on an
    /// entity (a loop, say) before the document type node is reported; a
    /// document declaring entities is refused for that alone.
    private func parserError() -> PropertyListError {
        if let diagnostic = reader.diagnostics.firstError {
            let location = PropertyListLocation.lineColumn(line: diagnostic.line, column: diagnostic.column)
            if reader.documentDeclaresEntities() { return entityError(at: declarationLocation()) }
            if diagnostic.isDepthLimit {
                return error(.limitExceeded(.depth), at: location, "elements nest deeper than libxml2 allows: \(diagnostic.message)")
            }
            return error(.malformedXML, at: location, diagnostic.message)
        }
        let position = reader.parserPosition()
        return error(.malformedXML, at: .lineColumn(line: position.line, column: position.column), "the XML parser stopped")
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
        let position = reader.parserPosition()
        return .lineColumn(line: reader.nodeLine() ?? position.line, column: position.column)
    }
}
