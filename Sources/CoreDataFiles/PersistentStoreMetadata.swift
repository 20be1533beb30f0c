import OrderedCollections
import PropertyList

/// A store's metadata: `Z_METADATA`'s row (its version and UUID) and its property list (`NSStoreType`,
/// `NSStoreModelVersionHashes`, …), as `NSPersistentStoreCoordinator.metadataForPersistentStore` gives it.
public struct PersistentStoreMetadata: Hashable, Sendable {
    /// `Z_VERSION`: the version of Core Data's SQLite layout.
    public var version: Int64
    /// `Z_UUID`: the store's identifier, the host part of its object IDs.
    public var storeIdentifier: String
    /// `Z_PLIST` read as a property list (a dictionary in stores Core Data writes).
    public var propertyList: PropertyListValue

    /// `NSStoreType` (`SQLite`), when the property list has it.
    public var storeType: String? {
        if case .string(let value) = self["NSStoreType"] { value } else { nil }
    }

    /// `NSStoreModelVersionIdentifiers`, when the property list has them.
    public var modelVersionIdentifiers: [String] {
        guard case .array(let values) = self["NSStoreModelVersionIdentifiers"] else { return [] }
        return values.compactMap { if case .string(let value) = $0 { value } else { nil } }
    }

    /// `NSStoreModelVersionHashes`: entity name to its version hash (32 bytes), as the model that wrote the
    /// store computed them.
    public var modelVersionHashes: [String: [UInt8]] {
        guard case .dictionary(let values) = self["NSStoreModelVersionHashes"] else { return [:] }
        var hashes: [String: [UInt8]] = [:]
        for (name, value) in values { if case .data(let bytes) = value { hashes[name] = Array(bytes) } }
        return hashes
    }

    /// A key of the metadata's dictionary.
    public subscript(key: String) -> PropertyListValue? {
        if case .dictionary(let values) = propertyList { values[key] } else { nil }
    }
}

/// An entity as a store records it in `Z_PRIMARYKEY`: its number (`Z_ENT`), its superentity's and the largest
/// primary key given out (`Z_MAX`), with the table its objects live in.
public struct PersistentStoreEntity: Hashable, Sendable {
    /// The entity's name (`Z_NAME`).
    public var name: String
    /// The entity's number (`Z_ENT`), in the `Z_ENT` column of its objects' rows.
    public var number: Int64
    /// The superentity's number (`Z_SUPER`); 0 for a root entity.
    public var superentityNumber: Int64
    /// The largest primary key Core Data has given an object of this entity's table (`Z_MAX`).
    public var maximumPrimaryKey: Int64
    /// The table of its root entity: `Z` and the root's name in upper case (subentities share it); for
    /// Core Data's own persistent-history entities (``isPersistentHistory``), `A` and the name (`ACHANGE`).
    public var tableName: String

    /// The first entity number Core Data gives its own persistent-history entities (`CHANGE` 16001,
    /// `TRANSACTION` 16002, `TRANSACTIONSTRING` 16003), which no model declares.
    public static let firstPersistentHistoryNumber: Int64 = 16001

    /// Whether this is one of Core Data's persistent-history entities (numbered from 16001, tables `A…`), which
    /// no model declares and which are read by their columns.
    public var isPersistentHistory: Bool { number >= Self.firstPersistentHistoryNumber && tableName.hasPrefix("A") }

    /// Makes an entity's record.
    public init(name: String, number: Int64, superentityNumber: Int64, maximumPrimaryKey: Int64, tableName: String) {
        self.name = name
        self.number = number
        self.superentityNumber = superentityNumber
        self.maximumPrimaryKey = maximumPrimaryKey
        self.tableName = tableName
    }
}
