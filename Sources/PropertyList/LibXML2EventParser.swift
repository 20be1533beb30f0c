import CLibXML2

/// What the property-list reader needs from a SAX2 parse beyond
/// `XMLEventHandler`, to see the document as libxml2's tree reader showed it:
/// which elements were written `<name/>` (one tag, not two), where text
/// nodes end (CDATA sections, comments and processing instructions split
/// them), references to undeclared entities, and declarations in the
/// internal subset. `XMLEventSink` sends these to a handler that conforms.
protocol XMLDocumentEventHandler: XMLEventHandler {
    /// Called once the parser context exists, before the first event, so the
    /// handler can intern the names it compares (`XMLEventSink.intern(_:)`).
    func parseWillStart(_ sink: XMLEventSink)
    /// An element's end: its end tag, or the end of an element written
    /// `<name/>` when `wasEmpty` is true.
    func endElement(wasEmpty: Bool) throws(PropertyListError)
    /// A CDATA section's content, in one piece, valid only during the call.
    func cdata(_ utf8: UnsafeBufferPointer<UInt8>) throws(PropertyListError)
    /// A comment or processing instruction outside the document type
    /// declaration: the text before it is a text node of its own.
    func commentOrProcessingInstruction() throws(PropertyListError)
    /// A reference to an entity no declaration names, which libxml2 lets pass
    /// (as an error that leaves the document well-formed) when the document
    /// names an external DTD, which it never loads.
    func undeclaredEntityReference() throws(PropertyListError)
    /// The end of the document type declaration; `hasDeclarations` when its
    /// internal subset held an element, attribute-list or notation
    /// declaration, a comment or a processing instruction. (An entity
    /// declaration stops the parse where it stands.)
    func documentTypeEnded(hasDeclarations: Bool) throws(PropertyListError)
}

/// The receiver of one SAX2 parse: what the C callbacks forward to, with the
/// parse's error collector. `handler` sees elements and text; an error it
/// throws stops the parse and is kept in `thrown`.
final class XMLEventSink {
    let handler: any XMLEventHandler
    /// `handler`, when it wants the details of `XMLDocumentEventHandler`.
    fileprivate let documentHandler: (any XMLDocumentEventHandler)?
    let diagnostics = XMLDiagnosticCollector()
    /// What the handler threw, or the refusal of an entity declaration.
    fileprivate(set) var thrown: PropertyListError?
    /// True when the parse stopped at an entity declaration.
    fileprivate(set) var refusedEntityDeclaration = false
    /// True for a parse that is only a first try (`parseXMLEvents(…, firstTry:)`):
    /// the first error the handler throws stops it, since the caller will
    /// parse again to report what is wrong.
    fileprivate var isFirstTry = false
    /// True, once the parse is over, when libxml2 found the document
    /// well-formed. Namespace errors and references to undeclared entities
    /// that it lets pass leave it so, though `diagnostics` holds them.
    fileprivate(set) var wasWellFormed = false
    /// True when libxml2 found the document well-formed until told it had
    /// all of it (an element left open, say); only for an `XMLDocumentEventHandler`.
    fileprivate(set) var refusedAtEnd = false
    /// True once the internal subset held a declaration other than an entity's, a comment or a processing instruction.
    fileprivate var sawInternalSubsetDeclaration = false
    /// Set by the handler: true while text that is white space alone may go
    /// unheard (the property-list builder outside a value element, with no
    /// stray text gathered), so the white space between tags, a call for
    /// each run, stops here. A pointer the handler keeps, so that setting it
    /// neither retains this sink nor checks exclusive access.
    let dropsBlankText: UnsafeMutablePointer<Bool>
    fileprivate var context: xmlParserCtxtPtr?
    /// Where the parser stopped, once the parse is over.
    fileprivate var endPosition = (line: 0, column: 0)

    init(handler: any XMLEventHandler) {
        self.handler = handler
        documentHandler = handler as? any XMLDocumentEventHandler
        dropsBlankText = .allocate(capacity: 1)
        dropsBlankText.initialize(to: false)
    }

    deinit { dropsBlankText.deallocate() }

    /// Where the parser is: the end of the construct just read, or where it stopped.
    /// The corresponding C functions are `xmlSAX2GetLineNumber` and `xmlSAX2GetColumnNumber`.
    func parserPosition() -> (line: Int, column: Int) {
        guard let context else { return endPosition }
        return (Int(xmlSAX2GetLineNumber(context)), Int(xmlSAX2GetColumnNumber(context)))
    }

    /// `name` interned in the parser's dictionary, where libxml2 interns the
    /// element names it reports, so they can be compared by pointer; nil
    /// outside a parse. The corresponding C function is `xmlDictLookup`.
    func intern(_ name: StaticString) -> UnsafePointer<UInt8>? {
        guard let dictionary = context?.pointee.dict else { return nil }
        return xmlDictLookup(dictionary, name.utf8Start, Int32(name.utf8CodeUnitCount))
    }

    /// True when the element whose end libxml2 is reporting was written
    /// `<name/>`. libxml2 (2.9, `xmlParseElementStart`) reports that end
    /// right after stepping over "/>", and an end tag's after its ">", which
    /// a "/" never precedes; when it drops consumed input it keeps the last
    /// 80 bytes (`LINE_LEN`), so the two bytes before the cursor are there.
    fileprivate func endedEmptyElement() -> Bool {
        guard let input = context?.pointee.input, let cursor = input.pointee.cur, let base = input.pointee.base,
            cursor - base >= 2
        else { return false }
        return cursor[-2] == UInt8(ascii: "/")
    }

    /// Keeps `error` and stops the parse. The corresponding C function is `xmlStopParser`.
    fileprivate func stop(with error: PropertyListError) {
        if thrown == nil { thrown = error }
        if let context { xmlStopParser(context) }
    }

    /// Keeps what the handler threw; the handler hears nothing more. A plain
    /// `XMLEventHandler`'s error stops the parse; for an
    /// `XMLDocumentEventHandler` libxml2 parses on, unheard, so that a
    /// document that is not well-formed is reported as such (`wasWellFormed`)
    /// whatever else is wrong with it, as libxml2's tree reader, which parsed
    /// ahead of the nodes it returned, reported it.
    fileprivate func handlerFailed(with error: PropertyListError) {
        guard documentHandler == nil || isFirstTry else {
            if thrown == nil { thrown = error }
            return
        }
        stop(with: error)
    }

    /// True while the parser reads the document type declaration's subsets.
    fileprivate var isInSubset: Bool { (context?.pointee.inSubset ?? 0) != 0 }

    fileprivate static func from(_ opaque: UnsafeMutableRawPointer?) -> XMLEventSink? {
        opaque.map { Unmanaged<XMLEventSink>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Runs `body` with the sink `opaque` points to, without retaining it:
    /// the parse holds it for as long as libxml2 calls back (the callbacks
    /// for elements and text, a read's most frequent calls, use this).
    @inline(__always)
    fileprivate static func with(_ opaque: UnsafeMutableRawPointer?, _ body: (XMLEventSink) -> Void) {
        guard let opaque else { return }
        Unmanaged<XMLEventSink>.fromOpaque(opaque)._withUnsafeGuaranteedRef(body)
    }
}

private let saxStartElement: startElementNsSAX2Func = { opaque, localName, prefix, _, _, _, attributeCount, _, attributes in
    XMLEventSink.with(opaque) { sink in
        guard sink.thrown == nil, let localName else { return }
        let element = XMLElementStart(
            localName: localName, prefix: prefix, attributes: attributes,
            attributeCount: Int(attributeCount), line: sink.parserPosition().line)
        do throws(PropertyListError) { try sink.handler.startElement(element) } catch { sink.handlerFailed(with: error) }
    }
}

private let saxEndElement: endElementNsSAX2Func = { opaque, _, _, _ in
    XMLEventSink.with(opaque) { sink in
        guard sink.thrown == nil else { return }
        do throws(PropertyListError) {
            if let handler = sink.documentHandler {
                try handler.endElement(wasEmpty: sink.endedEmptyElement())
            } else {
                try sink.handler.endElement()
            }
        } catch { sink.handlerFailed(with: error) }
    }
}

private let saxCharacters: charactersSAXFunc = { opaque, characters, count in
    XMLEventSink.with(opaque) { sink in
        guard sink.thrown == nil, let characters, count > 0 else { return }
        let text = UnsafeBufferPointer(start: characters, count: Int(count))
        if sink.dropsBlankText.pointee, XMLText.isWhitespace(text) { return }
        sink.handler.text(text)
    }
}

private let saxCDATA: cdataBlockSAXFunc = { opaque, characters, count in
    guard let sink = XMLEventSink.from(opaque), sink.thrown == nil, let characters, count > 0 else { return }
    let utf8 = UnsafeBufferPointer(start: characters, count: Int(count))
    guard let handler = sink.documentHandler else { return sink.handler.text(utf8) }
    do throws(PropertyListError) { try handler.cdata(utf8) } catch { sink.handlerFailed(with: error) }
}

/// A comment or processing instruction: a declaration inside the internal
/// subset (libxml2's tree keeps it there), else the end of a text node.
private func sawCommentOrProcessingInstruction(_ opaque: UnsafeMutableRawPointer?) {
    guard let sink = XMLEventSink.from(opaque), sink.thrown == nil else { return }
    if sink.isInSubset {
        sink.sawInternalSubsetDeclaration = true
        return
    }
    do throws(PropertyListError) { try sink.documentHandler?.commentOrProcessingInstruction() } catch { sink.handlerFailed(with: error) }
}

private let saxComment: commentSAXFunc = { opaque, _ in sawCommentOrProcessingInstruction(opaque) }

private let saxProcessingInstruction: processingInstructionSAXFunc = { opaque, _, _ in sawCommentOrProcessingInstruction(opaque) }

private let saxReference: referenceSAXFunc = { opaque, _ in
    guard let sink = XMLEventSink.from(opaque), sink.thrown == nil else { return }
    do throws(PropertyListError) { try sink.documentHandler?.undeclaredEntityReference() } catch { sink.handlerFailed(with: error) }
}

private let saxElementDeclaration: elementDeclSAXFunc = { opaque, _, _, _ in
    XMLEventSink.from(opaque)?.sawInternalSubsetDeclaration = true
}

/// libxml2 hands the callback the enumeration of allowed values to keep or free.
/// The corresponding C function is `xmlFreeEnumeration`.
private let saxAttributeDeclaration: attributeDeclSAXFunc = { opaque, _, _, _, _, _, enumeration in
    if let enumeration { xmlFreeEnumeration(enumeration) }
    XMLEventSink.from(opaque)?.sawInternalSubsetDeclaration = true
}

private let saxNotationDeclaration: notationDeclSAXFunc = { opaque, _, _, _ in
    XMLEventSink.from(opaque)?.sawInternalSubsetDeclaration = true
}

/// Called at the end of the document type declaration (to load an external
/// subset, which is never loaded here).
private let saxEndOfDocumentType: externalSubsetSAXFunc = { opaque, _, _, _ in
    guard let sink = XMLEventSink.from(opaque), sink.thrown == nil else { return }
    do throws(PropertyListError) {
        try sink.documentHandler?.documentTypeEnded(hasDeclarations: sink.sawInternalSubsetDeclaration)
    } catch { sink.handlerFailed(with: error) }
}

/// Entity declarations are refused, so entity-expansion bombs never start.
private let saxEntityDeclaration: entityDeclSAXFunc = { opaque, _, _, _, _, _ in
    guard let sink = XMLEventSink.from(opaque) else { return }
    sink.refusedEntityDeclaration = true
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

/// Parses `bytes` with libxml2's SAX2 parser, building no tree, and sends
/// elements and text to `sink.handler` (and the details of
/// `XMLDocumentEventHandler` to a handler that conforms). Only the callbacks
/// set here exist: no DTD or external entity is loaded, entity declarations
/// stop the parse, references to undeclared entities are libxml2 errors (or
/// passed on, when the document names an external DTD). Returns true when
/// the document was well-formed and nothing was thrown.
///
/// For an `XMLDocumentEventHandler` (the property-list reader) the bytes are
/// pushed to libxml2 in pieces after the first 4, as its `xmlTextReader`
/// pushed them, so a document that is not well-formed gets the messages that
/// reader gave ("Document is empty", "Extra content at the end of the
/// document"); for others libxml2 reads them whole. With `firstTry`, an
/// `XMLDocumentEventHandler` gets libxml2's pull parser too, reading the
/// bytes through a callback (`pullXMLEvents`: a sixth fewer instructions
/// than the push parser on a large document), and the first error it throws
/// stops the parse; its caller
/// keeps what it built only when nothing went wrong, else parses again
/// without `firstTry` to say what is wrong as always.
/// The corresponding C functions are `xmlCreatePushParserCtxt`,
/// `xmlParseChunk`, `xmlCreateMemoryParserCtxt`, `xmlCtxtUseOptions` and
/// `xmlParseDocument`.
func parseXMLEvents(
    _ bytes: UnsafeRawBufferPointer, options: XMLParseOptions, into sink: XMLEventSink, firstTry: Bool = false
) -> Bool {
    initializeLibXML2()
    guard let base = bytes.baseAddress?.assumingMemoryBound(to: CChar.self), bytes.count <= Int(Int32.max) else { return false }
    var handler = xmlSAXHandler()
    handler.initialized = XML_SAX2_MAGIC
    handler.startElementNs = saxStartElement
    handler.endElementNs = saxEndElement
    handler.characters = saxCharacters
    handler.cdataBlock = saxCDATA
    handler.comment = saxComment
    handler.processingInstruction = saxProcessingInstruction
    handler.reference = saxReference
    handler.elementDecl = saxElementDeclaration
    handler.attributeDecl = saxAttributeDeclaration
    handler.notationDecl = saxNotationDeclaration
    handler.externalSubset = saxEndOfDocumentType
    handler.entityDecl = saxEntityDeclaration
    handler.unparsedEntityDecl = saxUnparsedEntityDeclaration
    handler.serror = saxError
    if sink.documentHandler != nil, !firstTry {
        // libxml2 reports a failed conversion from the document's encoding
        // with no parser context, to this thread's handler (standard error
        // by default), as well as to the parse, which stops and says where:
        // the first report is dropped.
        return withXMLErrors(collectedBy: XMLDiagnosticCollector()) {
            pushXMLEvents(base, count: bytes.count, handler: &handler, options: options, into: sink)
        }
    }
    sink.isFirstTry = firstTry
    if firstTry, sink.documentHandler != nil {
        return pullXMLEvents(base, count: bytes.count, handler: &handler, options: options, into: sink)
    }
    guard let context = xmlCreateMemoryParserCtxt(base, Int32(bytes.count)) else { return false }
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
            freeParserContext(context)
        }
        _ = xmlCtxtUseOptions(context, options.rawValue)
        sink.documentHandler?.parseWillStart(sink)
        // A failed conversion from the document's encoding, which libxml2
        // reports with no parser context (see `parseXMLEvents`), goes to
        // the diagnostics with the rest, not to standard error.
        let status = withXMLErrors(collectedBy: sink.diagnostics) { withExtendedLifetime(sink) { xmlParseDocument(context) } }
        sink.wasWellFormed = context.pointee.wellFormed != 0
        return status == 0 && sink.wasWellFormed && sink.thrown == nil
    }
}

/// Where the pull parser of a first try reads from: the document's bytes,
/// handed over as libxml2 asks for them.
private struct XMLMemoryInput {
    let base: UnsafePointer<CChar>
    let count: Int
    var offset = 0
}

/// libxml2's read callback over an `XMLMemoryInput`: copies up to `length`
/// bytes into `buffer`, returns how many (0 at the end).
private let readXMLMemoryInput: xmlInputReadCallback = { context, buffer, length in
    guard let input = context?.assumingMemoryBound(to: XMLMemoryInput.self), let buffer, length > 0 else { return -1 }
    let size = min(Int(length), input.pointee.count - input.pointee.offset)
    buffer.update(from: input.pointee.base + input.pointee.offset, count: size)
    input.pointee.offset += size
    return Int32(size)  // At most `length`.
}

/// `parseXMLEvents` for the first try of an `XMLDocumentEventHandler`:
/// libxml2's pull parser (`xmlParseDocument`) reading the document through
/// a callback, a few kilobytes at a time, so that libxml2 keeps no copy of
/// the whole document (as `xmlCreateMemoryParserCtxt` would: 44 MB more for
/// a 44 MB document). The context copies `handler`.
/// The corresponding C functions are `xmlCreateIOParserCtxt`,
/// `xmlCtxtUseOptions` and `xmlParseDocument`.
private func pullXMLEvents(
    _ base: UnsafePointer<CChar>, count: Int, handler: inout xmlSAXHandler, options: XMLParseOptions, into sink: XMLEventSink
) -> Bool {
    var input = XMLMemoryInput(base: base, count: count)
    return withUnsafeMutablePointer(to: &input) { inputPointer in
        guard
            let context = xmlCreateIOParserCtxt(
                &handler, Unmanaged.passUnretained(sink).toOpaque(), readXMLMemoryInput, nil, inputPointer, XML_CHAR_ENCODING_NONE)
        else { return false }
        return parse(with: context, options: options, into: sink) {
            // A failed conversion from the document's encoding, which libxml2
            // reports with no parser context (see `parseXMLEvents`), makes the
            // first try fail.
            let status = withXMLErrors(collectedBy: sink.diagnostics) { withExtendedLifetime(sink) { xmlParseDocument(context) } }
            sink.wasWellFormed = context.pointee.wellFormed != 0
            return status == 0 && sink.wasWellFormed && sink.thrown == nil
        }
    }
}

/// Runs `body`, the parse, with `sink` attached to `context` (which owns a
/// copy of the handler and is freed afterwards), libxml2's options set and
/// the handler told the parse starts.
/// The corresponding C function is `xmlCtxtUseOptions`.
private func parse(with context: xmlParserCtxtPtr, options: XMLParseOptions, into sink: XMLEventSink, _ body: () -> Bool) -> Bool {
    routeValidityErrors(of: context, to: context.pointee.userData)
    sink.context = context
    defer {
        sink.endPosition = sink.parserPosition()
        sink.context = nil
        freeParserContext(context)
    }
    _ = xmlCtxtUseOptions(context, options.rawValue)
    sink.documentHandler?.parseWillStart(sink)
    return body()
}

/// `parseXMLEvents` for an `XMLDocumentEventHandler`: libxml2's push parser,
/// fed as `xmlTextReader` feeds it (the first 4 bytes, for the encoding,
/// when there are 4, then pieces, then the end), stopping at the first piece
/// it refuses. The context copies `handler`.
/// The corresponding C functions are `xmlCreatePushParserCtxt`, `xmlCtxtUseOptions` and `xmlParseChunk`.
private func pushXMLEvents(
    _ base: UnsafePointer<CChar>, count: Int, handler: inout xmlSAXHandler, options: XMLParseOptions, into sink: XMLEventSink
) -> Bool {
    // xmlTextReader pushes 512 bytes at a time; what libxml2 reports does not
    // depend on the size, and larger pieces spare it buffer moves.
    let pieceSize = 65536
    let start = count >= 4 ? 4 : 0
    guard
        let context = xmlCreatePushParserCtxt(
            &handler, Unmanaged.passUnretained(sink).toOpaque(), start == 0 ? nil : base, Int32(start), nil)
    else { return false }
    return parse(with: context, options: options, into: sink) {
        pushPieces(base, count: count, from: start, pieceSize: pieceSize, to: context, sink: sink)
    }
}

/// Pushes the document from `start` to libxml2 in pieces, then its end.
/// The corresponding C function is `xmlParseChunk`.
private func pushPieces(
    _ base: UnsafePointer<CChar>, count: Int, from start: Int, pieceSize: Int, to context: xmlParserCtxtPtr, sink: XMLEventSink
) -> Bool {
    withExtendedLifetime(sink) {
        var offset = start
        while offset < count {
            let size = min(pieceSize, count - offset)
            // Both are at most `count`, which is at most Int32.max (checked by the caller).
            guard xmlParseChunk(context, base + offset, Int32(size), 0) == 0 else { return }
            offset += size
        }
        sink.refusedAtEnd = context.pointee.wellFormed != 0 && xmlParseChunk(context, nil, 0, 1) != 0
    }
    sink.wasWellFormed = context.pointee.wellFormed != 0
    return sink.wasWellFormed && sink.thrown == nil
}

/// What a validating parse reports: every kind of child node an element can

/// Frees a SAX parse's context and the document libxml2 may have made
/// behind its back: in SAX mode, an entity declaration makes it build one
/// "for expat compatibility" (`ctxt->myDoc`, with a fake DTD holding the
/// entity), which `xmlFreeParserCtxt` leaves alone — leaked at every
/// document declaring an entity until this (found by the xml-plist fuzz
/// target's leak check).
/// The corresponding C functions are `xmlFreeDoc` and `xmlFreeParserCtxt`.
func freeParserContext(_ context: xmlParserCtxtPtr) {
    if let document = context.pointee.myDoc {
        context.pointee.myDoc = nil
        xmlFreeDoc(document)
    }
    xmlFreeParserCtxt(context)
}
