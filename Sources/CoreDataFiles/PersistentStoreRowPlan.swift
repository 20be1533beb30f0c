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
        /// primary keys and entity numbers in order; `sources` tells the objects that have none without it.
        case toMany(SQLiteStatement, destination: String, sources: SourceKeys?)
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

/// The objects a to-many relationship gives destinations to, as the primary keys its table names them by, in
/// ascending order: one query (`SELECT DISTINCT <column> ... ORDER BY 1`, along the column's index where Core Data
/// made one) stepped alongside a table's rows, which come by ascending primary key, so that an object with no
/// destination costs no query of its own. In a store of 800,000 call events and 100,000 participants, the query
/// per object was a third of the read (issue 42, row Y8). Constant memory: one key is held.
final class SourceKeys {
    private let statement: SQLiteStatement
    /// The least key not below the last one asked for; nil after the last.
    private var current: Int64?
    private var lastAsked: Int64?
    /// A key that is not an integer was met (a column without Core Data's integer affinity): from there on every
    /// object is queried, as its own query compares such keys as SQLite does.
    private var unsure = false

    init(_ statement: SQLiteStatement) { self.statement = statement }

    /// Whether the object `key` may have destinations: false only when the relationship's table names it nowhere.
    ///
    /// - Throws: `CoreDataError` in the relationship's table when SQLite cannot step (a corrupt page).
    func mayHave(_ key: Int64) throws(CoreDataError) -> Bool {
        if unsure { return true }
        if lastAsked.map({ key < $0 }) ?? true {
            // The first question, or the keys went back (an object read alone): from the first key again.
            statement.reset()
            current = try next()
        }
        lastAsked = key
        while let found = current, found < key { current = try next() }
        return unsure || current == key
    }

    private func next() throws(CoreDataError) -> Int64? {
        guard try statement.step() else { return nil }
        guard statement.storage(0) == .integer else {
            unsure = true
            return nil
        }
        return statement.integer(0)
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
    /// to-many relationship then tells objects without destinations by `SourceKeys`.
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
        let sql: String
        let queried: String
        // The column of `queried` that names the source object, for SourceKeys.
        let sourceColumn: String
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
            sourceColumn = SQLiteConnection.quoted(hiddenInverse)
            sql =
                "SELECT Z_PK, Z_ENT FROM \(SQLiteConnection.quoted(queried)) WHERE \(SQLiteConnection.quoted(hiddenInverse)) = ? ORDER BY Z_PK"
        } else if let inverse, !inverse.isToMany {
            // One-to-many: the destination's rows name this object in their inverse's column.
            queried = destination.tableName
            let inverseColumn = reader.column(of: inverse.name, in: relationship.destinationEntityName)
            sourceColumn = SQLiteConnection.quoted(inverseColumn)
            let columns = try connection.columns(of: queried)
            let order = columns.contains("Z_FOK_" + inverse.name.uppercased()) ? "Z_FOK_" + inverse.name.uppercased() : "Z_PK"
            sql =
                "SELECT Z_PK, Z_ENT FROM \(SQLiteConnection.quoted(queried)) WHERE \(SQLiteConnection.quoted(inverseColumn)) = ? "
                + "ORDER BY \(SQLiteConnection.quoted(order))"
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
            sql =
                "SELECT J.\(SQLiteConnection.quoted(destinationColumn)), D.Z_ENT FROM \(SQLiteConnection.quoted(join)) J "
                + "LEFT JOIN \(SQLiteConnection.quoted(destination.tableName)) D ON D.Z_PK = J.\(SQLiteConnection.quoted(destinationColumn)) "
                + "WHERE J.\(SQLiteConnection.quoted(joinSource)) = ? ORDER BY J.\(SQLiteConnection.quoted(fok ?? destinationColumn))"
            sourceColumn = SQLiteConnection.quoted(joinSource)
        }
        let statement = try connection.prepare(sql, table: queried)
        // Reading one row alone, its own query is all it needs.
        let sources =
            scansEveryRow
            ? SourceKeys(
                try connection.prepare(
                    "SELECT DISTINCT \(sourceColumn) FROM \(SQLiteConnection.quoted(queried)) WHERE \(sourceColumn) IS NOT NULL ORDER BY 1",
                    table: queried)) : nil
        return RowPlanStep(
            name: relationship.name, column: column, index: -1,
            kind: .toMany(statement, destination: relationship.destinationEntityName, sources: sources))
    }
}
