import KeyedArchive
import PropertyList
import SystemPackage
import SystemSupport

extension PersistentStoreReader {
    /// The value `step` reads from the current row of `statement`.
    func value(
        of step: RowPlanStep, in statement: SQLiteStatement, table: String, row: Int64
    ) throws(CoreDataError) -> PersistentStoreValue {
        switch step.kind {
        case .column:
            return columnValue(statement, step.index)
        case .attribute(let box):
            // The place is made only for an error: making it for each value retained its strings each time.
            return try attributeValue(box, statement, step.index, place: .table(table, row: row, column: step.column))
        case .toOne(let destination, let entityColumn):
            guard statement.storage(step.index) != .null else { return .null }
            let key = statement.integer(step.index)
            var name = destination
            if let entityColumn, statement.storage(entityColumn) == .integer {
                let number = statement.integer(entityColumn)
                guard let named = entityName(number: number) else {
                    throw CoreDataError(
                        pathText: pathText, place: .table(table, row: row, column: statement.columnName(entityColumn)),
                        message: "entity number \(number) is not in Z_PRIMARYKEY")
                }
                name = named
            }
            return .objectID(ManagedObjectID(storeIdentifier: metadata.storeIdentifier, entityName: name, primaryKey: key))
        case .toMany(let query, let destination, let sources):
            var ids: [ManagedObjectID] = []
            func add(_ key: Int64, _ entity: Int64?) {
                let name = entity.flatMap { entityName(number: $0) } ?? destination
                ids.append(ManagedObjectID(storeIdentifier: metadata.storeIdentifier, entityName: name, primaryKey: key))
            }
            if let sources, try sources.destinations(of: row, add) { return .objectIDs(ids) }
            query.reset(binding: row)
            while try query.step() { add(query.integer(0), query.storage(1) == .integer ? query.integer(1) : nil) }
            return .objectIDs(ids)
        }
    }

    private func columnValue(_ statement: SQLiteStatement, _ index: Int32) -> PersistentStoreValue {
        switch statement.storage(index) {
        case .null: .null
        case .integer: .integer(statement.integer(index))
        case .real: .real(statement.real(index))
        case .text: .string(statement.string(index) ?? "")
        case .blob: .data(statement.bytes(index))
        }
    }

    private func mismatch(_ place: CoreDataError.Place, _ attribute: AttributeDescription, _ found: SQLiteStorage) -> CoreDataError {
        CoreDataError(
            pathText: pathText, place: place,
            message: "\(attribute.name) is \(attribute.type.modelName) in the model, but the column holds \(found)")
    }

    private func attributeValue(
        _ box: AttributeBox, _ statement: SQLiteStatement, _ index: Int32, place: @autoclosure () -> CoreDataError.Place
    ) throws(CoreDataError) -> PersistentStoreValue {
        let storage = statement.storage(index)
        if storage == .null { return .null }
        // Read through the box: binding the description itself copied it, every string of it, for each value.
        switch box.attribute.type {
        case .integer16, .integer32, .integer64:
            guard storage == .integer else { throw mismatch(place(), box.attribute, storage) }
            return .integer(statement.integer(index))
        case .boolean:
            guard storage == .integer else { throw mismatch(place(), box.attribute, storage) }
            return .boolean(statement.integer(index) != 0)
        case .double, .float:
            guard storage == .real || storage == .integer else { throw mismatch(place(), box.attribute, storage) }
            return .real(statement.real(index))
        case .date:
            guard storage == .real || storage == .integer else { throw mismatch(place(), box.attribute, storage) }
            return .date(secondsSinceReferenceDate: statement.real(index))
        case .decimal:
            guard storage != .blob else { throw mismatch(place(), box.attribute, storage) }
            return .decimal(statement.string(index) ?? "")
        case .string:
            guard storage == .text else { throw mismatch(place(), box.attribute, storage) }
            return .string(statement.string(index) ?? "")
        case .uuid:
            guard storage == .blob else {
                if storage == .text { return .uuid(statement.string(index)?.uppercased() ?? "") }
                throw mismatch(place(), box.attribute, storage)
            }
            let bytes = statement.bytes(index)
            guard bytes.count == 16 else {
                throw CoreDataError(pathText: pathText, place: place(), message: "a UUID is 16 bytes, this one \(bytes.count)")
            }
            return .uuid(Self.uuidString(bytes))
        case .uri:
            guard storage == .text else { throw mismatch(place(), box.attribute, storage) }
            return .uri(statement.string(index) ?? "")
        case .binaryData:
            guard storage == .blob || storage == .text else { throw mismatch(place(), box.attribute, storage) }
            let bytes = statement.bytes(index)
            guard box.attribute.allowsExternalBinaryDataStorage else { return .data(bytes) }
            return try externalOrInline(bytes, place: place())
        case .transformable:
            guard storage == .blob else { throw mismatch(place(), box.attribute, storage) }
            if transformableValuesAsBytes { return .data(statement.bytes(index)) }
            return try statement.withBytes(index) { bytes throws(CoreDataError) in
                do {
                    return .transformable(try KeyedArchiveReader().read(bytes).jsonForm)
                } catch {
                    // An app's own value transformer (Apple's Recipes sample's ImageToDataTransformer: JPEG bytes)
                    // stores whatever it makes; only Foundation's archiving transformers promise a keyed archive.
                    if let transformer = box.attribute.valueTransformerName, !Self.archivingTransformers.contains(transformer) {
                        return .data(Array(bytes))
                    }
                    throw CoreDataError(
                        pathText: pathText, place: place(),
                        message: "\(box.attribute.name) is Transformable, but its value is not a keyed archive: \(error)")
                }
            }
        case .undefined, .objectID, .composite:
            return columnValue(statement, index)
        }
    }

    /// The value transformers whose stored value is a keyed archive: none named (Core Data's default), and
    /// Foundation's archiving transformers by name and by the constant's name Xcode writes.
    static let archivingTransformers: Set<String> = [
        "NSKeyedUnarchiveFromData", "NSSecureUnarchiveFromData", "NSSecureUnarchiveFromDataTransformerName",
        "NSKeyedUnarchiveFromDataTransformerName",
    ]

    /// A binary attribute that allows external storage: its first byte says where the data is, 1 in the rest of
    /// the blob, 2 in a file whose name (a UUID, NUL-terminated) follows, in `.STORE_SUPPORT/_EXTERNAL_DATA/`.
    private func externalOrInline(_ bytes: [UInt8], place: CoreDataError.Place) throws(CoreDataError) -> PersistentStoreValue {
        switch bytes.first {
        case 1: return .data(Array(bytes.dropFirst()))
        case 2:
            let name = bytes.dropFirst().prefix { $0 != 0 }
            guard !name.isEmpty, name.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != 0x2F }) else {
                throw CoreDataError(pathText: pathText, place: place, message: "external binary data without a valid file name")
            }
            return .externalData(fileName: String(decoding: name, as: UTF8.self))
        default:
            throw CoreDataError(
                pathText: pathText, place: place,
                message: "binary data allowing external storage begins with 1 (inline) or 2 (external), not "
                    + (bytes.first.map { String($0) } ?? "nothing"))
        }
    }

    /// The path of external binary data named `fileName`: `.STORE_SUPPORT/_EXTERNAL_DATA/NAME` beside the store
    /// (`.Notes_SUPPORT` for `Notes.sqlite`), byte for byte as the store's path names its folder.
    public func externalDataPath(fileName: String) -> FilePath {
        RawFileName.filePath(externalDataPathText(fileName: fileName))
    }

    /// `externalDataPath(fileName:)` as text (bytes that are not UTF-8 carried as `RawFileName` carries them), for
    /// the kit's own readers.
    package func externalDataPathText(fileName: String) -> String {
        let name = PathName.split(pathText).name
        let stem = name.lastIndex(of: ".").map { String(name[..<$0]) } ?? name
        return PathName.folderPrefix(of: pathText) + "." + stem + "_SUPPORT/_EXTERNAL_DATA/" + fileName
    }

    static func uuidString(_ bytes: [UInt8]) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for (offset, byte) in bytes.enumerated() {
            if [4, 6, 8, 10].contains(offset) { out.append(0x2D) }
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
