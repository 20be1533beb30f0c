import CoreDataFiles
import Foundation
import PropertyList
import SystemPackage
import TestSupport
import Testing

/// Stores read by `PersistentStoreReader`, checked against an independent reading (`Fixtures/stores/read_store.py`:
/// Python's sqlite3 and plistlib, values decoded by hand), and bad stores: errors with their place, the store's
/// bytes and its -wal and -shm unchanged.
@Suite struct StoreReaderTests {
    static let fixtures = Repository.path("Tests/CoreDataFilesTests/Fixtures/stores")

    /// The Notebook model of `Fixtures/stores/Notebook.xcdatamodel`, written out by hand (attributes in the
    /// order Xcode writes them, sorted).
    static let notebookModel: ManagedObjectModel = {
        let noteAttributes: [AttributeDescription] = [
            AttributeDescription(name: "body", type: .binaryData, allowsExternalBinaryDataStorage: true),
            AttributeDescription(name: "count", type: .integer64),
            AttributeDescription(name: "created", type: .date),
            AttributeDescription(name: "extra", type: .transformable, valueTransformerName: "NSSecureUnarchiveFromData"),
            AttributeDescription(name: "identifier", type: .uuid),
            AttributeDescription(name: "link", type: .uri),
            AttributeDescription(name: "pinned", type: .boolean),
            AttributeDescription(name: "price", type: .decimal),
            AttributeDescription(name: "score", type: .double),
            AttributeDescription(name: "title", type: .string),
        ]
        return ManagedObjectModel(entities: [
            EntityDescription(
                name: "Checklist", superentityName: "Note", attributes: [AttributeDescription(name: "items", type: .integer16)]),
            EntityDescription(
                name: "Folder", attributes: [AttributeDescription(name: "name", type: .string)],
                relationships: [
                    RelationshipDescription(
                        name: "notes", destinationEntityName: "Note", inverseName: "folder", isToMany: true, isOrdered: true, maxCount: 0)
                ]),
            EntityDescription(
                name: "Label", attributes: [AttributeDescription(name: "title", type: .string)],
                relationships: [
                    RelationshipDescription(name: "favourite", destinationEntityName: "Note"),
                    RelationshipDescription(name: "notes", destinationEntityName: "Note", inverseName: "labels", isToMany: true, maxCount: 0),
                ]),
            EntityDescription(
                name: "Note", attributes: noteAttributes,
                relationships: [
                    RelationshipDescription(name: "folder", destinationEntityName: "Folder", inverseName: "notes"),
                    RelationshipDescription(name: "labels", destinationEntityName: "Label", inverseName: "notes", isToMany: true, maxCount: 0),
                ]),
        ])
    }()

    static let booksModel = ManagedObjectModel(entities: [
        EntityDescription(
            name: "Book",
            attributes: [
                AttributeDescription(name: "author", type: .string), AttributeDescription(name: "copyright", type: .date),
                AttributeDescription(name: "title", type: .string),
            ])
    ])

    // MARK: Helpers

    /// A fresh folder of its own under the system's temporary folder.
    static func temporaryFolder() throws -> String { try ScratchFolder.make("StoreReaderTests").path }

    /// Runs `python3 script arguments…` (`PythonScript`), returning its standard output; throws on a non-zero exit.
    @discardableResult
    static func python(_ script: String, _ arguments: [String]) throws -> Data {
        try PythonScript.run(arguments: [script] + arguments)
    }

    /// Makes the Notebook store (a variant of it) at `folder/Notebook.sqlite` with `make_store.py`.
    static func makeNotebook(in folder: String, variant: String? = nil) throws -> String {
        let path = folder + "/Notebook.sqlite"
        try python(fixtures + "/make_store.py", ["notebook", path] + (variant.map { ["--variant", $0] } ?? []))
        return path
    }

    /// The SHA-256 of each file (Python's hashlib), "-" for one that is not there.
    static func sha256(_ paths: [String]) throws -> [String] {
        let script = """
            import hashlib, os, sys
            for p in sys.argv[1:]:
                print(hashlib.sha256(open(p, "rb").read()).hexdigest() if os.path.exists(p) else "-")
            """
        return try PythonScript.text(script, arguments: paths).split(separator: "\n").map(String.init)
    }

    static func companions(_ store: String) -> [String] { [store, store + "-wal", store + "-shm"] }

    /// The independent reading: `read_store.py` over a copy of the store (its -wal and -shm too), each line parsed.
    static func pythonReading(of store: String, model: String) throws -> [PropertyListValue] {
        let copyFolder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: copyFolder) }
        let copy = copyFolder + "/copy.sqlite"
        for (source, target) in zip(companions(store), companions(copy)) where FileManager.default.fileExists(atPath: source) {
            try FileManager.default.copyItem(atPath: source, toPath: target)
        }
        let output = try python(fixtures + "/read_store.py", [copy, model])
        return try lines(output)
    }

    static func lines(_ output: Data) throws -> [PropertyListValue] {
        try output.split(separator: UInt8(ascii: "\n")).map { line in try PropertyListReader().read(Data(line), format: .json).value }
    }

    /// ICTKit's reading: every object as JSON lines, each line parsed.
    static func ictReading(of store: String, model: ManagedObjectModel?) throws -> [PropertyListValue] {
        let reader = try PersistentStoreReader(path: store, model: model)
        var text: [UInt8] = []
        try reader.writeJSON { text += $0 }
        return try lines(Data(text))
    }

    /// The error `body` throws; fails the test when it throws none.
    static func error(_ body: () throws -> Void) throws -> CoreDataError {
        do {
            try body()
        } catch let error as CoreDataError {
            return error
        }
        Issue.record("no error thrown")
        throw CancellationError()
    }

    // MARK: Objects against the independent reading

    @Test func handBuiltNotebookStoreMatchesPythonsReading() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try Self.makeNotebook(in: folder)
        let expected = try Self.pythonReading(of: store, model: "notebook")
        #expect(expected.count == 7)
        #expect(try Self.ictReading(of: store, model: Self.notebookModel) == expected)
    }

    /// Objects with no destination of a to-many relationship between objects with some (folders 3 and 5, label 3,
    /// note 2), which the reader tells from the relationship's source keys without a query of their own: the same
    /// objects as Python's reading, which queries each object.
    @Test func toManyRelationshipsWithGapsMatchPythonsReading() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try Self.makeNotebook(in: folder)
        _ = try PythonScript.run(
            """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            db.executemany("INSERT INTO ZFOLDER VALUES (?, 1, 1, ?)", [(3, "Empty"), (4, "One"), (5, "Empty too")])
            db.execute("INSERT INTO ZLABEL VALUES (3, 2, 1, NULL, NULL, 'green')")
            db.execute("INSERT INTO ZNOTE (Z_PK, Z_ENT, Z_OPT, ZFOLDER, Z_FOK_FOLDER, ZTITLE) VALUES (4, 3, 1, 4, 1024, 'Alone')")
            db.execute("INSERT INTO Z_2NOTES VALUES (2, 4)")
            db.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = 5 WHERE Z_ENT = 1")
            db.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = 3 WHERE Z_ENT = 2")
            db.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = 4 WHERE Z_ENT = 3")
            db.commit()
            """, arguments: [store])
        let expected = try Self.pythonReading(of: store, model: "notebook")
        #expect(expected.count == 12)
        #expect(try Self.ictReading(of: store, model: Self.notebookModel) == expected)
    }

    /// The model read from `Notebook.xcdatamodel` (the model helper's reader) types the store as the hand-written
    /// one does: the same objects as Python's reading.
    @Test func modelFileTypesTheStoreAsPythonReadsIt() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try Self.makeNotebook(in: folder)
        let model = try ManagedObjectModelReader().read(atPath: Self.fixtures + "/Notebook.xcdatamodel")
        #expect(try Self.ictReading(of: store, model: model) == Self.pythonReading(of: store, model: "notebook"))
        let books = try ManagedObjectModelReader().read(atPath: Self.fixtures + "/CoreDataBooks.xcdatamodel")
        #expect(
            try Self.ictReading(of: Self.fixtures + "/CoreDataBooks.sqlite", model: books)
                == Self.pythonReading(of: Self.fixtures + "/CoreDataBooks.sqlite", model: "books"))
    }

    @Test func appleSampleStoreMatchesPythonsReading() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = folder + "/CoreDataBooks.sqlite"
        try FileManager.default.copyItem(atPath: Self.fixtures + "/CoreDataBooks.sqlite", toPath: store)
        let typed = try Self.pythonReading(of: store, model: "books")
        #expect(typed.count == 12)
        #expect(try Self.ictReading(of: store, model: Self.booksModel) == typed)
        // Without a model: each column as SQLite stores it.
        #expect(try Self.ictReading(of: store, model: nil) == Self.pythonReading(of: store, model: "columns"))
    }

    @Test func appleSampleStoreMetadataAndEntities() throws {
        let reader = try PersistentStoreReader(path: Self.fixtures + "/CoreDataBooks.sqlite")
        #expect(reader.metadata.storeIdentifier == "7586DF36-6B0E-45D3-9862-19C40A480696")
        #expect(reader.metadata.storeType == "SQLite")
        #expect(reader.entities == [PersistentStoreEntity(name: "Book", number: 1, superentityNumber: 0, maximumPrimaryKey: 24, tableName: "ZBOOK")])
        #expect(try reader.objectCount(of: reader.entities[0]) == 12)
        let id = try #require(ManagedObjectID(uriRepresentation: "x-coredata://7586DF36-6B0E-45D3-9862-19C40A480696/Book/p11"))
        let book = try #require(try reader.object(id))
        #expect(book.values["ZTITLE"] == .string("Moving Pictures"))
        #expect(try reader.object(ManagedObjectID(storeIdentifier: id.storeIdentifier, entityName: "Book", primaryKey: 999)) == nil)
    }

    @Test func objectIDURIForm() {
        let id = ManagedObjectID(storeIdentifier: "ABC", entityName: "Note", primaryKey: 12)
        #expect(id.uriRepresentation == "x-coredata://ABC/Note/p12")
        #expect(ManagedObjectID(uriRepresentation: id.uriRepresentation) == id)
        for bad in ["x-coredata://ABC/Note/12", "x-coredata://ABC/Note/p0", "http://ABC/Note/p1", "x-coredata://ABC/p1", "x-coredata:///Note/p1"] {
            #expect(ManagedObjectID(uriRepresentation: bad) == nil, "\(bad)")
        }
    }

    @Test func externalBinaryDataIsNamedAndFound() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try Self.makeNotebook(in: folder)
        let reader = try PersistentStoreReader(path: store, model: Self.notebookModel)
        let note = try #require(try reader.object(ManagedObjectID(storeIdentifier: reader.metadata.storeIdentifier, entityName: "Note", primaryKey: 2)))
        guard case .externalData(let name) = note.values["body"] else {
            Issue.record("body is \(String(describing: note.values["body"]))")
            return
        }
        let file = reader.externalDataPath(fileName: name)
        #expect(file == FilePath(folder + "/.Notebook_SUPPORT/_EXTERNAL_DATA/9B1D2C3E-4F50-4617-8A9B-0C1D2E3F4A5B"))
        #expect(FileManager.default.contents(atPath: file.string) == Data("external bytes".utf8))
    }

    // MARK: The -wal read, nothing written

    @Test func rowsCommittedOnlyInTheWALAreReadAndNoFileChanges() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try Self.makeNotebook(in: folder, variant: "wal-only")
        let before = try Self.sha256(Self.companions(store))
        #expect(!before.contains("-"), "the fixture has a -wal and a -shm")
        let listing = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        let expected = try Self.pythonReading(of: store, model: "notebook")
        #expect(expected.count == 7)
        #expect(try Self.ictReading(of: store, model: Self.notebookModel) == expected)
        #expect(PersistentStoreFormat.isStore(atPath: store))
        _ = try PersistentStoreReader(path: store, model: Self.notebookModel).validate()
        #expect(try Self.sha256(Self.companions(store)) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == listing)
    }

    /// The check above can fail: a plain read-only open (Python's sqlite3, `mode=ro`) writes read-marks into
    /// the same -shm.
    @Test func aPlainReadOnlyOpenChangesTheSHM() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try Self.makeNotebook(in: folder, variant: "wal-only")
        let before = try Self.sha256(Self.companions(store))
        let script = folder + "/plain.py"
        try Data(
            """
            import sqlite3, sys
            c = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
            print(c.execute("SELECT count(*) FROM ZNOTE").fetchone()[0])
            c.close()
            """.utf8
        ).write(to: URL(fileURLWithPath: script))
        #expect(String(decoding: try Self.python(script, [store]), as: UTF8.self) == "3\n")
        #expect(try Self.sha256(Self.companions(store))[2] != before[2])
    }

    @Test func aWALWithoutSHMIsRefusedWithoutCreatingOne() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try Self.makeNotebook(in: folder, variant: "wal-only")
        try FileManager.default.removeItem(atPath: store + "-shm")
        let before = try Self.sha256(Self.companions(store))
        let error = try Self.error { _ = try PersistentStoreReader(path: store) }
        #expect(error.path == FilePath(store))
        #expect(error.message.contains("-wal but no -shm"))
        #expect(try Self.sha256(Self.companions(store)) == before)
        #expect(!FileManager.default.fileExists(atPath: store + "-shm"))
    }

    // MARK: Bad input

    @Test func truncatedStoreFailsWithItsPlaceAndIsUnchanged() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try Self.makeNotebook(in: folder)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: store))
        // Keep the schema (pages 1 to 6 of 4 KB), cut the rest: the tables' pages are gone.
        try bytes.prefix(4096 * 6 + 100).write(to: URL(fileURLWithPath: store))
        let before = try Self.sha256(Self.companions(store))
        let error = try Self.error {
            let reader = try PersistentStoreReader(path: store, model: Self.notebookModel)
            try reader.forEachObject { _ in }
        }
        #expect(error.path == FilePath(store))
        #expect(error.description.hasPrefix(store + ": "))
        #expect(error.place != .none)
        #expect(try Self.sha256(Self.companions(store)) == before)
    }

    @Test func corruptHeaderIsAnErrorAtByteZero() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try Self.makeNotebook(in: folder)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: store))
        bytes.replaceSubrange(0..<16, with: Data("SQLite format 4\0".utf8))
        try bytes.write(to: URL(fileURLWithPath: store))
        let before = try Self.sha256(Self.companions(store))
        let error = try Self.error { _ = try PersistentStoreReader(path: store) }
        #expect(error.place == .byte(0))
        #expect(!PersistentStoreFormat.isStore(atPath: store))
        #expect(try Self.sha256(Self.companions(store)) == before)
    }

    @Test func anSQLiteFileWithoutCoreDataTablesIsNotAStore() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/plain.sqlite"
        let script = folder + "/plain.py"
        try Data("import sqlite3, sys\nc = sqlite3.connect(sys.argv[1]); c.execute('CREATE TABLE t (a)'); c.commit()\n".utf8)
            .write(to: URL(fileURLWithPath: script))
        try Self.python(script, [path])
        #expect(!PersistentStoreFormat.isStore(atPath: path))
        let error = try Self.error { _ = try PersistentStoreReader(path: path) }
        #expect(error.place == .table("Z_METADATA", row: nil, column: nil))
    }

    @Test(arguments: [
        ("transformable-not-archive", CoreDataError.Place.table("ZNOTE", row: 2, column: "ZEXTRA"), "not a keyed archive"),
        ("date-text", .table("ZNOTE", row: 1, column: "ZCREATED"), "Date in the model"),
        ("missing-column", .table("ZNOTE", row: nil, column: "ZSCORE"), "no such column"),
    ])
    func valuesNotMatchingTheModelFailWithTheirPlace(variant: String, place: CoreDataError.Place, words: String) throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try Self.makeNotebook(in: folder, variant: variant)
        let before = try Self.sha256(Self.companions(store))
        let reader = try PersistentStoreReader(path: store, model: Self.notebookModel)
        let error = try Self.error { try reader.forEachObject { _ in } }
        #expect(error.place == place)
        #expect(error.message.contains(words), "\(error)")
        #expect(reader.validate().contains { $0.place == place })
        #expect(try Self.sha256(Self.companions(store)) == before)
    }

    /// The fuzz target's property (`Fuzz/Sources/ICTFuzz/StoreTargets.swift`) over a fixed set of damaged stores:
    /// a byte changed every 97 bytes of the Notebook store, one at a time; each is read and validated (an error
    /// is fine, a crash is not) and is left as it was, with nothing written beside it.
    @Test func damagedStoresAreReadWithoutChangingThem() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let original = try Data(contentsOf: URL(fileURLWithPath: try Self.makeNotebook(in: folder)))
        let damagedFolder = folder + "/damaged"
        try FileManager.default.createDirectory(atPath: damagedFolder, withIntermediateDirectories: true)
        let path = damagedFolder + "/input.sqlite"
        var failures = 0
        for offset in stride(from: 0, to: original.count, by: 97) {
            var bytes = original
            bytes[offset] ^= 0x5A
            try bytes.write(to: URL(fileURLWithPath: path))
            do {
                let reader = try PersistentStoreReader(path: path, model: Self.notebookModel)
                try reader.forEachObject { _ in }
                _ = reader.validate()
            } catch is CoreDataError {
                failures += 1
            }
            #expect(FileManager.default.contents(atPath: path) == bytes, "offset \(offset)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: damagedFolder) == ["input.sqlite"], "offset \(offset)")
        }
        #expect(failures > 0, "some of the damage is found")
    }

    // MARK: Validation

    @Test func aGoodStoreValidates() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try Self.makeNotebook(in: folder)
        #expect(try PersistentStoreReader(path: store, model: Self.notebookModel).validate() == [])
        #expect(try PersistentStoreReader(path: Self.fixtures + "/CoreDataBooks.sqlite", model: Self.booksModel).validate() == [])
    }

    @Test func validationFindsKeysAboveZMaxAndDanglingRelationships() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let low = try Self.makeNotebook(in: folder, variant: "zmax-low")
        let lowProblems = try PersistentStoreReader(path: low, model: Self.notebookModel).validate()
        #expect(lowProblems.map(\.place) == [.table("ZNOTE", row: 2, column: "Z_PK")])
        try FileManager.default.removeItem(atPath: low)
        let dangling = try Self.makeNotebook(in: folder, variant: "dangling")
        let problems = try PersistentStoreReader(path: dangling, model: Self.notebookModel).validate()
        #expect(problems.map(\.place) == [.table("ZNOTE", row: 2, column: "ZFOLDER")])
        #expect(problems.first?.message.contains("Folder p9") == true)
    }

    @Test func validationComparesTheModelsVersionHashes() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try Self.makeNotebook(in: folder, variant: "hashes")
        var model = Self.notebookModel
        let note = try #require(model.entities.firstIndex { $0.name == "Note" })
        model.entities[note].versionHash = [UInt8](repeating: 0x11, count: 32)
        #expect(try PersistentStoreReader(path: store, model: model).validate() == [])
        model.entities[note].versionHash = [UInt8](repeating: 0x22, count: 32)
        let problems = try PersistentStoreReader(path: store, model: model).validate()
        #expect(problems.map(\.place) == [.entity("Note", property: nil)])
    }

    // MARK: The model cache

    /// A store with `Z_MODELCACHE` (hand-built, not written by Core Data: the compiled model `CartStorage.mom` of the model tests' fixtures,
    /// raw DEFLATE as NSData's `.zlib` writes it) is read with that model when none is given.
    @Test func theModelCacheIsReadWhenNoModelIsGiven() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try Self.makeNotebook(in: folder)
        let mom = Repository.path("Tests/CoreDataFilesTests/Fixtures/models/CartStorage.momd/CartStorage.mom")
        try Self.python(Self.fixtures + "/make_store.py", ["cache", store, mom])
        let reader = try PersistentStoreReader(path: store)
        #expect(reader.modelSource == .modelCache)
        #expect(reader.model == (try ManagedObjectModelReader().read(atPath: mom)))
        let given = try PersistentStoreReader(path: store, model: Self.notebookModel)
        #expect(given.modelSource == .given)
        #expect(try PersistentStoreReader(path: Self.fixtures + "/CoreDataBooks.sqlite").modelSource == PersistentStoreReader.ModelSource.none)
    }

    @Test func aModelCacheThatIsNotDeflateIsReportedAndTheStoreReadByItsColumns() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try Self.makeNotebook(in: folder)
        let notACompressedModel = folder + "/plain.bin"
        try Data("bplist00 not compressed".utf8).write(to: URL(fileURLWithPath: notACompressedModel))
        let script = folder + "/cache.py"
        try Data(
            """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1], isolation_level=None)
            db.execute("CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)")
            db.execute("INSERT INTO Z_MODELCACHE VALUES (?)", (open(sys.argv[2], "rb").read(),))
            """.utf8
        ).write(to: URL(fileURLWithPath: script))
        try Self.python(script, [store, notACompressedModel])
        // The store still opens, by its columns, and says why it has no model and where.
        let reader = try PersistentStoreReader(path: store)
        #expect(reader.modelSource == .none)
        #expect(reader.model == nil)
        #expect(reader.modelCacheProblem?.place == .table("Z_MODELCACHE", row: nil, column: "Z_CONTENT"))
        #expect(reader.modelCacheProblem?.message.contains("does not inflate as raw DEFLATE data") == true)
        // The Notebook store's entities, as make_store.py writes Z_PRIMARYKEY, and its 7 objects (Python's reading above).
        #expect(Set(reader.entities.map(\.name)) == ["Note", "Checklist", "Folder", "Label"])
        var objects = 0
        try reader.forEachObject { _ in objects += 1 }
        #expect(objects == 7)
        let given = try PersistentStoreReader(path: store, model: Self.notebookModel)
        #expect(given.modelSource == .given)
        #expect(given.modelCacheProblem == nil)
    }

    // MARK: Document packages

    @Test func managedDocumentPackageIsRecognisedAndRead() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let package = folder + "/Trip.document"
        try FileManager.default.createDirectory(atPath: package + "/StoreContent", withIntermediateDirectories: true)
        _ = try Self.makeNotebook(in: folder)
        try FileManager.default.moveItem(atPath: folder + "/Notebook.sqlite", toPath: package + "/StoreContent/persistentStore")
        let metadata = try PropertyListWriter().encode(
            .dictionary(["NSPersistentStoreType": .string("SQLite")]), format: .xml)
        try Data(metadata).write(to: URL(fileURLWithPath: package + "/DocumentMetadata.plist"))
        #expect(ManagedDocumentPackage.isPackage(atPath: package))
        #expect(!ManagedDocumentPackage.isPackage(atPath: folder))
        let document = try ManagedDocumentPackage(path: package)
        #expect(document.storePath == FilePath(package + "/StoreContent/persistentStore"))
        #expect(document.documentMetadata == .dictionary(["NSPersistentStoreType": .string("SQLite")]))
        #expect(!document.hasAdditionalContent)
        #expect(PersistentStoreFormat.isStore(at: try #require(document.storePath)))
        try Data("not a plist".utf8).write(to: URL(fileURLWithPath: package + "/DocumentMetadata.plist"))
        let error = try Self.error { _ = try ManagedDocumentPackage(path: package) }
        #expect(error.path == FilePath(package + "/DocumentMetadata.plist"))
    }
}

/// Stores Apple's Core Data wrote, from public repositories (`Fixtures/Apple/PROVENANCE.md`): each opens, its
/// model read from its own `Z_MODELCACHE` where it has one, and its entities, object counts and a sample of typed
/// values are what Python's sqlite3 reads (`Fixtures/Apple/read_apple_store.py`, values decoded there by hand).
@Suite struct AppleStoreTests {
    static let fixtures = Repository.path("Tests/CoreDataFilesTests/Fixtures/Apple")

    /// One value to compare: the object's property as ICTKit reads it, the column as Python decodes it.
    struct Sample {
        var entity: String
        var primaryKey: Int64
        var property: String
        var column: String
        var kind: String
        var destination: String? = nil
    }

    struct Store: CustomTestStringConvertible {
        var file: String
        var modelSource: PersistentStoreReader.ModelSource
        var samples: [Sample]
        var testDescription: String { file }
    }

    static let stores: [Store] = [
        Store(
            file: "CartStorage_v1.sqlite", modelSource: .modelCache,
            samples: [
                Sample(entity: "CDCart", primaryKey: 1, property: "createdAt", column: "ZCREATEDAT", kind: "date"),
                Sample(entity: "CDCart", primaryKey: 1, property: "displayName", column: "ZDISPLAYNAME", kind: "string"),
                Sample(entity: "CDCart", primaryKey: 1, property: "maxItemCount", column: "ZMAXITEMCOUNT", kind: "integer"),
                Sample(entity: "CDCartItem", primaryKey: 1, property: "totalPriceAmount", column: "ZTOTALPRICEAMOUNT", kind: "decimal"),
                Sample(entity: "CDCartItem", primaryKey: 1, property: "cart", column: "ZCART", kind: "object", destination: "CDCart"),
            ]),
        Store(
            file: "CartKitSwiftData_v1.sqlite", modelSource: .modelCache,
            samples: [
                Sample(entity: "CartModel", primaryKey: 1, property: "updatedAt", column: "ZUPDATEDAT", kind: "date"),
                Sample(entity: "CartModel", primaryKey: 1, property: "storeId", column: "ZSTOREID", kind: "string"),
                Sample(entity: "TRANSACTIONSTRING", primaryKey: 1, property: "ZNAME", column: "ZNAME", kind: "string"),
            ]),
        // iLEAPP's test data (Fixtures/Apple/PROVENANCE.md): stores apps wrote on iOS 15 to 17, with their -wal.
        Store(
            file: "NoteStore-iOS17.sqlite", modelSource: .modelCache,
            samples: [
                // Apple Notes keeps notes, folders and more in one table: columns of one name numbered (ZTITLE1, ZTITLE2).
                Sample(entity: "ICNote", primaryKey: 9, property: "title", column: "ZTITLE1", kind: "string"),
                Sample(entity: "ICNote", primaryKey: 9, property: "creationDate", column: "ZCREATIONDATE3", kind: "date"),
                Sample(entity: "ICNote", primaryKey: 9, property: "snippet", column: "ZSNIPPET", kind: "string"),
                Sample(entity: "ICNote", primaryKey: 9, property: "isPinned", column: "ZISPINNED", kind: "boolean"),
                Sample(entity: "ICNote", primaryKey: 9, property: "folder", column: "ZFOLDER", kind: "object", destination: "ICFolder"),
                Sample(entity: "ICFolder", primaryKey: 1, property: "title", column: "ZTITLE2", kind: "string"),
                Sample(entity: "ICFolder", primaryKey: 1, property: "folderType", column: "ZFOLDERTYPE", kind: "integer"),
            ]),
        Store(
            file: "NoteStore-iOS16.sqlite", modelSource: .modelCache,
            samples: [
                Sample(entity: "ICNote", primaryKey: 8, property: "title", column: "ZTITLE1", kind: "string"),
                Sample(entity: "ICNote", primaryKey: 8, property: "modificationDate", column: "ZMODIFICATIONDATE1", kind: "date"),
                Sample(entity: "ICNote", primaryKey: 8, property: "folder", column: "ZFOLDER", kind: "object", destination: "ICFolder"),
                Sample(entity: "ICFolder", primaryKey: 5, property: "identifier", column: "ZIDENTIFIER", kind: "string"),
            ]),
        Store(
            file: "Accounts3-iOS16.sqlite", modelSource: .modelCache,
            samples: [
                Sample(entity: "Account", primaryKey: 1, property: "username", column: "ZUSERNAME", kind: "string"),
                Sample(entity: "Account", primaryKey: 1, property: "date", column: "ZDATE", kind: "date"),
                Sample(entity: "Account", primaryKey: 1, property: "visible", column: "ZVISIBLE", kind: "boolean"),
                Sample(entity: "Account", primaryKey: 1, property: "accountType", column: "ZACCOUNTTYPE", kind: "object", destination: "AccountType"),
                Sample(entity: "AccountType", primaryKey: 1, property: "accountTypeDescription", column: "ZACCOUNTTYPEDESCRIPTION", kind: "string"),
            ]),
        Store(
            file: "CallHistory.sqlite", modelSource: .modelCache,
            samples: [
                Sample(entity: "WACDCallEvent", primaryKey: 1, property: "date", column: "ZDATE", kind: "date"),
                Sample(entity: "WACDCallEvent", primaryKey: 1, property: "duration", column: "ZDURATION", kind: "real"),
                Sample(entity: "WACDCallEvent", primaryKey: 1, property: "bytesReceived", column: "ZBYTESRECEIVED", kind: "integer"),
                Sample(
                    entity: "WACDCallEvent", primaryKey: 1, property: "groupCallCreatorUserJIDString", column: "ZGROUPCALLCREATORUSERJIDSTRING",
                    kind: "string"),
            ]),
        Store(
            file: "ContactsV2.sqlite", modelSource: .modelCache,
            samples: [
                Sample(entity: "WAAddressBookContact", primaryKey: 1, property: "fullName", column: "ZFULLNAME", kind: "string"),
                Sample(entity: "WAAddressBookContact", primaryKey: 1, property: "sort", column: "ZSORT", kind: "integer"),
            ]),
        Store(
            file: "sgrouplesdb.sqlite", modelSource: .modelCache,
            samples: [
                // A date SQLite holds as an INTEGER (608321126): Core Data wrote whole seconds.
                Sample(entity: "ChatMessage", primaryKey: 1, property: "date", column: "ZDATE", kind: "date"),
                Sample(entity: "ChatMessage", primaryKey: 1, property: "messageId", column: "ZMESSAGEID", kind: "string"),
                Sample(entity: "Group", primaryKey: 1, property: "name", column: "ZNAME", kind: "string"),
                Sample(entity: "Group", primaryKey: 1, property: "membersCount", column: "ZMEMBERSCOUNT", kind: "integer"),
                Sample(entity: "Group", primaryKey: 1, property: "isPublic", column: "ZISPUBLIC", kind: "boolean"),
            ]),
        Store(
            file: "SkypeSpacesDogfood.sqlite", modelSource: .modelCache,
            samples: [
                Sample(entity: "SMessage", primaryKey: 1, property: "arrivalTime", column: "ZARRIVALTIME", kind: "date"),
                Sample(entity: "SMessage", primaryKey: 1, property: "messageType", column: "ZMESSAGETYPE", kind: "string"),
                Sample(entity: "SMessage", primaryKey: 1, property: "sequenceID", column: "ZSEQUENCEID", kind: "integer"),
                Sample(entity: "Conversation", primaryKey: 1, property: "memberRole", column: "ZMEMBERROLE", kind: "string"),
            ]),
        Store(
            file: "TestMigrationStore_version_1.sqlite", modelSource: .none,
            samples: [Sample(entity: "Entity", primaryKey: 1, property: "ZDATE", column: "ZDATE", kind: "real")]),
        Store(
            file: "Recipes.sqlite", modelSource: .none,
            samples: [
                Sample(entity: "Recipe", primaryKey: 1, property: "ZNAME", column: "ZNAME", kind: "string"),
                Sample(entity: "Ingredient", primaryKey: 1, property: "ZNAME", column: "ZNAME", kind: "string"),
            ]),
    ]

    /// A copy of the store (its -wal and -shm too) in a fresh folder, so that nothing under Fixtures is opened.
    static func copy(_ file: String) throws -> (folder: String, store: String) {
        let folder = try StoreReaderTests.temporaryFolder()
        let store = folder + "/" + file
        for (source, target) in zip(StoreReaderTests.companions(fixtures + "/" + file), StoreReaderTests.companions(store))
        where FileManager.default.fileExists(atPath: source) {
            try FileManager.default.copyItem(atPath: source, toPath: target)
        }
        return (folder, store)
    }

    /// Python's reading of the store and the samples' columns.
    static func pythonReading(of store: String, samples: [Sample]) throws -> PropertyListValue {
        var requests: [PropertyListValue] = []
        for sample in samples {
            requests.append(
                .dictionary([
                    "entity": .string(sample.entity), "pk": .integer(PropertyListInteger(sample.primaryKey)),
                    "column": .string(sample.column), "kind": .string(sample.kind), "destination": .string(sample.destination ?? ""),
                ]))
        }
        let input = try JSONPropertyListWriter().encode(.array(requests))
        let script = try String(contentsOfFile: fixtures + "/read_apple_store.py", encoding: .utf8)
        let output = try PythonScript.run(script, arguments: [store], input: Data(input))
        return try PropertyListReader().read(output, format: .json).value
    }

    /// ICTKit's value in the form Python's reading gives it.
    static func comparable(_ value: PersistentStoreValue?) -> PropertyListValue {
        switch value {
        case .string(let text)?, .decimal(let text)?, .uuid(let text)?, .uri(let text)?: .string(text)
        case .integer(let integer)?: .integer(PropertyListInteger(integer))
        case .real(let real)?, .date(let real)?: .real(real)
        case .boolean(let flag)?: .bool(flag)
        case .objectID(let id)?: .string(id.uriRepresentation)
        default: .string("not comparable: \(String(describing: value))")
        }
    }

    /// Stores without a `Z_MODELCACHE` and the model they were written with, from the same repository
    /// (Fixtures/models/SOURCES.md): Apple's Recipes store with its sample's Xcode 3 model (`elements`), and
    /// CTDataStoreManager's migration store with its first model version.
    static let storesWithTheirModels: [(file: String, model: String, samples: [Sample])] = [
        (
            "Recipes.sqlite", "Recipes.xcdatamodel",
            [
                Sample(entity: "Recipe", primaryKey: 1, property: "name", column: "ZNAME", kind: "string"),
                Sample(entity: "Recipe", primaryKey: 1, property: "prepTime", column: "ZPREPTIME", kind: "string"),
                Sample(entity: "Recipe", primaryKey: 1, property: "type", column: "ZTYPE", kind: "object", destination: "RecipeType"),
                Sample(entity: "Recipe", primaryKey: 1, property: "image", column: "ZIMAGE", kind: "object", destination: "Image"),
                Sample(entity: "Ingredient", primaryKey: 1, property: "displayOrder", column: "ZDISPLAYORDER", kind: "integer"),
                Sample(entity: "Ingredient", primaryKey: 1, property: "recipe", column: "ZRECIPE", kind: "object", destination: "Recipe"),
            ]
        ),
        (
            "TestMigrationStore_version_1.sqlite", "TestMigrationStore.xcdatamodeld/TestMigrationStore.xcdatamodel",
            [Sample(entity: "Entity", primaryKey: 1, property: "date", column: "ZDATE", kind: "date")]
        ),
    ]

    @Test(arguments: storesWithTheirModels.indices)
    func appleStoreReadsWithTheModelItWasWrittenWith(_ index: Int) throws {
        let (file, modelPath, samples) = Self.storesWithTheirModels[index]
        let model = try ManagedObjectModelReader().read(atPath: ModelFixtures.path(modelPath))
        let (pythonFolder, pythonCopy) = try Self.copy(file)
        defer { try? FileManager.default.removeItem(atPath: pythonFolder) }
        let expected = try Self.pythonReading(of: pythonCopy, samples: samples)
        let (folder, store) = try Self.copy(file)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let before = try StoreReaderTests.sha256(StoreReaderTests.companions(store))
        let reader = try PersistentStoreReader(path: store, model: model)
        #expect(reader.modelSource == .given)
        guard case .dictionary(let top) = expected, case .array(let values)? = top["values"] else {
            Issue.record("read_apple_store.py printed \(expected)")
            return
        }
        for (sample, value) in zip(samples, values) {
            let id = ManagedObjectID(storeIdentifier: reader.metadata.storeIdentifier, entityName: sample.entity, primaryKey: sample.primaryKey)
            let record = try #require(try reader.object(id), "\(sample.entity)[p\(sample.primaryKey)]")
            #expect(Self.comparable(record.values[sample.property]) == value, "\(sample.entity)[p\(sample.primaryKey)].\(sample.property)")
        }
        var count = 0
        try reader.forEachObject { _ in count += 1 }
        #expect(count > 0)
        #expect(reader.validate().isEmpty)
        #expect(try StoreReaderTests.sha256(StoreReaderTests.companions(store)) == before)
    }

    /// What two caches showed (read by hand with plistlib from `Z_CONTENT` inflated): MeWe's ChatMessage.sectionIdentifier
    /// has `NSIsTransient` (no column in ZCHATMESSAGE); Teams' ExternalDocumentLibrary (entity 31, Z_SUPER 30) lists
    /// 30 properties, 26 of them `_NSPropertyDescriptionProxy` for SFile's 26 — its own are the other 4.
    @Test func aCachedModelKeepsTransientsAndInheritedProperties() throws {
        let (meweFolder, mewe) = try Self.copy("sgrouplesdb.sqlite")
        defer { try? FileManager.default.removeItem(atPath: meweFolder) }
        let meweModel = try #require(try PersistentStoreReader(path: mewe).model)
        #expect(meweModel.entity(named: "ChatMessage")?.attributes.first { $0.name == "sectionIdentifier" }?.isTransient == true)
        let (teamsFolder, teams) = try Self.copy("SkypeSpacesDogfood.sqlite")
        defer { try? FileManager.default.removeItem(atPath: teamsFolder) }
        let teamsModel = try #require(try PersistentStoreReader(path: teams).model)
        let library = try #require(teamsModel.entity(named: "ExternalDocumentLibrary"))
        #expect(library.superentityName == "SFile")
        #expect(library.attributes.count + library.relationships.count == 4)
        #expect(teamsModel.allAttributes(of: "ExternalDocumentLibrary").count + teamsModel.allRelationships(of: "ExternalDocumentLibrary").count == 30)
    }

    /// Recipes' thumbnails went through the sample's own ImageToDataTransformer (JPEG, not a keyed archive): the
    /// stored bytes are the value, as Python reads the column.
    @Test func aTransformableOfAnAppsOwnTransformerIsItsBytes() throws {
        let model = try ManagedObjectModelReader().read(atPath: ModelFixtures.path("Recipes.xcdatamodel"))
        let (folder, store) = try Self.copy("Recipes.sqlite")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let reader = try PersistentStoreReader(path: store, model: model)
        let id = ManagedObjectID(storeIdentifier: reader.metadata.storeIdentifier, entityName: "Recipe", primaryKey: 1)
        let record = try #require(try reader.object(id))
        guard case .data(let bytes)? = record.values["thumbnailImage"] else {
            Issue.record("thumbnailImage is \(String(describing: record.values["thumbnailImage"]))")
            return
        }
        let script = "import sqlite3, sys\nprint(sqlite3.connect(sys.argv[1]).execute('SELECT hex(ZTHUMBNAILIMAGE) FROM ZRECIPE WHERE Z_PK = 1').fetchone()[0])"
        let hex = String(decoding: try PythonScript.run(script, arguments: [store], input: Data()), as: UTF8.self)
        #expect(bytes.map { String(format: "%02X", $0) }.joined() == hex.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(bytes.prefix(3) == [0xFF, 0xD8, 0xFF])  // JPEG's start-of-image marker
    }

    @Test(arguments: stores)
    func appleStoreReadsAsPythonReadsIt(_ fixture: Store) throws {
        // Python reads a copy of its own: closing a connection with its sqlite3 checkpoints the -wal into the store.
        let (pythonFolder, pythonCopy) = try Self.copy(fixture.file)
        defer { try? FileManager.default.removeItem(atPath: pythonFolder) }
        let expected = try Self.pythonReading(of: pythonCopy, samples: fixture.samples)
        let (folder, store) = try Self.copy(fixture.file)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let before = try StoreReaderTests.sha256(StoreReaderTests.companions(store))
        let reader = try PersistentStoreReader(path: store)
        #expect(reader.modelSource == fixture.modelSource)
        #expect(reader.modelCacheProblem == nil)
        guard case .dictionary(let top) = expected, case .array(let entities)? = top["entities"], case .array(let values)? = top["values"]
        else {
            Issue.record("read_apple_store.py printed \(expected)")
            return
        }
        #expect(top["uuid"] == .string(reader.metadata.storeIdentifier))
        var ours: [PropertyListValue] = []
        for entity in reader.entities {
            ours.append(
                .dictionary([
                    "name": .string(entity.name), "number": .integer(PropertyListInteger(entity.number)),
                    "count": .integer(PropertyListInteger(try reader.objectCount(of: entity))),
                ]))
        }
        #expect(ours == entities)
        for (sample, value) in zip(fixture.samples, values) {
            let id = ManagedObjectID(storeIdentifier: reader.metadata.storeIdentifier, entityName: sample.entity, primaryKey: sample.primaryKey)
            let record = try #require(try reader.object(id), "\(sample.entity)[p\(sample.primaryKey)]")
            #expect(Self.comparable(record.values[sample.property]) == value, "\(sample.entity)[p\(sample.primaryKey)].\(sample.property)")
        }
        // Every object reads, and validation finds nothing where Core Data opens the store.
        var count = 0
        try reader.forEachObject { _ in count += 1 }
        #expect(count > 0)
        #expect(reader.validate().isEmpty)
        #expect(try StoreReaderTests.sha256(StoreReaderTests.companions(store)) == before)
    }
}
