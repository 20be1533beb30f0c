import CoreDataFiles
import Foundation
import TestSupport
import Testing

/// PersistentStoreObjectCursor: the objects one at a time, as forEachObject gives them.
@Suite struct PersistentStoreObjectCursorTests {
    /// Every store Core Data wrote among the fixtures (a copy of each): the cursor's records are forEachObject's, in
    /// its order, and the cursor stays at its end.
    @Test(arguments: ["NoteStore-iOS17.sqlite", "CallHistory.sqlite", "sgrouplesdb.sqlite", "Recipes.sqlite", "Accounts3-iOS16.sqlite"])
    func cursorGivesWhatForEachObjectGives(file: String) throws {
        let (folder, store) = try AppleStoreTests.copy(file)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let reader = try PersistentStoreReader(path: store)
        var expected: [ManagedObjectRecord] = []
        try reader.forEachObject { expected.append($0) }
        let cursor = PersistentStoreObjectCursor(reader: reader)
        var read: [ManagedObjectRecord] = []
        while let record = try cursor.next() { read.append(record) }
        #expect(read.count == expected.count && !read.isEmpty)
        #expect(read == expected)
        #expect(try cursor.next() == nil)
    }

    /// A value that does not match the model: the error with its table, row and column, after the objects before it;
    /// then the cursor is at its end. The store is a copy of WhatsApp's CallHistory with one participant's JID (a
    /// String in the model the store caches) made a blob by Python's sqlite3.
    @Test func errorComesWithItsPlaceAndEndsTheCursor() throws {
        let (folder, store) = try AppleStoreTests.copy("CallHistory.sqlite")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let key = try PythonScript.run(
            """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            key = db.execute('SELECT max(Z_PK) FROM ZWACDCALLEVENTPARTICIPANT').fetchone()[0]
            db.execute('UPDATE ZWACDCALLEVENTPARTICIPANT SET ZJIDSTRING = ? WHERE Z_PK = ?', (b'\\x00', key))
            db.commit()
            print(key, end='')
            """, arguments: [store])
        let cursor = PersistentStoreObjectCursor(reader: try PersistentStoreReader(path: store))
        var read: [ManagedObjectRecord] = []
        var caught: CoreDataError?
        do {
            while let record = try cursor.next() { read.append(record) }
        } catch { caught = error }
        let row = Int64(String(decoding: key, as: UTF8.self))
        #expect(caught?.place == .table("ZWACDCALLEVENTPARTICIPANT", row: row, column: "ZJIDSTRING"))
        #expect(read.last?.objectID.entityName == "WACDCallEventParticipant")
        #expect(try cursor.next() == nil)
    }
}
