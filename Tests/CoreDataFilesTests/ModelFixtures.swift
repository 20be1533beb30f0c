import CoreDataFiles
import Foundation
import TestSupport

/// The model fixtures (Fixtures/models, SOURCES.md) and their independent reading by Python
/// (Fixtures/models/independent_reading.py: xml.etree for XML, plistlib for compiled models).
enum ModelFixtures {
    static func path(_ relative: String) -> String {
        Repository.path("Tests/CoreDataFilesTests/Fixtures/models/\(relative)")
    }

    /// The script's JSON for `arguments` (`xml CONTENTS`, `mom FILE`, `hashes PLIST VERSION`), paths relative to
    /// the fixtures.
    static func independentReading(_ kind: String, _ arguments: String...) throws -> [String: Any] {
        let output = try PythonScript.run(
            arguments: [path("independent_reading.py"), kind] + arguments.enumerated().map { $0.offset == 0 ? path($0.element) : $0.element })
        guard let object = try JSONSerialization.jsonObject(with: output) as? [String: Any] else {
            throw ScriptFailure(message: "independent_reading.py \(kind) wrote no JSON object")
        }
        return object
    }

    struct ScriptFailure: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    /// The model in the script's form, to compare with its JSON: entities with the fields it reads.
    static func scriptForm(_ model: ManagedObjectModel) -> [String: Any] {
        let entities: [[String: Any]] = model.entities.map { entity in
            [
                "name": entity.name, "superentity": entity.superentityName as Any, "abstract": entity.isAbstract,
                "attributes": entity.attributes.map { attribute -> [String: Any] in
                    [
                        "name": attribute.name, "typeCode": attribute.type.code, "optional": attribute.isOptional,
                        "transient": attribute.isTransient, "default": attribute.defaultValue as Any,
                        "transformer": attribute.valueTransformerName as Any, "external": attribute.allowsExternalBinaryDataStorage,
                    ]
                },
                "relationships": entity.relationships.map { relationship -> [String: Any] in
                    [
                        "name": relationship.name, "destination": relationship.destinationEntityName,
                        "inverse": relationship.inverseName as Any, "toMany": relationship.isToMany, "ordered": relationship.isOrdered,
                        "optional": relationship.isOptional, "minCount": relationship.minCount, "maxCount": relationship.maxCount,
                        "deleteRule": relationship.deleteRule.rawValue,
                    ]
                },
            ]
        }
        return ["entities": entities, "configurations": model.configurations]
    }

    /// Both sides as canonical JSON text (sorted keys, nil as null), so a difference shows in the failure.
    static func canonical(_ object: Any) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: normalized(object), options: [.sortedKeys, .prettyPrinted]), as: UTF8.self)
    }

    private static func normalized(_ value: Any) -> Any {
        switch value {
        case let dictionary as [String: Any]: return dictionary.mapValues(normalized)
        case let array as [Any]: return array.map(normalized)
        default:
            // A nil optional (inside Any) becomes null; a present one, its value.
            let mirror = Mirror(reflecting: value)
            guard mirror.displayStyle == .optional else { return value }
            guard let wrapped = mirror.children.first?.value else { return NSNull() }
            return normalized(wrapped)
        }
    }
}
