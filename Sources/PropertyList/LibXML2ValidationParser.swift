import CLibXML2

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
            freeParserContext(context)
        }
        _ = xmlCtxtUseOptions(context, options.rawValue)
        let status = withExtendedLifetime(sink) { xmlParseDocument(context) }
        return status == 0 && context.pointee.wellFormed != 0 && context.pointee.errNo != Int32(XML_ERR_USER_STOP.rawValue)
    }
}
