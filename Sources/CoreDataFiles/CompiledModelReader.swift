import KeyedArchive
import PropertyList

/// Reads a compiled model (`.mom`): a binary keyed archive whose top object (`$top.root`) is an
/// NSManagedObjectModel.
///
/// The keys read are those Apple's model compiler writes, as found in compiled models from public repositories
/// (Tests/CoreDataFilesTests/Fixtures/models/SOURCES.md) and in the `Z_MODELCACHE` of stores Core Data wrote
/// (Tests/CoreDataFilesTests/Fixtures/Apple/PROVENANCE.md): NSManagedObjectModel's `NSEntities` (a dictionary of
/// name to entity: an `NSDictionary` in a `.mom`, an `NSKnownKeysDictionary1` in a store's cache) and `NSVersionIdentifiers` (a set); NSEntityDescription's `NSEntityName`,
/// `NSClassNameForEntity`, `NSSuperentity`, `NSProperties` (a dictionary of name to property) and
/// `NSVersionHashModifier`; a property's `NSPropertyName` and `NSIsOptional`; NSAttributeDescription's
/// `NSAttributeType`, `NSDefaultValue`, `NSValueTransformerName` and `NSFlagsKey` (bit 4: external binary storage);
/// NSRelationshipDescription's `NSDestinationEntity` (or `_NSDestinationEntityName`), `NSInverseRelationship` (or
/// `_NSInverseRelationshipName`), `NSMinCount`, `NSMaxCount` (0: no limit; not 1: to-many) and `NSDeleteRule`
/// (NSDeleteRule's values: 0 no action, 1 nullify, 2 cascade, 3 deny); a property's `NSIsTransient` (MeWe's store's
/// cache has one); a subentity's `_NSPropertyDescriptionProxy` entries (its inherited properties, as a store's cache
/// lists them: Teams' store has 26) are skipped, the superentity's own being read. Compiled models hold their dictionaries
/// in hash order, so entities and properties are given sorted by name, as Xcode writes them in XML. The keys for
/// ordered properties, abstract entities, fetch indexes, uniqueness constraints and configurations
/// have not been seen in a public compiled model yet, so those stay at their defaults.
struct CompiledModelReader {
    let path: String?
    let graph: KeyedArchiveObjectGraph

    init(bytes: [UInt8], path: String?) throws(CoreDataError) {
        self.path = path
        do {
            graph = try KeyedArchiveReader().read(bytes)
        } catch {
            let place: CoreDataError.Place
            if case .byteOffset(let offset)? = error.underlying?.location {
                place = .byte(offset)
            } else if !error.keyPath.components.isEmpty {
                place = .keyPath(error.keyPath.description)
            } else {
                place = .none
            }
            throw CoreDataError(pathText: path, place: place, message: "not a compiled model: \(error.message)")
        }
    }

    func fail(_ place: String, _ message: String) -> CoreDataError {
        CoreDataError(pathText: path, place: .keyPath(place), message: message)
    }

    /// The top object's class name (`NSManagedObjectModel` for a model), or nil.
    var rootClassName: String? {
        guard let root = graph.topObjectIndex(forKey: "root"), case .instance(let instance) = graph.object(at: root) else { return nil }
        return instance.classDescription.name
    }

    /// The instance at `index`, of one of `classes`, or an error at `place`.
    func instance(_ index: Int, at place: String, classes: Set<String>) throws(CoreDataError) -> KeyedArchiveInstance {
        guard index > 0, index < graph.objects.count else { throw fail(place, "refers to object \(index), outside $objects") }
        guard case .instance(let instance) = graph.object(at: index) else {
            throw fail(place, "object \(index) is not an archived object")
        }
        guard !classes.isDisjoint(with: instance.classDescription.chain) else {
            throw fail(place, "object \(index) is \(instance.classDescription.name), not \(classes.sorted().joined(separator: " or "))")
        }
        return instance
    }

    /// The object index a field refers to; nil for a missing field or `$null`.
    func reference(_ instance: KeyedArchiveInstance, _ key: String) throws(CoreDataError) -> Int? {
        guard let value = instance.fields[key] else { return nil }
        guard case .uid(let uid) = value else { throw fail(Self.place(instance, key), "is \(value.kindNameWithArticle), not a reference") }
        guard uid < UInt64(graph.objects.count) else { throw fail(Self.place(instance, key), "refers to object \(uid), outside $objects") }
        return uid == 0 ? nil : Int(uid)
    }

    static func place(_ instance: KeyedArchiveInstance, _ key: String) -> String {
        "$objects[\(instance.index)].\(key)"
    }

    /// A string field: a reference to a string object; nil when missing or `$null`.
    func string(_ instance: KeyedArchiveInstance, _ key: String) throws(CoreDataError) -> String? {
        guard let index = try reference(instance, key) else { return nil }
        switch graph.object(at: index) {
        case .value(.string(let string)): return string
        case .instance(let object) where object.classDescription.chain.contains("NSString"):
            if case .string(let string)? = object.fields["NS.string"] { return string }
        default: break
        }
        throw fail(Self.place(instance, key), "refers to object \(index), which is not a string")
    }

    /// An integer field stored inline; `fallback` when missing.
    func integer(_ instance: KeyedArchiveInstance, _ key: String, default fallback: Int) throws(CoreDataError) -> Int {
        guard let value = instance.fields[key] else { return fallback }
        switch value {
        case .integer(let integer):
            guard let number = integer.int64Value, let result = Int(exactly: number) else {
                throw fail(Self.place(instance, key), "\(integer) is out of range")
            }
            return result
        case .bool(let flag): return flag ? 1 : 0
        default: throw fail(Self.place(instance, key), "is \(value.kindNameWithArticle), not an integer")
        }
    }

    /// A Boolean field stored inline; false when missing.
    func flag(_ instance: KeyedArchiveInstance, _ key: String) throws(CoreDataError) -> Bool {
        guard let value = instance.fields[key] else { return false }
        switch value {
        case .bool(let flag): return flag
        case .integer(let integer): return integer.int64Value != 0
        default: throw fail(Self.place(instance, key), "is \(value.kindNameWithArticle), not a Boolean")
        }
    }

    /// The keys and value references of an NSDictionary object: `NS.keys`/`NS.objects`, or, for the
    /// `NSKnownKeysDictionary1` Core Data archives its model's entities in when it caches the model in a store's
    /// `Z_MODELCACHE`, the key array of its `searchMapping` (an `NSKnownKeysMappingStrategy1`) beside its
    /// `values` array, slot by slot, a slot holding `emptyToken` (a string) being empty.
    func dictionary(_ index: Int, at place: String) throws(CoreDataError) -> [(key: Int, value: Int)] {
        let object = try instance(index, at: place, classes: ["NSDictionary"])
        let keys: [PropertyListValue]
        let values: [PropertyListValue]
        let keysPlace: String
        if object.classDescription.chain.contains("NSKnownKeysDictionary") {
            (keys, values) = try knownKeysSlots(object)
            keysPlace = "$objects[\(index)].searchMapping.keys"
        } else {
            guard case .array(let plainKeys)? = object.fields["NS.keys"], case .array(let plainValues)? = object.fields["NS.objects"],
                plainKeys.count == plainValues.count
            else { throw fail("$objects[\(index)]", "is not a dictionary (NS.keys and NS.objects of one length)") }
            (keys, values) = (plainKeys, plainValues)
            keysPlace = "$objects[\(index)].NS.keys"
        }
        let emptyToken = try knownKeysEmptyToken(object)
        var pairs: [(key: Int, value: Int)] = []
        for (offset, (key, value)) in zip(keys, values).enumerated() {
            guard case .uid(let keyUID) = key, case .uid(let valueUID) = value, keyUID > 0, valueUID > 0,
                keyUID < UInt64(graph.objects.count), valueUID < UInt64(graph.objects.count)
            else { throw fail("\(keysPlace)[\(offset)]", "is not a reference to an object in $objects") }
            if let emptyToken, case .value(.string(let slot)) = graph.object(at: Int(valueUID)), slot == emptyToken { continue }
            pairs.append((Int(keyUID), Int(valueUID)))
        }
        return pairs
    }

    /// An `NSKnownKeysDictionary1`'s key and value slots: `searchMapping.keys` and `values`, two NSArrays of one
    /// length (the mapping's `length`).
    private func knownKeysSlots(_ object: KeyedArchiveInstance) throws(CoreDataError) -> ([PropertyListValue], [PropertyListValue]) {
        guard let mappingIndex = try reference(object, "searchMapping") else {
            throw fail(Self.place(object, "searchMapping"), "a known-keys dictionary without its key mapping")
        }
        let mapping = try instance(mappingIndex, at: Self.place(object, "searchMapping"), classes: ["NSKnownKeysMappingStrategy"])
        guard let keysIndex = try reference(mapping, "keys"), let valuesIndex = try reference(object, "values") else {
            throw fail(Self.place(object, "values"), "a known-keys dictionary without its keys or values")
        }
        let keysArray = try instance(keysIndex, at: Self.place(mapping, "keys"), classes: ["NSArray"])
        let valuesArray = try instance(valuesIndex, at: Self.place(object, "values"), classes: ["NSArray"])
        guard case .array(let keys)? = keysArray.fields["NS.objects"], case .array(let values)? = valuesArray.fields["NS.objects"],
            keys.count == values.count
        else {
            throw fail(Self.place(object, "values"), "is not a known-keys dictionary (keys and values arrays of one length)")
        }
        return (keys, values)
    }

    /// The string an `NSKnownKeysDictionary1` marks its empty slots with; nil for any other dictionary.
    private func knownKeysEmptyToken(_ object: KeyedArchiveInstance) throws(CoreDataError) -> String? {
        guard object.classDescription.chain.contains("NSKnownKeysDictionary") else { return nil }
        return try string(object, "emptyToken")
    }

    /// The string objects of an NSSet or NSArray object.
    private func strings(_ index: Int, at place: String) throws(CoreDataError) -> [String] {
        let object = try instance(index, at: place, classes: ["NSSet", "NSArray", "NSOrderedSet"])
        guard case .array(let elements)? = object.fields["NS.objects"] else {
            throw fail("$objects[\(index)].NS.objects", "is missing or not an array")
        }
        var result: [String] = []
        for (offset, element) in elements.enumerated() {
            guard case .uid(let uid) = element, uid > 0, uid < UInt64(graph.objects.count),
                case .value(.string(let string)) = graph.object(at: Int(uid))
            else { throw fail("$objects[\(index)].NS.objects[\(offset)]", "is not a string") }
            result.append(string)
        }
        return result
    }

    /// The model.
    func model() throws(CoreDataError) -> ManagedObjectModel {
        guard let root = graph.topObjectIndex(forKey: "root") else {
            throw fail("$top.root", "is missing: a compiled model's archive has its model under $top.root")
        }
        let model = try instance(root, at: "$top.root", classes: ["NSManagedObjectModel"])
        var result = ManagedObjectModel()
        if let identifiers = try reference(model, "NSVersionIdentifiers") {
            result.versionIdentifiers = try strings(identifiers, at: Self.place(model, "NSVersionIdentifiers")).filter { !$0.isEmpty }.sorted()
        }
        guard let entitiesIndex = try reference(model, "NSEntities") else { return result }
        var entities: [EntityDescription] = []
        for pair in try dictionary(entitiesIndex, at: Self.place(model, "NSEntities")) {
            entities.append(try entity(pair.value, at: "$objects[\(entitiesIndex)].NS.objects"))
        }
        result.entities = entities.sorted { $0.name < $1.name }
        return result
    }

    private func entity(_ index: Int, at place: String) throws(CoreDataError) -> EntityDescription {
        let object = try instance(index, at: place, classes: ["NSEntityDescription"])
        guard let name = try string(object, "NSEntityName") else { throw fail(Self.place(object, "NSEntityName"), "an entity has no name") }
        var entity = EntityDescription(
            name: name, className: try string(object, "NSClassNameForEntity"),
            versionHashModifier: try string(object, "NSVersionHashModifier"))
        if let superIndex = try reference(object, "NSSuperentity") {
            let superentity = try instance(superIndex, at: Self.place(object, "NSSuperentity"), classes: ["NSEntityDescription"])
            entity.superentityName = try string(superentity, "NSEntityName")
        }
        if let propertiesIndex = try reference(object, "NSProperties") {
            for pair in try dictionary(propertiesIndex, at: Self.place(object, "NSProperties")) {
                // A subentity's cache lists each inherited property as an `_NSPropertyDescriptionProxy` (its
                // `NSUnderlyingProperty` the superentity's own, its `NSEntityDescription` the subentity): the
                // superentity's description is the property, read there.
                if case .instance(let proxy) = graph.object(at: pair.value), proxy.classDescription.chain.contains("_NSPropertyDescriptionProxy") {
                    continue
                }
                let property = try instance(
                    pair.value, at: "$objects[\(propertiesIndex)].NS.objects",
                    classes: ["NSAttributeDescription", "NSRelationshipDescription", "NSPropertyDescription"])
                guard let propertyName = try string(property, "NSPropertyName") else {
                    throw fail(Self.place(property, "NSPropertyName"), "a property of entity \(name) has no name")
                }
                let chain = property.classDescription.chain
                if chain.contains("NSAttributeDescription") {
                    entity.attributes.append(try attribute(property, name: propertyName))
                } else if chain.contains("NSRelationshipDescription") {
                    entity.relationships.append(try relationship(property, name: propertyName))
                }
            }
        }
        entity.attributes.sort { $0.name < $1.name }
        entity.relationships.sort { $0.name < $1.name }
        return entity
    }

    private func attribute(_ object: KeyedArchiveInstance, name: String) throws(CoreDataError) -> AttributeDescription {
        let code = try integer(object, "NSAttributeType", default: 0)
        guard let type = AttributeType(code: code) else {
            throw fail(Self.place(object, "NSAttributeType"), "attribute \(name) has an unknown type code \(code)")
        }
        return AttributeDescription(
            name: name, type: type, isOptional: try flag(object, "NSIsOptional"), isTransient: try flag(object, "NSIsTransient"),
            defaultValue: try defaultValue(object),
            valueTransformerName: try string(object, "NSValueTransformerName"),
            allowsExternalBinaryDataStorage: try integer(object, "NSFlagsKey", default: 0) & 4 != 0)
    }

    /// The default value as an `.xcdatamodel` would write it: numbers and strings as text, Booleans `YES`/`NO`.
    private func defaultValue(_ object: KeyedArchiveInstance) throws(CoreDataError) -> String? {
        guard let index = try reference(object, "NSDefaultValue") else { return nil }
        switch graph.object(at: index) {
        case .value(.string(let string)): return string
        case .value(.integer(let integer)): return integer.description
        case .value(.real(let real)): return real.description
        case .value(.bool(let flag)): return flag ? "YES" : "NO"
        case .instance(let instance) where instance.classDescription.chain.contains("NSDecimalNumber"):
            return Self.decimalText(instance)
        case .instance(let instance) where instance.classDescription.chain.contains("NSDate"):
            if case .real(let seconds)? = instance.fields["NS.time"] { return seconds.description }
            return nil
        default:
            return nil
        }
    }

    /// An archived NSDecimalNumber as text: `NS.mantissa` (little-endian, `NS.length` 16-bit words) times ten to
    /// `NS.exponent`, negative when `NS.negative`; nil when the mantissa does not fit 64 bits.
    static func decimalText(_ instance: KeyedArchiveInstance) -> String? {
        guard case .data(let mantissaBytes)? = instance.fields["NS.mantissa"], case .integer(let exponentValue)? = instance.fields["NS.exponent"],
            let exponent = exponentValue.int64Value, (-128...127).contains(exponent)
        else { return nil }
        let bytes = [UInt8](mantissaBytes)
        guard bytes.count >= 8, bytes[8...].allSatisfy({ $0 == 0 }) else { return nil }
        var mantissa: UInt64 = 0
        for byte in bytes[0..<8].reversed() { mantissa = mantissa << 8 | UInt64(byte) }
        let negative: Bool
        if case .bool(true)? = instance.fields["NS.negative"] { negative = true } else { negative = false }
        var digits = String(mantissa)
        if exponent >= 0 {
            if mantissa != 0 { digits += String(repeating: "0", count: Int(exponent)) }
        } else {
            let places = Int(-exponent)
            if digits.count <= places { digits = String(repeating: "0", count: places - digits.count + 1) + digits }
            digits.insert(".", at: digits.index(digits.endIndex, offsetBy: -places))
        }
        return (negative && mantissa != 0 ? "-" : "") + digits
    }

    private func relationship(_ object: KeyedArchiveInstance, name: String) throws(CoreDataError) -> RelationshipDescription {
        var destination = try string(object, "_NSDestinationEntityName")
        if destination == nil, let index = try reference(object, "NSDestinationEntity") {
            destination = try string(try instance(index, at: Self.place(object, "NSDestinationEntity"), classes: ["NSEntityDescription"]), "NSEntityName")
        }
        guard let destination else {
            throw fail(Self.place(object, "NSDestinationEntity"), "relationship \(name) has no destination entity")
        }
        var inverse = try string(object, "_NSInverseRelationshipName")
        if inverse == nil, let index = try reference(object, "NSInverseRelationship") {
            inverse = try string(
                try instance(index, at: Self.place(object, "NSInverseRelationship"), classes: ["NSRelationshipDescription"]), "NSPropertyName")
        }
        let ruleCode = try integer(object, "NSDeleteRule", default: 1)
        let rules: [DeleteRule] = [.noAction, .nullify, .cascade, .deny]
        guard rules.indices.contains(ruleCode) else {
            throw fail(Self.place(object, "NSDeleteRule"), "relationship \(name) has an unknown delete rule \(ruleCode)")
        }
        let minCount = try integer(object, "NSMinCount", default: 0)
        let maxCount = try integer(object, "NSMaxCount", default: 1)
        guard minCount >= 0, maxCount >= 0 else {
            throw fail(Self.place(object, "NSMaxCount"), "relationship \(name) has a negative count")
        }
        return RelationshipDescription(
            name: name, destinationEntityName: destination, inverseName: inverse, isToMany: maxCount != 1,
            isOptional: try flag(object, "NSIsOptional"), isTransient: try flag(object, "NSIsTransient"), minCount: minCount, maxCount: maxCount,
            deleteRule: rules[ruleCode])
    }
}
