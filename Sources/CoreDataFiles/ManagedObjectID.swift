/// The identity of an object in a store, as Core Data's `NSManagedObjectID` gives it: the store's UUID, the
/// object's entity and its primary key (`Z_PK`), written `x-coredata://STORE-UUID/Entity/pN`.
public struct ManagedObjectID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The store's identifier (`Z_METADATA`'s `Z_UUID`, `NSStoreUUID` in its metadata).
    public var storeIdentifier: String
    /// The entity's name.
    public var entityName: String
    /// The primary key: the row's `Z_PK`.
    public var primaryKey: Int64

    /// Makes an object ID.
    public init(storeIdentifier: String, entityName: String, primaryKey: Int64) {
        self.storeIdentifier = storeIdentifier
        self.entityName = entityName
        self.primaryKey = primaryKey
    }

    /// Reads the URI form `x-coredata://STORE-UUID/Entity/pN`; nil when `uri` is not of that form.
    public init?(uriRepresentation uri: String) {
        let prefix = "x-coredata://"
        guard uri.hasPrefix(prefix) else { return nil }
        let parts = uri.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false)  // A URI, not a path.
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty, parts[2].first == "p",
            let key = Int64(parts[2].dropFirst()), key > 0
        else { return nil }
        self.init(storeIdentifier: String(parts[0]), entityName: String(parts[1]), primaryKey: key)
    }

    /// The URI form: `x-coredata://STORE-UUID/Entity/pN`, as `NSManagedObjectID.uriRepresentation()` writes it.
    public var uriRepresentation: String { "x-coredata://\(storeIdentifier)/\(entityName)/p\(primaryKey)" }

    /// The URI form.
    public var description: String { uriRepresentation }

    /// Orders by entity name, then primary key.
    public static func < (left: ManagedObjectID, right: ManagedObjectID) -> Bool {
        (left.entityName, left.primaryKey) < (right.entityName, right.primaryKey)
    }
}
