import CLibXML2

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
