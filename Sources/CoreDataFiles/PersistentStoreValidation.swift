extension PersistentStoreReader {
    /// Checks the store against its layout and, when the reader has one, its model, without changing it: every
    /// entity's table exists with `Z_PK` and `Z_ENT`; no primary key in use is above its entity's `Z_MAX`; with a
    /// model, every entity of the store is in the model and the model's are in the store, every stored property
    /// has its column, every to-one relationship names an object that exists, the model's version hashes match
    /// the store's `NSStoreModelVersionHashes`, and every value reads as its attribute's type.
    ///
    /// Reads the whole store (one row at a time).
    ///
    /// - Returns: the problems found, each with its table, row and column (or entity); empty for a valid store.
    public func validate() -> [CoreDataError] {
        var problems: [CoreDataError] = []
        let tables: Set<String>
        do { tables = try connection.tableNames() } catch { return [error] }
        var checkedTables: Set<String> = []
        for entity in entities where checkedTables.insert(entity.tableName).inserted {
            guard tables.contains(entity.tableName) else {
                problems.append(
                    CoreDataError(
                        pathText: pathText, place: .table(entity.tableName, row: nil, column: nil),
                        message: "no such table, though Z_PRIMARYKEY has entity \(entity.name)"))
                continue
            }
            do { try checkPrimaryKeys(of: entity.tableName, &problems) } catch { problems.append(error) }
        }
        if let model {
            checkModel(model, tables: tables, &problems)
        }
        if problems.isEmpty {
            do { try forEachObject { _ in } } catch { problems.append(error) }
        }
        return problems
    }

    /// A key above `Z_MAX`: Core Data would give the next new object a key already in use.
    private func checkPrimaryKeys(of table: String, _ problems: inout [CoreDataError]) throws(CoreDataError) {
        // Core Data gives out the keys of a table from its root entity's Z_MAX (a subentity's row keeps 0).
        let maximum = entities.first { $0.tableName == table && $0.superentityNumber == 0 }?.maximumPrimaryKey ?? 0
        let statement = try connection.prepare(
            "SELECT Z_PK, Z_ENT FROM \(SQLiteConnection.quoted(table)) WHERE Z_PK > ? ORDER BY Z_PK LIMIT 1", table: table)
        statement.reset(binding: maximum)
        if try statement.step() {
            let key = statement.integer(0)
            problems.append(
                CoreDataError(
                    pathText: pathText, place: .table(table, row: key, column: "Z_PK"),
                    message: "primary key \(key) is above Z_MAX (\(maximum)) of the table's root entity in Z_PRIMARYKEY"))
        }
    }

    private func checkModel(_ model: ManagedObjectModel, tables: Set<String>, _ problems: inout [CoreDataError]) {
        let storeNames = Set(entities.map(\.name))
        for entity in model.entities where !storeNames.contains(entity.name) {
            problems.append(
                CoreDataError(
                    pathText: pathText, place: .entity(entity.name, property: nil),
                    message: "the model's entity is not in the store's Z_PRIMARYKEY"))
        }
        let storeHashes = metadata.modelVersionHashes
        let modelHashes = model.entityVersionHashes
        if !storeHashes.isEmpty && !modelHashes.isEmpty {
            for (name, hash) in modelHashes.sorted(by: { $0.key < $1.key }) where storeHashes[name] != hash {
                problems.append(
                    CoreDataError(
                        pathText: pathText, place: .entity(name, property: nil),
                        message: storeHashes[name] == nil
                            ? "the store's NSStoreModelVersionHashes has no hash for this entity"
                            : "the model's version hash differs from the store's NSStoreModelVersionHashes: the store was "
                                + "written with another version of the model"))
            }
        }
        var reported: Set<String> = []
        for entity in entities where model.entity(named: entity.name) != nil && tables.contains(entity.tableName) {
            let columns: Set<String>
            do { columns = Set(try connection.columns(of: entity.tableName)) } catch {
                problems.append(error)
                continue
            }
            for attribute in model.allAttributes(of: entity.name) where !attribute.isTransient {
                let column = self.column(of: attribute.name, in: entity.name)
                if !columns.contains(column), reported.insert(entity.tableName + "." + column).inserted {
                    problems.append(
                        CoreDataError(
                            pathText: pathText, place: .table(entity.tableName, row: nil, column: column),
                            message: "no such column for attribute \(entity.name).\(attribute.name)"))
                }
            }
            for relationship in model.allRelationships(of: entity.name) where !relationship.isTransient && !relationship.isToMany {
                let column = self.column(of: relationship.name, in: entity.name)
                guard columns.contains(column) else {
                    guard reported.insert(entity.tableName + "." + column).inserted else { continue }
                    problems.append(
                        CoreDataError(
                            pathText: pathText, place: .table(entity.tableName, row: nil, column: column),
                            message: "no such column for relationship \(entity.name).\(relationship.name)"))
                    continue
                }
                guard let destination = self.entity(named: relationship.destinationEntityName), tables.contains(destination.tableName)
                else { continue }
                do {
                    try checkDangling(column, in: entity, to: destination, &problems)
                } catch {
                    problems.append(error)
                }
            }
        }
    }

    /// A to-one relationship naming a row its destination's table does not have.
    private func checkDangling(
        _ column: String, in entity: PersistentStoreEntity, to destination: PersistentStoreEntity, _ problems: inout [CoreDataError]
    ) throws(CoreDataError) {
        let quotedColumn = SQLiteConnection.quoted(column)
        let statement = try connection.prepare(
            "SELECT S.Z_PK, S.\(quotedColumn) FROM \(SQLiteConnection.quoted(entity.tableName)) S WHERE S.Z_ENT = ? AND S.\(quotedColumn) "
                + "IS NOT NULL AND NOT EXISTS (SELECT 1 FROM \(SQLiteConnection.quoted(destination.tableName)) D WHERE D.Z_PK = S.\(quotedColumn)) "
                + "ORDER BY S.Z_PK",
            table: entity.tableName)
        statement.reset(binding: entity.number)
        while try statement.step() {
            problems.append(
                CoreDataError(
                    pathText: pathText, place: .table(entity.tableName, row: statement.integer(0), column: column),
                    message: "the relationship names \(destination.name) p\(statement.integer(1)), which \(destination.tableName) does not have"))
        }
    }
}
