import CSQLite
import SystemSupport

/// One read-only connection to an SQLite file, opened so that neither the file nor its `-wal` and `-shm`
/// companions are ever written, while what is committed in the `-wal` is still read.
///
/// How: a store without a `-wal` (or with an empty one) is opened `immutable=1`, so SQLite takes no locks and
/// opens no companion file at all (a plain read-only open of a WAL-mode file would create an empty `-wal`). A
/// store with a `-wal` and a `-shm` is opened `mode=ro&readonly_shm=1`: SQLite opens the `-shm` read-only, finds
/// it cannot write its read-marks there and builds a private wal-index in memory from the `-wal` itself (a plain
/// `mode=ro` open writes read-marks into a writable `-shm`). A `-wal` without a `-shm` cannot be read that way
/// (SQLite would create the `-shm`), so it is refused with an error saying so.
///
/// SQLite is Debian's libsqlite3 through the `CSQLite` system-library shim, not a Swift package such as GRDB:
/// the reader needs a dozen C calls (an `sqlite3_open_v2` with URI parameters, prepare, step, column reads),
/// while GRDB brings its own copy of the concurrency, record and migration machinery, depends on Foundation
/// (core format modules do not), and would still need the same URI parameters to leave the `-shm` alone; the
/// project's rule is one `[system]` target per C library, imported by one module.
final class SQLiteConnection {
    let path: String
    private let handle: OpaquePointer

    /// Opens `path` read-only as described above.
    ///
    /// - Throws: `CoreDataError` at byte 0 when the file is not an SQLite database, else with SQLite's message.
    init(path: String) throws(CoreDataError) {
        self.path = path
        let info: FileInfo
        do { info = try FileInfo.of(path: path) } catch {
            throw CoreDataError(pathText: path, place: .none, message: "cannot read the store: \(error.reason)")
        }
        guard info.kind == .regular else {
            throw CoreDataError(pathText: path, place: .none, message: "a store is a regular file, this is not")
        }
        let walSize = (try? FileInfo.of(path: path + "-wal"))?.size ?? 0
        let hasSharedMemory = (try? FileInfo.of(path: path + "-shm")) != nil
        let query: String
        if walSize == 0 {
            query = "immutable=1"
        } else if hasSharedMemory {
            query = "mode=ro&readonly_shm=1"
        } else {
            throw CoreDataError(
                pathText: path, place: .none,
                message: "the store has a -wal but no -shm: SQLite cannot read the -wal's committed changes without "
                    + "creating a -shm beside the store; copy the store and its -wal to a folder of your own and read the copy")
        }
        var opened: OpaquePointer?
        let uri = "file:" + Self.percentEncoded(path) + "?" + query
        let code = sqlite3_open_v2(uri, &opened, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nil)
        guard code == SQLITE_OK, let opened else {
            let message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(opened)
            throw CoreDataError(pathText: path, place: .none, message: "SQLite cannot open the store: \(message)")
        }
        handle = opened
        // The header is read on first use: read it now, so that a file that is not a database fails here.
        _ = try prepare("SELECT count(*) FROM sqlite_master", table: "sqlite_master")
    }

    deinit { sqlite3_close_v2(handle) }

    /// `path` with the characters a URI filename gives meaning to (`?`, `#`, `%`, and any byte outside
    /// printable ASCII) percent-encoded.
    static func percentEncoded(_ path: String) -> String {
        var out = ""
        for byte in path.utf8 {
            let isPlain =
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2F || byte == 0x2D || byte == 0x2E || byte == 0x5F || byte == 0x7E
            if isPlain {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let hex = Array("0123456789ABCDEF".utf8)
                out += "%"
                out.unicodeScalars.append(Unicode.Scalar(hex[Int(byte >> 4)]))
                out.unicodeScalars.append(Unicode.Scalar(hex[Int(byte & 0xF)]))
            }
        }
        return out
    }

    /// An error for SQLite's last failure, placed in `table` (and a row and column when known).
    func error(_ code: Int32, table: String, row: Int64? = nil, column: String? = nil) -> CoreDataError {
        let message = String(cString: sqlite3_errmsg(handle))
        if code & 0xFF == SQLITE_NOTADB {
            return CoreDataError(
                pathText: path, place: .byte(0),
                message: "not an SQLite database (a store begins \"SQLite format 3\\0\" and a valid header): \(message)")
        }
        return CoreDataError(pathText: path, place: .table(table, row: row, column: column), message: "SQLite: \(message)")
    }

    /// A prepared statement for `sql`, whose errors are placed in `table`.
    ///
    /// - Throws: `CoreDataError` in `table` with SQLite's message.
    func prepare(_ sql: String, table: String) throws(CoreDataError) -> SQLiteStatement {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard code == SQLITE_OK, let statement else { throw error(code, table: table) }
        return SQLiteStatement(connection: self, handle: statement, table: table)
    }

    /// The names of the tables in the database.
    func tableNames() throws(CoreDataError) -> Set<String> {
        let statement = try prepare("SELECT name FROM sqlite_master WHERE type = 'table'", table: "sqlite_master")
        var names: Set<String> = []
        while try statement.step() { names.insert(statement.string(0) ?? "") }
        return names
    }

    /// The columns of `table`, in their order.
    func columns(of table: String) throws(CoreDataError) -> [String] {
        let statement = try prepare("PRAGMA table_info(\(Self.quoted(table)))", table: table)
        var names: [String] = []
        while try statement.step() { names.append(statement.string(1) ?? "") }
        return names
    }

    /// `name` as an SQL identifier in double quotes.
    static func quoted(_ name: String) -> String {
        "\"" + name.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
    }
}

/// A prepared statement of a ``SQLiteConnection``; finalised when released.
final class SQLiteStatement {
    let connection: SQLiteConnection
    let handle: OpaquePointer
    let table: String

    init(connection: SQLiteConnection, handle: OpaquePointer, table: String) {
        self.connection = connection
        self.handle = handle
        self.table = table
    }

    deinit { sqlite3_finalize(handle) }

    /// Steps to the next row: true when there is one.
    ///
    /// - Throws: `CoreDataError` in the statement's table, at `row` when given, with SQLite's message (a corrupt
    ///   page, a truncated file).
    func step(row: Int64? = nil) throws(CoreDataError) -> Bool {
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW { return true }
        if code == SQLITE_DONE { return false }
        throw connection.error(code, table: table, row: row)
    }

    /// Resets the statement, to step through its rows again from the first.
    func reset() { sqlite3_reset(handle) }

    /// Resets the statement and binds `value` to its first parameter.
    func reset(binding value: Int64) {
        sqlite3_reset(handle)
        sqlite3_bind_int64(handle, 1, value)
    }

    var columnCount: Int32 { sqlite3_column_count(handle) }

    func columnName(_ index: Int32) -> String { String(cString: sqlite3_column_name(handle, index)) }

    /// The storage class of a column of the current row.
    func storage(_ index: Int32) -> SQLiteStorage {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: .integer
        case SQLITE_FLOAT: .real
        case SQLITE_TEXT: .text
        case SQLITE_BLOB: .blob
        default: .null
        }
    }

    func integer(_ index: Int32) -> Int64 { sqlite3_column_int64(handle, index) }

    func real(_ index: Int32) -> Double { sqlite3_column_double(handle, index) }

    func string(_ index: Int32) -> String? {
        guard let text = sqlite3_column_text(handle, index) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// A column's bytes (text or blob) without copying: valid only until the next step.
    func withBytes<Result>(_ index: Int32, _ body: (UnsafeRawBufferPointer) throws(CoreDataError) -> Result) throws(CoreDataError)
        -> Result
    {
        let pointer = sqlite3_column_blob(handle, index)
        let count = Int(sqlite3_column_bytes(handle, index))
        return try body(UnsafeRawBufferPointer(start: pointer, count: pointer == nil ? 0 : count))
    }

    func bytes(_ index: Int32) -> [UInt8] {
        let pointer = sqlite3_column_blob(handle, index)
        let count = Int(sqlite3_column_bytes(handle, index))
        guard let pointer, count > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }
}

/// SQLite's storage classes.
enum SQLiteStorage { case null, integer, real, text, blob }
