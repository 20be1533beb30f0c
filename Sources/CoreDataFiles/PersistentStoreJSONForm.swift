import EmbeddedLayers
import KeyedArchive
import OrderedCollections
import PropertyList

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension PersistentStoreValue {
    /// The value as a property-list value for `JSONPropertyListWriter`; nil for ``null`` (a nil attribute is left
    /// out of its object). Dates are `{"$date": …}`, binary data `{"$data": base64}`, UUIDs, URIs, decimals and
    /// object IDs strings, external data `{"externalDataFile": NAME}`, a transformable its keyed archive's JSON
    /// form.
    public var jsonForm: PropertyListValue? {
        switch self {
        case .null: nil
        case .integer(let value): .integer(PropertyListInteger(value))
        case .real(let value): .real(value)
        case .boolean(let value): .bool(value)
        case .string(let value), .decimal(let value), .uuid(let value), .uri(let value): .string(value)
        case .date(let seconds): .date(Date(timeIntervalSinceReferenceDate: seconds))
        case .data(let bytes): .data(Data(bytes))
        case .externalData(let name): .dictionary(["externalDataFile": .string(name)])
        case .transformable(let archive): archive
        case .objectID(let id): .string(id.uriRepresentation)
        case .objectIDs(let ids): .array(ids.map { .string($0.uriRepresentation) })
        }
    }
}

extension ManagedObjectRecord {
    /// The object as a property-list value for `JSONPropertyListWriter`:
    /// `{"id": "x-coredata://…/Entity/p1", "entity": "Entity", "values": {…}}`, nil values left out.
    public var jsonForm: PropertyListValue {
        var values = OrderedDictionary<String, PropertyListValue>(minimumCapacity: self.values.count)
        for (name, value) in self.values { if let form = value.jsonForm { values[name] = form } }
        return .dictionary([
            "id": .string(objectID.uriRepresentation), "entity": .string(objectID.entityName), "values": .dictionary(values),
        ])
    }
}

extension PersistentStoreReader {
    /// Writes every object as JSON, one object per line (`--jsonl`), or as one JSON array (`asArray`), handing
    /// the text to `write` in pieces of about 64 KiB: the store is read one row at a time and never held in memory.
    ///
    /// - Throws: `CoreDataError` as ``forEachObject(_:)``, or for a value JSON cannot hold (a date beyond the year
    ///   999999), placed at its object; or what `write` throws.
    ///
    /// With `layers`, an object whose data values hold layers (property lists, archives, compressed data,
    /// protocol buffers: `EmbeddedArchives.find(in:)`) gets `"layers"`: each such property's layers
    /// (`EmbeddedArchive.jsonForm`) beside its raw bytes in `"values"`; a layer past the limits is an error
    /// placed at its row and column.
    public func writeJSON(asArray: Bool = false, layers: EmbeddedArchives? = nil, to write: ([UInt8]) throws(CoreDataError) -> Void)
        throws(CoreDataError)
    {
        let writer = JSONPropertyListWriter(prettyPrinted: false)
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 16 + 4096)
        var first = true
        if asArray { buffer.append(UInt8(ascii: "[")) }
        try forEachObject { record throws(CoreDataError) in
            if asArray && !first { buffer.append(UInt8(ascii: ",")) }
            if asArray { buffer.append(UInt8(ascii: "\n")) }
            first = false
            var form = record.jsonForm
            if let layers { try addLayers(of: record, using: layers, to: &form) }
            do {
                buffer.append(contentsOf: try writer.encode(form))
            } catch {
                let entity = entity(named: record.objectID.entityName)
                throw CoreDataError(
                    pathText: pathText, place: .table(entity?.tableName ?? "", row: record.objectID.primaryKey, column: nil),
                    message: "cannot be written as JSON: \(error)")
            }
            if !asArray { buffer.append(UInt8(ascii: "\n")) }
            if buffer.count >= 1 << 16 {
                try write(buffer)
                buffer.removeAll(keepingCapacity: true)
            }
        }
        if asArray { buffer.append(contentsOf: first ? Array("]\n".utf8) : Array("\n]\n".utf8)) }
        if !buffer.isEmpty { try write(buffer) }
    }

    /// Adds `"layers"` to the object's JSON `form`: each data value's layers, by property.
    private func addLayers(of record: ManagedObjectRecord, using layers: EmbeddedArchives, to form: inout PropertyListValue) throws(CoreDataError) {
        var found = OrderedDictionary<String, PropertyListValue>()
        for (name, value) in record.values {
            guard case .data(let bytes) = value else { continue }
            do throws(EmbeddedKeyPathError) {
                let archives = try layers.find(in: .dictionary([name: .data(Data(bytes))]))
                if !archives.isEmpty { found[name] = .array(archives.map(\.jsonForm)) }
            } catch {
                let entityName = record.objectID.entityName
                let column = model == nil ? name : column(of: name, in: entityName)
                throw CoreDataError(
                    pathText: pathText, place: .table(entity(named: entityName)?.tableName ?? "", row: record.objectID.primaryKey, column: column),
                    message: error.message)
            }
        }
        guard !found.isEmpty, case .dictionary(var object) = form else { return }
        object["layers"] = .dictionary(found)
        form = .dictionary(object)
    }
}
