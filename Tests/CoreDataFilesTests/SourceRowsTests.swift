import Foundation
import TestSupport
import Testing

@testable import CoreDataFiles

/// `SourceRows`, which reads a to-many relationship's destinations for a table scan's objects from one ordered
/// query: asked in ascending order, going back, for objects with none, and over source keys that are not integers
/// (then it hands the object back to its own query, as only SQLite's comparison can tell). The rows are written
/// by Python's sqlite3; the expected destinations are the rows of each key ordered by FOK, counted by hand.
struct SourceRowsTests {
    /// A store file holding T(Z_PK, Z_ENT, K, FOK) with `rows` (a Python list of (K, FOK) tuples; Z_PK counts from 1,
    /// Z_ENT is 7, or NULL where FOK is 0), and SourceRows over it.
    private func sourceRows(_ rows: String) throws -> (SourceRows, folder: String) {
        let folder = try ScratchFolder.make("SourceRowsTests").path
        let path = folder + "/rows.sqlite"
        _ = try PythonScript.run(
            """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            db.execute("CREATE TABLE T (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, K INTEGER, FOK INTEGER)")
            db.execute("CREATE INDEX T_K ON T (K)")
            db.executemany("INSERT INTO T (Z_ENT, K, FOK) VALUES (?, ?, ?)", [(None if f == 0 else 7, k, f) for k, f in \(rows)])
            db.commit()
            """, arguments: [path])
        let connection = try SQLiteConnection(path: path)
        let statement = try connection.prepare(
            "SELECT K, Z_PK, Z_ENT FROM T WHERE K IS NOT NULL ORDER BY K, FOK, Z_PK", table: "T")
        return (SourceRows(statement), folder)
    }

    /// What `rows` tells of `key`: the destinations as "pk" or "pk/entity", or nil when the object must query.
    private func told(_ rows: SourceRows, _ key: Int64) throws -> [String]? {
        var found: [String] = []
        let answered = try rows.destinations(of: key) { destination, entity in
            found.append(entity.map { "\(destination)/\($0)" } ?? "\(destination)")
        }
        return answered ? found : nil
    }

    @Test func eachObjectsRowsInOrderAlsoAfterGoingBack() throws {
        // Z_PK 1: K 3 FOK 20; 2: K 1; 3: K 3 FOK 10; 4: K NULL; 5: K 7 FOK 0 (entity NULL); 6: K 3 FOK 10 (a tie: by Z_PK).
        let (rows, folder) = try sourceRows("[(3, 20), (1, 5), (3, 10), (None, 1), (7, 0), (3, 10)]")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let asked: [Int64] = [0, 1, 2, 3, 4, 7, 8, 3, 1]
        let answers = try asked.map { try told(rows, $0) }
        let expected: [[String]?] = [[], ["2/7"], [], ["3/7", "6/7", "1/7"], [], ["5"], [], ["3/7", "6/7", "1/7"], ["2/7"]]
        #expect(answers == expected)
    }

    @Test func aSourceKeyThatIsNotAnIntegerHandsTheObjectsBackToTheirQueries() throws {
        // 2.5 sorts between 1 and 3. Object 0 is answered (its place is before 1); object 1's row is followed by
        // 2.5, so 1's rows may not be over (a REAL 1.0 would be one of them): 1 and every object after it query.
        let (rows, folder) = try sourceRows("[(1, 1), (2.5, 1), (3, 1), ('x', 1)]")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let answers = try [Int64(0), 1, 2, 3, 100].map { try told(rows, $0) }
        #expect(answers == [[], nil, nil, nil, nil])
        // Text sorts after every number: met only past the last integer key, whose object then queries too.
        let (textRows, textFolder) = try sourceRows("[(1, 1), (2, 1), ('x', 1)]")
        defer { try? FileManager.default.removeItem(atPath: textFolder) }
        #expect(try [Int64(1), 2, 3].map { try told(textRows, $0) } == [["1/7"], nil, nil])
    }
}
