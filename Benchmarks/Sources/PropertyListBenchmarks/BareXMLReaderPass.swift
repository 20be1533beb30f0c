import CBenchmarkLibXML2

/// One pass of libxml2's `xmlTextReader` over an XML document, doing only
/// what any reader built on it must: read every node, and look at its type,
/// its name and (for text) its value. Nothing is built. This is the floor
/// for an XML property-list reader on libxml2.
///
/// The parse options are the ones ICTKit's reader uses for untrusted input
/// (no network, compact text nodes, line numbers above 65535).
///
/// Returns a checksum of what it looked at, so no step can be optimised
/// away, or nil when libxml2 reports an error.
func bareXMLTextReaderPass(_ bytes: UnsafeRawBufferPointer) -> Int? {
    let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_COMPACT.rawValue | XML_PARSE_BIG_LINES.rawValue)
    guard let base = bytes.baseAddress,
        let reader = xmlReaderForMemory(base.assumingMemoryBound(to: CChar.self), Int32(bytes.count), nil, nil, options)
    else { return nil }
    defer { xmlFreeTextReader(reader) }
    var checksum = 0
    while true {
        let status = xmlTextReaderRead(reader)
        guard status == 1 else { return status == 0 ? checksum : nil }
        // Wrapping additions: only a checksum, its overflow is meaningless.
        checksum &+= Int(xmlTextReaderNodeType(reader))
        checksum &+= Int(xmlTextReaderIsEmptyElement(reader))
        if let name = xmlTextReaderConstName(reader) {
            checksum &+= Int(name.pointee)
        }
        if let value = xmlTextReaderConstValue(reader) {
            checksum &+= Int(xmlStrlen(value))
        }
    }
}

/// One pass of libxml2's SAX2 parser over an XML document, as ICTKit's XML
/// property-list reader drives it for a document it reads (its first try:
/// the pull parser reading the document from memory through a callback, a
/// few kilobytes at a time, with the same untrusted-input options; a
/// document the first try refuses is parsed again in pieces), with
/// callbacks that only count elements and text bytes. Nothing is built.
/// This is the floor for a property-list reader on libxml2's SAX2 parser.
/// (Until 2026-11-28 the reader, and this pass, gave libxml2's push parser
/// 64 KB pieces.)
///
/// Returns a checksum of what it saw, or nil when libxml2 reports an error.
func bareXMLSAX2Pass(_ bytes: UnsafeRawBufferPointer) -> Int? {
    guard let base = bytes.baseAddress, bytes.count <= Int(Int32.max) else { return nil }
    var handler = xmlSAXHandler()
    handler.initialized = XML_SAX2_MAGIC
    handler.startElementNs = { opaque, _, _, _, _, _, _, _, _ in
        opaque?.assumingMemoryBound(to: Int.self).pointee &+= 1
    }
    handler.endElementNs = { opaque, _, _, _ in
        opaque?.assumingMemoryBound(to: Int.self).pointee &+= 1
    }
    handler.characters = { opaque, _, count in
        opaque?.assumingMemoryBound(to: Int.self).pointee &+= Int(count)
    }
    var checksum = 0
    var input = (base: base, count: bytes.count, offset: 0)
    let read: xmlInputReadCallback = { context, buffer, length in
        guard let state = context?.assumingMemoryBound(to: (base: UnsafeRawPointer, count: Int, offset: Int).self), let buffer
        else { return -1 }
        let size = min(Int(length), state.pointee.count - state.pointee.offset)
        UnsafeMutableRawPointer(buffer).copyMemory(from: state.pointee.base + state.pointee.offset, byteCount: size)
        state.pointee.offset += size
        return Int32(size)
    }
    let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_COMPACT.rawValue | XML_PARSE_BIG_LINES.rawValue | XML_PARSE_HUGE.rawValue)
    return withUnsafeMutablePointer(to: &checksum) { counter -> Int? in
        withUnsafeMutablePointer(to: &input) { inputPointer -> Int? in
            guard let context = xmlCreateIOParserCtxt(&handler, counter, read, nil, inputPointer, XML_CHAR_ENCODING_NONE) else {
                return nil
            }
            defer { xmlFreeParserCtxt(context) }
            _ = xmlCtxtUseOptions(context, options)
            guard xmlParseDocument(context) == 0, context.pointee.wellFormed != 0 else { return nil }
            return counter.pointee
        }
    }
}
