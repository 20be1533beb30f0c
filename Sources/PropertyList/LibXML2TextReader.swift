import CLibXML2

/// The node kinds `xmlTextReaderNodeType` reports that the reader acts on;
/// it skips the others (comments, processing instructions, …).
enum XMLNodeType: Int32 {
    case element = 1
    case text = 3
    case cdata = 4
    case entityReference = 5
    case documentType = 10
    case whitespace = 13
    case significantWhitespace = 14
    case endElement = 15
}

/// A streaming `xmlTextReader` over a buffer in memory, with its error collector.
///
/// The buffer must outlive the reader.
struct XMLTextReader: ~Copyable {
    private let handle: xmlTextReaderPtr
    let diagnostics = XMLDiagnosticCollector()

    /// Opens a reader over `bytes`, which is not copied.
    /// The corresponding C function is `xmlReaderForMemory`.
    init?(bytes: UnsafeRawBufferPointer, options: XMLParseOptions) {
        initializeLibXML2()
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: CChar.self), bytes.count <= Int(Int32.max),
            let created = xmlReaderForMemory(base, Int32(bytes.count), nil, nil, options.rawValue)
        else { return nil }
        handle = created
        xmlTextReaderSetStructuredErrorHandler(handle, collectXMLError, diagnostics.opaque)
    }

    /// Frees the reader and its document. `xmlTextReaderCurrentDoc` makes the
    /// caller the document's owner, so the document is taken here in every
    /// case and freed after the reader.
    /// The corresponding C functions are `xmlTextReaderCurrentDoc`,
    /// `xmlFreeTextReader` and `xmlFreeDoc`.
    deinit {
        let document = xmlTextReaderCurrentDoc(handle)
        xmlFreeTextReader(handle)
        if let document { xmlFreeDoc(document) }
    }

    /// Moves to the next node: 1 when there is one, 0 at the end, -1 on error.
    /// The corresponding C function is `xmlTextReaderRead`.
    func read() -> Int32 { xmlTextReaderRead(handle) }

    /// The current node's kind (see `XMLNodeType`). The corresponding C function is `xmlTextReaderNodeType`.
    func nodeType() -> Int32 { xmlTextReaderNodeType(handle) }

    /// The current text node's content, valid until the next `read()`.
    /// The corresponding C functions are `xmlTextReaderConstValue` and `xmlStrlen`.
    func value() -> UnsafeBufferPointer<UInt8>? {
        guard let content = xmlTextReaderConstValue(handle) else { return nil }
        return UnsafeBufferPointer(start: content, count: Int(xmlStrlen(content)))
    }

    /// The current node's local name (without prefix), interned in the reader's dictionary.
    /// The corresponding C function is `xmlTextReaderConstLocalName`.
    func localName() -> UnsafePointer<UInt8>? { xmlTextReaderConstLocalName(handle) }

    /// The value of the current element's attribute with qualified name
    /// `name` (`type`, `xml:lang`), or nil; leaves the reader on the element.
    /// The corresponding C functions are `xmlTextReaderMoveToAttribute`,
    /// `xmlTextReaderConstValue` and `xmlTextReaderMoveToElement`.
    func attribute(_ name: String) -> String? {
        guard xmlTextReaderMoveToAttribute(handle, name) == 1 else { return nil }
        defer { xmlTextReaderMoveToElement(handle) }
        guard let content = xmlTextReaderConstValue(handle) else { return nil }
        return String(cString: content)
    }

    /// True when the current element is written `<name/>`. The corresponding C function is `xmlTextReaderIsEmptyElement`.
    func isEmptyElement() -> Bool { xmlTextReaderIsEmptyElement(handle) == 1 }

    /// Where the parser is (which may be ahead of the current node).
    /// The corresponding C functions are `xmlTextReaderGetParserLineNumber` and `…ColumnNumber`.
    func parserPosition() -> (line: Int, column: Int) {
        (Int(xmlTextReaderGetParserLineNumber(handle)), Int(xmlTextReaderGetParserColumnNumber(handle)))
    }

    /// The line of the current node. The corresponding C function is `xmlGetLineNo`.
    func nodeLine() -> Int? {
        guard let node = xmlTextReaderCurrentNode(handle) else { return nil }
        let line = xmlGetLineNo(node)
        return line > 0 ? Int(line) : nil
    }
}

/// True when the NUL-terminated `name` is `expected`. The corresponding C function is `xmlStrEqual`.
func xmlNamesEqual(_ name: UnsafePointer<UInt8>, _ expected: StaticString) -> Bool {
    xmlStrEqual(name, expected.utf8Start) == 1
}
