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

    /// Returns what was collected and starts afresh, so that a long run can
    /// place each problem before the next call to libxml2.
    func takeDiagnostics() -> [XMLDiagnostic] {
        defer { diagnostics.removeAll(keepingCapacity: true) }
        return diagnostics
    }

    fileprivate func record(_ error: xmlError) {
        guard diagnostics.count < Self.maximumKept else { return }
        var message = error.message.map { String(cString: $0) } ?? "unknown XML error"
        while let last = message.unicodeScalars.last, last == "\n" || last == " " || last == "\r" {
            message.unicodeScalars.removeLast()
        }
        let isDepthLimit = message.hasPrefix("Excessive depth in document")
        diagnostics.append(
            XMLDiagnostic(
                line: Int(error.line), column: Int(error.int2), message: message,
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

    /// Frees the reader and its document. `xmlTextReaderCurrentDoc` (which
    /// `documentDeclaresEntities()` and `documentHasInternalSubsetDeclarations()`
    /// ask for the internal subset) makes the caller the document's owner, so
    /// the document is taken here in every case and freed after the reader.
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

/// What an element declaration allows as content. The corresponding C type is `xmlElementTypeVal`.
enum XMLElementContentKind {
    /// Declared only through an `ATTLIST`, which libxml2 counts as undeclared.
    case undefined
    /// `EMPTY`: no child node at all, not even white space or a comment.
    case empty
    /// `ANY`.
    case any
    /// `(#PCDATA)`: text only.
    case text
    /// `(#PCDATA | a | b)*`: text and the elements named.
    case mixed
    /// A content model of elements only, checked by libxml2's compiled regular expression.
    case elements
}

/// An element declaration of a parsed DTD; valid while the DTD lives.
struct XMLElementDeclaration {
    fileprivate let handle: xmlElementPtr

    /// What the declaration allows as content.
    var contentKind: XMLElementContentKind {
        switch handle.pointee.etype {
        case XML_ELEMENT_TYPE_EMPTY: .empty
        case XML_ELEMENT_TYPE_ANY: .any
        case XML_ELEMENT_TYPE_MIXED: handle.pointee.content?.pointee.type == XML_ELEMENT_CONTENT_PCDATA ? .text : .mixed
        case XML_ELEMENT_TYPE_ELEMENT: .elements
        default: .undefined
        }
    }

    /// The declared name, as libxml2's messages give it.
    var name: String { handle.pointee.name.map { String(cString: $0) } ?? "" }

    /// True when a `.mixed` declaration lists the element `qualifiedName`
    /// (or, for a prefixed name, its `localName`), as libxml2's tree
    /// validation decides. Walks the declaration's `xmlElementContent` list.
    func listsChild(qualifiedName: String, localName: String) -> Bool {
        var content = handle.pointee.content
        while let node = content {
            let candidate = node.pointee.type == XML_ELEMENT_CONTENT_ELEMENT ? node : node.pointee.c1
            if let candidate, candidate.pointee.type == XML_ELEMENT_CONTENT_ELEMENT, let name = candidate.pointee.name {
                let declared = String(cString: name)
                if declared == qualifiedName || declared == localName { return true }
            }
            content = node.pointee.type == XML_ELEMENT_CONTENT_OR ? node.pointee.c2 : nil
        }
        return false
    }

    /// The content model as libxml2 prints it in its messages, at most 5,000 bytes.
    /// The corresponding C function is `xmlSnprintfElementContent`.
    func contentModelDescription() -> String {
        var buffer = [CChar](repeating: 0, count: 5000)
        buffer.withUnsafeMutableBufferPointer { xmlSnprintfElementContent($0.baseAddress, Int32($0.count), handle.pointee.content, 1) }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The declared attributes that must be present: `#REQUIRED` ones, and
    /// `#FIXED` namespace declarations. Walks the `attributes` list.
    func attributeRequirements() -> [XMLAttributeRequirement] {
        var requirements: [XMLAttributeRequirement] = []
        var attribute = handle.pointee.attributes
        while let declaration = attribute {
            attribute = declaration.pointee.nexth
            guard let name = declaration.pointee.name else { continue }
            let isRequired = declaration.pointee.def == XML_ATTRIBUTE_REQUIRED
            guard isRequired || declaration.pointee.def == XML_ATTRIBUTE_FIXED else { continue }
            requirements.append(
                XMLAttributeRequirement(
                    name: String(cString: name),
                    prefix: declaration.pointee.prefix.map { String(cString: $0) },
                    isRequired: isRequired,
                    fixedValue: declaration.pointee.defaultValue.map { String(cString: $0) }))
        }
        return requirements
    }
}

/// An attribute an element declaration requires (`#REQUIRED`) or fixes (`#FIXED`).
struct XMLAttributeRequirement {
    var name: String
    var prefix: String?
    var isRequired: Bool
    var fixedValue: String?
}

/// One run of an element's content model, libxml2's compiled regular
/// expression fed the names of the element's children.
final class XMLContentModelRun {
    private let handle: xmlRegExecCtxtPtr

    /// Starts a run of `declaration`'s content model, compiling it the first
    /// time (libxml2 reports a model it cannot compile or that is not
    /// deterministic, once); nil when there is no usable model.
    /// The corresponding C functions are `xmlValidBuildContentModel`,
    /// `xmlRegexpIsDeterminist` and `xmlRegNewExecCtxt`.
    init?(_ declaration: XMLElementDeclaration, context: XMLValidationDocument) {
        if declaration.handle.pointee.contModel == nil {
            _ = xmlValidBuildContentModel(context.context, declaration.handle)
        }
        guard let model = declaration.handle.pointee.contModel, xmlRegexpIsDeterminist(model) == 1,
            let run = xmlRegNewExecCtxt(model, nil, nil)
        else { return nil }
        handle = run
    }

    deinit { xmlRegFreeExecCtxt(handle) }

    /// Feeds one child element's qualified name. The corresponding C function is `xmlRegExecPushString`.
    func push(_ qualifiedName: String) {
        _ = xmlRegExecPushString(handle, qualifiedName, nil)
    }

    /// True when the children fed so far make a whole, valid content.
    /// The corresponding C function is `xmlRegExecPushString`, given no name.
    func finish() -> Bool { xmlRegExecPushString(handle, nil, nil) == 1 }
}

/// A stand-in document for validating a stream against a DTD: an empty
/// `xmlDoc` whose external subset is the DTD, a validation context, and one
/// element node per name for libxml2's attribute checks. Keeps the IDs seen,
/// so that a repeated ID is reported.
final class XMLValidationDocument {
    fileprivate let context: xmlValidCtxtPtr
    private let document: xmlDocPtr
    private let dtd: XMLDocumentTypeDefinition
    private var elements: [String: xmlNodePtr] = [:]

    /// The corresponding C functions are `xmlNewValidCtxt` and `xmlNewDoc`.
    init?(dtd: XMLDocumentTypeDefinition) {
        initializeLibXML2()
        guard let context = xmlNewValidCtxt() else { return nil }
        guard let document = xmlNewDoc("1.0") else {
            xmlFreeValidCtxt(context)
            return nil
        }
        document.pointee.extSubset = dtd.handle
        self.context = context
        self.document = document
        self.dtd = dtd
    }

    /// The corresponding C functions are `xmlFreeNode`, `xmlFreeDoc` and `xmlFreeValidCtxt`.
    deinit {
        for node in elements.values { xmlFreeNode(node) }
        // The DTD belongs to `dtd`, not to this document.
        document.pointee.extSubset = nil
        xmlFreeDoc(document)
        xmlFreeValidCtxt(context)
    }

    /// The declaration of the element `localName` (with `prefix`, first
    /// looked up prefixed, as libxml2 does), or nil when the DTD has none.
    /// The corresponding C functions are `xmlGetDtdQElementDesc` and `xmlGetDtdElementDesc`.
    func declaration(localName: String, prefix: String?) -> XMLElementDeclaration? {
        if let prefix, let found = xmlGetDtdQElementDesc(dtd.handle, localName, prefix) {
            return XMLElementDeclaration(handle: found)
        }
        return xmlGetDtdElementDesc(dtd.handle, localName).map(XMLElementDeclaration.init)
    }

    /// Checks one attribute of an element `elementName` against the DTD's
    /// declaration; problems go to the collector installed by `withXMLErrors`.
    /// The corresponding C functions are `xmlNewDocProp`, `xmlNewNs`,
    /// `xmlValidateOneAttribute`, `xmlFreeNs` and `xmlFreeProp`.
    func validateAttribute(of elementName: String, localName: String, prefix: String?, value: String) {
        guard let element = element(named: elementName), let attribute = xmlNewDocProp(document, localName, nil) else { return }
        // The value is passed apart, not as the node's text, so that freeing
        // the node leaves an ID in the document's table for later repeats.
        attribute.pointee.parent = element
        let namespace = prefix.flatMap { xmlNewNs(nil, "", $0) }
        attribute.pointee.ns = namespace
        _ = xmlValidateOneAttribute(context, document, element, attribute, value)
        attribute.pointee.ns = nil
        if let namespace { xmlFreeNs(namespace) }
        xmlFreeProp(attribute)
    }

    /// Checks one namespace declaration (`xmlns` or `xmlns:prefix`) of an
    /// element `elementName` against the DTD.
    /// The corresponding C functions are `xmlNewNs`, `xmlValidateOneNamespace` and `xmlFreeNs`.
    func validateNamespace(of elementName: String, elementPrefix: String?, prefix: String?, uri: String) {
        guard let element = element(named: elementName), let namespace = xmlNewNs(nil, uri, prefix) else { return }
        _ = xmlValidateOneNamespace(context, document, element, elementPrefix, namespace, uri)
        xmlFreeNs(namespace)
    }

    /// The corresponding C function is `xmlNewDocNode`.
    private func element(named name: String) -> xmlNodePtr? {
        if let node = elements[name] { return node }
        let node = xmlNewDocNode(document, nil, name, nil)
        elements[name] = node
        return node
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
    let element = XMLElementStart(
        localName: localName, prefix: prefix, attributes: attributes,
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
    sink.stop(
        with: PropertyListError(
            .malformedXML, at: .lineColumn(line: position.line, column: position.column),
            "entity declarations/references are not supported"))
}

private let saxUnparsedEntityDeclaration: unparsedEntityDeclSAXFunc = { opaque, _, _, _, _ in
    saxEntityDeclaration(opaque, nil, 0, nil, nil, nil)
}

private let saxError: xmlStructuredErrorFunc = { opaque, error in
    guard let sink = XMLEventSink.from(opaque), let error else { return }
    sink.diagnostics.record(error.pointee)
}

/// Makes DTD validity errors (a duplicate token in an `ATTLIST`, say) reach
/// the structured error handler with `sink` too: libxml2 passes them the
/// validity context's user data, by default the parser context itself,
/// which the handler would take for its sink. The validity context's own
/// handlers are removed, as they expect the parser context.
private func routeValidityErrors(of context: xmlParserCtxtPtr, to sink: UnsafeMutableRawPointer?) {
    context.pointee.vctxt.userData = sink
    context.pointee.vctxt.error = nil
    context.pointee.vctxt.warning = nil
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
        routeValidityErrors(of: context, to: context.pointee.userData)
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

/// What a validating parse reports: every kind of child node an element can
/// have, since a DTD's rules count comments and empty CDATA sections too.
protocol XMLValidationEventHandler: AnyObject {
    /// An element's start tag, with the attributes written in the document
    /// (not those a DTD's `ATTLIST` defaults).
    func startElement(_ element: XMLElementStart)
    /// An element's end tag (or the end of an empty element).
    func endElement()
    /// A run of character data (text, white space, character references).
    func text(_ utf8: UnsafeBufferPointer<UInt8>)
    /// A CDATA section, perhaps empty.
    func cdata()
    /// A comment or processing instruction.
    func commentOrInstruction()
    /// The internal subset declares an entity; the parse stops after this.
    func entityDeclared()
}

/// The receiver of one validating SAX2 parse, with its error collector.
final class XMLValidationSink {
    let handler: any XMLValidationEventHandler
    let diagnostics = XMLDiagnosticCollector()
    fileprivate var context: xmlParserCtxtPtr?

    init(handler: any XMLValidationEventHandler) { self.handler = handler }

    /// The line the parser is on: the end of the construct just read.
    /// The corresponding C function is `xmlSAX2GetLineNumber`.
    func parserLine() -> Int {
        guard let context else { return 0 }
        return Int(xmlSAX2GetLineNumber(context))
    }

    /// True when the XML declaration says `standalone="yes"`. Reads the parser context's `standalone`.
    func isStandalone() -> Bool { context?.pointee.standalone == 1 }

    fileprivate static func from(_ opaque: UnsafeMutableRawPointer?) -> XMLValidationSink? {
        opaque.map { Unmanaged<XMLValidationSink>.fromOpaque($0).takeUnretainedValue() }
    }
}

private let validationStartElement: startElementNsSAX2Func = {
    opaque, localName, prefix, _, namespaceCount, namespaces,
    attributeCount, defaultedCount, attributes in
    guard let sink = XMLValidationSink.from(opaque), let localName else { return }
    // libxml2 appends the attributes an ATTLIST defaults; a tree keeps only those written.
    sink.handler.startElement(
        XMLElementStart(
            localName: localName, prefix: prefix, attributes: attributes,
            attributeCount: Int(attributeCount - defaultedCount),
            namespaces: namespaces, namespaceCount: Int(namespaceCount),
            line: sink.parserLine()))
}

private let validationEndElement: endElementNsSAX2Func = { opaque, _, _, _ in
    XMLValidationSink.from(opaque)?.handler.endElement()
}

private let validationCharacters: charactersSAXFunc = { opaque, characters, count in
    guard let sink = XMLValidationSink.from(opaque), let characters, count > 0 else { return }
    sink.handler.text(UnsafeBufferPointer(start: characters, count: Int(count)))
}

private let validationCDATA: cdataBlockSAXFunc = { opaque, _, _ in
    XMLValidationSink.from(opaque)?.handler.cdata()
}

private let validationComment: commentSAXFunc = { opaque, _ in
    XMLValidationSink.from(opaque)?.handler.commentOrInstruction()
}

private let validationInstruction: processingInstructionSAXFunc = { opaque, _, _ in
    XMLValidationSink.from(opaque)?.handler.commentOrInstruction()
}

/// Entity declarations stop the parse, so entity-expansion bombs never start.
/// The corresponding C function is `xmlStopParser`.
private let validationEntityDeclaration: entityDeclSAXFunc = { opaque, _, _, _, _, _ in
    guard let sink = XMLValidationSink.from(opaque) else { return }
    sink.handler.entityDeclared()
    if let context = sink.context { xmlStopParser(context) }
}

private let validationUnparsedEntityDeclaration: unparsedEntityDeclSAXFunc = { opaque, _, _, _, _ in
    validationEntityDeclaration(opaque, nil, 0, nil, nil, nil)
}

private let validationError: xmlStructuredErrorFunc = { opaque, error in
    guard let sink = XMLValidationSink.from(opaque), let error else { return }
    sink.diagnostics.record(error.pointee)
}

/// Where `readFromMemory` is in the bytes a parse reads.
private struct MemoryReadCursor {
    var remaining: UnsafeRawBufferPointer
}

/// The C callback through which libxml2 pulls the next bytes, a few
/// kilobytes at a time, so it never holds a copy of the whole input.
private let readFromMemory: xmlInputReadCallback = { opaque, buffer, length in
    guard let cursor = opaque?.assumingMemoryBound(to: MemoryReadCursor.self), let buffer, length > 0 else { return -1 }
    let count = min(Int(length), cursor.pointee.remaining.count)
    guard count > 0, let source = cursor.pointee.remaining.baseAddress else { return 0 }
    UnsafeMutableRawPointer(buffer).copyMemory(from: source, byteCount: count)
    cursor.pointee.remaining = UnsafeRawBufferPointer(rebasing: cursor.pointee.remaining[count...])
    return Int32(count)
}

/// Parses `bytes` with libxml2's SAX2 parser, building no tree and reading
/// the input a few kilobytes at a time (never copying all of it), and sends
/// every node to `sink.handler`. No DTD or external entity is loaded.
/// Returns true when the document was well-formed and no entity was declared.
/// The corresponding C functions are `xmlCreateIOParserCtxt`,
/// `xmlCtxtUseOptions` and `xmlParseDocument`.
func parseXMLForValidation(_ bytes: UnsafeRawBufferPointer, options: XMLParseOptions, into sink: XMLValidationSink) -> Bool {
    initializeLibXML2()
    guard bytes.count <= Int(Int32.max) else { return false }
    var handler = xmlSAXHandler()
    handler.initialized = XML_SAX2_MAGIC
    handler.startElementNs = validationStartElement
    handler.endElementNs = validationEndElement
    handler.characters = validationCharacters
    handler.ignorableWhitespace = validationCharacters
    handler.cdataBlock = validationCDATA
    handler.comment = validationComment
    handler.processingInstruction = validationInstruction
    handler.entityDecl = validationEntityDeclaration
    handler.unparsedEntityDecl = validationUnparsedEntityDeclaration
    handler.serror = validationError
    var cursor = MemoryReadCursor(remaining: bytes)
    return withUnsafeMutablePointer(to: &cursor) { cursorPointer in
        // libxml2 copies the handler into the context it creates.
        guard
            let context = xmlCreateIOParserCtxt(
                &handler, Unmanaged.passUnretained(sink).toOpaque(), readFromMemory, nil,
                cursorPointer, XML_CHAR_ENCODING_NONE)
        else { return false }
        routeValidityErrors(of: context, to: Unmanaged.passUnretained(sink).toOpaque())
        sink.context = context
        defer {
            sink.context = nil
            xmlFreeParserCtxt(context)
        }
        _ = xmlCtxtUseOptions(context, options.rawValue)
        let status = withExtendedLifetime(sink) { xmlParseDocument(context) }
        return status == 0 && context.pointee.wellFormed != 0 && context.pointee.errNo != Int32(XML_ERR_USER_STOP.rawValue)
    }
}
