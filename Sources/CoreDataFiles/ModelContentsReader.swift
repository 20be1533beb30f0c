import PropertyList

/// Reads an `.xcdatamodel`'s `contents` XML (Xcode 4 and later) into a model and the line of each entity and
/// property, with libxml2's SAX2 parser through `XMLEventParser` (no tree, no network, no entities).
///
/// The elements read: `model` (its `userDefinedModelVersionIdentifier`), `entity` (`name`, `representedClassName`,
/// `parentEntity`, `isAbstract`, `versionHashModifier`), `attribute` (`name`, `attributeType`, `optional`,
/// `transient`, `defaultValueString` or `defaultDateTimeInterval`, `valueTransformerName`,
/// `allowsExternalBinaryDataStorage`, `versionHashModifier`), `relationship` (`name`, `destinationEntity`,
/// `inverseName`, `toMany`, `ordered`, `optional`, `transient`, `minCount`, `maxCount`, `deletionRule`),
/// `fetchIndex` with its `fetchIndexElement`s (`property`, `order`), `uniquenessConstraints`, and `configuration`
/// with its `memberEntity`s. Others (layout `elements`, `userInfo`, fetch requests, fetched properties) are skipped.
final class ModelContentsHandler: XMLEventHandler {
    private let path: String?
    private var depth = 0
    /// The names of the open elements, outermost first.
    private var open: [String] = []
    private(set) var entities: [EntityDescription] = []
    private(set) var configurations: [String: [String]] = [:]
    private(set) var configurationOrder: [String] = []
    private(set) var versionIdentifiers: [String] = []
    private(set) var locations = ModelLocations()
    private var currentConfiguration: String?
    private var currentConstraint: [String]?
    private var sawModel = false

    init(path: String?) { self.path = path }

    private func fail(_ line: Int, _ message: String) -> PropertyListError {
        // Carried through the parser as a property-list error, turned back into a CoreDataError by `read`.
        PropertyListError(.malformedXML, at: .lineColumn(line: line, column: 0), "\u{1}" + message)
    }

    private static func flag(_ element: XMLElementStart, _ name: StaticString) -> Bool {
        element.attribute(name) == "YES"
    }

    func startElement(_ element: XMLElementStart) throws(PropertyListError) {
        let name = element.localName
        defer { open.append(name) }
        let line = element.line
        // The element's place: its parent, and whether it is inside an <entity> of the <model> (a fetch index
        // element under a <fetchIndex> elsewhere, say, is skipped, not added to the last entity).
        let inEntity = open.count >= 2 && open[1] == "entity"
        switch (open.count, open.last ?? "", name) {
        case (0, _, "model"):
            sawModel = true
            if let identifier = element.attribute("userDefinedModelVersionIdentifier"), !identifier.isEmpty {
                versionIdentifiers = [identifier]
            }
        case (0, _, _):
            throw fail(line, "the root element is <\(name)>, not <model>: not an .xcdatamodel's contents")
        case (1, "model", "entity"):
            guard let entityName = element.attribute("name"), !entityName.isEmpty else {
                throw fail(line, "an <entity> has no name")
            }
            entities.append(
                EntityDescription(
                    name: entityName, className: element.attribute("representedClassName"),
                    superentityName: element.attribute("parentEntity"), isAbstract: Self.flag(element, "isAbstract"),
                    versionHashModifier: element.attribute("versionHashModifier")))
            locations.entityLines.append(line)
            locations.attributeLines.append([])
            locations.relationshipLines.append([])
        case (1, "model", "configuration"):
            guard let configuration = element.attribute("name"), !configuration.isEmpty else {
                throw fail(line, "a <configuration> has no name")
            }
            currentConfiguration = configuration
            if configurations[configuration] == nil { configurationOrder.append(configuration) }
            configurations[configuration, default: []] += []
        case (2, "configuration", "memberEntity"):
            guard let member = element.attribute("name"), let currentConfiguration else {
                throw fail(line, "a <memberEntity> has no name")
            }
            configurations[currentConfiguration, default: []].append(member)
        case (2, "entity", "attribute"):
            try addAttribute(element, line: line)
        case (2, "entity", "relationship"):
            try addRelationship(element, line: line)
        case (2, "entity", "fetchIndex"):
            guard let indexName = element.attribute("name") else { throw fail(line, "a <fetchIndex> has no name") }
            entities[entities.count - 1].fetchIndexes.append(FetchIndexDescription(name: indexName, elements: []))
        case (3, "fetchIndex", "fetchIndexElement") where inEntity && !(entities.last?.fetchIndexes.isEmpty ?? true):
            guard let property = element.attribute("property") ?? element.attribute("expression") else {
                throw fail(line, "a <fetchIndexElement> names no property")
            }
            let order = element.attribute("order") ?? "ascending"
            guard order == "ascending" || order == "descending" else {
                throw fail(line, "a <fetchIndexElement>'s order is \"\(order)\", not ascending or descending")
            }
            let last = entities.count - 1
            entities[last].fetchIndexes[entities[last].fetchIndexes.count - 1].elements.append(
                FetchIndexDescription.Element(property: property, ascending: order == "ascending"))
        case (3, "uniquenessConstraints", "uniquenessConstraint") where inEntity:
            currentConstraint = []
        case (4, "uniquenessConstraint", "constraint") where inEntity && currentConstraint != nil:
            guard let value = element.attribute("value") else { throw fail(line, "a <constraint> has no value") }
            currentConstraint?.append(value)
        default:
            break
        }
    }

    private func addAttribute(_ element: XMLElementStart, line: Int) throws(PropertyListError) {
        guard let attributeName = element.attribute("name"), !attributeName.isEmpty else {
            throw fail(line, "an <attribute> of entity \(entities[entities.count - 1].name) has no name")
        }
        let entityName = entities[entities.count - 1].name
        // Xcode writes no attributeType for an undefined (transient) attribute.
        let typeName = element.attribute("attributeType") ?? "Undefined"
        guard let type = AttributeType(modelName: typeName) else {
            throw fail(line, "attribute \(entityName).\(attributeName) has an unknown type \"\(typeName)\"")
        }
        let defaultValue = element.attribute("defaultValueString") ?? element.attribute("defaultDateTimeInterval")
        entities[entities.count - 1].attributes.append(
            AttributeDescription(
                name: attributeName, type: type, isOptional: Self.flag(element, "optional"), isTransient: Self.flag(element, "transient"),
                defaultValue: defaultValue, valueTransformerName: element.attribute("valueTransformerName"),
                allowsExternalBinaryDataStorage: Self.flag(element, "allowsExternalBinaryDataStorage"),
                versionHashModifier: element.attribute("versionHashModifier")))
        locations.attributeLines[locations.attributeLines.count - 1].append(line)
    }

    private func addRelationship(_ element: XMLElementStart, line: Int) throws(PropertyListError) {
        let entityName = entities[entities.count - 1].name
        guard let relationshipName = element.attribute("name"), !relationshipName.isEmpty else {
            throw fail(line, "a <relationship> of entity \(entityName) has no name")
        }
        let place = "relationship \(entityName).\(relationshipName)"
        guard let destination = element.attribute("destinationEntity"), !destination.isEmpty else {
            throw fail(line, "\(place) has no destinationEntity")
        }
        let ruleName = element.attribute("deletionRule") ?? "Nullify"
        guard let rule = DeleteRule(rawValue: ruleName) else {
            throw fail(line, "\(place) has an unknown deletionRule \"\(ruleName)\"")
        }
        let isToMany = Self.flag(element, "toMany")
        func count(_ attribute: StaticString, _ label: String, default fallback: Int) throws(PropertyListError) -> Int {
            guard let text = element.attribute(attribute) else { return fallback }
            guard let value = Int(text), value >= 0 else { throw fail(line, "\(place) has a \(label) \"\(text)\" that is not a count") }
            return value
        }
        let minCount = try count("minCount", "minCount", default: 0)
        let maxCount = try count("maxCount", "maxCount", default: isToMany ? 0 : 1)
        entities[entities.count - 1].relationships.append(
            RelationshipDescription(
                name: relationshipName, destinationEntityName: destination, inverseName: element.attribute("inverseName"),
                isToMany: isToMany, isOrdered: Self.flag(element, "ordered"), isOptional: Self.flag(element, "optional"),
                isTransient: Self.flag(element, "transient"), minCount: minCount, maxCount: maxCount, deleteRule: rule))
        locations.relationshipLines[locations.relationshipLines.count - 1].append(line)
    }

    func endElement() throws(PropertyListError) {
        let name = open.removeLast()
        switch name {
        case "configuration": currentConfiguration = nil
        case "uniquenessConstraint":
            if let currentConstraint, !currentConstraint.isEmpty, !entities.isEmpty {
                entities[entities.count - 1].uniquenessConstraints.append(currentConstraint)
            }
            currentConstraint = nil
        default: break
        }
    }

    func text(_ utf8: UnsafeBufferPointer<UInt8>) {}

    /// The model read, once the parse has ended.
    func model() throws(CoreDataError) -> ManagedObjectModel {
        guard sawModel else { throw CoreDataError(pathText: path, place: .none, message: "the XML has no <model> element") }
        return ManagedObjectModel(entities: entities, configurations: configurations, versionIdentifiers: versionIdentifiers)
    }
}

/// Where each entity and property of a model read from XML is: the lines of their elements.
public struct ModelLocations: Hashable, Sendable {
    /// The line of each entity's `<entity>` element, by its index in ``ManagedObjectModel/entities``.
    public var entityLines: [Int] = []
    /// The line of each attribute's element, by entity index and attribute index.
    public var attributeLines: [[Int]] = []
    /// The line of each relationship's element, by entity index and relationship index.
    public var relationshipLines: [[Int]] = []

    /// No locations (a compiled model has no lines).
    public init() {}

    /// The line of the entity at `index`, or nil.
    public func line(ofEntityAt index: Int) -> Int? {
        entityLines.indices.contains(index) ? entityLines[index] : nil
    }

    /// The line of the attribute at `attribute` of the entity at `entity`, or nil.
    public func line(ofAttributeAt attribute: Int, entityAt entity: Int) -> Int? {
        guard attributeLines.indices.contains(entity), attributeLines[entity].indices.contains(attribute) else { return nil }
        return attributeLines[entity][attribute]
    }

    /// The line of the relationship at `relationship` of the entity at `entity`, or nil.
    public func line(ofRelationshipAt relationship: Int, entityAt entity: Int) -> Int? {
        guard relationshipLines.indices.contains(entity), relationshipLines[entity].indices.contains(relationship) else { return nil }
        return relationshipLines[entity][relationship]
    }
}

extension ModelContentsHandler {
    /// Parses `bytes` into a model and its locations.
    static func read(_ bytes: [UInt8], path: String?) throws(CoreDataError) -> (ManagedObjectModel, ModelLocations) {
        let handler = ModelContentsHandler(path: path)
        do throws(PropertyListError) {
            let result: Result<Void, PropertyListError> = bytes.withUnsafeBytes { buffer in
                Result { () throws(PropertyListError) in try XMLEventParser.parse(buffer, handler: handler) }
            }
            try result.get()
        } catch {
            var message = error.message
            if message.hasPrefix("\u{1}") {
                message.removeFirst()
            } else {
                message = "the XML is not well-formed: " + message
            }
            let place: CoreDataError.Place
            if case .lineColumn(let line, _) = error.location, line > 0 { place = .line(line) } else { place = .none }
            throw CoreDataError(pathText: path, place: place, message: message)
        }
        return (try handler.model(), handler.locations)
    }
}
