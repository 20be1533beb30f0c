import CLibXML2

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
