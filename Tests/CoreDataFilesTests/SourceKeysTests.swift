import Foundation
import TestSupport
import Testing

@testable import CoreDataFiles

/// `SourceKeys`, which tells a table scan's objects without destinations of a to-many relationship: asked in
/// ascending order, going back, and over keys that are not integers (then it says "maybe" to every object, as
/// only the object's own query can tell). The keys are written by Python's sqlite3.
struct SourceKeysTests {
    /// A store file holding table T(K) with `keys` (Python literals), and SourceKeys over its distinct keys.
    private func sourceKeys(_ keys: String) throws -> (SourceKeys, folder: String) {
        let folder = try ScratchFolder.make("SourceKeysTests").path
        let path = folder + "/keys.sqlite"
        _ = try PythonScript.run(
            """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            db.execute("CREATE TABLE T (Z_PK INTEGER PRIMARY KEY, K INTEGER)")
            db.executemany("INSERT INTO T (K) VALUES (?)", [(key,) for key in \(keys)])
            db.commit()
            """, arguments: [path])
        let connection = try SQLiteConnection(path: path)
        let statement = try connection.prepare("SELECT DISTINCT K FROM T WHERE K IS NOT NULL ORDER BY 1", table: "T")
        return (SourceKeys(statement), folder)
    }

    @Test func integerKeysAreToldInOrderAndAfterGoingBack() throws {
        let (keys, folder) = try sourceKeys("[7, 1, 3, 3, None, 12]")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let asked: [Int64] = [0, 1, 2, 3, 4, 7, 8, 12, 13, 3, 5, 7]
        let told = try asked.map { key throws(CoreDataError) in try keys.mayHave(key) }
        #expect(told == [false, true, false, true, false, true, false, true, false, true, false, true])
    }

    @Test func aKeyThatIsNotAnIntegerMakesEveryObjectAMaybe() throws {
        // 2.5 sorts between 1 and 3: from there on, every object is queried.
        let (keys, folder) = try sourceKeys("[1, 2.5, 3, 'x']")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let told = try [Int64(0), 1, 2, 4, 100].map { key throws(CoreDataError) in try keys.mayHave(key) }
        #expect(told == [false, true, true, true, true])
        // Text sorts after every number: met past the last integer key.
        let (textKeys, textFolder) = try sourceKeys("[1, 'x']")
        defer { try? FileManager.default.removeItem(atPath: textFolder) }
        let toldText = try [Int64(1), 2].map { key throws(CoreDataError) in try textKeys.mayHave(key) }
        #expect(toldText == [true, true])
    }
}
