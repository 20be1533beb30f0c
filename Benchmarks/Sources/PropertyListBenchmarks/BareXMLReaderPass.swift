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
