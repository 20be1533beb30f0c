import OrderedCollections

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads XML property lists (`<plist version="1.0">`), as Apple's tools and
/// other libraries write them.
///
/// The document is parsed in one streaming pass with libxml2's `xmlTextReader`;
/// values are built as their elements close, with an explicit stack, so deep
/// input cannot overflow the call stack. Accepted: UTF-8, UTF-16 and UTF-32
/// with or without a byte order mark; `<plist>` as an optional root wrapper;
/// `<dict>`/`<key>`, `<array>`, `<string>`, `<integer>` (decimal or `0x` hex,
/// `Int64.min ... UInt64.max`), `<real>` (decimal, `nan`, `inf`, `infinity`
/// with signs, any case), `<true/>`, `<false/>`, `<date>` (`YYYY-MM-DDTHH:MM:SSZ`,
/// fractional seconds allowed), `<data>` (base64, whitespace anywhere); empty
/// forms, CDATA sections, comments and character references. A duplicated
/// key keeps its last value, as CoreFoundation and Python's `plistlib` keep
/// it (`duplicateKeys(in:)` finds such keys, for a warning). A dictionary whose only key is `CF$UID` with an
/// integer value is read as `.uid`, as Apple writes keyed-archiver UIDs.
///
/// Text is read as CoreFoundation reads it, the one place where this reader
/// departs from XML 1.0: raw control characters (U+0000–U+001F, such as the
/// ESC Interface Builder writes for key equivalents) are accepted in text and
/// CDATA, and a raw carriage return in a value stays a carriage return
/// instead of becoming a line feed, so a file Cocoa wrote reads back as the
/// value Cocoa wrote (see `XMLParserInput`). libxml2 still checks everything
/// else.
///
/// Hostile input: the network is never used, no external DTD is loaded, and
/// any entity declaration or reference is an error, so entity-expansion bombs
/// are refused before they expand. Other declarations in an internal DTD
/// subset are refused too, as Apple's parsers refuse them.
public struct XMLPropertyListReader: Sendable {
    /// The limits applied to the input. libxml2's own depth limit is lifted
    /// (`XML_PARSE_HUGE`), so `maximumDepth` is the one that applies, as for
    /// every other reader; a depth libxml2 still refuses (over 2048) is
    /// reported as `limitExceeded(.depth)` too.
    public var limits: PropertyListLimits

    /// Makes a reader with the given limits.
    public init(limits: PropertyListLimits = .default) {
        self.limits = limits
    }

    /// Decodes the property list in the XML document `bytes`.
    ///
    /// - Throws: `PropertyListError` with the line and column of the problem
    ///   and the key path of the value being read: `.malformedXML` for what
    ///   libxml2 rejects and for entities, `.unexpectedElement`, `.invalidKey`,
    ///   `.invalidValue`, or `.limitExceeded`; `.unrecognizedFormat` naming the
    ///   format when the root element is that of an Interface Builder or
    ///   Xcode document (see `NonPropertyListFormat`).
    public func read(_ bytes: UnsafeRawBufferPointer) throws(PropertyListError) -> PropertyListValue {
        guard bytes.count <= limits.maximumInputSize, bytes.count <= Int(Int32.max) else {
            throw PropertyListError(
                .limitExceeded(.inputSize), at: .none,
                "the input is \(bytes.count) bytes, more than the \(min(limits.maximumInputSize, Int(Int32.max))) allowed")
        }
        guard !bytes.isEmpty else {
            throw PropertyListError(.unrecognizedFormat, at: .lineColumn(line: 1, column: 1), "the input is empty")
        }
        let input = try XMLParserInput(bytes)
        let result: Result<PropertyListValue, PropertyListError> = input.withBytes(of: bytes) { text, parserBytes, options in
            Result { () throws(PropertyListError) in
                guard let reader = XMLTextReader(bytes: parserBytes, options: options) else {
                    throw PropertyListError(.malformedXML, at: .lineColumn(line: 1, column: 1), "libxml2 could not open the input")
                }
                var builder = XMLPropertyListBuilder(
                    reader: reader, input: text, encoding: input.encoding,
                    placeholders: input.placeholders, limits: limits)
                return try builder.run()
            }
        }
        return try result.get()
    }

    /// Decodes the property list in the XML document `data`.
    ///
    /// - Throws: `PropertyListError`, as `read(_:)` on bytes.
    public func read(_ data: Data) throws(PropertyListError) -> PropertyListValue {
        try data.withPropertyListBytes { (bytes) throws(PropertyListError) in try read(bytes) }
    }
}

/// The elements of the property-list vocabulary.
private enum PropertyListElement: Int, CaseIterable {
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
private struct XMLPropertyListBuilder: ~Copyable {
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

/// Byte-level helpers for element text.
private enum XMLText {
    static func isXMLWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D
    }

    static func isWhitespace(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.allSatisfy(isXMLWhitespace)
    }

    static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        var start = 0
        var end = bytes.count
        while start < end, isXMLWhitespace(bytes[start]) { start += 1 }
        while end > start, isXMLWhitespace(bytes[end - 1]) { end -= 1 }
        return UnsafeBufferPointer(rebasing: bytes[start..<end])
    }

    /// The text for a message, shortened to 40 characters.
    static func excerpt(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        let text = String(decoding: bytes, as: UTF8.self)
        return text.count > 40 ? String(text.prefix(40)) + "…" : text
    }

    /// A decimal or `0x` hexadecimal integer with an optional sign, in
    /// `Int64.min ... UInt64.max`.
    static func parseInteger(_ bytes: UnsafeBufferPointer<UInt8>) -> PropertyListInteger? {
        var position = 0
        var negative = false
        if position < bytes.count, bytes[position] == UInt8(ascii: "-") || bytes[position] == UInt8(ascii: "+") {
            negative = bytes[position] == UInt8(ascii: "-")
            position += 1
        }
        var radix: UInt64 = 10
        if bytes.count - position > 2, bytes[position] == UInt8(ascii: "0"),
            bytes[position + 1] | 0x20 == UInt8(ascii: "x")
        {
            radix = 16
            position += 2
        }
        guard position < bytes.count else { return nil }
        var magnitude: UInt64 = 0
        while position < bytes.count {
            let byte = bytes[position]
            let digit: UInt64
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt64(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f") where radix == 16: digit = UInt64(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F") where radix == 16: digit = UInt64(byte - UInt8(ascii: "A") + 10)
            default: return nil
            }
            let (shifted, overflowMultiply) = magnitude.multipliedReportingOverflow(by: radix)
            let (sum, overflowAdd) = shifted.addingReportingOverflow(digit)
            guard !overflowMultiply, !overflowAdd else { return nil }
            magnitude = sum
            position += 1
        }
        guard negative else { return PropertyListInteger(magnitude) }
        guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
        return PropertyListInteger(Int64(bitPattern: 0 &- magnitude))  // Two's complement of a magnitude ≤ 2^63.
    }

    /// A decimal real, or `nan`, `inf`, `infinity` with an optional sign, in any case.
    static func parseReal(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        // Swift also reads hexadecimal reals (`0x1p3`); property lists have none.
        guard !bytes.contains(where: { $0 | 0x20 == UInt8(ascii: "x") }) else { return nil }
        return Double(String(decoding: bytes, as: UTF8.self))
    }
}

/// The encoding of the input as its first bytes show it; what libxml2 is
/// told when it cannot tell by itself, and how errors are located.
enum XMLInputEncoding {
    case utf8
    case utf16BigEndian, utf16LittleEndian
    case utf32BigEndian, utf32LittleEndian

    /// Looks at the byte order mark, or at the pattern of zero bytes an
    /// ASCII first character leaves.
    static func detect(_ bytes: UnsafeRawBufferPointer) -> XMLInputEncoding {
        guard bytes.count >= 4 else { return .utf8 }
        switch (bytes[0], bytes[1], bytes[2], bytes[3]) {
        case (0x00, 0x00, 0xFE, 0xFF): return .utf32BigEndian
        case (0xFF, 0xFE, 0x00, 0x00): return .utf32LittleEndian
        case (0xFE, 0xFF, _, _): return .utf16BigEndian
        case (0xFF, 0xFE, _, _): return .utf16LittleEndian
        case (0x00, 0x00, 0x00, let c) where c != 0: return .utf32BigEndian
        case (let c, 0x00, 0x00, 0x00) where c != 0: return .utf32LittleEndian
        case (0x00, let c, 0x00, let d) where c != 0 && d != 0: return .utf16BigEndian
        case (let c, 0x00, let d, 0x00) where c != 0 && d != 0: return .utf16LittleEndian
        default: return .utf8
        }
    }

    /// UTF-32 input as UTF-8, without its byte order mark.
    ///
    /// - Throws: `.invalidString` at the line and column of a code unit that
    ///   is not a Unicode scalar, or of a trailing partial code unit.
    static func transcodeUTF32(_ bytes: UnsafeRawBufferPointer, bigEndian: Bool) throws(PropertyListError) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count / 4)
        var line = 1
        var column = 1
        var offset = 0
        while offset < bytes.count {
            guard bytes.count - offset >= 4 else {
                throw PropertyListError(
                    .invalidString, at: .lineColumn(line: line, column: column),
                    "the UTF-32 input ends in a partial code unit")
            }
            var unit: UInt32 = 0
            for index in 0..<4 {
                let byte = UInt32(bytes[offset + (bigEndian ? index : 3 - index)])
                unit = unit << 8 | byte
            }
            offset += 4
            guard let scalar = Unicode.Scalar(unit) else {
                throw PropertyListError(
                    .invalidString, at: .lineColumn(line: line, column: column),
                    "0x\(String(unit, radix: 16, uppercase: true)) is not a Unicode scalar")
            }
            if offset == 4 && scalar == "\u{FEFF}" { continue }
            if scalar == "\n" { line += 1; column = 1 } else { column += 1 }
            output.append(contentsOf: scalar.utf8)
        }
        return output
    }
    /// UTF-16 input as UTF-8, without its byte order mark.
    ///
    /// - Throws: `.invalidString` at the line and column of an unpaired
    ///   surrogate or of a trailing odd byte.
    static func transcodeUTF16(_ bytes: UnsafeRawBufferPointer, bigEndian: Bool) throws(PropertyListError) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count / 2)
        var line = 1
        var column = 1
        var offset = 0
        func unit(at offset: Int) -> UInt16 {
            UInt16(bytes[bigEndian ? offset : offset + 1]) << 8 | UInt16(bytes[bigEndian ? offset + 1 : offset])
        }
        while offset < bytes.count {
            guard bytes.count - offset >= 2 else {
                throw PropertyListError(
                    .invalidString, at: .lineColumn(line: line, column: column),
                    "the UTF-16 input ends in a partial code unit")
            }
            let first = unit(at: offset)
            offset += 2
            var scalar = Unicode.Scalar(first)
            if UTF16.isLeadSurrogate(first), bytes.count - offset >= 2, UTF16.isTrailSurrogate(unit(at: offset)) {
                scalar = Unicode.Scalar(0x10000 + (UInt32(first & 0x3FF) << 10 | UInt32(unit(at: offset) & 0x3FF)))
                offset += 2
            }
            guard let scalar else {
                throw PropertyListError(
                    .invalidString, at: .lineColumn(line: line, column: column),
                    "0x\(String(first, radix: 16, uppercase: true)) is an unpaired UTF-16 surrogate")
            }
            if offset <= 4 && scalar == "\u{FEFF}" && output.isEmpty { continue }
            if scalar == "\n" { line += 1; column = 1 } else { column += 1 }
            output.append(contentsOf: scalar.utf8)
        }
        return output
    }
}

/// Finds where a tag stands in the input, for error messages. Only run when
/// an error is thrown: it scans the input from the start.
private enum XMLTagLocator {
    struct Position {
        var line: Int
        var column: Int
    }

    /// The start of the `index`th tag (counted from 0) and the position just
    /// after it, skipping comments, CDATA sections, processing instructions
    /// and the document type declaration; nil when there are fewer tags.
    static func locate(tag index: Int, in input: UnsafeRawBufferPointer, encoding: XMLInputEncoding)
        -> (start: Position, end: Position)?
    {
        let utf8 = asUTF8(input, encoding: encoding)
        return utf8.withUnsafeBufferPointer { locate(tag: index, in: $0) }
    }

    /// The start of the first `<!ENTITY` outside comments, else of the
    /// first `<!DOCTYPE`; nil when there is neither.
    static func locateDeclaration(in input: UnsafeRawBufferPointer, encoding: XMLInputEncoding) -> Position? {
        let utf8 = asUTF8(input, encoding: encoding)
        return utf8.withUnsafeBufferPointer { bytes in
            locate("<!ENTITY", in: bytes) ?? locate("<!DOCTYPE", in: bytes)
        }
    }

    /// The start of the first `marker` outside comments.
    private static func locate(_ marker: StaticString, in bytes: UnsafeBufferPointer<UInt8>) -> Position? {
        let pattern = UnsafeBufferPointer(start: marker.utf8Start, count: marker.utf8CodeUnitCount)
        func matches(_ prefix: UnsafeBufferPointer<UInt8>, at offset: Int) -> Bool {
            offset + prefix.count <= bytes.count && (0..<prefix.count).allSatisfy { bytes[offset + $0] == prefix[$0] }
        }
        let commentStart: StaticString = "<!--", commentEnd: StaticString = "-->"
        let opening = UnsafeBufferPointer(start: commentStart.utf8Start, count: commentStart.utf8CodeUnitCount)
        let closing = UnsafeBufferPointer(start: commentEnd.utf8Start, count: commentEnd.utf8CodeUnitCount)
        var line = 1
        var lineStart = bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF ? 3 : 0
        var index = lineStart
        var inComment = false
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x0A || (byte == 0x0D && !(index + 1 < bytes.count && bytes[index + 1] == 0x0A)) {
                line += 1
                index += 1
                lineStart = index
                continue
            }
            if inComment {
                if matches(closing, at: index) { inComment = false; index += closing.count; continue }
            } else if matches(opening, at: index) {
                inComment = true; index += opening.count; continue
            } else if matches(pattern, at: index) {
                // Columns count characters: every byte but UTF-8 continuation bytes.
                return Position(line: line, column: bytes[lineStart..<index].reduce(1) { $0 + ($1 & 0xC0 == 0x80 ? 0 : 1) })
            }
            index += 1
        }
        return nil
    }

    private static func asUTF8(_ input: UnsafeRawBufferPointer, encoding: XMLInputEncoding) -> [UInt8] {
        let bigEndian: Bool
        switch encoding {
        case .utf8: return Array(input)
        case .utf16BigEndian: bigEndian = true
        case .utf16LittleEndian: bigEndian = false
        case .utf32BigEndian, .utf32LittleEndian: preconditionFailure("UTF-32 is transcoded to UTF-8 before it is parsed")
        }
        var codeUnits: [UInt16] = []
        codeUnits.reserveCapacity(input.count / 2)
        for offset in stride(from: 0, to: input.count - 1, by: 2) {
            let high = UInt16(input[bigEndian ? offset : offset + 1])
            let low = UInt16(input[bigEndian ? offset + 1 : offset])
            codeUnits.append(high << 8 | low)
        }
        return Array(String(decoding: codeUnits, as: UTF16.self).utf8)
    }

    private enum Mode {
        case content, comment, cdata, processingInstruction, documentType, tag
    }

    private static func locate(tag target: Int, in bytes: UnsafeBufferPointer<UInt8>) -> (start: Position, end: Position)? {
        var line = 1
        var mode = Mode.content
        var quote: UInt8 = 0
        var bracketDepth = 0
        var tagIndex = 0
        var tagStart = Position(line: 1, column: 1)
        // A byte order mark takes no column.
        let byteOrderMark = bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF
        var index = byteOrderMark ? 3 : 0
        var lineStart = index

        func column(at offset: Int) -> Int {
            // Columns count characters: every byte but UTF-8 continuation bytes.
            bytes[lineStart..<offset].reduce(1) { $0 + ($1 & 0xC0 == 0x80 ? 0 : 1) }
        }
        func hasPrefix(_ prefix: StaticString, at offset: Int) -> Bool {
            let count = prefix.utf8CodeUnitCount
            guard offset + count <= bytes.count else { return false }
            return (0..<count).allSatisfy { bytes[offset + $0] == prefix.utf8Start[$0] }
        }

        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x0A || byte == 0x0D {
                if byte == 0x0D, index + 1 < bytes.count, bytes[index + 1] == 0x0A { index += 1 }
                line += 1
                index += 1
                lineStart = index
                continue
            }
            switch mode {
            case .content:
                if byte == UInt8(ascii: "<") {
                    if hasPrefix("<!--", at: index) {
                        mode = .comment; index += 4; continue
                    } else if hasPrefix("<![CDATA[", at: index) {
                        mode = .cdata; index += 9; continue
                    } else if hasPrefix("<?", at: index) {
                        mode = .processingInstruction
                    } else if hasPrefix("<!", at: index) {
                        mode = .documentType
                    } else {
                        mode = .tag
                        tagStart = Position(line: line, column: column(at: index))
                    }
                }
            case .comment:
                if hasPrefix("-->", at: index) { mode = .content; index += 3; continue }
            case .cdata:
                if hasPrefix("]]>", at: index) { mode = .content; index += 3; continue }
            case .processingInstruction:
                if hasPrefix("?>", at: index) { mode = .content; index += 2; continue }
            case .documentType:
                if quote != 0 {
                    if byte == quote { quote = 0 }
                } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                    quote = byte
                } else if byte == UInt8(ascii: "[") {
                    bracketDepth += 1
                } else if byte == UInt8(ascii: "]") {
                    bracketDepth -= 1
                } else if byte == UInt8(ascii: ">") && bracketDepth <= 0 {
                    mode = .content
                    bracketDepth = 0
                }
            case .tag:
                if quote != 0 {
                    if byte == quote { quote = 0 }
                } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                    quote = byte
                } else if byte == UInt8(ascii: ">") {
                    mode = .content
                    if tagIndex == target {
                        return (tagStart, Position(line: line, column: column(at: index + 1)))
                    }
                    tagIndex += 1
                }
            }
            index += 1
        }
        return nil
    }
}
