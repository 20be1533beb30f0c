import OrderedCollections
import PropertyList

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ManagedObjectModel {
    /// The model as a property-list value with only JSON's kinds (strings, integers, Booleans, arrays,
    /// dictionaries): `{"entities": [{"name", "attributes": [...], "relationships": [...], ...}], "configurations",
    /// "versionIdentifiers"}`, as `Schemas/cli/model.schema.json` describes; a missing value's key is left out,
    /// version hashes are base64.
    public var jsonForm: PropertyListValue {
        var top: OrderedDictionary<String, PropertyListValue> = [:]
        top["entities"] = .array(entities.map(\.jsonForm))
        var configurationsForm: OrderedDictionary<String, PropertyListValue> = [:]
        for (name, members) in configurations.sorted(by: { $0.key < $1.key }) { configurationsForm[name] = .array(members.map(PropertyListValue.string)) }
        top["configurations"] = .dictionary(configurationsForm)
        top["versionIdentifiers"] = .array(versionIdentifiers.map(PropertyListValue.string))
        return .dictionary(top)
    }

    /// ``jsonForm`` as pretty-printed UTF-8 JSON, two spaces a level, with a final newline.
    public func jsonText() -> [UInt8] {
        // Only strings, integers, Booleans, arrays and dictionaries a few levels deep: nothing the writer refuses.
        var bytes = (try? JSONPropertyListWriter(prettyPrinted: true).encode(jsonForm)) ?? []
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    /// The model as an indented tree for people: each entity with its superentity, class and flags, then its
    /// attributes (type, optional, transient, default, transformer, external storage), relationships (destination,
    /// to-one or to-many with counts, ordered, inverse, delete rule), fetch indexes and uniqueness constraints; then
    /// the configurations.
    public func treeText() -> String {
        var lines = ["model: \(entities.count) \(entities.count == 1 ? "entity" : "entities")"]
        if !versionIdentifiers.isEmpty { lines.append("  version identifiers: \(versionIdentifiers.joined(separator: ", "))") }
        for entity in entities {
            var head = "  entity \(entity.name)"
            var notes: [String] = []
            if let superName = entity.superentityName { notes.append("inherits \(superName)") }
            if let className = entity.className, className != entity.name { notes.append("class \(className)") }
            if entity.isAbstract { notes.append("abstract") }
            if let modifier = entity.versionHashModifier { notes.append("hash modifier \(modifier)") }
            if let hash = entity.versionHash { notes.append("version hash \(Self.base64(hash))") }
            if !notes.isEmpty { head += " (" + notes.joined(separator: ", ") + ")" }
            lines.append(head)
            let children = subentities(of: entity.name).map(\.name)
            if !children.isEmpty { lines.append("    subentities: \(children.joined(separator: ", "))") }
            for attribute in entity.attributes {
                var parts = [attribute.type.modelName, attribute.isOptional ? "optional" : "required"]
                if attribute.isTransient { parts.append("transient") }
                if let value = attribute.defaultValue { parts.append("default \(Self.quoted(value))") }
                if let transformer = attribute.valueTransformerName { parts.append("transformer \(transformer)") }
                if attribute.allowsExternalBinaryDataStorage { parts.append("external storage") }
                lines.append("    attribute \(attribute.name): \(parts.joined(separator: ", "))")
            }
            for relationship in entity.relationships {
                var parts = [relationship.isToMany ? "to-many" : "to-one", relationship.isOptional ? "optional" : "required"]
                if relationship.isToMany && (relationship.minCount != 0 || relationship.maxCount != 0) {
                    parts.append("count \(relationship.minCount)…\(relationship.maxCount == 0 ? "" : String(relationship.maxCount))")
                }
                if relationship.isOrdered { parts.append("ordered") }
                if relationship.isTransient { parts.append("transient") }
                parts.append("inverse \(relationship.inverseName ?? "none")")
                parts.append("delete rule \(relationship.deleteRule.rawValue)")
                lines.append("    relationship \(relationship.name) → \(relationship.destinationEntityName): \(parts.joined(separator: ", "))")
            }
            for index in entity.fetchIndexes {
                let elements = index.elements.map { $0.property + ($0.ascending ? "" : " descending") }
                lines.append("    fetch index \(index.name): \(elements.joined(separator: ", "))")
            }
            for constraint in entity.uniquenessConstraints { lines.append("    unique: \(constraint.joined(separator: ", "))") }
        }
        for (name, members) in configurations.sorted(by: { $0.key < $1.key }) {
            lines.append("  configuration \(name): \(members.joined(separator: ", "))")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: result += "\\u{\(String(scalar.value, radix: 16))}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    static func base64(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }
}

extension EntityDescription {
    /// The entity's part of ``ManagedObjectModel/jsonForm``.
    var jsonForm: PropertyListValue {
        var form: OrderedDictionary<String, PropertyListValue> = ["name": .string(name)]
        if let className { form["className"] = .string(className) }
        if let superentityName { form["superentity"] = .string(superentityName) }
        form["abstract"] = .bool(isAbstract)
        form["attributes"] = .array(attributes.map(\.jsonForm))
        form["relationships"] = .array(relationships.map(\.jsonForm))
        form["fetchIndexes"] = .array(
            fetchIndexes.map { index in
                .dictionary([
                    "name": .string(index.name),
                    "elements": .array(index.elements.map { .dictionary(["property": .string($0.property), "ascending": .bool($0.ascending)]) }),
                ])
            })
        form["uniquenessConstraints"] = .array(uniquenessConstraints.map { .array($0.map(PropertyListValue.string)) })
        if let versionHashModifier { form["versionHashModifier"] = .string(versionHashModifier) }
        if let versionHash { form["versionHash"] = .string(ManagedObjectModel.base64(versionHash)) }
        return .dictionary(form)
    }
}

extension AttributeDescription {
    var jsonForm: PropertyListValue {
        var form: OrderedDictionary<String, PropertyListValue> = [
            "name": .string(name), "type": .string(type.modelName), "typeCode": .integer(PropertyListInteger(type.code)),
            "optional": .bool(isOptional), "transient": .bool(isTransient),
        ]
        if let defaultValue { form["defaultValue"] = .string(defaultValue) }
        if let valueTransformerName { form["valueTransformerName"] = .string(valueTransformerName) }
        form["allowsExternalBinaryDataStorage"] = .bool(allowsExternalBinaryDataStorage)
        if let versionHashModifier { form["versionHashModifier"] = .string(versionHashModifier) }
        return .dictionary(form)
    }
}

extension RelationshipDescription {
    var jsonForm: PropertyListValue {
        var form: OrderedDictionary<String, PropertyListValue> = ["name": .string(name), "destination": .string(destinationEntityName)]
        if let inverseName { form["inverse"] = .string(inverseName) }
        form["toMany"] = .bool(isToMany)
        form["ordered"] = .bool(isOrdered)
        form["optional"] = .bool(isOptional)
        form["transient"] = .bool(isTransient)
        form["minCount"] = .integer(PropertyListInteger(minCount))
        form["maxCount"] = .integer(PropertyListInteger(maxCount))
        form["deleteRule"] = .string(deleteRule.rawValue)
        return .dictionary(form)
    }
}
