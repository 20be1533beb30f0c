import KeyedArchive
import PropertyList

/// Reads the `elements` file of an Xcode 3 `.xcdatamodel` (a folder holding `elements` and `layout` and no
/// `contents`, as Apple's sample code of 2008–2010 ships its models; Xcode opens it and writes `contents` when it
/// saves): a binary keyed archive of Xcode's own classes, whose top object is an `XDPMModel`.
///
/// The form, as Apple's samples show it (Tests/CoreDataFilesTests/Fixtures/models/SOURCES.md): the model's
/// `_xd_rootPackage` (an `XDModelPackage`) holds its entities under `XDBucketForClassesstorage` (a dictionary of
/// name to `XDPMEntity`); an entity holds its properties under `XDBucketForOwnedAttributesstorage` (name to
/// `XDPMAttribute` or `XDPMRelationship`). What Core Data knows of each element is kept as UML tagged values: the
/// element's `XDBucketForStereotypesstorage` holds stereotypes (`XDUMLStereotypeImp`), each owning properties
/// (`XDUMLPropertyImp`) named by key whose `_default` is the value — `XD_PSK_isAbstract` and
/// `XD_PSK_entityClassName` for an entity; `XD_PPSK_isOptional` and `XD_PPSK_isTransient` for a property;
/// `XD_PAttK_attributeType` (NSAttributeType's code), `XD_PAttK_defaultValueAsString` and
/// `XD_PAttK_valueTransformerName` for an attribute; `XD_PRK_destination` and `XD_PRK_inverseRelationship` (the
/// elements themselves, named by `_name`), `XD_PRK_isToMany`, `XD_PRK_minCount`, `XD_PRK_maxCount` and
/// `XD_PRK_deleteRule` (NSDeleteRule's code) for a relationship. Entities and properties are given sorted by name,
/// as Xcode writes them in XML. A superentity (a UML generalisation under `XDBucketForGeneralizationsstorage`) has
/// not been seen in a public model of this form, so an entity that has one is refused at that key rather than read
/// without it; fetch requests, user info and the `layout` file (the diagram) are not read.
extension CompiledModelReader {
    /// The model an Xcode 3 `elements` archive describes.
    ///
    /// - Throws: ``CoreDataError`` at the key path of the archive's object concerned.
    func xcodeThreeModel() throws(CoreDataError) -> ManagedObjectModel {
        guard let root = graph.topObjectIndex(forKey: "root") else {
            throw fail("$top.root", "is missing: an Xcode 3 model's archive has its model under $top.root")
        }
        let model = try instance(root, at: "$top.root", classes: ["XDPMModel"])
        guard let packageIndex = try reference(model, "_xd_rootPackage") else {
            throw fail(Self.place(model, "_xd_rootPackage"), "is missing: the model's package of entities")
        }
        let package = try instance(packageIndex, at: Self.place(model, "_xd_rootPackage"), classes: ["XDModelPackage"])
        guard let classesIndex = try reference(package, "XDBucketForClassesstorage") else { return ManagedObjectModel() }
        var entities: [EntityDescription] = []
        for pair in try dictionary(classesIndex, at: Self.place(package, "XDBucketForClassesstorage")) {
            let object = try instance(pair.value, at: "$objects[\(classesIndex)].NS.objects", classes: ["XDPMEntity"])
            entities.append(try xcodeThreeEntity(object))
        }
        return ManagedObjectModel(entities: entities.sorted { $0.name < $1.name })
    }

    private func xcodeThreeEntity(_ object: KeyedArchiveInstance) throws(CoreDataError) -> EntityDescription {
        guard let name = try string(object, "_name") else { throw fail(Self.place(object, "_name"), "an entity has no name") }
        if let generalizations = try reference(object, "XDBucketForGeneralizationsstorage"),
            case .instance(let array) = graph.object(at: generalizations), case .array(let items)? = array.fields["NS.objects"], !items.isEmpty
        {
            throw fail(
                Self.place(object, "XDBucketForGeneralizationsstorage"),
                "entity \(name) has a superentity in Xcode 3's form, which is not read (none has been seen in a public model)")
        }
        let tags = try taggedValues(object)
        var entity = EntityDescription(
            name: name, className: try taggedString(tags, "XD_PSK_entityClassName"), isAbstract: try taggedFlag(tags, "XD_PSK_isAbstract"))
        if let propertiesIndex = try reference(object, "XDBucketForOwnedAttributesstorage") {
            for pair in try dictionary(propertiesIndex, at: Self.place(object, "XDBucketForOwnedAttributesstorage")) {
                let property = try instance(
                    pair.value, at: "$objects[\(propertiesIndex)].NS.objects", classes: ["XDPMAttribute", "XDPMRelationship", "XDPMProperty"])
                guard let propertyName = try string(property, "_name") else {
                    throw fail(Self.place(property, "_name"), "a property of entity \(name) has no name")
                }
                let propertyTags = try taggedValues(property)
                if property.classDescription.chain.contains("XDPMAttribute") {
                    entity.attributes.append(try xcodeThreeAttribute(property, name: propertyName, tags: propertyTags))
                } else if property.classDescription.chain.contains("XDPMRelationship") {
                    entity.relationships.append(try xcodeThreeRelationship(property, name: propertyName, tags: propertyTags))
                }
            }
        }
        entity.attributes.sort { $0.name < $1.name }
        entity.relationships.sort { $0.name < $1.name }
        return entity
    }

    private func xcodeThreeAttribute(_ object: KeyedArchiveInstance, name: String, tags: [String: TaggedValue]) throws(CoreDataError)
        -> AttributeDescription
    {
        let code = try taggedInteger(tags, "XD_PAttK_attributeType", default: 0)
        guard let type = AttributeType(code: code) else {
            throw fail(tags["XD_PAttK_attributeType"]?.place ?? Self.place(object, "_name"), "attribute \(name) has an unknown type code \(code)")
        }
        return AttributeDescription(
            name: name, type: type, isOptional: try taggedFlag(tags, "XD_PPSK_isOptional"), isTransient: try taggedFlag(tags, "XD_PPSK_isTransient"),
            defaultValue: try taggedString(tags, "XD_PAttK_defaultValueAsString"),
            valueTransformerName: try taggedString(tags, "XD_PAttK_valueTransformerName"))
    }

    private func xcodeThreeRelationship(_ object: KeyedArchiveInstance, name: String, tags: [String: TaggedValue]) throws(CoreDataError)
        -> RelationshipDescription
    {
        guard let destination = try taggedElementName(tags, "XD_PRK_destination") else {
            throw fail(Self.place(object, "XDBucketForStereotypesstorage"), "relationship \(name) has no destination entity (XD_PRK_destination)")
        }
        let toMany = try taggedFlag(tags, "XD_PRK_isToMany")
        let ruleCode = try taggedInteger(tags, "XD_PRK_deleteRule", default: 1)
        let rules: [DeleteRule] = [.noAction, .nullify, .cascade, .deny]
        guard rules.indices.contains(ruleCode) else {
            throw fail(tags["XD_PRK_deleteRule"]?.place ?? Self.place(object, "_name"), "relationship \(name) has an unknown delete rule \(ruleCode)")
        }
        let minCount = try taggedInteger(tags, "XD_PRK_minCount", default: 0)
        let maxCount = try taggedInteger(tags, "XD_PRK_maxCount", default: toMany ? 0 : 1)
        guard minCount >= 0, maxCount >= 0 else {
            throw fail(tags["XD_PRK_maxCount"]?.place ?? Self.place(object, "_name"), "relationship \(name) has a negative count")
        }
        return RelationshipDescription(
            name: name, destinationEntityName: destination, inverseName: try taggedElementName(tags, "XD_PRK_inverseRelationship"),
            isToMany: toMany, isOptional: try taggedFlag(tags, "XD_PPSK_isOptional"), isTransient: try taggedFlag(tags, "XD_PPSK_isTransient"),
            minCount: minCount, maxCount: maxCount, deleteRule: rules[ruleCode])
    }

    /// A tagged value: the object a stereotype property's `_default` refers to, and that field's key path.
    struct TaggedValue {
        var index: Int
        var place: String
    }

    /// An element's tagged values by key, from every stereotype under its `XDBucketForStereotypesstorage`; a
    /// `_default` of `$null` is left out.
    private func taggedValues(_ element: KeyedArchiveInstance) throws(CoreDataError) -> [String: TaggedValue] {
        guard let storage = try reference(element, "XDBucketForStereotypesstorage") else { return [:] }
        var result: [String: TaggedValue] = [:]
        for stereotypePair in try dictionary(storage, at: Self.place(element, "XDBucketForStereotypesstorage")) {
            let stereotype = try instance(stereotypePair.value, at: "$objects[\(storage)].NS.objects", classes: ["XDUMLStereotypeImp"])
            guard let owned = try reference(stereotype, "XDBucketForOwnedAttributesstorage") else { continue }
            for pair in try dictionary(owned, at: Self.place(stereotype, "XDBucketForOwnedAttributesstorage")) {
                guard case .value(.string(let key)) = graph.object(at: pair.key) else {
                    throw fail("$objects[\(owned)].NS.keys", "object \(pair.key) is not a string key")
                }
                let property = try instance(pair.value, at: "$objects[\(owned)].NS.objects", classes: ["XDUMLPropertyImp"])
                if let value = try reference(property, "_default") {
                    result[key] = TaggedValue(index: value, place: Self.place(property, "_default"))
                }
            }
        }
        return result
    }

    private func taggedFlag(_ tags: [String: TaggedValue], _ key: String) throws(CoreDataError) -> Bool {
        guard let tag = tags[key] else { return false }
        switch graph.object(at: tag.index) {
        case .value(.bool(let flag)): return flag
        case .value(.integer(let integer)): return integer.int64Value != 0
        default: throw fail(tag.place, "\(key) is not a Boolean")
        }
    }

    private func taggedInteger(_ tags: [String: TaggedValue], _ key: String, default fallback: Int) throws(CoreDataError) -> Int {
        guard let tag = tags[key] else { return fallback }
        guard case .value(.integer(let integer)) = graph.object(at: tag.index), let number = integer.int64Value, let result = Int(exactly: number)
        else { throw fail(tag.place, "\(key) is not an integer") }
        return result
    }

    private func taggedString(_ tags: [String: TaggedValue], _ key: String) throws(CoreDataError) -> String? {
        guard let tag = tags[key] else { return nil }
        switch graph.object(at: tag.index) {
        case .value(.string(let string)): return string
        case .instance(let object) where object.classDescription.chain.contains("NSString"):
            if case .string(let string)? = object.fields["NS.string"] { return string }
        default: break
        }
        throw fail(tag.place, "\(key) is not a string")
    }

    /// The `_name` of the element (an entity or a property) a tagged value refers to.
    private func taggedElementName(_ tags: [String: TaggedValue], _ key: String) throws(CoreDataError) -> String? {
        guard let tag = tags[key] else { return nil }
        let element = try instance(tag.index, at: tag.place, classes: ["XDUMLNamedElementImp"])
        return try string(element, "_name")
    }
}
