import PropertyList

/// A value of an object in a store, typed by its attribute or relationship in the model (or, read without a
/// model, by its SQLite storage class).
public enum PersistentStoreValue: Hashable, Sendable {
    /// No value (SQL `NULL`).
    case null
    /// An integer attribute (16, 32 or 64 bits), or an integer column read without a model.
    case integer(Int64)
    /// A double or float attribute, or a real column read without a model.
    case real(Double)
    /// A boolean attribute (stored as 0 or 1).
    case boolean(Bool)
    /// A string attribute, or a text column read without a model.
    case string(String)
    /// A date attribute: seconds since 2001-01-01 00:00:00 UTC, as the store keeps it.
    case date(secondsSinceReferenceDate: Double)
    /// A decimal attribute, in the decimal text SQLite gives for it.
    case decimal(String)
    /// A UUID attribute (16 bytes in the store), in its upper-case text form.
    case uuid(String)
    /// A URI attribute.
    case uri(String)
    /// Binary data: a binary attribute kept in the row, a blob column read without a model, or the stored bytes of a
    /// transformable attribute whose value transformer is an app's own (not a keyed archive).
    case data([UInt8])
    /// Binary data kept outside the store: the file's name in the store's `.STORE_SUPPORT/_EXTERNAL_DATA/`.
    case externalData(fileName: String)
    /// A transformable attribute's keyed archive, in KeyedArchive's JSON form (its classes are not instantiated).
    case transformable(PropertyListValue)
    /// A to-one relationship's destination.
    case objectID(ManagedObjectID)
    /// A to-many relationship's destinations: in order for an ordered relationship, else by primary key.
    case objectIDs([ManagedObjectID])
}
