import KeyedArchive
import OrderedCollections
import PropertyList
import SystemPackage
import SystemSupport

/// One object of a store: its ID and its values, by property name in the model's order (inherited first), or by
/// column name when the store is read without a model.
public struct ManagedObjectRecord: Hashable, Sendable {
    /// The object's ID.
    public var objectID: ManagedObjectID
    /// The object's values.
    public var values: OrderedDictionary<String, PersistentStoreValue>
}

/// Reads a Core Data SQLite store without Core Data and without writing to it, its `-wal` or its `-shm`
/// (what is committed in the `-wal` is read too): its metadata, its entities and its objects.
///
/// With a model (``ManagedObjectModel``), values are typed by their attributes (dates, UUIDs, decimals,
/// external binary data, transformables as keyed archives) and relationships are read as object IDs; without one,
/// each column of an entity's table is read as its SQLite storage class gives it.
///
/// Not `Sendable`: one reader holds one SQLite connection; use it from one thread at a time.
public final class PersistentStoreReader {
    /// The store's path, as given.
    public var path: FilePath { RawFileName.filePath(pathText) }
    /// `path` as text for messages (bytes that are not UTF-8 carried as `RawFileName` carries them).
    package let pathText: String
    /// The store's metadata (`Z_METADATA`).
    public let metadata: PersistentStoreMetadata
    /// The store's entities (`Z_PRIMARYKEY`), by entity number.
    public let entities: [PersistentStoreEntity]
    /// The model values are typed by: the one given, else the store's `Z_MODELCACHE`; nil when the store is read
    /// by its columns alone.
    public let model: ManagedObjectModel?
    /// Where ``model`` came from.
    public let modelSource: ModelSource
    /// Why the store's `Z_MODELCACHE` could not be read, when no model was given and it could not: the store is
    /// then read by its columns (``modelSource`` is `.none`), and this says what was not known and where. Nil
    /// otherwise.
    public let modelCacheProblem: CoreDataError?

    let connection: SQLiteConnection
    /// Whether a transformable attribute is read as its stored bytes (`.data`) rather than decoded as a keyed archive:
    /// for callers that decode archives themselves (the C and Python interfaces), and faster.
    package var transformableValuesAsBytes = false
    let entityByNumber: [Int64: PersistentStoreEntity]
    private let columns: PersistentStoreColumns?

    /// Opens the store at `path` read-only and reads its metadata and entities.
    ///
    /// - Parameters:
    ///   - path: an SQLite store (its `-wal` and `-shm`, if any, beside it).
    ///   - model: the model to type values by; nil for the one the store caches in `Z_MODELCACHE` (when it has
    ///     one and it can be read; else columns are read as they are, and ``modelCacheProblem`` says why).
    /// - Throws: `CoreDataError` at byte 0 when the file is not an SQLite database, in table `Z_METADATA` or
    ///   `Z_PRIMARYKEY` when those are missing or malformed (the file is then not a Core Data store).
    ///
    /// Reads and inflates the whole of `Z_MODELCACHE` (at most 64 MB inflated) when no model is given. A name that
    /// is not UTF-8 is opened byte for byte.
    public convenience init(path: FilePath, model: ManagedObjectModel? = nil) throws(CoreDataError) {
        try self.init(path: RawFileName.text(path), model: model)
    }

    /// `init(path:model:)` for a path held as text (bytes that are not UTF-8 carried as `RawFileName` carries
    /// them), for the kit's own callers.
    ///
    /// - Throws: as `init(path:model:)`.
    package init(path: String, model: ManagedObjectModel? = nil) throws(CoreDataError) {
        self.pathText = path
        connection = try SQLiteConnection(path: path)
        let tables = try connection.tableNames()
        var cacheProblem: CoreDataError?
        var cached: ManagedObjectModel?
        if model == nil, tables.contains("Z_MODELCACHE") {
            do throws(CoreDataError) { cached = try Self.cachedModel(connection) } catch { cacheProblem = error }
        }
        if let model {
            self.model = model
            modelSource = .given
        } else if let cached {
            self.model = cached
            modelSource = .modelCache
        } else {
            self.model = nil
            modelSource = .none
        }
        modelCacheProblem = cacheProblem
        for table in ["Z_METADATA", "Z_PRIMARYKEY"] where !tables.contains(table) {
            throw CoreDataError(
                pathText: path, place: .table(table, row: nil, column: nil),
                message: "no such table: an SQLite file without it is not a Core Data store")
        }
        metadata = try Self.readMetadata(connection)
        entities = try Self.readEntities(connection, tables: tables)
        entityByNumber = Dictionary(entities.map { ($0.number, $0) }, uniquingKeysWith: { first, _ in first })
        let readEntities = entities
        columns = self.model.map { PersistentStoreColumns(model: $0, entities: readEntities) }
    }

    /// The column of a stored attribute or to-one relationship `property` of `entity` in the entity's table
    /// (`ZTITLE1` for the second entity of a table to declare a `title`).
    func column(of property: String, in entity: String) -> String {
        columns?.column(of: property, in: entity) ?? "Z" + property.uppercased()
    }

    private static func readMetadata(_ connection: SQLiteConnection) throws(CoreDataError) -> PersistentStoreMetadata {
        let table = "Z_METADATA"
        let statement = try connection.prepare("SELECT Z_VERSION, Z_UUID, Z_PLIST FROM Z_METADATA", table: table)
        guard try statement.step() else {
            throw CoreDataError(pathText: connection.path, place: .table(table, row: nil, column: nil), message: "the table has no row")
        }
        let version = statement.integer(0)
        guard let identifier = statement.string(1) else {
            throw CoreDataError(
                pathText: connection.path, place: .table(table, row: version, column: "Z_UUID"), message: "the store has no UUID")
        }
        let propertyList: PropertyListValue
        if statement.storage(2) == .null {
            propertyList = .dictionary([:])
        } else {
            do {
                propertyList = try statement.withBytes(2) { bytes throws(CoreDataError) in
                    do { return try PropertyListReader().read(bytes).value } catch {
                        throw CoreDataError(
                            pathText: connection.path, place: .table(table, row: version, column: "Z_PLIST"),
                            message: "not a property list: \(error)")
                    }
                }
            }
        }
        return PersistentStoreMetadata(version: version, storeIdentifier: identifier, propertyList: propertyList)
    }

    private static func readEntities(_ connection: SQLiteConnection, tables: Set<String>) throws(CoreDataError) -> [PersistentStoreEntity] {
        let statement = try connection.prepare(
            "SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT", table: "Z_PRIMARYKEY")
        var rows: [(number: Int64, name: String, superNumber: Int64, maximum: Int64)] = []
        while try statement.step() {
            let number = statement.integer(0)
            guard let name = statement.string(1), !name.isEmpty else {
                throw CoreDataError(
                    pathText: connection.path, place: .table("Z_PRIMARYKEY", row: number, column: "Z_NAME"),
                    message: "an entity without a name")
            }
            rows.append((number, name, statement.integer(2), statement.integer(3)))
        }
        let byNumber = Dictionary(rows.map { ($0.number, $0) }, uniquingKeysWith: { first, _ in first })
        return try rows.map { row throws(CoreDataError) in
            var root = row
            var seen: Set<Int64> = [row.number]
            while root.superNumber != 0 {
                guard let parent = byNumber[root.superNumber], seen.insert(parent.number).inserted else {
                    throw CoreDataError(
                        pathText: connection.path, place: .table("Z_PRIMARYKEY", row: row.number, column: "Z_SUPER"),
                        message: "superentity \(root.superNumber) of \(root.name) is not an entity of the store, or its "
                            + "superentities make a cycle")
                }
                root = parent
            }
            var tableName = "Z" + root.name.uppercased()
            // Persistent history (stores with NSPersistentHistoryTrackingKey): CHANGE in ACHANGE, and so on.
            let historyTable = "A" + row.name.uppercased()
            if row.number >= PersistentStoreEntity.firstPersistentHistoryNumber, row.superNumber == 0, !tables.contains(tableName),
                tables.contains(historyTable)
            {
                tableName = historyTable
            }
            return PersistentStoreEntity(
                name: row.name, number: row.number, superentityNumber: row.superNumber, maximumPrimaryKey: row.maximum,
                tableName: tableName)
        }
    }

    /// The entity named `name`, as the store records it.
    public func entity(named name: String) -> PersistentStoreEntity? { entities.first { $0.name == name } }

    /// How many objects of exactly this entity (not its subentities) the store holds.
    ///
    /// - Throws: `CoreDataError` in the entity's table (missing, corrupt).
    public func objectCount(of entity: PersistentStoreEntity) throws(CoreDataError) -> Int {
        let statement = try connection.prepare(
            "SELECT count(*) FROM \(SQLiteConnection.quoted(entity.tableName)) WHERE Z_ENT = ?", table: entity.tableName)
        statement.reset(binding: entity.number)
        _ = try statement.step()
        return Int(statement.integer(0))
    }

    /// Calls `body` with each object of the store, table by table and by primary key, reading one row at a time
    /// (the store is never held in memory).
    ///
    /// - Throws: `CoreDataError` with the table, row and column of a value that does not match the model (a date
    ///   that is not a number, a transformable that is not a keyed archive where Foundation's transformer or none is
    ///   named; an app's own transformer's value is given as its bytes), of a column the model needs and the
    ///   table lacks, or of a corrupt page; or what `body` throws.
    public func forEachObject(_ body: (ManagedObjectRecord) throws(CoreDataError) -> Void) throws(CoreDataError) {
        var tablesDone: Set<String> = []
        for entity in entities where tablesDone.insert(entity.tableName).inserted {
            try forEachObject(inTable: entity.tableName, primaryKey: nil, body)
        }
    }

    /// The object with this ID; nil when the store has no such object.
    ///
    /// - Throws: `CoreDataError` as ``forEachObject(_:)``.
    public func object(_ id: ManagedObjectID) throws(CoreDataError) -> ManagedObjectRecord? {
        guard let entity = entity(named: id.entityName) else { return nil }
        var found: ManagedObjectRecord?
        try forEachObject(inTable: entity.tableName, primaryKey: id.primaryKey) { record throws(CoreDataError) in
            if record.objectID.entityName == id.entityName { found = record }
        }
        return found
    }

    private func forEachObject(
        inTable table: String, primaryKey: Int64?, _ body: (ManagedObjectRecord) throws(CoreDataError) -> Void
    ) throws(CoreDataError) {
        let cursor = try TableCursor(reader: self, table: table, primaryKey: primaryKey)
        while try cursor.step() { try body(try cursor.record()) }
    }

    func entityName(number: Int64) -> String? { entityByNumber[number]?.name }
}
