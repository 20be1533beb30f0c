/// A forward-only reader of any XML document, one node at a time — the
/// module's small public door to libxml2 for callers that read other XML
/// formats (the UniformTypes module reads freedesktop shared-mime-info with
/// it), so libxml2 stays imported by this module alone.
///
/// It reads with the same untrusted-input options as the property-list
/// reader: no network, no DTD loading, no entity substitution, libxml2's own
/// depth and size limits. Only elements and text are reported; comments,
/// processing instructions and white space between elements are skipped. An
/// empty element (`<glob/>`) is reported as a start followed by an end.
///
/// ```swift
/// var reader = try XMLStreamReader(bytes: buffer)
/// while let node = try reader.next() {
///     if node == .startElement, reader.localNameIs("glob") { print(reader.attribute("pattern") ?? "") }
/// }
/// ```
public struct XMLStreamReader: ~Copyable {
    /// What the reader stopped on.
    public enum Node: Sendable, Hashable {
        /// An element's start tag; `localName` and `attribute(_:)` describe it.
        case startElement
        /// An element's end tag (or the end of an empty element).
        case endElement
        /// Text or CDATA inside an element; `text` holds it.
        case text
    }

    private let reader: XMLTextReader
    private var pendingEndOfEmptyElement = false
    private var current: Node?

    /// Opens a reader over `bytes`, which are not copied and must outlive the reader.
    ///
    /// - Throws: `PropertyListError` with code `.limitExceeded(.inputSize)`
    ///   when the input is larger than libxml2 accepts (2 GiB), or
    ///   `.malformedXML` when libxml2 cannot start.
    public init(bytes: UnsafeRawBufferPointer) throws(PropertyListError) {
        guard bytes.count <= Int(Int32.max) else {
            throw PropertyListError(.limitExceeded(.inputSize), at: .none, "the XML input is larger than 2 GiB")
        }
        guard let opened = XMLTextReader(bytes: bytes, options: .untrusted) else {
            throw PropertyListError(.malformedXML, at: .none, "libxml2 could not start reading the XML input")
        }
        reader = opened
    }

    /// Moves to the next element start, element end or text node.
    ///
    /// - Returns: the node's kind, or nil at the end of the document.
    /// - Throws: `PropertyListError` with code `.malformedXML` with the line
    ///   and column libxml2 reported when the document is not well-formed.
    public mutating func next() throws(PropertyListError) -> Node? {
        if pendingEndOfEmptyElement {
            pendingEndOfEmptyElement = false
            current = .endElement
            return .endElement
        }
        while true {
            let status = reader.read()
            if status == 0 { current = nil; return nil }
            if status < 0 { throw malformed() }
            switch XMLNodeType(rawValue: reader.nodeType()) {
            case .element:
                pendingEndOfEmptyElement = reader.isEmptyElement()
                current = .startElement
                return .startElement
            case .endElement:
                current = .endElement
                return .endElement
            case .text, .cdata:
                current = .text
                return .text
            default:
                continue
            }
        }
    }

    /// The current element's local name (without any namespace prefix).
    public var localName: String {
        reader.localName().map { String(cString: $0) } ?? ""
    }

    /// True when the current element's local name is `name`; allocates nothing.
    public func localNameIs(_ name: StaticString) -> Bool {
        guard let local = reader.localName() else { return false }
        return xmlNamesEqual(local, name)
    }

    /// The value of the current start element's attribute named `qualifiedName`
    /// (`type`, or with its prefix, `xml:lang`), or nil when it has none.
    public func attribute(_ qualifiedName: String) -> String? {
        guard current == .startElement else { return nil }
        return reader.attribute(qualifiedName)
    }

    /// The current text node's content; empty on other nodes.
    public var text: String {
        guard current == .text, let value = reader.value() else { return "" }
        return String(decoding: value, as: UTF8.self)
    }

    /// The 1-based line of the current node, when libxml2 knows it.
    public var line: Int? { reader.nodeLine() }

    private func malformed() -> PropertyListError {
        if let error = reader.diagnostics.firstError {
            return PropertyListError(.malformedXML, at: .lineColumn(line: error.line, column: error.column), error.message)
        }
        let position = reader.parserPosition()
        return PropertyListError(.malformedXML, at: .lineColumn(line: position.line, column: position.column), "the XML is not well-formed")
    }
}
