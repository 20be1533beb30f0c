/// Checks the events of one SAX2 parse against a DTD, keeping only the open
/// elements, and finds what libxml2's tree validation (`xmlValidateDtd`)
/// finds, with the same messages, in the same order: an element's own
/// problems (declaration, content, required attributes, attributes,
/// namespace declarations) before those of its children, each on the line
/// of the element's start tag.
///
/// An element's content is judged when it ends, so problems are ranked by
/// the element they belong to and at most `limit` of the first are kept.
/// IDs are checked for repeats; IDREFs are not checked against the IDs.
final class XMLDTDStreamValidator: XMLValidationEventHandler {
    /// Where the parse is; set once the sink that calls this exists.
    weak var sink: XMLValidationSink?
    private let document: XMLValidationDocument
    /// Receives what libxml2's checks report, emptied after each check.
    private let libxml2Problems: XMLDiagnosticCollector
    private(set) var findings: RankedFindings
    /// The root element's local name and line, once seen.
    private(set) var root: (name: String, line: Int)?
    private(set) var declaresEntities = false
    private var openElements: [OpenElement] = []
    private var elementCount = 0
    private var rulesByName: [String: ElementRules] = [:]

    init(document: XMLValidationDocument, libxml2Problems: XMLDiagnosticCollector, limit: Int) {
        self.document = document
        self.libxml2Problems = libxml2Problems
        findings = RankedFindings(limit: limit)
    }

    func startElement(_ element: XMLElementStart) {
        let localName = element.localName
        let prefix = element.prefix
        let qualifiedName = prefix.map { "\($0):\(localName)" } ?? localName
        if root == nil { root = (localName, element.line) }
        if !openElements.isEmpty { openElements[openElements.count - 1].addChild(.element(prefix: prefix, localName: localName)) }
        checkAsChild(qualifiedName: qualifiedName, localName: localName)

        let index = elementCount
        elementCount += 1
        let rules = rules(qualifiedName: qualifiedName, localName: localName, prefix: prefix)
        var opened = OpenElement(index: index, line: element.line, localName: localName, rules: rules)
        if rules.declaration == nil || rules.kind == .undefined {
            report("No declaration for element \(localName)", element: index, line: element.line, phase: .declaration)
        } else if rules.kind == .elements, let declaration = rules.declaration {
            opened.run = XMLContentModelRun(declaration, context: document)
            placeLibXML2Problems(element: index, line: element.line, phase: .content)
        }
        openElements.append(opened)

        let attributes = element.allAttributes
        let namespaces = element.namespaceDeclarations
        if rules.declaration != nil, rules.kind != .undefined {
            checkRequiredAttributes(
                rules.requirements, of: opened, attributes: attributes, namespaces: namespaces,
                elementPrefix: prefix)
        }
        for attribute in attributes {
            document.validateAttribute(of: localName, localName: attribute.localName, prefix: attribute.prefix, value: attribute.value)
            placeLibXML2Problems(element: index, line: element.line, phase: .attributes)
        }
        for namespace in namespaces {
            document.validateNamespace(of: localName, elementPrefix: prefix, prefix: namespace.prefix, uri: namespace.uri)
            placeLibXML2Problems(element: index, line: element.line, phase: .namespaces)
        }
    }

    func endElement() {
        guard var element = openElements.popLast() else { return }
        let children = element.finishChildren()
        let name = element.localName
        switch element.rules.kind {
        case .empty where element.hasChildren:
            report("Element \(name) was declared EMPTY this one has content", of: element)
        case .elements:
            if sink?.isStandalone() == true, element.hasBlankTextNode {
                report("standalone: \(name) declared in the external subset contains white spaces nodes", of: element)
            }
            if let run = element.run, let declaration = element.rules.declaration, !(run.finish() && !element.hasTextOrCDATA) {
                report(
                    "Element \(declaration.name) content does not follow the DTD, expecting "
                        + "\(element.rules.contentModelDescription), got \(children)", of: element)
            }
        default:
            break
        }
    }

    func text(_ utf8: UnsafeBufferPointer<UInt8>) {
        guard !openElements.isEmpty else { return }
        openElements[openElements.count - 1].addText(isBlank: utf8.allSatisfy(Self.isBlank))
    }

    func cdata() {
        guard !openElements.isEmpty else { return }
        openElements[openElements.count - 1].addCDATA()
    }

    func commentOrInstruction() {
        guard !openElements.isEmpty else { return }
        openElements[openElements.count - 1].addChild(.other)
    }

    func entityDeclared() { declaresEntities = true }

    /// libxml2's `IS_BLANK_CH`: space, tab, line feed, carriage return.
    private static func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

    /// Checks a new element against the content of the element holding it,
    /// where that content is text only or a list of names.
    private func checkAsChild(qualifiedName: String, localName: String) {
        guard let parentIndex = openElements.indices.last else { return }
        let parent = openElements[parentIndex]
        switch parent.rules.kind {
        case .text where !parent.reportedNonText:
            openElements[parentIndex].reportedNonText = true
            report("Element \(parent.localName) was declared #PCDATA but contains non text nodes", of: parent)
        case .mixed:
            if parent.rules.declaration?.listsChild(qualifiedName: qualifiedName, localName: localName) == false {
                report("Element \(localName) is not declared in \(parent.localName) list of possible children", of: parent)
            }
        case .elements:
            parent.run?.push(qualifiedName)
        default:
            break
        }
    }

    /// libxml2's "VC: Required Attribute", and the `#FIXED` value of namespace declarations.
    private func checkRequiredAttributes(
        _ requirements: [XMLAttributeRequirement], of element: OpenElement,
        attributes: [(localName: String, prefix: String?, value: String)],
        namespaces: [(prefix: String?, uri: String)], elementPrefix: String?
    ) {
        let name = element.localName
        for requirement in requirements {
            let declaredNamespace: (prefix: String?, uri: String)?
            switch (requirement.prefix, requirement.name) {
            case (nil, "xmlns"): declaredNamespace = namespaces.first { $0.prefix == nil }
            case ("xmlns", let prefix): declaredNamespace = namespaces.first { $0.prefix == prefix }
            default:
                guard requirement.isRequired else { continue }
                // A name match with another prefix is only a libxml2 warning.
                let present = attributes.contains { $0.localName == requirement.name }
                if !present {
                    let attribute = requirement.prefix.map { "\($0):\(requirement.name)" } ?? requirement.name
                    report("Element \(name) does not carry attribute \(attribute)", of: element, phase: .requiredAttributes)
                }
                continue
            }
            if requirement.isRequired, declaredNamespace == nil {
                let attribute = requirement.prefix.map { "\($0):\(requirement.name)" } ?? requirement.name
                report("Element \(name) does not carry attribute \(attribute)", of: element, phase: .requiredAttributes)
            } else if !requirement.isRequired, let declaredNamespace, declaredNamespace.uri != requirement.fixedValue {
                let which = declaredNamespace.prefix.map { "for \($0)" } ?? "for default namespace"
                report("Element \(name) namespace name \(which) does not match the DTD", of: element, phase: .requiredAttributes)
            }
        }
    }

    private func rules(qualifiedName: String, localName: String, prefix: String?) -> ElementRules {
        if let known = rulesByName[qualifiedName] { return known }
        let declaration = document.declaration(localName: localName, prefix: prefix)
        let kind = declaration?.contentKind ?? .undefined
        let rules = ElementRules(
            declaration: declaration, kind: kind,
            contentModelDescription: kind == .elements ? declaration?.contentModelDescription() ?? "" : "",
            requirements: declaration?.attributeRequirements() ?? [])
        rulesByName[qualifiedName] = rules
        return rules
    }

    private func report(_ message: String, of element: OpenElement, phase: Phase = .content) {
        report(message, element: element.index, line: element.line, phase: phase)
    }

    private func report(_ message: String, element: Int, line: Int, phase: Phase) {
        findings.insert(
            PropertyListError(.malformedXML, at: .lineColumn(line: max(line, 1), column: 1), message),
            element: element, phase: phase.rawValue)
    }

    /// Files what libxml2 reported during the last check under `element`.
    private func placeLibXML2Problems(element: Int, line: Int, phase: Phase) {
        for diagnostic in libxml2Problems.takeDiagnostics() where diagnostic.isError {
            report(diagnostic.message, element: element, line: line, phase: phase)
        }
    }
}

/// The order libxml2's tree validation checks one element in.
private enum Phase: Int {
    case declaration, content, requiredAttributes, attributes, namespaces
}

/// What the DTD says of elements of one name, looked up once.
private struct ElementRules {
    var declaration: XMLElementDeclaration?
    var kind: XMLElementContentKind
    var contentModelDescription: String
    var requirements: [XMLAttributeRequirement]
}

/// A child node as libxml2's tree would hold it.
private enum ChildNode {
    case element(prefix: String?, localName: String)
    case text(isBlank: Bool)
    case cdata
    /// A comment or processing instruction.
    case other
}

/// An element whose end has not been read yet, and what its children were.
private struct OpenElement {
    let index: Int
    let line: Int
    let localName: String
    let rules: ElementRules
    var run: XMLContentModelRun?
    var hasChildren = false
    var hasTextOrCDATA = false
    var hasBlankTextNode = false
    var reportedNonText = false
    /// Consecutive text runs, or CDATA sections, make one node, as in a tree.
    private var openText: ChildNode?
    private var childList: ChildList?

    init(index: Int, line: Int, localName: String, rules: ElementRules) {
        self.index = index
        self.line = line
        self.localName = localName
        self.rules = rules
        childList = rules.kind == .elements ? ChildList() : nil
    }

    mutating func addText(isBlank: Bool) {
        if case .text(let wasBlank) = openText {
            openText = .text(isBlank: wasBlank && isBlank)
        } else {
            closeText()
            openText = .text(isBlank: isBlank)
        }
    }

    mutating func addCDATA() {
        if case .cdata = openText { return }
        closeText()
        openText = .cdata
    }

    mutating func addChild(_ node: ChildNode) {
        closeText()
        record(node)
    }

    /// Ends the children; returns them as libxml2 lists them in messages.
    mutating func finishChildren() -> String {
        closeText()
        return childList?.finish() ?? ""
    }

    private mutating func closeText() {
        guard let text = openText else { return }
        openText = nil
        record(text)
    }

    private mutating func record(_ node: ChildNode) {
        hasChildren = true
        switch node {
        case .text(isBlank: true): hasBlankTextNode = true
        case .text, .cdata: hasTextOrCDATA = true
        default: break
        }
        childList?.append(node)
    }
}

/// The children of an element written as libxml2's `xmlSnprintfElements`
/// writes them into its 5,000-byte buffer: `(a b CDATA )`, cut short with
/// ` ...`. A separator follows an entry when any node follows it, so each
/// node is written once the next one is known.
private struct ChildList {
    private static let size = 5000
    private var bytes: [UInt8] = Array("(".utf8)
    private var isCut = false
    private var waiting: ChildNode?

    mutating func append(_ node: ChildNode) {
        if let waiting { write(waiting, followed: true) }
        waiting = node
    }

    mutating func finish() -> String {
        if let waiting { write(waiting, followed: false) }
        waiting = nil
        if !isCut { bytes.append(UInt8(ascii: ")")) }
        return String(decoding: bytes, as: UTF8.self)
    }

    private mutating func write(_ node: ChildNode, followed: Bool) {
        guard !isCut else { return }
        let room = Self.size - bytes.count
        guard room >= 50 else { return cut() }
        switch node {
        case .element(let prefix, let localName):
            if let prefix {
                guard room >= prefix.utf8.count + 10 else { return cut() }
                bytes += prefix.utf8
                bytes.append(UInt8(ascii: ":"))
            }
            // libxml2 measures the room before writing the prefix.
            guard room >= localName.utf8.count + 10 else { return cut() }
            bytes += localName.utf8
        case .text(isBlank: false), .cdata:
            bytes += "CDATA".utf8
        case .text, .other:
            return
        }
        if followed { bytes.append(UInt8(ascii: " ")) }
    }

    private mutating func cut() {
        isCut = true
        if Self.size - bytes.count > 4, bytes.last != UInt8(ascii: ".") { bytes += " ...".utf8 }
    }
}

/// At most `limit` findings, the first in libxml2's order: by element (in
/// document order), then by the phase of the check, then as reported.
struct RankedFindings {
    private let limit: Int
    private var entries: [(key: (element: Int, phase: Int, sequence: Int), finding: PropertyListError)] = []
    private var sequence = 0

    init(limit: Int) { self.limit = limit }

    var all: [PropertyListError] { entries.map(\.finding) }

    mutating func insert(_ finding: PropertyListError, element: Int, phase: Int) {
        sequence += 1
        let key = (element: element, phase: phase, sequence: sequence)
        if entries.count == limit, let last = entries.last, !(key < last.key) { return }
        var position = entries.endIndex
        while position > entries.startIndex, entries[position - 1].key > key { position -= 1 }
        entries.insert((key, finding), at: position)
        if entries.count > limit { entries.removeLast() }
    }
}
