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
/// property-list reader drives it (a push parser given the first 4 bytes,
/// then 64 KB pieces; the same untrusted-input options), with callbacks
/// that only count elements and text bytes. Nothing is built. This is the
/// floor for a property-list reader on libxml2's SAX2 parser, which is what
/// ICTKit's reader is since 2026-11-25.
///
/// Returns a checksum of what it saw, or nil when libxml2 reports an error.
func bareXMLSAX2Pass(_ bytes: UnsafeRawBufferPointer) -> Int? {
    guard let base = bytes.baseAddress?.assumingMemoryBound(to: CChar.self), bytes.count <= Int(Int32.max) else { return nil }
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
    let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_COMPACT.rawValue | XML_PARSE_BIG_LINES.rawValue | XML_PARSE_HUGE.rawValue)
    return withUnsafeMutablePointer(to: &checksum) { counter -> Int? in
        let start = bytes.count >= 4 ? 4 : 0
        guard let context = xmlCreatePushParserCtxt(&handler, counter, start == 0 ? nil : base, Int32(start), nil) else { return nil }
        defer { xmlFreeParserCtxt(context) }
        _ = xmlCtxtUseOptions(context, options)
        var offset = start
        while offset < bytes.count {
            let size = min(65536, bytes.count - offset)
            guard xmlParseChunk(context, base + offset, Int32(size), 0) == 0 else { return nil }
            offset += size
        }
        guard xmlParseChunk(context, nil, 0, 1) == 0, context.pointee.wellFormed != 0 else { return nil }
        return counter.pointee
    }
}
