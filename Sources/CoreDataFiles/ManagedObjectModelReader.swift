import PropertyList
import SystemPackage
import SystemSupport

/// Reads a managed object model from any of its four forms: an `.xcdatamodeld` folder (its current version), an
/// `.xcdatamodel` folder (its `contents` XML, or an Xcode 3 model's `elements` archive), a compiled `.momd` folder (its current version) or a compiled
/// `.mom` file (a keyed archive).
///
/// Every model read is checked for inheritance cycles (an entity that is its own superentity, directly or not),
/// which are refused with the entity's place; the other consistency checks are ``ModelValidator``'s.
public struct ManagedObjectModelReader: Sendable {
    /// The largest file read (64 MiB): models are small, and a larger file is refused before it is read whole.
    public var maximumFileSize = 64 << 20

    /// Makes a reader.
    public init() {}

    /// Reads the model at a path: `.xcdatamodeld` (its current version, from `.xccurrentversion`),
    /// `.xcdatamodel`, `.momd` (its current version, from `VersionInfo.plist`, with the entity version hashes
    /// Apple's compiler wrote there) or `.mom`.
    ///
    /// - Throws: ``CoreDataError`` saying where, when the files cannot be read or do not make a model. A name that
    ///   is not UTF-8 is read byte for byte.
    public func read(at filePath: FilePath) throws(CoreDataError) -> ManagedObjectModel {
        try read(atPath: RawFileName.text(filePath))
    }

    /// `read(at:)` for a path held as text (bytes that are not UTF-8 carried as `RawFileName` carries them), for
    /// the kit's own callers.
    ///
    /// - Throws: as `read(at:)`.
    package func read(atPath path: String) throws(CoreDataError) -> ManagedObjectModel {
        try readDocument(atPath: path).model
    }

    /// Reads the model at a path as ``read(at:)`` does, with the form it was read from, the file read within a
    /// folder, and the line of each entity and property when it was read from XML.
    ///
    /// - Throws: ``CoreDataError`` saying where.
    public func readDocument(at filePath: FilePath) throws(CoreDataError) -> ModelDocument {
        try readDocument(atPath: RawFileName.text(filePath))
    }

    /// `readDocument(at:)` for a path held as text (bytes that are not UTF-8 carried as `RawFileName` carries
    /// them), for the kit's own callers.
    ///
    /// - Throws: as `readDocument(at:)`.
    package func readDocument(atPath path: String) throws(CoreDataError) -> ModelDocument {
        guard let form = ModelFileForm.of(itemAtPath: path) else {
            throw CoreDataError(
                pathText: path, place: .none,
                message: "not a Core Data model (an .xcdatamodeld or .xcdatamodel folder, a .momd folder or a .mom file)")
        }
        switch form {
        case .modelSource:
            let contentsPath = Self.join(path, "contents")
            // Xcode 3's form: `elements` (a keyed archive) and `layout`, no `contents`; Xcode reads `contents` when
            // both are there, as it writes `contents` beside the old files when it saves.
            let elementsPath = Self.join(path, "elements")
            let entries = try names(in: path)
            if !entries.contains("contents"), entries.contains("elements") {
                let bytes = try readFile(elementsPath)
                let model = try CompiledModelReader(bytes: bytes, path: elementsPath).xcodeThreeModel()
                try Self.checkInheritance(model, path: elementsPath, locations: nil)
                return ModelDocument(model: model, form: form, filePathText: elementsPath, locations: ModelLocations())
            }
            let bytes = try readFile(contentsPath)
            let (model, locations) = try ModelContentsHandler.read(bytes, path: contentsPath)
            try Self.checkInheritance(model, path: contentsPath, locations: locations)
            return ModelDocument(model: model, form: form, filePathText: contentsPath, locations: locations)
        case .versionedModelSource:
            let version = try currentSourceVersion(path)
            var document = try readDocument(atPath: Self.join(path, version))
            document.form = .versionedModelSource
            document.currentVersionName = String(version.dropLast(".xcdatamodel".count))
            return document
        case .compiledModel:
            let bytes = try readFile(path)
            let model = try read(compiledModel: bytes, pathText: path)
            return ModelDocument(model: model, form: form, filePathText: path, locations: ModelLocations())
        case .versionedCompiledModel:
            return try readCompiledBundle(path)
        }
    }

    /// Reads a compiled model's bytes (a `.mom`; also what a store's `Z_MODELCACHE` holds once unwrapped).
    ///
    /// - Throws: ``CoreDataError`` with the key path of the archive's object concerned (`$objects[12].NSProperties`),
    ///   or the byte offset where the property list is broken.
    public func read(compiledModel bytes: [UInt8], path: FilePath?) throws(CoreDataError) -> ManagedObjectModel {
        try read(compiledModel: bytes, pathText: path.map(RawFileName.text))
    }

    /// `read(compiledModel:path:)` with the file named by text (bytes that are not UTF-8 carried as `RawFileName`
    /// carries them), for the kit's own readers.
    ///
    /// - Throws: as `read(compiledModel:path:)`.
    package func read(compiledModel bytes: [UInt8], pathText path: String?) throws(CoreDataError) -> ManagedObjectModel {
        let model = try CompiledModelReader(bytes: bytes, path: path).model()
        try Self.checkInheritance(model, path: path, locations: nil)
        return model
    }

    /// Reads an `.xcdatamodel`'s `contents` XML.
    ///
    /// - Throws: ``CoreDataError`` with the line of the XML concerned.
    public func read(modelContents bytes: [UInt8], path: FilePath?) throws(CoreDataError) -> ManagedObjectModel {
        try read(modelContents: bytes, pathText: path.map(RawFileName.text))
    }

    /// `read(modelContents:path:)` with the file named by text (bytes that are not UTF-8 carried as `RawFileName`
    /// carries them), for the kit's own readers.
    ///
    /// - Throws: as `read(modelContents:path:)`.
    package func read(modelContents bytes: [UInt8], pathText path: String?) throws(CoreDataError) -> ManagedObjectModel {
        let (model, locations) = try ModelContentsHandler.read(bytes, path: path)
        try Self.checkInheritance(model, path: path, locations: locations)
        return model
    }

    /// Whether `bytes` are a keyed archive whose top object is an NSManagedObjectModel (a compiled model); reads
    /// them as a property list, so costs about what reading the model does.
    public static func isCompiledModel(_ bytes: [UInt8]) -> Bool {
        guard bytes.starts(with: Array("bplist".utf8)) else { return false }
        return (try? CompiledModelReader(bytes: bytes, path: nil).rootClassName) == "NSManagedObjectModel"
    }

    // MARK: Folders and files

    private static func join(_ folder: String, _ name: String) -> String {
        folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }

    private func readFile(_ path: String) throws(CoreDataError) -> [UInt8] {
        do {
            let file = try OpenFile(path: path)
            let info = try file.info()
            guard info.kind == .regular else {
                throw CoreDataError(pathText: path, place: .none, message: "not a regular file")
            }
            guard let bytes = try file.readToEnd(limit: maximumFileSize) else {
                throw CoreDataError(pathText: path, place: .none, message: "larger than \(maximumFileSize) bytes, the most a model is read from")
            }
            return bytes
        } catch let error as SystemCallError {
            throw CoreDataError(pathText: path, place: .none, message: error.reason)
        } catch let error as CoreDataError {
            throw error
        } catch {
            throw CoreDataError(pathText: path, place: .none, message: "\(error)")
        }
    }

    private func names(in folder: String) throws(CoreDataError) -> [String] {
        do {
            return try Directory.entries(atPath: folder).map(\.name).sorted()
        } catch {
            throw CoreDataError(pathText: folder, place: .none, message: error.reason)
        }
    }

    private func propertyList(_ path: String) throws(CoreDataError) -> PropertyListValue {
        let bytes = try readFile(path)
        do throws(PropertyListError) {
            let result: Result<PropertyListValue, PropertyListError> = bytes.withUnsafeBytes { buffer in
                Result { () throws(PropertyListError) in try PropertyListReader().read(buffer).value }
            }
            return try result.get()
        } catch {
            let place: CoreDataError.Place
            switch error.location {
            case .byteOffset(let offset): place = .byte(offset)
            case .lineColumn(let line, _): place = .line(line)
            case .none: place = .none
            }
            throw CoreDataError(pathText: path, place: place, message: "not a property list: \(error.message)")
        }
    }

    /// The current version's folder name (`Model 2.xcdatamodel`) of an `.xcdatamodeld`: `.xccurrentversion`'s
    /// `_XCCurrentVersionName`, or the only `.xcdatamodel` when there is no such file or it names none (an empty
    /// dictionary, which Xcode opens).
    private func currentSourceVersion(_ path: String) throws(CoreDataError) -> String {
        let versions = try names(in: path).filter { $0.hasSuffix(".xcdatamodel") }
        let currentPath = Self.join(path, ".xccurrentversion")
        if (try? FileInfo.of(path: currentPath)) != nil {
            guard case .dictionary(let fields) = try propertyList(currentPath) else {
                throw CoreDataError(pathText: currentPath, place: .none, message: "not a dictionary")
            }
            if fields["_XCCurrentVersionName"] == nil, versions.count == 1 { return versions[0] }
            guard case .string(let name)? = fields["_XCCurrentVersionName"] else {
                throw CoreDataError(
                    pathText: currentPath, place: .keyPath("_XCCurrentVersionName"),
                    message: fields["_XCCurrentVersionName"] == nil
                        ? "missing, and the .xcdatamodeld holds \(versions.count) .xcdatamodel versions to choose from"
                        : "not a string")
            }
            guard versions.contains(name) else {
                throw CoreDataError(
                    pathText: currentPath, place: .keyPath("_XCCurrentVersionName"), message: "names \(name), which the .xcdatamodeld does not hold")
            }
            return name
        }
        guard versions.count == 1 else {
            throw CoreDataError(
                pathText: path, place: .none,
                message: "no .xccurrentversion says which of its \(versions.count) .xcdatamodel versions is current")
        }
        return versions[0]
    }

    /// A `.momd`: the current version (VersionInfo.plist's `NSManagedObjectModel_CurrentVersionName`, or the only
    /// `.mom`) with the entity hashes under `NSManagedObjectModel_VersionHashes`.
    private func readCompiledBundle(_ path: String) throws(CoreDataError) -> ModelDocument {
        let moms = try names(in: path).filter { $0.hasSuffix(".mom") }.map { String($0.dropLast(4)) }
        let infoPath = Self.join(path, "VersionInfo.plist")
        var versionInfo: [String: PropertyListValue] = [:]
        if (try? FileInfo.of(path: infoPath)) != nil {
            guard case .dictionary(let fields) = try propertyList(infoPath) else {
                throw CoreDataError(pathText: infoPath, place: .none, message: "not a dictionary")
            }
            versionInfo = Dictionary(fields.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
        }
        let current: String
        if let value = versionInfo["NSManagedObjectModel_CurrentVersionName"] {
            guard case .string(let name) = value else {
                throw CoreDataError(pathText: infoPath, place: .keyPath("NSManagedObjectModel_CurrentVersionName"), message: "not a string")
            }
            current = name
        } else if moms.count == 1 {
            current = moms[0]
        } else {
            throw CoreDataError(
                pathText: path, place: .none,
                message: "no VersionInfo.plist NSManagedObjectModel_CurrentVersionName says which of its \(moms.count) .mom versions is current")
        }
        guard moms.contains(current) else {
            throw CoreDataError(pathText: path, place: .none, message: "the current version \(current).mom is not in the .momd")
        }
        let momPath = Self.join(path, current + ".mom")
        var model = try read(compiledModel: try readFile(momPath), pathText: momPath)
        if case .dictionary(let versions)? = versionInfo["NSManagedObjectModel_VersionHashes"], let hashes = versions[current] {
            let keyPath = "NSManagedObjectModel_VersionHashes.\(current)"
            guard case .dictionary(let byEntity) = hashes else {
                throw CoreDataError(pathText: infoPath, place: .keyPath(keyPath), message: "not a dictionary")
            }
            for index in model.entities.indices {
                guard let value = byEntity[model.entities[index].name] else { continue }
                guard case .data(let data) = value, data.count == 32 else {
                    throw CoreDataError(
                        pathText: infoPath, place: .keyPath(keyPath + "." + model.entities[index].name), message: "not a 32-byte version hash")
                }
                model.entities[index].versionHash = [UInt8](data)
            }
        }
        return ModelDocument(
            model: model, form: .versionedCompiledModel, filePathText: momPath, locations: ModelLocations(), currentVersionName: current)
    }

    /// Refuses an inheritance cycle, at the first entity (in the model's order) on one.
    static func checkInheritance(_ model: ManagedObjectModel, path: String?, locations: ModelLocations?) throws(CoreDataError) {
        if let (index, chain) = ModelValidator.firstInheritanceCycle(in: model) {
            let place: CoreDataError.Place = locations?.line(ofEntityAt: index).map { .line($0) } ?? .entity(model.entities[index].name, property: nil)
            throw CoreDataError(
                pathText: path, place: place, message: "entity \(model.entities[index].name) inherits from itself: \(chain.joined(separator: " → "))")
        }
    }
}

/// The forms a Core Data model comes in.
public enum ModelFileForm: String, Hashable, Sendable, CaseIterable {
    /// An `.xcdatamodeld` folder: versions of a model's source, one of them current.
    case versionedModelSource = "xcdatamodeld"
    /// An `.xcdatamodel` folder: a model's source, its `contents` XML.
    case modelSource = "xcdatamodel"
    /// A `.momd` folder: compiled versions of a model, one of them current.
    case versionedCompiledModel = "momd"
    /// A `.mom` file: a compiled model, a binary keyed archive.
    case compiledModel = "mom"

    /// The form the item at `path` has by its extension (any case, trailing slashes aside) and kind: the three
    /// folder forms only as directories, `.mom` only as a regular file. Reads the item's status only (a `.mom` is
    /// not opened: ``ManagedObjectModelReader/isCompiledModel(_:)`` tells any keyed archive that holds a model).
    /// A name that is not UTF-8 is examined byte for byte.
    public static func of(itemAt filePath: FilePath) -> ModelFileForm? {
        of(itemAtPath: RawFileName.text(filePath))
    }

    /// `of(itemAt:)` for a path held as text (bytes that are not UTF-8 carried as `RawFileName` carries them),
    /// for the kit's own callers.
    package static func of(itemAtPath path: String) -> ModelFileForm? {
        let name = PathName.split(path).name
        guard let dot = name.lastIndex(of: "."),
            let form = ModelFileForm(rawValue: name[name.index(after: dot)...].lowercased()),
            let info = try? FileInfo.of(path: path)
        else { return nil }
        let fits = form == .compiledModel ? info.kind == .regular : info.kind == .directory
        return fits ? form : nil
    }

    /// The form in words: `.xcdatamodeld (model versions)`.
    public var displayName: String {
        switch self {
        case .versionedModelSource: ".xcdatamodeld (model versions)"
        case .modelSource: ".xcdatamodel (model)"
        case .versionedCompiledModel: ".momd (compiled model versions)"
        case .compiledModel: ".mom (compiled model)"
        }
    }
}

/// A model as read from a path, with where it came from.
public struct ModelDocument: Hashable, Sendable {
    /// The model.
    public var model: ManagedObjectModel
    /// The form of the path read.
    public var form: ModelFileForm
    /// The file the model was read from: the `contents` of an `.xcdatamodel`, the current `.mom` of a `.momd`.
    public var filePath: FilePath {
        get { RawFileName.filePath(filePathText) }
        set { filePathText = RawFileName.text(newValue) }
    }
    /// `filePath` as text for messages (bytes that are not UTF-8 carried as `RawFileName` carries them).
    package var filePathText: String
    /// The line of each entity and property, for a model read from XML; empty otherwise.
    public var locations: ModelLocations
    /// The current version's name (`Model 2`), for an `.xcdatamodeld` or `.momd`.
    public var currentVersionName: String?

    /// Makes a document from its parts.
    public init(model: ManagedObjectModel, form: ModelFileForm, filePath: FilePath, locations: ModelLocations, currentVersionName: String? = nil) {
        self.init(
            model: model, form: form, filePathText: RawFileName.text(filePath), locations: locations,
            currentVersionName: currentVersionName)
    }

    /// Makes a document whose file is named by text (bytes that are not UTF-8 carried as `RawFileName` carries
    /// them), for the kit's own readers.
    package init(
        model: ManagedObjectModel, form: ModelFileForm, filePathText: String, locations: ModelLocations, currentVersionName: String? = nil
    ) {
        self.model = model
        self.form = form
        self.filePathText = filePathText
        self.locations = locations
        self.currentVersionName = currentVersionName
    }
}
