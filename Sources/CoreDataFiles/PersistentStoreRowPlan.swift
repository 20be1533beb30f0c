import KeyedArchive
import PropertyList

/// How one value of an object is read from its row.
final class RowPlanStep {
    enum Kind {
        /// A column read by its storage class (no model).
        case column
        /// An attribute, typed by the model (in a box: binding it for each value then costs one reference, not a
        /// copy of every string of the description).
        case attribute(AttributeBox)
        /// A to-one relationship: the column holds the destination's primary key; `entityColumn` (`Z<N>NAME`),
        /// when the destination has subentities, its entity number.
        case toOne(destination: String, entityColumn: Int32?)
        /// A to-many relationship read by a query taking the object's primary key, returning the destinations'
        /// primary keys and entity numbers in order; `sources` reads them for a table read row after row, without it.
        case toMany(SQLiteStatement, destination: String, sources: SourceRows?)
    }
    let name: String
    let column: String
    let index: Int32
    let kind: Kind

    init(name: String, column: String, index: Int32, kind: Kind) {
        self.name = name
        self.column = column
        self.index = index
        self.kind = kind
    }
}

/// A to-many relationship's destinations for every source object at once, for a table read by ascending primary
/// key: one query giving (source key, destination key, destination entity) ordered by source key and then as the
/// relationship's own query orders them (along the index Core Data makes for the source column, each source's few
/// rows sorted on their own), stepped beside the table's rows. An object's destinations are then read where the
/// query stands, with no query of its own: in the row Y8 store (issue 42), 100,000 aggregate events with eight call
/// events each and 800,000 call events of which 100,000 have participants, the query per object was half of the
/// read. Constant memory: the rows of one source object are held.
final class SourceRows {
    private let statement: SQLiteStatement
    /// The source key of the row the statement stands on; nil after the last.
    private var current: Int64?
    private var lastAsked: Int64?
    /// A source key that is not an integer was met (a column without Core Data's integer affinity): from there on
    /// each object runs its own query, as SQLite's comparison of such keys then decides.
    private var unsure = false

    init(_ statement: SQLiteStatement) { self.statement = statement }

    /// Hands `add` the destinations (key, entity number when an integer) of the object `key`, in order, and returns
    /// true; false (and nothing handed) when the object must run its own query.
    ///
    /// - Throws: `CoreDataError` in the relationship's table when SQLite cannot step (a corrupt page).
    func destinations(of key: Int64, _ add: (Int64, Int64?) -> Void) throws(CoreDataError) -> Bool {
        if unsure { return false }
        if lastAsked.map({ key < $0 }) ?? true {
            // The first question, or the keys went back: from the first row again.
            statement.reset()
            try step()
        }
        lastAsked = key
        while let found = current, found < key { try step() }
        var rows: [(Int64, Int64?)] = []
        while !unsure, current == key {
            rows.append((statement.integer(1), statement.storage(2) == .integer ? statement.integer(2) : nil))
            try step()
        }
        if unsure { return false }
        for (destination, entity) in rows { add(destination, entity) }
        return true
    }

    private func step() throws(CoreDataError) {
        guard try statement.step() else {
            current = nil
            return
        }
        guard statement.storage(0) == .integer else {
            unsure = true
            current = nil
            return
        }
        current = statement.integer(0)
    }
}

/// An attribute description held by reference, for ``RowPlanStep/Kind/attribute(_:)``.
final class AttributeBox {
    let attribute: AttributeDescription

    init(_ attribute: AttributeDescription) { self.attribute = attribute }
}

/// The plans of one table's entities, made on first use.
final class RowPlans {
    private let reader: PersistentStoreReader
    private let table: String
    private let indexOf: [String: Int32]
    /// Whether the table's rows are read one after another (by ascending primary key), not one row alone: a
    /// to-many relationship is then read for all of them by `SourceRows`.
    private let scansEveryRow: Bool
    private var plans: [Int64: [RowPlanStep]] = [:]

    init(reader: PersistentStoreReader, table: String, indexOf: [String: Int32], scansEveryRow: Bool) {
        self.reader = reader
        self.table = table
        self.indexOf = indexOf
        self.scansEveryRow = scansEveryRow
    }

    func plan(for entity: PersistentStoreEntity, row: Int64) throws(CoreDataError) -> [RowPlanStep] {
        if let plan = plans[entity.number] { return plan }
        let plan = try makePlan(for: entity)
        plans[entity.number] = plan
        return plan
    }

    private func makePlan(for entity: PersistentStoreEntity) throws(CoreDataError) -> [RowPlanStep] {
        // Core Data's own history entities are in no model: their columns as SQLite stores them.
        guard let model = reader.model, !(entity.isPersistentHistory && model.entity(named: entity.name) == nil) else {
            return indexOf.sorted { $0.value < $1.value }.compactMap { name, index in
                ["Z_PK", "Z_ENT", "Z_OPT"].contains(name) ? nil : RowPlanStep(name: name, column: name, index: index, kind: .column)
            }
        }
        guard model.entity(named: entity.name) != nil else {
            throw CoreDataError(
                pathText: reader.pathText, place: .entity(entity.name, property: nil),
                message: "the store's entity \(entity.name) (Z_ENT \(entity.number)) is not in the model")
        }
        var steps: [RowPlanStep] = []
        for attribute in model.allAttributes(of: entity.name) where !attribute.isTransient {
            let column = reader.column(of: attribute.name, in: entity.name)
            steps.append(RowPlanStep(name: attribute.name, column: column, index: try index(of: column), kind: .attribute(AttributeBox(attribute))))
        }
        for relationship in model.allRelationships(of: entity.name) where !relationship.isTransient {
            steps.append(try relationshipStep(relationship, of: entity, in: model))
        }
        return steps
    }

    private func index(of column: String) throws(CoreDataError) -> Int32 {
        guard let index = indexOf[column] else {
            throw CoreDataError(
                pathText: reader.pathText, place: .table(table, row: nil, column: column),
                message: "no such column, though the model has its property")
        }
        return index
    }

    private func relationshipStep(
        _ relationship: RelationshipDescription, of entity: PersistentStoreEntity, in model: ManagedObjectModel
    ) throws(CoreDataError) -> RowPlanStep {
        let upper = relationship.name.uppercased()
        let column = relationship.isToMany ? "Z" + upper : reader.column(of: relationship.name, in: entity.name)
        if !relationship.isToMany {
            let entityColumn = indexOf.first { name, _ in
                name.hasPrefix("Z") && name.hasSuffix(upper) && name.count > upper.count + 1
                    && name.dropFirst().dropLast(upper.count).allSatisfy(\.isNumber)
            }?.value
            return RowPlanStep(
                name: relationship.name, column: column, index: try index(of: column),
                kind: .toOne(destination: relationship.destinationEntityName, entityColumn: entityColumn))
        }
        guard let destination = reader.entity(named: relationship.destinationEntityName) else {
            throw CoreDataError(
                pathText: reader.pathText, place: .entity(entity.name, property: relationship.name),
                message: "the destination \(relationship.destinationEntityName) is not an entity of the store")
        }
        let inverse = relationship.inverseName.flatMap { name in
            model.allRelationships(of: relationship.destinationEntityName).first { $0.name == name }
        }
        let connection = reader.connection
        // The relationship's query, in parts: what it selects (the destination's key and entity number), from
        // where, the column naming the source object, and the order (ties broken by the destination's key).
        let select: String
        let from: String
        let source: String
        let order: String
        let queried: String
        // A to-many without an inverse: Core Data keeps a hidden column Z<N><NAME> in the destination's table
        // (N the number of the entity declaring the relationship) naming the source object.
        let hiddenInverse =
            inverse == nil
            ? try connection.columns(of: destination.tableName).first { name in
                name.hasPrefix("Z") && name.hasSuffix(upper) && name.count > upper.count + 1
                    && name.dropFirst().dropLast(upper.count).allSatisfy(\.isNumber)
            } : nil
        if let hiddenInverse {
            queried = destination.tableName
            (select, from, source, order) = ("Z_PK, Z_ENT", SQLiteConnection.quoted(queried), SQLiteConnection.quoted(hiddenInverse), "Z_PK")
        } else if let inverse, !inverse.isToMany {
            // One-to-many: the destination's rows name this object in their inverse's column.
            queried = destination.tableName
            let inverseColumn = reader.column(of: inverse.name, in: relationship.destinationEntityName)
            let columns = try connection.columns(of: queried)
            let fok = "Z_FOK_" + inverse.name.uppercased()
            (select, from, source) = ("Z_PK, Z_ENT", SQLiteConnection.quoted(queried), SQLiteConnection.quoted(inverseColumn))
            order = columns.contains(fok) ? SQLiteConnection.quoted(fok) + ", Z_PK" : "Z_PK"
        } else {
            // Many-to-many (or no inverse): a join table Z_<N><NAME> with a column per side.
            let tables = try connection.tableNames()
            let inverseUpper = relationship.inverseName?.uppercased()
            func isJoin(_ name: String, _ suffix: String) -> Bool {
                name.hasPrefix("Z_") && name.hasSuffix(suffix) && name.count > suffix.count + 2
                    && name.dropFirst(2).dropLast(suffix.count).allSatisfy(\.isNumber)
            }
            let candidates = tables.sorted()
            guard
                let join = candidates.first(where: { isJoin($0, upper) })
                    ?? inverseUpper.flatMap({ suffix in candidates.first { isJoin($0, suffix) } })
            else {
                throw CoreDataError(
                    pathText: reader.pathText, place: .entity(entity.name, property: relationship.name),
                    message: "no join table Z_<N>\(upper) for this to-many relationship")
            }
            queried = join
            let columns = try connection.columns(of: join)
            func side(_ suffix: String) -> String? {
                columns.first { $0.hasPrefix("Z_") && $0.hasSuffix(suffix) && $0.dropFirst(2).dropLast(suffix.count).allSatisfy(\.isNumber) }
            }
            guard let destinationColumn = side(upper), let joinSource = inverseUpper.flatMap(side), joinSource != destinationColumn
            else {
                throw CoreDataError(
                    pathText: reader.pathText, place: .table(join, row: nil, column: nil),
                    message: "the join table of \(entity.name).\(relationship.name) lacks a column per side")
            }
            let fok = columns.first { $0.hasPrefix("Z_FOK_") && $0.hasSuffix(upper) }
            let destinationKey = "J." + SQLiteConnection.quoted(destinationColumn)
            select = destinationKey + ", D.Z_ENT"
            from =
                "\(SQLiteConnection.quoted(join)) J LEFT JOIN \(SQLiteConnection.quoted(destination.tableName)) D ON D.Z_PK = \(destinationKey)"
            source = "J." + SQLiteConnection.quoted(joinSource)
            order = fok.map { "J." + SQLiteConnection.quoted($0) + ", " + destinationKey } ?? destinationKey
        }
        let statement = try connection.prepare("SELECT \(select) FROM \(from) WHERE \(source) = ? ORDER BY \(order)", table: queried)
        // Reading one row alone, its own query is all it needs.
        let sources =
            scansEveryRow
            ? SourceRows(
                try connection.prepare(
                    "SELECT \(source), \(select) FROM \(from) WHERE \(source) IS NOT NULL ORDER BY \(source), \(order)", table: queried))
            : nil
        return RowPlanStep(
            name: relationship.name, column: column, index: -1,
            kind: .toMany(statement, destination: relationship.destinationEntityName, sources: sources))
    }
}
