import CoreDataFiles
import EmbeddedLayers
import KeyedArchive
import PropertyList

/// `ict inspect`, `convert`, `validate` and `get` of a Core Data SQLite store or a managed document package
/// (`UIManagedDocument`): parsing and printing only; reading is `CoreDataFiles`'.
package enum StoreCommands {
    /// Whether `path` is read by these commands: an SQLite file (read as a store: one without `Z_METADATA`, or
    /// damaged, fails saying so) or a directory with `StoreContent/persistentStore` or `DocumentMetadata.plist`.
    package static func handles(_ path: String) -> Bool {
        path != "-" && (PersistentStoreFormat.isSQLiteFile(atPath: path) || ManagedDocumentPackage.isPackage(atPath: path))
    }

    /// A library error as the command's problem, its place as the entry (`table ZNOTE, row 2, column ZEXTRA`).
    package static func problem(_ error: CoreDataError, input: String) -> Problem {
        let path = error.pathText ?? input
        switch error.place {
        case .byte(let offset): return Problem(path: path, location: .byte(offset), error.message)
        case .none: return Problem(path: path, error.message)
        default: return Problem(path: path, location: .entry(error.placeDescription ?? ""), error.message)
        }
    }

    /// Opens the store at `path` (for a document package, the store inside), typed by the model at `modelPath`.
    package static func open(_ path: String, model modelPath: String?) throws(Problem) -> (reader: PersistentStoreReader, document: ManagedDocumentPackage?) {
        do throws(CoreDataError) {
            let model = try modelPath.map { path throws(CoreDataError) in try ManagedObjectModelReader().read(atPath: path) }
            var document: ManagedDocumentPackage?
            var storePath = path
            if ManagedDocumentPackage.isPackage(atPath: path) {
                let package = try ManagedDocumentPackage(path: path)
                guard let inside = package.storePathText else {
                    throw CoreDataError(pathText: path, place: .none, message: "the document package has no \(ManagedDocumentPackage.storeEntry)")
                }
                document = package
                storePath = inside
            }
            return (try PersistentStoreReader(path: storePath, model: model), document)
        } catch {
            throw problem(error, input: path)
        }
    }

    // MARK: inspect

    /// The `store` object of `ict inspect --json` (`Schemas/cli/inspect.schema.json`).
    package struct StoreForm: Encodable {
        package var uuid: String
        package var layoutVersion: Int
        package var modelVersionIdentifiers: [String]
        /// `[{"name", "number", "table", "count", "maximumPrimaryKey"}]`.
        package var entities: JSONValue
        /// The store's metadata property list.
        package var metadata: JSONValue
        /// For a managed document package only (the key is left out for a store alone): its
        /// `DocumentMetadata.plist`, null when it has none.
        package var documentMetadata: JSONValue?

        private enum CodingKeys: String, CodingKey { case uuid, layoutVersion, modelVersionIdentifiers, entities, metadata, documentMetadata }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(uuid, forKey: .uuid)
            try container.encode(layoutVersion, forKey: .layoutVersion)
            try container.encode(modelVersionIdentifiers, forKey: .modelVersionIdentifiers)
            try container.encode(entities, forKey: .entities)
            try container.encode(metadata, forKey: .metadata)
            if let documentMetadata { try container.encode(documentMetadata, forKey: .documentMetadata) }
        }
    }

    package static func inspect(_ path: String, model: String?, json: Bool, report: TypedReport<InspectReport.Fields>) throws {
        let opened: (reader: PersistentStoreReader, document: ManagedDocumentPackage?)
        do throws(Problem) { opened = try open(path, model: model) } catch { throw report.fail(error) }
        let reader = opened.reader
        var entities: [PropertyListValue] = []
        var lines: [String] = []
        for entity in reader.entities {
            let count: Int
            do throws(CoreDataError) { count = try reader.objectCount(of: entity) } catch { throw report.fail(problem(error, input: path)) }
            entities.append(
                .dictionary([
                    "name": .string(entity.name), "number": .integer(PropertyListInteger(entity.number)),
                    "table": .string(entity.tableName), "count": .integer(PropertyListInteger(count)),
                    "maximumPrimaryKey": .integer(PropertyListInteger(entity.maximumPrimaryKey)),
                ]))
            lines.append("  \(entity.name) (Z_ENT \(entity.number), table \(entity.tableName)): \(count) objects, Z_MAX \(entity.maximumPrimaryKey)")
        }
        let metadata = reader.metadata
        let versions = metadata.modelVersionIdentifiers.filter { !$0.isEmpty }
        report.fields.kind = opened.document == nil ? "coreDataStore" : "managedDocument"
        if json {
            report.fields.store = StoreForm(
                uuid: metadata.storeIdentifier, layoutVersion: Int(metadata.version), modelVersionIdentifiers: versions,
                entities: .propertyList(.array(entities)), metadata: .propertyList(metadata.propertyList),
                documentMetadata: opened.document.map { document in document.documentMetadata.map(JSONValue.propertyList) ?? JSONValue.null })
        } else {
            var output = StandardOutput()
            if let document = opened.document {
                output.writeLine("\(path): managed document package (UIManagedDocument), store \(ManagedDocumentPackage.storeEntry)")
                if case .dictionary(let keys)? = document.documentMetadata {
                    output.writeLine("document metadata: \(keys.keys.joined(separator: ", "))")
                }
            } else {
                output.writeLine("\(path): Core Data SQLite store")
            }
            output.writeLine("store UUID: \(metadata.storeIdentifier)")
            output.writeLine("store type: \(metadata.storeType ?? "(none)")")
            output.writeLine("model version: \(versions.isEmpty ? "(none named)" : versions.joined(separator: ", "))")
            let modelLine =
                switch reader.modelSource {
                case .given: model ?? ""
                case .modelCache: "the store's Z_MODELCACHE (\(reader.model?.entities.count ?? 0) entities)"
                case .none:
                    if let problem = reader.modelCacheProblem {
                        "none: the store's model could not be read (\(problem.placeDescription ?? "Z_MODELCACHE"): \(problem.message)); "
                            + "entities are Z_PRIMARYKEY's, values as SQLite stores them, attributes and relationships unknown "
                            + "(--model MODEL types them)"
                    } else {
                        "none (values as SQLite stores them; --model MODEL types them)"
                    }
                }
            output.writeLine("model: \(modelLine)")
            output.writeLine("entities:")
            lines.forEach { output.writeLine($0) }
            output.flush()
        }
        try report.finish()
    }

    // MARK: convert

    /// Every object as JSON lines (`lines`) or a JSON array, streamed to `output` (standard output for nil or
    /// `-`); a regular output file appears only once complete.
    package static func convert(_ path: String, model: String?, output destination: String?, lines: Bool, expand: Bool = false, report: Report) throws {
        let reader: PersistentStoreReader
        do throws(Problem) { reader = try open(path, model: model).reader } catch { throw report.fail(error) }
        let output: OutputFile
        do throws(CommandFailure) { output = try OutputFile(path: destination ?? "-") } catch {
            throw report.fail(Problem(path: Problem.outputName(destination ?? "-"), error.message))
        }
        var writeFailure: CommandFailure?
        do throws(CoreDataError) {
            try reader.writeJSON(asArray: !lines, layers: expand ? EmbeddedArchives() : nil) { bytes throws(CoreDataError) in
                do throws(CommandFailure) {
                    try bytes.withUnsafeBytes { buffer in Result { () throws(CommandFailure) in try output.write(buffer) } }.get()
                } catch {
                    writeFailure = error
                    throw CoreDataError(pathText: destination ?? "-", place: .none, message: error.message)
                }
            }
            try? output.commit()
        } catch {
            output.abandon()
            if let writeFailure { throw report.fail(Problem(path: Problem.outputName(destination ?? "-"), writeFailure.message)) }
            throw report.fail(problem(error, input: path))
        }
    }

    // MARK: validate

    /// The store's problems (for a document package, its metadata's and its store's).
    package static func check(_ path: String, model: String?) -> [Problem] {
        let reader: PersistentStoreReader
        do throws(Problem) { reader = try open(path, model: model).reader } catch { return [error] }
        return reader.validate().map { problem($0, input: path) }
    }

    // MARK: get

    /// The value at `address`: `Entity[pN].property`, `Entity[pN]` (the whole object) or an object's
    /// `x-coredata://` URI.
    package static func value(in path: String, model: String?, at address: String) throws(Problem) -> PropertyListValue {
        let reader = try open(path, model: model).reader
        var objectPart = Substring(address)
        var property: String?
        if !address.hasPrefix("x-coredata:"), let close = address.lastIndex(of: "]") {
            objectPart = address[...close]
            let rest = address[address.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix("."), rest.count > 1 else { throw Problem(path: path, "\(address): after Entity[pN] comes .property") }
                property = String(rest.dropFirst())
            }
        }
        let id: ManagedObjectID
        if let uri = ManagedObjectID(uriRepresentation: String(objectPart)) {
            id = uri
        } else {
            guard let open = objectPart.firstIndex(of: "["), objectPart.hasSuffix("]"), objectPart[objectPart.index(after: open)] == "p",
                let key = Int64(objectPart[objectPart.index(open, offsetBy: 2)..<objectPart.index(before: objectPart.endIndex)]), key > 0
            else {
                throw Problem(path: path, "\(address) is not Entity[pN].property, Entity[pN] or an x-coredata:// URI")
            }
            id = ManagedObjectID(storeIdentifier: reader.metadata.storeIdentifier, entityName: String(objectPart[..<open]), primaryKey: key)
        }
        let record: ManagedObjectRecord?
        do throws(CoreDataError) { record = try reader.object(id) } catch { throw problem(error, input: path) }
        guard let record else { throw Problem(path: path, "the store has no object \(id.entityName)[p\(id.primaryKey)]", keyPath: address) }
        guard let property else { return record.jsonForm }
        // `property!.key.path` steps into what the value's bytes hold, layer by layer (Notes' ZDATA!.2.3.2).
        let name = property.firstIndex(of: "!").map { String(property[..<$0]) } ?? property
        guard let value = record.values[name] else {
            throw Problem(
                path: path, "\(id.entityName) has no property \(name)\(reader.model == nil ? " (without --model, properties are columns: ZNAME)" : "")",
                keyPath: address)
        }
        guard let form = value.jsonForm else { throw Problem(path: path, "the value is nil", keyPath: address) }
        guard name != property else { return form }
        do throws(EmbeddedKeyPathError) {
            return try EmbeddedArchives().value(in: .dictionary([name: form]), at: EmbeddedKeyPath(parsing: property))
        } catch {
            throw Problem(path: path, error.message, keyPath: address)
        }
    }
}
