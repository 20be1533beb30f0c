/// A Core Data managed object model (NSManagedObjectModel's meaning): its entities with their attributes,
/// relationships and fetch indexes, its configurations, and the version hashes that match it to a store.
///
/// Read one with ``ManagedObjectModelReader``. Entities refer to each other by name.
public struct ManagedObjectModel: Hashable, Sendable {
    /// The entities, in the model's order.
    public var entities: [EntityDescription]
    /// Each configuration's name and the names of its entities.
    public var configurations: [String: [String]]
    /// The model's version identifiers (NSManagedObjectModel's `versionIdentifiers`).
    public var versionIdentifiers: [String]

    /// Makes a model from its parts.
    public init(entities: [EntityDescription] = [], configurations: [String: [String]] = [:], versionIdentifiers: [String] = []) {
        self.entities = entities
        self.configurations = configurations
        self.versionIdentifiers = versionIdentifiers
    }

    /// The entity with this name, or nil. Cost: a linear search of ``entities``.
    public func entity(named name: String) -> EntityDescription? {
        entities.first { $0.name == name }
    }

    /// The entity's superentities, nearest first; empty for a root entity or an unknown name. Stops at a cycle
    /// (which ``ManagedObjectModelReader`` refuses) rather than looping.
    public func superentities(of name: String) -> [EntityDescription] {
        var result: [EntityDescription] = []
        var seen: Set<String> = [name]
        var current = entity(named: name)
        while let parentName = current?.superentityName, seen.insert(parentName).inserted, let parent = entity(named: parentName) {
            result.append(parent)
            current = parent
        }
        return result
    }

    /// The entity's direct subentities, in the model's order.
    public func subentities(of name: String) -> [EntityDescription] {
        entities.filter { $0.superentityName == name && $0.name != name }
    }

    /// The root of the entity's inheritance (the entity itself when it has no superentity); nil for an unknown
    /// name.
    public func rootEntity(of name: String) -> EntityDescription? {
        superentities(of: name).last ?? entity(named: name)
    }

    /// The entity's attributes with the inherited ones first (the root's first), then its own.
    public func allAttributes(of name: String) -> [AttributeDescription] {
        let chain = [entity(named: name)].compactMap { $0 } + superentities(of: name)
        return chain.reversed().flatMap(\.attributes)
    }

    /// The entity's relationships with the inherited ones first (the root's first), then its own.
    public func allRelationships(of name: String) -> [RelationshipDescription] {
        let chain = [entity(named: name)].compactMap { $0 } + superentities(of: name)
        return chain.reversed().flatMap(\.relationships)
    }

    /// Each entity's version hash (32 bytes), by entity name, as a store's `NSStoreModelVersionHashes` holds
    /// them; entities without a known hash are left out.
    public var entityVersionHashes: [String: [UInt8]] {
        var hashes: [String: [UInt8]] = [:]
        for entity in entities {
            if let hash = entity.versionHash { hashes[entity.name] = hash }
        }
        return hashes
    }
}

/// An entity of a managed object model (NSEntityDescription's meaning).
public struct EntityDescription: Hashable, Sendable {
    /// The entity's name.
    public var name: String
    /// The class that represents its objects (`representedClassName`), or nil.
    public var className: String?
    /// The name of its superentity, or nil for a root entity.
    public var superentityName: String?
    /// Whether the entity is abstract (has no instances of its own).
    public var isAbstract: Bool
    /// Its own attributes (not the inherited ones), in order.
    public var attributes: [AttributeDescription]
    /// Its own relationships (not the inherited ones), in order.
    public var relationships: [RelationshipDescription]
    /// Its fetch indexes.
    public var fetchIndexes: [FetchIndexDescription]
    /// Its uniqueness constraints: each a list of property names.
    public var uniquenessConstraints: [[String]]
    /// The modifier that changes its version hash, or nil.
    public var versionHashModifier: String?
    /// Its version hash (32 bytes), read from a compiled model or computed; nil when not known.
    public var versionHash: [UInt8]?

    /// Makes an entity from its parts.
    public init(
        name: String, className: String? = nil, superentityName: String? = nil, isAbstract: Bool = false,
        attributes: [AttributeDescription] = [], relationships: [RelationshipDescription] = [],
        fetchIndexes: [FetchIndexDescription] = [], uniquenessConstraints: [[String]] = [],
        versionHashModifier: String? = nil, versionHash: [UInt8]? = nil
    ) {
        self.name = name
        self.className = className
        self.superentityName = superentityName
        self.isAbstract = isAbstract
        self.attributes = attributes
        self.relationships = relationships
        self.fetchIndexes = fetchIndexes
        self.uniquenessConstraints = uniquenessConstraints
        self.versionHashModifier = versionHashModifier
        self.versionHash = versionHash
    }
}

/// An attribute of an entity (NSAttributeDescription's meaning).
public struct AttributeDescription: Hashable, Sendable {
    /// The attribute's name.
    public var name: String
    /// Its type.
    public var type: AttributeType
    /// Whether it may be nil.
    public var isOptional: Bool
    /// Whether it is transient (not saved).
    public var isTransient: Bool
    /// Its default value as the model writes it (`0`, `YES`, `Untitled`), or nil.
    public var defaultValue: String?
    /// The name of a transformable attribute's value transformer, or nil.
    public var valueTransformerName: String?
    /// Whether binary data may be stored outside the store's file.
    public var allowsExternalBinaryDataStorage: Bool
    /// The modifier that changes its version hash, or nil.
    public var versionHashModifier: String?

    /// Makes an attribute from its parts.
    public init(
        name: String, type: AttributeType, isOptional: Bool = true, isTransient: Bool = false, defaultValue: String? = nil,
        valueTransformerName: String? = nil, allowsExternalBinaryDataStorage: Bool = false, versionHashModifier: String? = nil
    ) {
        self.name = name
        self.type = type
        self.isOptional = isOptional
        self.isTransient = isTransient
        self.defaultValue = defaultValue
        self.valueTransformerName = valueTransformerName
        self.allowsExternalBinaryDataStorage = allowsExternalBinaryDataStorage
        self.versionHashModifier = versionHashModifier
    }
}

/// An attribute's type (NSAttributeType's meaning).
public enum AttributeType: Hashable, Sendable, CaseIterable {
    /// No type (`Undefined`, 0).
    case undefined
    /// A 16-bit integer (`Integer 16`, 100).
    case integer16
    /// A 32-bit integer (`Integer 32`, 200).
    case integer32
    /// A 64-bit integer (`Integer 64`, 300).
    case integer64
    /// A decimal number (`Decimal`, 400).
    case decimal
    /// A double (`Double`, 500).
    case double
    /// A float (`Float`, 600).
    case float
    /// A string (`String`, 700).
    case string
    /// A Boolean (`Boolean`, 800).
    case boolean
    /// A date (`Date`, 900).
    case date
    /// Binary data (`Binary`, 1000).
    case binaryData
    /// A UUID (`UUID`, 1100).
    case uuid
    /// A URI (`URI`, 1200).
    case uri
    /// A value stored through a value transformer (`Transformable`, 1800).
    case transformable
    /// A managed object ID (`ObjectID`, 2000).
    case objectID
    /// A composite attribute (`Composite`, 2100).
    case composite

    /// The type named as an `.xcdatamodel` writes it (`Integer 16`, `Binary`, `Transformable`); nil for a name
    /// Core Data does not know.
    public init?(modelName: String) {
        guard let type = Self.allCases.first(where: { $0.modelName == modelName }) else { return nil }
        self = type
    }

    /// The name an `.xcdatamodel` writes for the type.
    public var modelName: String {
        switch self {
        case .undefined: "Undefined"
        case .integer16: "Integer 16"
        case .integer32: "Integer 32"
        case .integer64: "Integer 64"
        case .decimal: "Decimal"
        case .double: "Double"
        case .float: "Float"
        case .string: "String"
        case .boolean: "Boolean"
        case .date: "Date"
        case .binaryData: "Binary"
        case .uuid: "UUID"
        case .uri: "URI"
        case .transformable: "Transformable"
        case .objectID: "ObjectID"
        case .composite: "Composite"
        }
    }

    /// The type with this NSAttributeType code (0, 100, 200, … 2100); nil for a code Core Data does not know.
    public init?(code: Int) {
        guard let type = Self.allCases.first(where: { $0.code == code }) else { return nil }
        self = type
    }

    /// The type's NSAttributeType code, as a compiled model stores it.
    public var code: Int {
        switch self {
        case .undefined: 0
        case .integer16: 100
        case .integer32: 200
        case .integer64: 300
        case .decimal: 400
        case .double: 500
        case .float: 600
        case .string: 700
        case .boolean: 800
        case .date: 900
        case .binaryData: 1000
        case .uuid: 1100
        case .uri: 1200
        case .transformable: 1800
        case .objectID: 2000
        case .composite: 2100
        }
    }
}

/// A relationship of an entity (NSRelationshipDescription's meaning).
public struct RelationshipDescription: Hashable, Sendable {
    /// The relationship's name.
    public var name: String
    /// The name of the entity it leads to.
    public var destinationEntityName: String
    /// The name of its inverse relationship (on the destination entity), or nil.
    public var inverseName: String?
    /// Whether it leads to many objects.
    public var isToMany: Bool
    /// Whether a to-many relationship keeps its objects in order.
    public var isOrdered: Bool
    /// Whether it may be empty.
    public var isOptional: Bool
    /// Whether it is transient (not saved).
    public var isTransient: Bool
    /// The least number of objects it must hold.
    public var minCount: Int
    /// The most objects it may hold; 0 for no limit.
    public var maxCount: Int
    /// What deleting the source object does to the objects it leads to.
    public var deleteRule: DeleteRule

    /// Makes a relationship from its parts.
    public init(
        name: String, destinationEntityName: String, inverseName: String? = nil, isToMany: Bool = false, isOrdered: Bool = false,
        isOptional: Bool = true, isTransient: Bool = false, minCount: Int = 0, maxCount: Int = 1, deleteRule: DeleteRule = .nullify
    ) {
        self.name = name
        self.destinationEntityName = destinationEntityName
        self.inverseName = inverseName
        self.isToMany = isToMany
        self.isOrdered = isOrdered
        self.isOptional = isOptional
        self.isTransient = isTransient
        self.minCount = minCount
        self.maxCount = maxCount
        self.deleteRule = deleteRule
    }
}

/// What deleting an object does to the objects a relationship leads to (NSDeleteRule's meaning); the raw value is
/// the name an `.xcdatamodel` writes.
public enum DeleteRule: String, Hashable, Sendable {
    /// Nothing: the objects keep pointing at the deleted one.
    case noAction = "No Action"
    /// The objects' inverse is set to nil.
    case nullify = "Nullify"
    /// The objects are deleted too.
    case cascade = "Cascade"
    /// The deletion is refused while the relationship holds objects.
    case deny = "Deny"
}

/// A fetch index of an entity (NSFetchIndexDescription's meaning).
public struct FetchIndexDescription: Hashable, Sendable {
    /// The index's name.
    public var name: String
    /// Its elements, in order.
    public var elements: [Element]

    /// One property of a fetch index and its order.
    public struct Element: Hashable, Sendable {
        /// The property's name.
        public var property: String
        /// Whether it is indexed in ascending order.
        public var ascending: Bool

        /// Makes an element.
        public init(property: String, ascending: Bool = true) {
            self.property = property
            self.ascending = ascending
        }
    }

    /// Makes a fetch index.
    public init(name: String, elements: [Element]) {
        self.name = name
        self.elements = elements
    }
}
