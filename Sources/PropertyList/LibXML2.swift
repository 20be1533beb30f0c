import CLibXML2

// Every libxml2 call the property-list module makes goes through this file,
// each behind one small internal function, so no C type reaches the public
// API and the rest of the module reads as Swift.

/// Parser options for the documents this module reads.
struct XMLParseOptions: OptionSet {
    let rawValue: Int32

    /// Never fetch anything over the network. The corresponding C constant is `XML_PARSE_NONET`.
    static let noNetwork = XMLParseOptions(rawValue: Int32(XML_PARSE_NONET.rawValue))
    /// Store small text nodes inline. The corresponding C constant is `XML_PARSE_COMPACT`.
    static let compact = XMLParseOptions(rawValue: Int32(XML_PARSE_COMPACT.rawValue))
    /// Ignore the encoding the XML declaration names (for input already
    /// transcoded). The corresponding C constant is `XML_PARSE_IGNORE_ENC`.
    static let ignoreDeclaredEncoding = XMLParseOptions(rawValue: Int32(XML_PARSE_IGNORE_ENC.rawValue))
    /// Keep line numbers above 65535. The corresponding C constant is `XML_PARSE_BIG_LINES`.
    static let bigLines = XMLParseOptions(rawValue: Int32(XML_PARSE_BIG_LINES.rawValue))

    /// Lift libxml2's fixed limits: elements nesting more than 256 deep, text
    /// nodes over 10 MB. The corresponding C constant is `XML_PARSE_HUGE`.
    static let huge = XMLParseOptions(rawValue: Int32(XML_PARSE_HUGE.rawValue))

    /// What untrusted property lists are read with: no network, no entity
    /// substitution, no DTD loading. libxml2's own depth limit (256) is
    /// lifted so that the readers' `PropertyListLimits.maximumDepth`, the
    /// same for every reader and writer, is the one that applies: a value
    /// one form holds can be written and read back in the others. Input
    /// size is bounded by `PropertyListLimits.maximumInputSize`; entities
    /// are never substituted, so no expansion limit is lifted.
    static let untrusted: XMLParseOptions = [.noNetwork, .compact, .bigLines, .huge]
}

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

/// One problem libxml2 reported.
struct XMLDiagnostic {
    /// The 1-based line, or 0 when libxml2 gave none.
    var line: Int
    /// The 1-based column, or 0 when libxml2 gave none.
    var column: Int
    /// libxml2's message, trimmed.
    var message: String
    /// True for errors; false for warnings.
    var isError: Bool
    /// True when libxml2 stopped because the elements nest deeper than it allows.
    var isDepthLimit: Bool
}

/// Collects the problems libxml2 reports through a structured error handler.
final class XMLDiagnosticCollector {
    /// At most this many are kept; hostile input can raise thousands.
    static let maximumKept = 100
    private(set) var diagnostics: [XMLDiagnostic] = []

    /// The first error, if any.
    var firstError: XMLDiagnostic? { diagnostics.first { $0.isError } }

    fileprivate func record(_ error: xmlError) {
        guard diagnostics.count < Self.maximumKept else { return }
        var message = error.message.map { String(cString: $0) } ?? "unknown XML error"
        while let last = message.unicodeScalars.last, last == "\n" || last == " " || last == "\r" {
            message.unicodeScalars.removeLast()
        }
        let isDepthLimit = message.hasPrefix("Excessive depth in document")
        diagnostics.append(XMLDiagnostic(line: Int(error.line), column: Int(error.int2), message: message,
                                         isError: error.level.rawValue >= XML_ERR_ERROR.rawValue,
                                         isDepthLimit: isDepthLimit))
    }

    /// The context pointer handed to libxml2; valid while `self` lives.
    var opaque: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }
}

/// The C callback that forwards libxml2's structured errors to a collector.
private let collectXMLError: xmlStructuredErrorFunc = { context, error in
    guard let context, let error else { return }
    Unmanaged<XMLDiagnosticCollector>.fromOpaque(context).takeUnretainedValue().record(error.pointee)
}

/// libxml2 needs one process-wide initialisation before use from several threads.
private let libxml2Initialized: Void = xmlInitParser()

/// Makes sure libxml2 is initialised. The corresponding C function is `xmlInitParser`.
func initializeLibXML2() {
    _ = libxml2Initialized
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

    deinit { xmlFreeTextReader(handle) }

    /// Moves to the next node: 1 when there is one, 0 at the end, -1 on error.
    /// The corresponding C function is `xmlTextReaderRead`.
    func read() -> Int32 { xmlTextReaderRead(handle) }

    /// The current node's kind (see `XMLNodeType`). The corresponding C function is `xmlTextReaderNodeType`.
    func nodeType() -> Int32 { xmlTextReaderNodeType(handle) }

    /// The current node's qualified name, interned in the reader's dictionary.
    /// The corresponding C function is `xmlTextReaderConstName`.
    func name() -> UnsafePointer<UInt8>? { xmlTextReaderConstName(handle) }

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

    /// `text` interned in the reader's dictionary, so names can be compared by pointer.
    /// The corresponding C function is `xmlTextReaderConstString`.
    func intern(_ text: StaticString) -> UnsafePointer<UInt8>? {
        xmlTextReaderConstString(handle, text.utf8Start)
    }

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

    /// True when the document read so far declares general or parameter
    /// entities in its internal subset. Reads the `intSubset` of
    /// `xmlTextReaderCurrentDoc`.
    func documentDeclaresEntities() -> Bool {
        guard let document = xmlTextReaderCurrentDoc(handle), let subset = document.pointee.intSubset else { return false }
        return subset.pointee.entities != nil || subset.pointee.pentities != nil
    }

    /// True when the document's internal subset (`<!DOCTYPE plist [ … ]>`)
    /// declares anything. Reads the `intSubset` of `xmlTextReaderCurrentDoc`.
    func documentHasInternalSubsetDeclarations() -> Bool {
        guard let document = xmlTextReaderCurrentDoc(handle), let subset = document.pointee.intSubset else { return false }
        return subset.pointee.children != nil
    }
}

/// True when the NUL-terminated `name` is `expected`. The corresponding C function is `xmlStrEqual`.
func xmlNamesEqual(_ name: UnsafePointer<UInt8>, _ expected: StaticString) -> Bool {
    xmlStrEqual(name, expected.utf8Start) == 1
}

/// Installs `collector` as this thread's structured error handler for the
/// duration of `body`, then restores the handler that was there.
/// The corresponding C function is `xmlSetStructuredErrorFunc`.
func withXMLErrors<T>(collectedBy collector: XMLDiagnosticCollector, _ body: () -> T) -> T {
    initializeLibXML2()
    let previousHandler = __xmlStructuredError().pointee
    let previousContext = __xmlStructuredErrorContext().pointee
    xmlSetStructuredErrorFunc(collector.opaque, collectXMLError)
    defer { xmlSetStructuredErrorFunc(previousContext, previousHandler) }
    return withExtendedLifetime(collector) { body() }
}

/// A DTD parsed into libxml2's form, freed with this object.
final class XMLDocumentTypeDefinition {
    fileprivate let handle: xmlDtdPtr

    /// Parses the DTD in `bytes`; nil when libxml2 rejects it (the collector
    /// installed by `withXMLErrors` receives why).
    /// The corresponding C functions are `xmlParserInputBufferCreateMem` and `xmlIOParseDTD`.
    init?(parsing bytes: UnsafeRawBufferPointer) {
        initializeLibXML2()
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: CChar.self), bytes.count <= Int(Int32.max),
              let input = xmlParserInputBufferCreateMem(base, Int32(bytes.count), XML_CHAR_ENCODING_NONE)
        else { return nil }
        // xmlIOParseDTD takes ownership of `input`, freeing it even on failure.
        guard let dtd = xmlIOParseDTD(nil, input, XML_CHAR_ENCODING_NONE) else { return nil }
        handle = dtd
    }

    deinit { xmlFreeDtd(handle) }
}

/// A whole document parsed into a libxml2 tree, freed with this value.
struct XMLDocument: ~Copyable {
    private let handle: xmlDocPtr

    /// Parses `bytes` into a tree; nil when the document is not well-formed
    /// (the collector installed by `withXMLErrors` receives why).
    /// The corresponding C function is `xmlReadMemory`.
    init?(parsing bytes: UnsafeRawBufferPointer, options: XMLParseOptions) {
        initializeLibXML2()
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: CChar.self), bytes.count <= Int(Int32.max),
              let doc = xmlReadMemory(base, Int32(bytes.count), nil, nil, options.rawValue)
        else { return nil }
        handle = doc
    }

    deinit { xmlFreeDoc(handle) }

    /// The root element's name and line. The corresponding C function is `xmlDocGetRootElement`.
    func rootElement() -> (name: String, line: Int)? {
        guard let root = xmlDocGetRootElement(handle), let name = root.pointee.name else { return nil }
        return (String(cString: name), Int(xmlGetLineNo(root)))
    }

    /// True when the document's internal subset declares entities.
    func declaresEntities() -> Bool {
        guard let subset = handle.pointee.intSubset else { return false }
        return subset.pointee.entities != nil || subset.pointee.pentities != nil
    }

    /// Validates the document against `dtd`; the problems go to the collector
    /// installed by `withXMLErrors`. The corresponding C function is `xmlValidateDtd`.
    func validate(against dtd: XMLDocumentTypeDefinition) -> Bool {
        guard let context = xmlNewValidCtxt() else { return false }
        defer { xmlFreeValidCtxt(context) }
        return xmlValidateDtd(context, handle, dtd.handle) == 1
    }
}

/// The receiver of one SAX2 parse: what the C callbacks forward to, with the
/// parse's error collector. `handler` sees elements and text; an error it
/// throws stops the parse and is kept in `thrown`.
final class XMLEventSink {
    let handler: any XMLEventHandler
    let diagnostics = XMLDiagnosticCollector()
    /// What the handler threw, or the refusal of an entity declaration.
    fileprivate(set) var thrown: PropertyListError?
    fileprivate var context: xmlParserCtxtPtr?
    /// Where the parser stopped, once the parse is over.
    fileprivate var endPosition = (line: 0, column: 0)

    init(handler: any XMLEventHandler) { self.handler = handler }

    /// Where the parser is: the end of the construct just read, or where it stopped.
    /// The corresponding C functions are `xmlSAX2GetLineNumber` and `xmlSAX2GetColumnNumber`.
    func parserPosition() -> (line: Int, column: Int) {
        guard let context else { return endPosition }
        return (Int(xmlSAX2GetLineNumber(context)), Int(xmlSAX2GetColumnNumber(context)))
    }

    /// Keeps `error` and stops the parse. The corresponding C function is `xmlStopParser`.
    fileprivate func stop(with error: PropertyListError) {
        if thrown == nil { thrown = error }
        if let context { xmlStopParser(context) }
    }

    fileprivate static func from(_ opaque: UnsafeMutableRawPointer?) -> XMLEventSink? {
        opaque.map { Unmanaged<XMLEventSink>.fromOpaque($0).takeUnretainedValue() }
    }
}

private let saxStartElement: startElementNsSAX2Func = { opaque, localName, prefix, _, _, _, attributeCount, _, attributes in
    guard let sink = XMLEventSink.from(opaque), sink.thrown == nil, let localName else { return }
    let element = XMLElementStart(localName: localName, prefix: prefix, attributes: attributes,
                                  attributeCount: Int(attributeCount), line: sink.parserPosition().line)
    do throws(PropertyListError) { try sink.handler.startElement(element) } catch { sink.stop(with: error) }
}

private let saxEndElement: endElementNsSAX2Func = { opaque, _, _, _ in
    guard let sink = XMLEventSink.from(opaque), sink.thrown == nil else { return }
    do throws(PropertyListError) { try sink.handler.endElement() } catch { sink.stop(with: error) }
}

private let saxCharacters: charactersSAXFunc = { opaque, characters, count in
    guard let sink = XMLEventSink.from(opaque), sink.thrown == nil, let characters, count > 0 else { return }
    sink.handler.text(UnsafeBufferPointer(start: characters, count: Int(count)))
}

/// Entity declarations are refused, so entity-expansion bombs never start.
private let saxEntityDeclaration: entityDeclSAXFunc = { opaque, _, _, _, _, _ in
    guard let sink = XMLEventSink.from(opaque) else { return }
    let position = sink.parserPosition()
    sink.stop(with: PropertyListError(.malformedXML, at: .lineColumn(line: position.line, column: position.column),
                                      "entity declarations/references are not supported"))
}

private let saxUnparsedEntityDeclaration: unparsedEntityDeclSAXFunc = { opaque, _, _, _, _ in
    saxEntityDeclaration(opaque, nil, 0, nil, nil, nil)
}

private let saxError: xmlStructuredErrorFunc = { opaque, error in
    guard let sink = XMLEventSink.from(opaque), let error else { return }
    sink.diagnostics.record(error.pointee)
}

/// Parses `bytes` with libxml2's SAX2 parser, building no tree, and sends
/// elements and text to `sink.handler`. Only the callbacks set here exist:
/// no DTD or external entity is loaded, entity declarations stop the parse,
/// references to undeclared entities are libxml2 errors. Returns true when
/// the document was well-formed and nothing was thrown.
/// The corresponding C functions are `xmlCreateMemoryParserCtxt`,
/// `xmlCtxtUseOptions` and `xmlParseDocument`.
func parseXMLEvents(_ bytes: UnsafeRawBufferPointer, options: XMLParseOptions, into sink: XMLEventSink) -> Bool {
    initializeLibXML2()
    guard let base = bytes.baseAddress?.assumingMemoryBound(to: CChar.self), bytes.count <= Int(Int32.max),
          let context = xmlCreateMemoryParserCtxt(base, Int32(bytes.count))
    else { return false }
    var handler = xmlSAXHandler()
    handler.initialized = XML_SAX2_MAGIC
    handler.startElementNs = saxStartElement
    handler.endElementNs = saxEndElement
    handler.characters = saxCharacters
    handler.cdataBlock = saxCharacters
    handler.entityDecl = saxEntityDeclaration
    handler.unparsedEntityDecl = saxUnparsedEntityDeclaration
    handler.serror = saxError
    return withUnsafeMutablePointer(to: &handler) { handlerPointer in
        let defaultHandler = context.pointee.sax
        context.pointee.sax = handlerPointer
        context.pointee.userData = Unmanaged.passUnretained(sink).toOpaque()
        sink.context = context
        defer {
            sink.endPosition = sink.parserPosition()
            sink.context = nil
            // The context frees its handler; give it back the one it allocated.
            context.pointee.sax = defaultHandler
            xmlFreeParserCtxt(context)
        }
        _ = xmlCtxtUseOptions(context, options.rawValue)
        let status = withExtendedLifetime(sink) { xmlParseDocument(context) }
        return status == 0 && context.pointee.wellFormed != 0 && sink.thrown == nil
    }
}
