import Foundation
import TestSupport
import Testing

/// `ict inspect`, `convert`, `validate` and `get` of Core Data stores end to end, against Python's reading of
/// the same stores (`Tests/CoreDataFilesTests/Fixtures/stores/read_store.py`), the store's files unchanged.
struct StoreCommandTests {
    static let fixtures = Repository.path("Tests/CoreDataFilesTests/Fixtures/stores")
    static let books = fixtures + "/CoreDataBooks.sqlite"

    static func temporaryFolder() throws -> String {
        let path = try ScratchFolder.make("store").path
        return path
    }

    @discardableResult
    static func python(_ arguments: [String]) throws -> Data { try PythonScript.run(arguments: arguments) }

    /// Python's reading of a copy of `store`, one parsed JSON object a line.
    static func pythonObjects(_ store: String, model: String) throws -> [NSDictionary] {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: store + suffix) {
            try FileManager.default.copyItem(atPath: store + suffix, toPath: folder + "/copy.sqlite" + suffix)
        }
        return try objects(String(decoding: python([fixtures + "/read_store.py", folder + "/copy.sqlite", model]), as: UTF8.self))
    }

    static func objects(_ lines: String) throws -> [NSDictionary] {
        try lines.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? NSDictionary)
        }
    }

    static func sha256(_ paths: [String]) throws -> String {
        let script = "import hashlib, os, sys\nfor p in sys.argv[1:]: print(hashlib.sha256(open(p, 'rb').read()).hexdigest() if os.path.exists(p) else '-')"
        return String(decoding: try python(["-c", script] + paths), as: UTF8.self)
    }

    /// A store Apple's Core Data wrote with its model cached (CartKit's, `Fixtures/Apple/PROVENANCE.md`), read
    /// through a copy: inspected with its own model, valid, every object converted; entity counts as Python's
    /// sqlite3 gives them (`SELECT count(*) FROM ZCDCART` and so on: 1, 1, 0).
    @Test func aStoreCoreDataWroteIsInspectedWithItsCachedModelAndValid() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = folder + "/CartStorage_v1.sqlite"
        let source = Repository.path("Tests/CoreDataFilesTests/Fixtures/Apple/CartStorage_v1.sqlite")
        for suffix in ["", "-wal", "-shm"] { try FileManager.default.copyItem(atPath: source + suffix, toPath: store + suffix) }
        let inspect = try ICTRunner.run(["inspect", store])
        #expect(inspect.status == 0, "\(inspect.stderr)")
        #expect(inspect.stdout.contains("model: the store's Z_MODELCACHE (3 entities)\n"))
        #expect(inspect.stdout.contains("  CDCart (Z_ENT 1, table ZCDCART): 1 objects, Z_MAX 1\n"))
        #expect(inspect.stdout.contains("  CDCartItemModifier (Z_ENT 3, table ZCDCARTITEMMODIFIER): 0 objects, Z_MAX 0\n"))
        let validate = try ICTRunner.run(["validate", store])
        #expect(validate.status == 0, "\(validate.stdout)\(validate.stderr)")
        let convert = try ICTRunner.run(["convert", store, "--format", "jsonl"])
        #expect(convert.status == 0, "\(convert.stderr)")
        #expect(convert.stdout.split(separator: "\n").count == 2)
    }

    /// Every store Core Data wrote in `Fixtures/Apple` (PROVENANCE.md), through a copy with its -wal and -shm:
    /// `ict validate` finds nothing (exit 0), `ict convert --format jsonl` writes one line per object, as many as
    /// Python's sqlite3 counts rows of each `Z_PRIMARYKEY` entity (`read_apple_store.py`), and no file changes.
    @Test(arguments: [
        "NoteStore-iOS17.sqlite", "NoteStore-iOS16.sqlite", "Accounts3-iOS16.sqlite", "CallHistory.sqlite", "ContactsV2.sqlite",
        "sgrouplesdb.sqlite", "SkypeSpacesDogfood.sqlite", "CartStorage_v1.sqlite", "CartKitSwiftData_v1.sqlite",
        "TestMigrationStore_version_1.sqlite", "Recipes.sqlite",
    ])
    func everyStoreCoreDataWroteValidatesAndConverts(_ file: String) throws {
        let apple = Repository.path("Tests/CoreDataFilesTests/Fixtures/Apple")
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let pythonFolder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: pythonFolder) }
        let store = folder + "/" + file
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: apple + "/" + file + suffix) {
            try FileManager.default.copyItem(atPath: apple + "/" + file + suffix, toPath: store + suffix)
            try FileManager.default.copyItem(atPath: apple + "/" + file + suffix, toPath: pythonFolder + "/" + file + suffix)
        }
        let script = try String(contentsOfFile: apple + "/read_apple_store.py", encoding: .utf8)
        let reading = try PythonScript.run(script, arguments: [pythonFolder + "/" + file], input: Data("[]".utf8))
        let object = try #require(try JSONSerialization.jsonObject(with: reading) as? [String: Any])
        let entities = try #require(object["entities"] as? [[String: Any]])
        let objects = entities.reduce(0) { $0 + (($1["count"] as? Int) ?? 0) }
        let files = [store, store + "-wal", store + "-shm"]
        let before = try Self.sha256(files)
        let validate = try ICTRunner.run(["validate", store])
        #expect(validate.status == 0, "\(validate.stdout)\(validate.stderr)")
        let convert = try ICTRunner.run(["convert", store, "--format", "jsonl"])
        #expect(convert.status == 0, "\(convert.stderr)")
        #expect(convert.stdout.split(separator: "\n").count == objects)
        #expect(try Self.sha256(files) == before)
    }

    @Test func inspectSummarisesTheStore() throws {
        let run = try ICTRunner.run(["inspect", Self.books])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("\(Self.books): Core Data SQLite store\n"))
        #expect(run.stdout.contains("store UUID: 7586DF36-6B0E-45D3-9862-19C40A480696\n"))
        #expect(run.stdout.contains("  Book (Z_ENT 1, table ZBOOK): 12 objects, Z_MAX 24\n"))
        let json = try ICTRunner.run(["inspect", "--json", Self.books])
        #expect(json.status == 0)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(document["kind"] as? String == "coreDataStore")
        let store = try #require(document["store"] as? [String: Any])
        #expect(store["uuid"] as? String == "7586DF36-6B0E-45D3-9862-19C40A480696")
        let entities = try #require(store["entities"] as? [[String: Any]])
        #expect(entities.map { $0["name"] as? String } == ["Book"])
        #expect(entities.map { $0["count"] as? Int } == [12])
    }

    @Test func convertWritesEveryObjectAsPythonReadsIt() throws {
        let expected = try Self.pythonObjects(Self.books, model: "columns")
        #expect(expected.count == 12)
        let lines = try ICTRunner.run(["convert", Self.books, "--format", "jsonl"])
        #expect(lines.status == 0, "\(lines.stderr)")
        #expect(try Self.objects(lines.stdout) == expected)
        let array = try ICTRunner.run(["convert", Self.books, "--format", "json"])
        #expect(array.status == 0)
        #expect(try JSONSerialization.jsonObject(with: Data(array.stdout.utf8)) as? [NSDictionary] == expected)
    }

    @Test func convertReadsTheWALAndChangesNoFile() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = folder + "/Notebook.sqlite"
        try Self.python([Self.fixtures + "/make_store.py", "notebook", store, "--variant", "wal-only"])
        let files = [store, store + "-wal", store + "-shm"]
        let before = try Self.sha256(files)
        let expected = try Self.pythonObjects(store, model: "columns")
        #expect(expected.count == 7)
        let run = try ICTRunner.run(["convert", store, "--format", "jsonl"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try Self.objects(run.stdout) == expected)
        #expect(try ICTRunner.run(["validate", store]).status == 0)
        #expect(try Self.sha256(files) == before)
    }

    @Test func modelTypesTheValuesAndABadTransformableFailsAtItsPlace() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let model = Self.fixtures + "/Notebook.xcdatamodel"
        let store = folder + "/Notebook.sqlite"
        try Self.python([Self.fixtures + "/make_store.py", "notebook", store])
        let run = try ICTRunner.run(["convert", store, "--format", "jsonl", "--model", model])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try Self.objects(run.stdout) == Self.pythonObjects(store, model: "notebook"))
        let uuid = try ICTRunner.run(["get", store, "Note[p1].identifier", "--model", model])
        #expect(uuid.stdout == "6F9619FF-8B86-D011-B42D-00C04FC964FF\n")
        let bad = folder + "/Bad.sqlite"
        try Self.python([Self.fixtures + "/make_store.py", "notebook", bad, "--variant", "transformable-not-archive"])
        let before = try Self.sha256([bad, bad + "-wal", bad + "-shm"])
        let failed = try ICTRunner.run(["convert", bad, "--format", "jsonl", "--model", model, "-o", folder + "/out.jsonl"])
        #expect(failed.status == 1)
        #expect(
            failed.stderr.hasPrefix("\(bad):table ZNOTE, row 2, column ZEXTRA: error: extra is Transformable, but its value is not a keyed archive"),
            "\(failed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/out.jsonl"))
        let validation = try ICTRunner.run(["validate", bad, "--model", model])
        #expect(validation.status == 1)
        #expect(validation.stderr.contains("table ZNOTE, row 2, column ZEXTRA"))
        #expect(try Self.sha256([bad, bad + "-wal", bad + "-shm"]) == before)
    }

    @Test func validateSaysWhereAStoreIsWrong() throws {
        let good = try ICTRunner.run(["validate", Self.books])
        #expect(good.status == 0, "\(good.stderr)")
        #expect(good.stdout == "\(Self.books): valid Core Data SQLite store\n")
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = folder + "/Notebook.sqlite"
        try Self.python([Self.fixtures + "/make_store.py", "notebook", store, "--variant", "zmax-low"])
        let before = try Self.sha256([store, store + "-wal", store + "-shm"])
        let bad = try ICTRunner.run(["validate", store])
        #expect(bad.status == 1)
        #expect(bad.stderr.hasPrefix("\(store):table ZNOTE, row 2, column Z_PK: error: primary key 2 is above Z_MAX (1)"), "\(bad.stderr)")
        #expect(try Self.sha256([store, store + "-wal", store + "-shm"]) == before)
    }

    @Test func getPrintsOneValue() throws {
        let title = try ICTRunner.run(["get", Self.books, "Book[p11].ZTITLE"])
        #expect(title.status == 0, "\(title.stderr)")
        #expect(title.stdout == "Moving Pictures\n")
        let byURI = try ICTRunner.run(["get", Self.books, "x-coredata://7586DF36-6B0E-45D3-9862-19C40A480696/Book/p11", "--format", "json"])
        #expect(byURI.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(byURI.stdout.utf8)) as? NSDictionary)
        #expect(try Self.pythonObjects(Self.books, model: "columns").contains(object))
        let missing = try ICTRunner.run(["get", Self.books, "Book[p999].ZTITLE"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("no object Book[p999]"))
    }

    @Test func aTruncatedStoreFailsAtItsTableAndWritesNothing() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = folder + "/Notebook.sqlite"
        try Self.python([Self.fixtures + "/make_store.py", "notebook", store])
        let output = folder + "/out.jsonl"
        // Whole pages cut: SQLite's own check finds the tables' pages gone.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: store))
        try bytes.prefix(4096 * 6).write(to: URL(fileURLWithPath: store))
        let before = try Self.sha256([store, store + "-wal", store + "-shm"])
        let run = try ICTRunner.run(["convert", store, "--format", "jsonl", "-o", output])
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("\(store):table "), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
        #expect(try Self.sha256([store, store + "-wal", store + "-shm"]) == before)
    }

    @Test func aManagedDocumentPackageIsInspectedAsADocument() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let package = folder + "/Trip.document"
        try FileManager.default.createDirectory(atPath: package + "/StoreContent", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.books, toPath: package + "/StoreContent/persistentStore")
        try Self.python([
            "-c", "import plistlib, sys; open(sys.argv[1], 'wb').write(plistlib.dumps({'NSPersistentStoreType': 'SQLite'}))",
            package + "/DocumentMetadata.plist",
        ])
        let run = try ICTRunner.run(["inspect", package])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.hasPrefix("\(package): managed document package (UIManagedDocument), store StoreContent/persistentStore\n"))
        #expect(run.stdout.contains("document metadata: NSPersistentStoreType\n"))
        #expect(run.stdout.contains("  Book (Z_ENT 1, table ZBOOK): 12 objects, Z_MAX 24\n"))
        #expect(try ICTRunner.run(["validate", package]).status == 0)
    }

    /// Issue 41 item 3 on Apple Notes' own store (iOS 17.3, iLEAPP's MIT test data): each note's text is
    /// reached through its gzip and protocol buffer by `get` and is in `convert --expand`'s layers, as
    /// Python's sqlite3, gzip and `protoc --decode_raw` read them; each text starts with the title Notes
    /// keeps in its own column (`ZICCLOUDSYNCINGOBJECT.ZTITLE1`); no file of the store changes.
    @Test(.externalTools(["/usr/bin/protoc"]))
    func aNotesStoresNoteTextsAreReadThroughTheirLayers() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let apple = Repository.path("Tests/CoreDataFilesTests/Fixtures/Apple")
        for suffix in ["", "-wal", "-shm"] {
            try FileManager.default.copyItem(atPath: apple + "/NoteStore-iOS17.sqlite" + suffix, toPath: folder + "/NoteStore.sqlite" + suffix)
        }
        let store = folder + "/NoteStore.sqlite"
        // Python: each gzipped ZICNOTEDATA.ZDATA's text (protoc's field 2 > 3 > 2) with its note's title.
        let script = """
            import gzip, json, sqlite3, subprocess, sys
            db = sqlite3.connect('file:' + sys.argv[1] + '?mode=ro', uri=True)
            rows = db.execute("SELECT d.Z_PK, d.ZDATA, n.ZTITLE1 FROM ZICNOTEDATA d JOIN ZICCLOUDSYNCINGOBJECT n ON n.ZNOTEDATA = d.Z_PK "
                              "WHERE substr(d.ZDATA, 1, 2) = x'1f8b' ORDER BY d.Z_PK").fetchall()
            notes = []
            for pk, data, title in rows:
                decoded = subprocess.run(['protoc', '--decode_raw'], input=gzip.decompress(data), capture_output=True, check=True).stdout
                text = None
                for line in decoded.decode().splitlines():
                    if line.startswith('    2: "'):
                        text = line[len('    2: "'):-1].encode('latin-1').decode('unicode_escape').encode('latin-1').decode('utf-8')
                        break
                notes.append({'pk': pk, 'title': title, 'text': text, 'inflated': len(gzip.decompress(data))})
            print(json.dumps(notes))
            """
        let notes = try JSONSerialization.jsonObject(with: Self.python(["-c", script, store])) as? [[String: Any]] ?? []
        try #require(notes.count >= 5, "gzipped notes: \(notes.count)")
        // Taken after Python's reading, which as a reader of a WAL store writes its -shm.
        let before = try Self.sha256([store, store + "-wal", store + "-shm"])
        for note in notes {
            let pk = try #require(note["pk"] as? Int), text = try #require(note["text"] as? String)
            let get = try ICTRunner.run(["get", store, "ICNoteData[p\(pk)].data!.2.3.2"])
            #expect(get.status == 0, "\(get.stderr)")
            #expect(get.stdout == text + "\n", "note \(pk)")
            if let title = note["title"] as? String { #expect(text.hasPrefix(title), "note \(pk): '\(title)' begins '\(text.prefix(40))'") }
        }
        #expect(notes.contains { ($0["text"] as? String)?.hasPrefix("iOS 14 Note\n\nThis is a note created for iOS 14.") == true })

        let converted = try ICTRunner.run(["convert", "--format", "jsonl", "--expand", store])
        #expect(converted.status == 0, "\(converted.stderr)")
        var layered: [Int: (inflated: Int, text: String?)] = [:]
        for object in try Self.objects(converted.stdout) where object["entity"] as? String == "ICNoteData" {
            guard let id = object["id"] as? String, let pk = Int(id.split(separator: "p").last ?? ""),
                let layers = (object["layers"] as? [String: Any])?["data"] as? [[String: Any]], let gzip = layers.first,
                gzip["format"] as? String == "gzip", let inner = (gzip["embedded"] as? [[String: Any]])?.first
            else { continue }
            #expect(inner["kind"] as? String == "protocolBuffer")
            func field(_ number: Int, in fields: Any?) -> [String: Any]? {
                (fields as? [[String: Any]])?.first { $0["number"] as? Int == number }
            }
            let text = field(2, in: field(3, in: field(2, in: inner["fields"])?["fields"])?["fields"])?["text"] as? String
            layered[pk] = (gzip["inflatedLength"] as? Int ?? -1, text)
        }
        for note in notes {
            let pk = note["pk"] as! Int
            #expect(layered[pk]?.inflated == note["inflated"] as? Int && layered[pk]?.text == note["text"] as? String, "note \(pk)")
        }
        #expect(try Self.sha256([store, store + "-wal", store + "-shm"]) == before)
    }

    /// Issue 41 item 3's typed stream and NIB archive layers in a store's column: Apple Notes' own store
    /// (as above) with three `ZICNOTEDATA.ZDATA` blobs replaced by Python's sqlite3 with bytes Apple's
    /// programs wrote (an iMessage `attributedBody`, Tests/TypedStreamTests/Fixtures/SOURCES.md; a NIB
    /// archive Xcode compiled, Tests/NIBArchiveTests/Fixtures/SOURCES.md; the first 40 bytes of the
    /// `attributedBody`, cut short): the store is Apple's, the blobs Apple's, their placing ours. `get`
    /// steps into each; `convert --expand` carries each decoded layer beside the raw bytes, the cut one
    /// with its error and byte offset; no file of the store changes. Expected values: pytypedstream and
    /// nibarchive (the NIBArchive tests' peer).
    @Test(.externalTools(["/usr/bin/env"]))
    func typedStreamAndNibLayersInAStoreColumnAreReadAndCarried() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let apple = Repository.path("Tests/CoreDataFilesTests/Fixtures/Apple")
        for suffix in ["", "-wal", "-shm"] {
            try FileManager.default.copyItem(atPath: apple + "/NoteStore-iOS17.sqlite" + suffix, toPath: folder + "/NoteStore.sqlite" + suffix)
        }
        let store = folder + "/NoteStore.sqlite"
        let body = Repository.path("Tests/TypedStreamTests/Fixtures/AttributedBodyTextOnly")
        let nib = Repository.path("Tests/NIBArchiveTests/Fixtures/UIViewController-01J-lp-oVM.nib")
        let place = """
            import json, sqlite3, sys, typedstream
            body, nib = open(sys.argv[2], 'rb').read(), open(sys.argv[3], 'rb').read()
            db = sqlite3.connect(sys.argv[1])
            pks = [row[0] for row in db.execute('SELECT Z_PK FROM ZICNOTEDATA ORDER BY Z_PK LIMIT 3')]
            for pk, blob in zip(pks, [body, nib, body[:40]]):
                db.execute('UPDATE ZICNOTEDATA SET ZDATA = ? WHERE Z_PK = ?', (blob, pk))
            db.commit()
            db.close()
            print(json.dumps({'pks': pks, 'text': typedstream.unarchive_from_data(body).contents[0].value.value, 'nibLength': len(nib)}))
            """
        let placed = try #require(try JSONSerialization.jsonObject(with: Self.python(["-c", place, store, body, nib])) as? [String: Any])
        let pks = try #require(placed["pks"] as? [Int])
        try #require(pks.count == 3)
        let text = try #require(placed["text"] as? String)
        #expect(text == "Noter test")
        let peer = """
            import json, subprocess, sys
            form = json.loads(subprocess.run([sys.executable, sys.argv[1], sys.argv[2]], capture_output=True, check=True).stdout)
            print(json.dumps([o['className'] for o in form['file']['objects']]))
            """
        let classNames = try #require(
            try JSONSerialization.jsonObject(with: Self.python(["-c", peer, Repository.path("Tests/NIBArchiveTests/Fixtures/nibarchive_peer.py"), nib]))
                as? [String])
        let before = try Self.sha256([store, store + "-wal", store + "-shm"])

        let get = try ICTRunner.run(["get", store, "ICNoteData[p\(pks[0])].data!.string"])
        #expect(get.status == 0, "\(get.stderr)")
        #expect(get.stdout == text + "\n")
        let nibGet = try ICTRunner.run(["get", store, "ICNoteData[p\(pks[1])].data!.objects.13.className"])
        #expect(nibGet.stdout == classNames[13] + "\n", "\(nibGet.stderr)")
        let cut = try ICTRunner.run(["get", store, "ICNoteData[p\(pks[2])].data!.string"])
        #expect(cut.status == 1)
        #expect(cut.stderr.contains("the NSArchiver typed stream at 'data' does not read: "), "\(cut.stderr)")
        #expect(cut.stderr.contains("(at byte "), "\(cut.stderr)")
        #expect(cut.stderr.contains("ICNoteData[p\(pks[2])].data!.string"), "\(cut.stderr)")

        let converted = try ICTRunner.run(["convert", "--format", "jsonl", "--expand", store])
        #expect(converted.status == 0, "\(converted.stderr)")
        var layers: [Int: [String: Any]] = [:]
        for object in try Self.objects(converted.stdout) where object["entity"] as? String == "ICNoteData" {
            guard let id = object["id"] as? String, let pk = Int(id.split(separator: "p").last ?? ""),
                let layer = ((object["layers"] as? [String: Any])?["data"] as? [[String: Any]])?.first
            else { continue }
            layers[pk] = layer
        }
        let typed = try #require(layers[pks[0]])
        #expect(typed["kind"] as? String == "typedStream")
        #expect((typed["value"] as? [String: Any])?["string"] as? String == text)
        #expect((typed["typedStream"] as? [String: Any])?["format"] as? String == "typedstream")
        let nibLayer = try #require(layers[pks[1]])
        #expect(nibLayer["kind"] as? String == "nibArchive")
        #expect(nibLayer["length"] as? Int == placed["nibLength"] as? Int)
        let objects = ((nibLayer["value"] as? [String: Any])?["objects"] as? [[String: Any]]) ?? []
        #expect(objects.map { $0["className"] as? String ?? "" } == classNames)
        let cutLayer = try #require(layers[pks[2]])
        #expect(cutLayer["kind"] as? String == "typedStream")
        #expect((cutLayer["error"] as? [String: Any])?["offset"] is Int)
        #expect(cutLayer["value"] == nil)
        #expect(try Self.sha256([store, store + "-wal", store + "-shm"]) == before)
    }
}
