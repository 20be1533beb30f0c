/// Receives what `XMLEventParser` reads, in document order.
public protocol XMLEventHandler: AnyObject {
    /// An element's start tag. An error thrown here stops the parse and is
    /// what `XMLEventParser.parse(_:handler:)` throws.
    func startElement(_ element: XMLElementStart) throws(PropertyListError)
    /// An element's end tag (or the end of an empty element).
    func endElement() throws(PropertyListError)
    /// A run of text or CDATA, UTF-8, valid only during the call. One text
    /// node may come in several runs; white space between elements comes too.
    func text(_ utf8: UnsafeBufferPointer<UInt8>)
}

/// An element's start tag as `XMLEventHandler.startElement(_:)` sees it;
/// it points into the parser and is valid only during that call.
public struct XMLElementStart {
    private let localNameBytes: UnsafePointer<UInt8>
    private let prefixBytes: UnsafePointer<UInt8>?
    /// libxml2's SAX2 attribute array: five pointers per attribute (local
    /// name, prefix, namespace, value start, value end).
    private let attributes: UnsafeMutablePointer<UnsafePointer<UInt8>?>?
    private let attributeCount: Int
    /// libxml2's SAX2 namespace array: two pointers per declaration (prefix, URI).
    private let namespaces: UnsafeMutablePointer<UnsafePointer<UInt8>?>?
    private let namespaceCount: Int
    /// The 1-based line the start tag ends on.
    public let line: Int

    init(
        localName: UnsafePointer<UInt8>, prefix: UnsafePointer<UInt8>?, attributes: UnsafeMutablePointer<UnsafePointer<UInt8>?>?,
        attributeCount: Int, namespaces: UnsafeMutablePointer<UnsafePointer<UInt8>?>? = nil, namespaceCount: Int = 0, line: Int
    ) {
        localNameBytes = localName
        prefixBytes = prefix
        self.attributes = attributes
        self.attributeCount = attributes == nil ? 0 : attributeCount
        self.namespaces = namespaces
        self.namespaceCount = namespaces == nil ? 0 : namespaceCount
        self.line = line
    }

    /// The local name (without any namespace prefix).
    public var localName: String { String(cString: localNameBytes) }

    /// True when the local name is `name`; allocates nothing.
    public func localNameIs(_ name: StaticString) -> Bool { xmlNamesEqual(localNameBytes, name) }

    /// The value of the attribute with qualified name `qualifiedName`
    /// (`type`, or with its prefix, `xml:lang`), or nil when there is none.
    public func attribute(_ qualifiedName: StaticString) -> String? {
        attributeValue(qualifiedName).map { String(decoding: $0, as: UTF8.self) }
    }

    /// True when the element has an attribute with qualified name `qualifiedName`; allocates nothing.
    public func hasAttribute(_ qualifiedName: StaticString) -> Bool { attributeValue(qualifiedName) != nil }

    /// The namespace prefix, or nil.
    var prefix: String? { prefixBytes.map { String(cString: $0) } }

    /// The local name as libxml2 interned it in the parser's dictionary, to
    /// compare by pointer with `XMLEventSink.intern(_:)`; valid during the call.
    var internedLocalName: UnsafePointer<UInt8> { localNameBytes }

    /// True when the start tag names its element with a namespace prefix.
    var hasPrefix: Bool { prefixBytes != nil }

    /// The name as written in the start tag: `prefix:local`, or the local name.
    var qualifiedName: String { prefix.map { "\($0):\(localName)" } ?? localName }

    /// Every attribute written in the start tag, in order: local name, prefix and value.
    var allAttributes: [(localName: String, prefix: String?, value: String)] {
        guard let attributes else { return [] }
        return (0..<attributeCount).compactMap { index in
            // Five pointers per attribute, `attributeCount` of them: libxml2's layout.
            let entry = attributes + index * 5
            guard let local = entry[0], let start = entry[3], let end = entry[4] else { return nil }
            return (
                String(cString: local), entry[1].map { String(cString: $0) },
                String(decoding: UnsafeBufferPointer(start: start, count: end - start), as: UTF8.self)
            )
        }
    }

    /// Every namespace declaration in the start tag, in order: prefix (nil
    /// for `xmlns`) and URI.
    var namespaceDeclarations: [(prefix: String?, uri: String)] {
        guard let namespaces else { return [] }
        return (0..<namespaceCount).map { index in
            // Two pointers per declaration, `namespaceCount` of them: libxml2's layout.
            (namespaces[2 * index].map { String(cString: $0) }, namespaces[2 * index + 1].map { String(cString: $0) } ?? "")
        }
    }

    private func attributeValue(_ qualifiedName: StaticString) -> UnsafeBufferPointer<UInt8>? {
        guard let attributes else { return nil }
        let wanted = UnsafeBufferPointer(start: qualifiedName.utf8Start, count: qualifiedName.utf8CodeUnitCount)
        for index in 0..<attributeCount {
            // Five pointers per attribute, `attributeCount` of them: libxml2's layout.
            let entry = attributes + index * 5
            guard let local = entry[0], let start = entry[3], let end = entry[4],
                Self.qualifiedName(prefix: entry[1], local: local, equals: wanted)
            else { continue }
            return UnsafeBufferPointer(start: start, count: end - start)
        }
        return nil
    }

    private static func qualifiedName(
        prefix: UnsafePointer<UInt8>?, local: UnsafePointer<UInt8>,
        equals wanted: UnsafeBufferPointer<UInt8>
    ) -> Bool {
        var position = 0
        if let prefix {
            var byte = prefix
            while byte.pointee != 0 {
                guard position < wanted.count, wanted[position] == byte.pointee else { return false }
                position += 1; byte += 1
            }
            guard position < wanted.count, wanted[position] == UInt8(ascii: ":") else { return false }
            position += 1
        }
        var byte = local
        while byte.pointee != 0 {
            guard position < wanted.count, wanted[position] == byte.pointee else { return false }
            position += 1; byte += 1
        }
        return position == wanted.count
    }
}

/// A push reader of any XML document — libxml2's SAX2 parser, building no
/// tree — for callers that read other XML formats and keep little of them
/// (the UniformTypes module reads freedesktop shared-mime-info with it). It
/// does less work per node than `XMLStreamReader`.
///
/// It reads with the same untrusted-input options as the property-list
/// reader: no network, no DTD loading, no entity substitution, libxml2's own
/// depth and size limits; a document declaring entities is refused.
/// Comments and processing instructions are not reported.
public enum XMLEventParser {
    /// Reads all of `bytes` (not copied by the caller; libxml2 copies them
    /// into its input buffer), sending elements and text to `handler`.
    ///
    /// - Throws: what `handler` throws; else `PropertyListError` with code
    ///   `.malformedXML` with the line and column libxml2 reported when the
    ///   document is not well-formed or declares entities, or
    ///   `.limitExceeded(.inputSize)` when it is larger than libxml2 accepts (2 GiB).
    public static func parse(_ bytes: UnsafeRawBufferPointer, handler: some XMLEventHandler) throws(PropertyListError) {
        try parse(bytes, options: .untrusted, handler: handler)
    }

    /// Reads `bytes` with `options`, as `parse(_:handler:)`: for bytes an
    /// `XMLParserInput` prepared, with the options it gives (a transcoded
    /// input's declared encoding is ignored).
    static func parse(_ bytes: UnsafeRawBufferPointer, options: XMLParseOptions, handler: some XMLEventHandler) throws(PropertyListError) {
        guard bytes.count <= Int(Int32.max) else {
            throw PropertyListError(.limitExceeded(.inputSize), at: .none, "the XML input is larger than 2 GiB")
        }
        let sink = XMLEventSink(handler: handler)
        if parseXMLEvents(bytes, options: options, into: sink) { return }
        if let thrown = sink.thrown { throw thrown }
        if let error = sink.diagnostics.firstError {
            throw PropertyListError(.malformedXML, at: .lineColumn(line: error.line, column: error.column), error.message)
        }
        let position = sink.parserPosition()
        throw PropertyListError(.malformedXML, at: .lineColumn(line: position.line, column: position.column), "the XML is not well-formed")
    }
}
