/// Checks a managed object model's consistency, as Core Data would refuse or Xcode would warn: relationships whose
/// destination entity is missing, inverses that are missing or do not point back, duplicate entity and property
/// names, superentities that are missing or inherit in a cycle, attributes of undefined type that are saved, and
/// properties hiding an inherited one.
///
/// Each finding has its place: the entity and property, and the line of the model's XML when it was read from one.
public struct ModelValidator: Sendable {
    /// Makes a validator.
    public init() {}

    /// One problem found in a model.
    public struct Finding: Hashable, Sendable, CustomStringConvertible {
        /// How serious a finding is.
        public enum Severity: String, Hashable, Sendable {
            /// Core Data refuses the model (or a store made with it cannot be opened).
            case error
            /// The model loads, but something is likely wrong.
            case warning
        }

        /// How serious it is.
        public var severity: Severity
        /// The entity concerned, and the property when there is one.
        public var entity: String
        /// The property concerned, or nil for the entity as a whole.
        public var property: String?
        /// The line of the model's XML, when the model was read from one.
        public var line: Int?
        /// What is wrong, in words.
        public var message: String

        /// Makes a finding.
        public init(severity: Severity, entity: String, property: String? = nil, line: Int? = nil, message: String) {
            self.severity = severity
            self.entity = entity
            self.property = property
            self.line = line
            self.message = message
        }

        /// The place in words: `entity Note, property title` (and `line 12, ` first when known).
        public var placeDescription: String {
            var text = "entity \(entity)"
            if let property { text += ", property \(property)" }
            if let line { text = "line \(line), " + text }
            return text
        }

        /// `line 12, entity Note, property title: error: message`.
        public var description: String { "\(placeDescription): \(severity.rawValue): \(message)" }
    }

    /// The findings for `model`, in the model's order (entity by entity, each property in order); `locations`
    /// gives them lines.
    public func validate(_ model: ManagedObjectModel, locations: ModelLocations = ModelLocations()) -> [Finding] {
        var findings: [Finding] = []
        var firstIndex: [String: Int] = [:]
        for (index, entity) in model.entities.enumerated() where firstIndex[entity.name] == nil { firstIndex[entity.name] = index }
        let cycle = Self.firstInheritanceCycle(in: model)
        for (index, entity) in model.entities.enumerated() {
            func add(_ severity: Finding.Severity, _ property: String?, _ message: String, line: Int? = nil) {
                let line = line ?? locations.line(ofEntityAt: index)
                findings.append(Finding(severity: severity, entity: entity.name, property: property, line: line, message: message))
            }
            if let first = firstIndex[entity.name], first != index {
                let firstLine = locations.line(ofEntityAt: first).map { " (line \($0))" } ?? ""
                add(.error, nil, "a second entity named \(entity.name); the first is entity \(first + 1)\(firstLine)")
            }
            if let superName = entity.superentityName {
                if model.entity(named: superName) == nil {
                    add(.error, nil, "its superentity \(superName) is not in the model")
                } else if let cycle, cycle.index == index {
                    add(.error, nil, "it inherits from itself: \(cycle.chain.joined(separator: " → "))")
                }
            }
            let inherited = cycle == nil ? Self.inheritedPropertyOwners(model, entity) : [:]
            var seen: Set<String> = []
            for (position, attribute) in entity.attributes.enumerated() {
                let line = locations.line(ofAttributeAt: position, entityAt: index)
                if !seen.insert(attribute.name).inserted { add(.error, attribute.name, "a second property named \(attribute.name)", line: line) }
                if attribute.type == .undefined && !attribute.isTransient {
                    add(.error, attribute.name, "attribute \(attribute.name) has an undefined type but is not transient", line: line)
                }
                if let owner = inherited[attribute.name] {
                    add(.error, attribute.name, "attribute \(attribute.name) hides the property of the same name of its superentity \(owner)", line: line)
                }
            }
            for (position, relationship) in entity.relationships.enumerated() {
                let line = locations.line(ofRelationshipAt: position, entityAt: index)
                if !seen.insert(relationship.name).inserted {
                    add(.error, relationship.name, "a second property named \(relationship.name)", line: line)
                }
                if let owner = inherited[relationship.name] {
                    add(
                        .error, relationship.name, "relationship \(relationship.name) hides the property of the same name of its superentity \(owner)",
                        line: line)
                }
                checkRelationship(relationship, of: entity, in: model) { add($0, relationship.name, $1, line: line) }
            }
            for fetchIndex in entity.fetchIndexes {
                let names = Set(model.allAttributes(of: entity.name).map(\.name) + model.allRelationships(of: entity.name).map(\.name))
                for element in fetchIndex.elements where !names.contains(element.property) {
                    add(.error, nil, "fetch index \(fetchIndex.name) names \(element.property), which is not a property of \(entity.name)")
                }
            }
        }
        for (name, members) in model.configurations.sorted(by: { $0.key < $1.key }) {
            for member in members where model.entity(named: member) == nil {
                findings.append(Finding(severity: .error, entity: member, message: "configuration \(name) names entity \(member), which is not in the model"))
            }
        }
        return findings
    }

    private func checkRelationship(
        _ relationship: RelationshipDescription, of entity: EntityDescription, in model: ManagedObjectModel,
        add: (Finding.Severity, String) -> Void
    ) {
        let name = relationship.name
        guard let destination = model.entity(named: relationship.destinationEntityName) else {
            add(.error, "the destination entity \(relationship.destinationEntityName) of relationship \(name) is not in the model")
            return
        }
        if relationship.isToMany == (relationship.maxCount == 1) {
            add(.warning, "relationship \(name) is \(relationship.isToMany ? "to-many" : "to-one") but its maximum count is \(relationship.maxCount)")
        }
        if relationship.maxCount != 0 && relationship.minCount > relationship.maxCount {
            add(.error, "the minimum count \(relationship.minCount) of relationship \(name) is above its maximum \(relationship.maxCount)")
        }
        guard let inverseName = relationship.inverseName else {
            if !relationship.isTransient {
                add(.warning, "relationship \(name) has no inverse (Core Data warns: the object graph can become inconsistent)")
            }
            return
        }
        let candidates = model.allRelationships(of: destination.name)
        guard let inverse = candidates.last(where: { $0.name == inverseName }) else {
            add(.error, "the inverse \(destination.name).\(inverseName) of relationship \(name) is not a relationship of \(destination.name)")
            return
        }
        let ownNames = Set([entity.name] + model.superentities(of: entity.name).map(\.name))
        if !ownNames.contains(inverse.destinationEntityName) {
            add(
                .error,
                "the inverse \(destination.name).\(inverseName) of relationship \(name) leads to \(inverse.destinationEntityName), not back to \(entity.name)")
        } else if let back = inverse.inverseName, back != name {
            add(.error, "the inverse \(destination.name).\(inverseName) of relationship \(name) has \(back) as its own inverse, not \(name)")
        } else if inverse.inverseName == nil {
            add(.warning, "the inverse \(destination.name).\(inverseName) of relationship \(name) names no inverse back")
        }
    }

    /// The names of the properties the entity's superentities declare, with the nearest superentity declaring each.
    private static func inheritedPropertyOwners(_ model: ManagedObjectModel, _ entity: EntityDescription) -> [String: String] {
        var owners: [String: String] = [:]
        for superentity in model.superentities(of: entity.name).reversed() {
            for name in superentity.attributes.map(\.name) + superentity.relationships.map(\.name) { owners[name] = superentity.name }
        }
        return owners
    }

    /// The first entity (in the model's order) whose superentity chain comes back to itself, with the chain
    /// (`A → B → A`); nil when inheritance has no cycle. Never loops: each chain is walked at most as many steps as
    /// the model has entities.
    public static func firstInheritanceCycle(in model: ManagedObjectModel) -> (index: Int, chain: [String])? {
        var parents: [String: String] = [:]
        for entity in model.entities where parents[entity.name] == nil {
            if let superName = entity.superentityName { parents[entity.name] = superName }
        }
        for (index, entity) in model.entities.enumerated() {
            var chain = [entity.name]
            var current = entity.name
            for _ in 0...model.entities.count {
                guard let next = parents[current] else { break }
                chain.append(next)
                if next == entity.name { return (index, chain) }
                current = next
            }
        }
        return nil
    }
}
