import Foundation
import TestSupport
import Testing

/// The Core Data calls of the C interface (CoreDataExports.swift) used from C: CProgram/store_client.c compiled against
/// the header and the built libICTKitC.so, run under valgrind as CLibraryTests runs plist_client (every block freed,
/// no invalid read or write).
@Suite(.externalTools(["/usr/bin/valgrind", "/usr/bin/objcopy"]))
struct CoreDataExportsTests {
    /// Stores Core Data wrote (Tests/CoreDataFilesTests/Fixtures, PROVENANCE.md), copied with their -wal and -shm into
    /// the client's folder so nothing opens the fixtures themselves.
    static let stores = ["stores/CoreDataBooks.sqlite", "Apple/Recipes.sqlite", "Apple/NoteStore-iOS17.sqlite", "Apple/Accounts3-iOS16.sqlite"]

    static func copies(into folder: URL) throws -> [String] {
        try stores.map { store in
            let source = Repository.path("Tests/CoreDataFilesTests/Fixtures/" + store)
            let target = folder.appendingPathComponent((store as NSString).lastPathComponent).path
            for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: source + suffix) {
                try FileManager.default.copyItem(atPath: source + suffix, toPath: target + suffix)
            }
            return target
        }
    }

    /// Every object of each store read in batches of 1 and of 1000: as many as Python's sqlite3 counts rows in the
    /// tables of the store's `Z_PRIMARYKEY` entities (read from a second copy), the same walk either way, and no byte
    /// of a store, its -wal or -shm changed.
    @Test func readsEveryObjectOfAppleStores() throws {
        let client = try CLibraryTests.Client(program: "store_client")
        defer { try? FileManager.default.removeItem(at: client.folder) }
        let stores = try Self.copies(into: client.folder)
        let pythonFolder = client.folder.appendingPathComponent("python")
        try FileManager.default.createDirectory(at: pythonFolder, withIntermediateDirectories: true)
        let pythonCopies = try Self.copies(into: pythonFolder)
        let counts = try PythonScript.run(
            """
            import sqlite3, sys
            for path in sys.argv[1:]:
                db = sqlite3.connect(path)
                tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
                rows = db.execute("SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY").fetchall()
                by_number = {number: (name, parent) for number, name, parent in rows}
                seen = set()
                for number, name, parent in rows:
                    root = number
                    while by_number[root][1] != 0:
                        root = by_number[root][1]
                    table = 'Z' + by_number[root][0].upper()
                    if number >= 16001 and parent == 0 and table not in tables:
                        table = 'A' + name.upper()
                    seen.add(table)
                print(sum(db.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0] for table in sorted(seen)))
            """, arguments: pythonCopies)
        let expected = String(decoding: counts, as: UTF8.self).split(separator: "\n").map(String.init)
        let before = stores.flatMap { store in ["", "-wal", "-shm"].map { try? Data(contentsOf: URL(fileURLWithPath: store + $0)) } }

        let one = try client.run(["1"] + stores)
        let many = try client.run(["1000"] + stores)
        #expect(one.status == 0, "\(one.stderr)")
        #expect(many.status == 0, "\(many.stderr)")
        #expect(one.stdout == many.stdout)
        let lines = many.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == stores.count, "\(lines)")
        for (index, line) in lines.enumerated() where index < expected.count {
            #expect(line.hasPrefix("\(stores[index]): \(expected[index]) objects, "), "\(line)")
        }
        let after = stores.flatMap { store in ["", "-wal", "-shm"].map { try? Data(contentsOf: URL(fileURLWithPath: store + $0)) } }
        #expect(before == after)
    }

    /// Hostile stores refused with their places: a file cut short, one that is not SQLite, a directory, a store
    /// whose entity table was dropped (by Python's sqlite3, on a copy of Apple's CoreDataBooks store), and one whose
    /// call participant's JID is a blob where the model it caches says String (a copy of WhatsApp's CallHistory with
    /// one row changed).
    @Test func refusesHostileStoresSayingWhere() throws {
        let client = try CLibraryTests.Client(program: "store_client")
        defer { try? FileManager.default.removeItem(at: client.folder) }
        let path = { (name: String) in client.folder.appendingPathComponent(name).path }
        let books = Repository.path("Tests/CoreDataFilesTests/Fixtures/stores/CoreDataBooks.sqlite")
        let calls = Repository.path("Tests/CoreDataFilesTests/Fixtures/Apple/CallHistory.sqlite")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: books))
        try bytes.prefix(3000).write(to: URL(fileURLWithPath: path("cut.sqlite")))
        try Data("not a database at all, but long enough to look like one's header........".utf8).write(to: URL(fileURLWithPath: path("text.sqlite")))
        try FileManager.default.createDirectory(atPath: path("folder.sqlite"), withIntermediateDirectories: false)
        let pk = try PythonScript.run(
            """
            import shutil, sqlite3, sys
            folder, books, calls = sys.argv[1:4]
            shutil.copyfile(books, folder + '/dropped.sqlite')
            db = sqlite3.connect(folder + '/dropped.sqlite')
            db.execute('DROP TABLE ZBOOK')
            db.commit()
            db.close()
            shutil.copyfile(calls, folder + '/blob.sqlite')
            db = sqlite3.connect(folder + '/blob.sqlite')
            pk = db.execute('SELECT min(Z_PK) FROM ZWACDCALLEVENTPARTICIPANT').fetchone()[0]
            db.execute('UPDATE ZWACDCALLEVENTPARTICIPANT SET ZJIDSTRING = ? WHERE Z_PK = ?', (b'\\x00\\x01', pk))
            db.commit()
            db.close()
            print(pk, end='')
            """, arguments: [client.folder.path, books, calls])
        let result = try client.run(
            ["7", path("cut.sqlite"), path("text.sqlite"), path("folder.sqlite"), path("dropped.sqlite"), path("blob.sqlite")])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 5, "\(lines)")
        guard lines.count == 5 else { return }
        #expect(lines[0].hasPrefix("\(path("cut.sqlite")): error "), "\(lines[0])")
        #expect(lines[1].hasPrefix("\(path("text.sqlite")): error notSQLite at byte 0: "), "\(lines[1])")
        #expect(lines[2].hasPrefix("\(path("folder.sqlite")): error file at key path : "), "\(lines[2])")
        #expect(lines[2].hasSuffix("a store is a regular file, this is not"), "\(lines[2])")
        #expect(lines[3].hasPrefix("\(path("dropped.sqlite")): error store at table ZBOOK, row -1, column : "), "\(lines[3])")
        let row = String(decoding: pk, as: UTF8.self)
        #expect(
            lines[4].hasPrefix("\(path("blob.sqlite")): error store at table ZWACDCALLEVENTPARTICIPANT, row \(row), column ZJIDSTRING: "),
            "\(lines[4])")
    }
}
