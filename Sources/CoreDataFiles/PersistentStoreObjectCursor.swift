import OrderedCollections

/// Reads a store's objects one at a time, each when the caller asks for it: ``PersistentStoreReader/forEachObject(_:)``
/// turned inside out, for callers that cannot hand over a closure (the C interface, Python's iterators).
///
/// Objects come table by table and by primary key, one SQLite row at a time: the store is never held in memory.
/// Not `Sendable`: a cursor uses its reader's SQLite connection; use the two from one thread at a time, and one
/// cursor of a reader at a time.
public final class PersistentStoreObjectCursor {
    /// The reader whose objects the cursor reads.
    public let reader: PersistentStoreReader
    private let tables: [String]
    private var nextTable = 0
    private var current: TableCursor?
    private var finished = false

    /// A cursor before the first object of `reader`'s store.
    ///
    /// Costs nothing until ``next()``: each table's query is prepared when the cursor reaches it.
    public init(reader: PersistentStoreReader) {
        self.reader = reader
        var seen: Set<String> = []
        tables = reader.entities.compactMap { seen.insert($0.tableName).inserted ? $0.tableName : nil }
    }

    /// The next object; nil after the last one.
    ///
    /// - Throws: `CoreDataError` as ``PersistentStoreReader/forEachObject(_:)`` does, with the table, row and column;
    ///   after an error the cursor is at its end (``next()`` returns nil).
    public func next() throws(CoreDataError) -> ManagedObjectRecord? {
        guard try nextRow() != nil, let current else { return nil }
        return try current.record()
    }

    /// What ``nextRow()`` stepped to: the object's entity and primary key, and the names of the values
    /// ``forEachValue(_:)`` reads (the same array for every object of an entity).
    package struct Row {
        /// The object's entity.
        package let entity: PersistentStoreEntity
        /// The object's primary key (`Z_PK`).
        package let primaryKey: Int64
        /// The names of its values, in the model's order.
        package let propertyNames: [String]
    }

    /// Steps to the next object without building its values (read them with ``forEachValue(_:)``); nil after the last.
    ///
    /// - Throws: `CoreDataError` as ``next()``.
    package func nextRow() throws(CoreDataError) -> Row? {
        guard !finished else { return nil }
        do throws(CoreDataError) {
            while true {
                if let current, try current.step() {
                    return Row(entity: current.entity, primaryKey: current.primaryKey, propertyNames: current.propertyNames)
                }
                current = nil
                guard nextTable < tables.count else {
                    finished = true
                    return nil
                }
                current = try TableCursor(reader: reader, table: tables[nextTable], primaryKey: nil)
                nextTable += 1
            }
        } catch {
            finished = true
            current = nil
            throw error
        }
    }

    /// Each value of the object ``nextRow()`` last stepped to, in the order of ``Row/propertyNames``, read in one
    /// loop (a call per value retained the cursor's table, plan, statement and reader for each, a fifth of a large
    /// store's read).
    ///
    /// - Throws: `CoreDataError` with the table, row and column of a value that does not match the model, or what
    ///   `body` throws; the cursor is then at its end.
    package func forEachValue(_ body: (PersistentStoreValue) throws(CoreDataError) -> Void) throws(CoreDataError) {
        guard let current else { return }
        do throws(CoreDataError) { try current.forEachValue(body) } catch {
            finished = true
            self.current = nil
            throw error
        }
    }
}

/// One table's rows, stepped through one at a time: the shared part of ``PersistentStoreReader/forEachObject(_:)``
/// and ``PersistentStoreObjectCursor``.
final class TableCursor {
    let reader: PersistentStoreReader
    let table: String
    private let statement: SQLiteStatement
    private let plans: RowPlans
    private let keyIndex: Int32
    private let entityIndex: Int32
    private var namesByEntity: [Int64: [String]] = [:]
    private var lastKey: Int64?
    private(set) var entity = PersistentStoreEntity(name: "", number: 0, superentityNumber: 0, maximumPrimaryKey: 0, tableName: "")
    private(set) var primaryKey: Int64 = 0
    private(set) var propertyNames: [String] = []
    private var plan: [RowPlanStep] = []
    /// Whether a row was stepped to: `entity` and `plan` are then its.
    private var hasEntity = false

    /// Prepares the query of `table`'s rows (of the one with `primaryKey` when given), by primary key.
    ///
    /// - Throws: `CoreDataError` in `table` when it or its `Z_PK` or `Z_ENT` column is missing.
    init(reader: PersistentStoreReader, table: String, primaryKey: Int64?) throws(CoreDataError) {
        self.reader = reader
        self.table = table
        let columns = try reader.connection.columns(of: table)
        guard !columns.isEmpty else {
            throw CoreDataError(pathText: reader.pathText, place: .table(table, row: nil, column: nil), message: "no such table")
        }
        for required in ["Z_PK", "Z_ENT"] where !columns.contains(required) {
            throw CoreDataError(pathText: reader.pathText, place: .table(table, row: nil, column: required), message: "no such column")
        }
        let filter = primaryKey == nil ? "" : " WHERE Z_PK = ?"
        statement = try reader.connection.prepare(
            "SELECT * FROM \(SQLiteConnection.quoted(table))\(filter) ORDER BY Z_PK", table: table)
        if let primaryKey { statement.reset(binding: primaryKey) }
        var indexOf: [String: Int32] = [:]
        for index in 0..<statement.columnCount { indexOf[statement.columnName(index)] = index }
        keyIndex = indexOf["Z_PK"] ?? 0
        entityIndex = indexOf["Z_ENT"] ?? 1
        plans = RowPlans(reader: reader, table: table, indexOf: indexOf, scansEveryRow: primaryKey == nil)
    }

    /// Steps to the next row: false after the last.
    ///
    /// - Throws: `CoreDataError` at the row (a corrupt page, an entity number not in `Z_PRIMARYKEY`, a property the
    ///   table has no column for).
    func step() throws(CoreDataError) -> Bool {
        guard try statement.step(row: lastKey) else { return false }
        let key = statement.integer(keyIndex)
        lastKey = key
        let number = statement.integer(entityIndex)
        // A table's rows are mostly of one entity: the last row's plan serves the next without a lookup.
        if hasEntity, number == entity.number {
            primaryKey = key
            return true
        }
        guard let entity = reader.entityByNumber[number] else {
            throw CoreDataError(
                pathText: reader.pathText, place: .table(table, row: key, column: "Z_ENT"), message: "entity number \(number) is not in Z_PRIMARYKEY")
        }
        plan = try plans.plan(for: entity, row: key)
        if let names = namesByEntity[number] {
            propertyNames = names
        } else {
            propertyNames = plan.map(\.name)
            namesByEntity[number] = propertyNames
        }
        self.entity = entity
        hasEntity = true
        primaryKey = key
        return true
    }

    /// The value numbered `index` in ``propertyNames`` of the current row.
    ///
    /// - Throws: `CoreDataError` with the table, row and column of a value that does not match the model.
    func value(at index: Int) throws(CoreDataError) -> PersistentStoreValue {
        try reader.value(of: plan[index], in: statement, table: table, row: primaryKey)
    }

    /// Each value of the current row, in the order of ``propertyNames``.
    ///
    /// - Throws: `CoreDataError` as ``value(at:)``, or what `body` throws.
    func forEachValue(_ body: (PersistentStoreValue) throws(CoreDataError) -> Void) throws(CoreDataError) {
        let reader = self.reader, statement = self.statement, table = self.table, row = primaryKey
        try plan.withUnsafeBufferPointer { (steps) throws(CoreDataError) in
            for step in steps { try body(try reader.value(of: step, in: statement, table: table, row: row)) }
        }
    }

    /// The current row as a record.
    ///
    /// - Throws: `CoreDataError` as ``value(at:)``.
    func record() throws(CoreDataError) -> ManagedObjectRecord {
        let id = ManagedObjectID(storeIdentifier: reader.metadata.storeIdentifier, entityName: entity.name, primaryKey: primaryKey)
        var values = OrderedDictionary<String, PersistentStoreValue>(minimumCapacity: plan.count)
        for index in plan.indices { values[plan[index].name] = try value(at: index) }
        return ManagedObjectRecord(objectID: id, values: values)
    }
}
