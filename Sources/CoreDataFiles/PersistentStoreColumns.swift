/// The column each stored property of a model has in a store: `Z` and the property's name in upper case, but
/// numbered where entities sharing a table (subentities of one root) declare properties of one name.
///
/// Core Data names the columns of a table entity by entity in `Z_ENT` order, each entity's own attributes and
/// to-one relationships in name order: the first `title` gets `ZTITLE`, the next entity's `title` `ZTITLE1`,
/// then `ZTITLE2` (as Apple Notes' `ZICCLOUDSYNCINGOBJECT` has them for its attachments, notes and folders).
/// An inherited property keeps the column of the entity that declares it.
struct PersistentStoreColumns {
    private var columns: [String: [String: String]] = [:]

    /// Names the columns of `model`'s properties for the store's `entities`.
    ///
    /// Costs one pass over the model's properties.
    init(model: ManagedObjectModel, entities: [PersistentStoreEntity]) {
        self.model = model
        var usedByTable: [String: Set<String>] = [:]
        for entity in entities.sorted(by: { $0.number < $1.number }) {
            guard let description = model.entity(named: entity.name) else { continue }
            var used = usedByTable[entity.tableName, default: ["Z_PK", "Z_ENT", "Z_OPT"]]
            var own: [String: String] = [:]
            // A compiled model may list inherited properties among an entity's own: those keep the column of the
            // superentity that declares them.
            let inherited = Set(
                model.superentities(of: entity.name).flatMap { $0.attributes.map(\.name) + $0.relationships.map(\.name) })
            let names =
                description.attributes.filter { !$0.isTransient }.map(\.name)
                + description.relationships.filter { !$0.isTransient && !$0.isToMany }.map(\.name)
            for name in names.sorted() where !inherited.contains(name) {
                let base = "Z" + name.uppercased()
                var column = base
                var suffix = 1
                while used.contains(column) {
                    column = base + String(suffix)
                    suffix += 1
                }
                used.insert(column)
                own[name] = column
            }
            usedByTable[entity.tableName] = used
            columns[entity.name] = own
        }
    }

    private let model: ManagedObjectModel

    /// The column of `property` as `entity` has it (declared there or inherited); `Z` and the upper-cased name
    /// when neither the entity nor its superentities are in the store.
    func column(of property: String, in entity: String) -> String {
        var next: String? = entity
        var seen: Set<String> = []
        while let name = next, seen.insert(name).inserted {
            if let column = columns[name]?[property] { return column }
            next = model.entity(named: name)?.superentityName
        }
        return "Z" + property.uppercased()
    }
}
