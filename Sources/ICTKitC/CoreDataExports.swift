import CoreDataFiles
import OrderedCollections
import PropertyList
import SystemSupport

// The Core Data half of include/ictkit.h: a store opened read-only (`ictkit_store`), its description as JSON, and
// cursors over its objects (`ictkit_store_cursor`), each call of which reads a batch of objects into one object
// stream (StoreStream below, described in the header); no call per value crosses the interface.

/// What `ictkit_store *` points to: a reader, the lock its cursors take around each batch (they share its SQLite
/// connection), and its description as NUL-terminated JSON.
final class StoreBox {
    let reader: PersistentStoreReader
    let lock = ThreadLock()
    let description: UnsafeMutableBufferPointer<UInt8>
    /// Each entity's position in `reader.entities` (the description's "entities"), by name: what object IDs carry.
    let entityIndex: [String: UInt32]
    /// The same positions by entity number (`Z_ENT`).
    let entityIndexByNumber: [Int64: UInt32]

    init(_ reader: PersistentStoreReader) {
        self.reader = reader
        reader.transformableValuesAsBytes = true
        var index: [String: UInt32] = [:]
        // Safe: a store's entities are rows of Z_PRIMARYKEY read into memory, far fewer than 2^32.
        for (position, entity) in reader.entities.enumerated() where index[entity.name] == nil { index[entity.name] = UInt32(truncatingIfNeeded: position) }
        entityIndex = index
        var byNumber: [Int64: UInt32] = [:]
        // Safe: as above.
        for (position, entity) in reader.entities.enumerated() where byNumber[entity.number] == nil {
            byNumber[entity.number] = UInt32(truncatingIfNeeded: position)
        }
        entityIndexByNumber = byNumber
        var json = (try? JSONPropertyListWriter(prettyPrinted: false).encode(Self.describe(reader))) ?? Array("{}".utf8)
        json.append(0)
        description = .allocate(capacity: json.count)
        _ = description.initialize(from: json)
    }

    deinit { description.deallocate() }

    /// The store as the header describes it: path, UUID, model source (and the model cache's problem), entities,
    /// the model's JSON form.
    private static func describe(_ reader: PersistentStoreReader) -> PropertyListValue {
        var top: OrderedDictionary<String, PropertyListValue> = [:]
        top["path"] = .string(reader.pathText)
        top["storeIdentifier"] = .string(reader.metadata.storeIdentifier)
        top["storeType"] = reader.metadata.storeType.map(PropertyListValue.string) ?? .string("")
        let source: String
        switch reader.modelSource {
        case .given: source = "given"
        case .modelCache: source = "modelCache"
        case .none: source = "none"
        }
        top["modelSource"] = .string(source)
        top["modelCacheProblem"] = .string(reader.modelCacheProblem?.description ?? "")
        top["entities"] = .array(
            reader.entities.map { entity in
                .dictionary([
                    "name": .string(entity.name), "number": .integer(PropertyListInteger(entity.number)),
                    "superentityNumber": .integer(PropertyListInteger(entity.superentityNumber)),
                    "maximumPrimaryKey": .integer(PropertyListInteger(entity.maximumPrimaryKey)), "table": .string(entity.tableName),
                ])
            })
        top["model"] = reader.model?.jsonForm ?? .dictionary([:])
        return .dictionary(top)
    }

    static func from(_ handle: OpaquePointer) -> StoreBox { Unmanaged<StoreBox>.fromOpaque(UnsafeRawPointer(handle)).takeUnretainedValue() }
}

/// The object stream (ICTKIT_STORE_ in ictkit.h): tag bytes, little-endian numbers, lengths and counts as uint32.
struct StoreStream {
    var output: [UInt8] = []

    mutating func tag(_ tag: Unicode.Scalar) { output.append(UInt8(truncatingIfNeeded: tag.value)) }

    mutating func word(_ value: UInt64) { withUnsafeBytes(of: value.littleEndian) { output.append(contentsOf: $0) } }

    mutating func count(_ value: Int) {
        // Safe: every count is of names, object IDs or bytes SQLite hands over, and SQLite's values are below 2^31 bytes.
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: value).littleEndian) { output.append(contentsOf: $0) }
    }

    mutating func text(_ tag: Unicode.Scalar, _ text: String) {
        self.tag(tag)
        var text = text
        text.withUTF8 { utf8 in
            count(utf8.count)
            output.append(contentsOf: utf8)
        }
    }

    mutating func objectID(_ id: ManagedObjectID, index: [String: UInt32]) {
        if let position = index[id.entityName] {
            tag("I")
            count(Int(position))
        } else {
            text("J", id.entityName)
        }
        word(UInt64(bitPattern: id.primaryKey))
    }

    mutating func value(_ value: PersistentStoreValue, index: [String: UInt32]) {
        switch value {
        case .null: tag("n")
        case .integer(let number):
            tag("i")
            word(UInt64(bitPattern: number))
        case .real(let number):
            tag("r")
            word(number.bitPattern)
        case .boolean(let flag): tag(flag ? "t" : "f")
        case .string(let text), .uri(let text): self.text("s", text)
        case .date(let seconds):
            tag("d")
            word(seconds.bitPattern)
        case .decimal(let text): self.text("D", text)
        case .uuid(let text): self.text("V", text)
        case .data(let bytes):
            tag("b")
            count(bytes.count)
            output.append(contentsOf: bytes)
        case .externalData(let name): text("X", name)
        case .transformable(let form):
            // Not reached: the store's reader gives transformables as their bytes (StoreBox.init).
            let bytes = (try? JSONPropertyListWriter(prettyPrinted: false).encode(form)) ?? []
            tag("b")
            count(bytes.count)
            output.append(contentsOf: bytes)
        case .objectID(let id): objectID(id, index: index)
        case .objectIDs(let ids):
            tag("l")
            count(ids.count)
            for id in ids { objectID(id, index: index) }
        }
    }
}

/// What `ictkit_store_cursor *` points to: an object cursor over its store, the batch last handed over, the next one
/// being read ahead on a thread of its own (while the caller turns the last into its own objects), and an error met
/// after some objects of a batch were read (reported by the next call).
final class StoreCursorBox {
    let store: StoreBox
    let cursor: PersistentStoreObjectCursor
    /// The batch handed to the caller: valid until its next call.
    var stream = StoreStream()
    /// The batch read ahead.
    private var spare = StoreStream()
    private var ahead: JoinableThread<Batch>?
    var announced: Set<Int64> = []
    private var lastAnnounced: Int64 = -1
    var pendingError: CoreDataError?

    /// What one read gives: a count of objects, or an error before any.
    struct Batch: Sendable {
        var count: Int
        var error: CoreDataError?
    }

    /// The least batch read ahead: smaller ones cost more in starting a thread than they save.
    static let readAheadMinimum = 64

    init(_ store: StoreBox) {
        self.store = store
        cursor = PersistentStoreObjectCursor(reader: store.reader)
    }

    static func from(_ handle: OpaquePointer) -> StoreCursorBox {
        Unmanaged<StoreCursorBox>.fromOpaque(UnsafeRawPointer(handle)).takeUnretainedValue()
    }

    /// The next batch into `stream`: the one read ahead, or read now; then, when it holds objects and batches are
    /// large, the one after it is started on a thread of its own. Returns how many objects `stream` holds.
    ///
    /// - Throws: `CoreDataError` of a row, when no object came before it in the batch.
    func next(maximum: Int) throws(CoreDataError) -> Int {
        let batch: Batch
        if let thread = ahead {
            ahead = nil
            batch = thread.join()
            swap(&stream, &spare)
        } else {
            batch = readLocked(into: &stream, maximum: maximum)
        }
        if let error = batch.error { throw error }
        if batch.count > 0, maximum >= Self.readAheadMinimum {
            let box = Unchecked(value: self)
            ahead = JoinableThread.start { box.value.readLocked(into: &box.value.spare, maximum: maximum) }
        }
        return batch.count
    }

    /// Waits for the batch being read ahead, if any: before the cursor is freed.
    func finish() {
        _ = ahead?.join()
        ahead = nil
    }

    /// Reads a batch under the store's lock (its cursors share its SQLite connection).
    private func readLocked(into stream: inout StoreStream, maximum: Int) -> Batch {
        store.lock.withLock {
            do throws(CoreDataError) { return Batch(count: try read(into: &stream, maximum: maximum)) } catch { return Batch(count: 0, error: error) }
        }
    }

    /// Reads up to `maximum` objects (fewer once the batch holds 4 MiB) into `stream`; returns how many.
    private func read(into stream: inout StoreStream, maximum: Int) throws(CoreDataError) -> Int {
        stream.output.removeAll(keepingCapacity: stream.output.count <= 8 << 20)
        if let pendingError {
            self.pendingError = nil
            throw pendingError
        }
        var read = 0
        let entityIndex = store.entityIndex
        do throws(CoreDataError) {
            while read < maximum, stream.output.count < 4 << 20, let row = try cursor.nextRow() {
                let position = store.entityIndexByNumber[row.entity.number] ?? 0
                if row.entity.number != lastAnnounced, announced.insert(row.entity.number).inserted {
                    stream.tag("e")
                    stream.count(Int(position))
                    stream.count(row.propertyNames.count)
                    for name in row.propertyNames {
                        var name = name
                        name.withUTF8 { utf8 in
                            stream.count(utf8.count)
                            stream.output.append(contentsOf: utf8)
                        }
                    }
                }
                lastAnnounced = row.entity.number
                let start = stream.output.count
                stream.tag("o")
                stream.count(Int(position))
                stream.word(UInt64(bitPattern: row.primaryKey))
                do throws(CoreDataError) {
                    try cursor.forEachValue { value in stream.value(value, index: entityIndex) }
                } catch {
                    stream.output.removeSubrange(start...)
                    throw error
                }
                read += 1
            }
        } catch {
            guard read > 0 else { throw error }
            pendingError = error
        }
        return read
    }
}

/// A value handed to a thread that uses it alone until it is joined.
// @unchecked Sendable: the cursor's read-ahead thread is the only user of the box's spare stream and SQLite cursor
// until `join`, which orders its writes before the caller's next reads.
struct Unchecked<Value>: @unchecked Sendable {
    let value: Value
}

/// Where in a store an error is, for `ictkit_error_table`, `ictkit_error_row` and `ictkit_error_table_column`.
final class StoreErrorPlace {
    let table: UnsafeMutablePointer<CChar>
    let row: Int64
    let column: UnsafeMutablePointer<CChar>

    init(table: String, row: Int64, column: String) {
        self.table = strdupSwift(table)
        self.row = row
        self.column = strdupSwift(column)
    }

    deinit {
        table.deallocate()
        column.deallocate()
    }
}

/// A NUL-terminated copy of `text` (a NUL inside it ends the C string early), freed with `deallocate()`.
private func strdupSwift(_ text: String) -> UnsafeMutablePointer<CChar> {
    let utf8 = Array(text.utf8)
    let result = UnsafeMutablePointer<CChar>.allocate(capacity: utf8.count + 1)
    for (index, byte) in utf8.enumerated() { result[index] = CChar(bitPattern: byte) }
    result[utf8.count] = 0
    return result
}

extension ErrorBox {
    /// Hands a Core Data error to a C caller through `out` (when it is not NULL), which then owns it: its place in
    /// the store's table, row and column, a byte offset (a file that is not SQLite), or an entity and property (as
    /// the key path `Entity.property`).
    static func report(_ error: CoreDataError, to out: UnsafeMutablePointer<OpaquePointer?>?) {
        var keyPath = ""
        var byteOffset: Int64 = -1
        var line: Int64 = -1
        var place: StoreErrorPlace?
        switch error.place {
        case .none: break
        case .line(let number): line = Int64(number)
        case .keyPath(let path): keyPath = path
        case .entity(let entity, let property): keyPath = property.map { entity + "." + $0 } ?? entity
        case .table(let table, let row, let column): place = StoreErrorPlace(table: table, row: row ?? -1, column: column ?? "")
        case .byte(let offset): byteOffset = Int64(offset)
        }
        let code =
            switch error.place {
            case .table: "store"
            case .byte: "notSQLite"
            case .entity, .keyPath, .line: "model"
            case .none: "file"
            }
        let box = ErrorBox(code: code, description: error.description, message: error.message, keyPath: keyPath, byteOffset: byteOffset, line: line)
        box.storePlace = place
        out?.pointee = OpaquePointer(Unmanaged.passRetained(box).toOpaque())
    }
}

/// Opens a store read-only. The corresponding C function is `ictkit_store_open`.
@_cdecl("ictkit_store_open")
public func ictkitStoreOpen(_ path: UnsafePointer<CChar>?, _ errorOut: UnsafeMutablePointer<OpaquePointer?>?) -> OpaquePointer? {
    guard let path else {
        ErrorBox.report(CoreDataError(path: nil, place: .none, message: "no path given"), to: errorOut)
        return nil
    }
    do throws(CoreDataError) {
        let reader = try PersistentStoreReader(path: String(cString: path))
        return OpaquePointer(Unmanaged.passRetained(StoreBox(reader)).toOpaque())
    } catch {
        ErrorBox.report(error, to: errorOut)
        return nil
    }
}

/// The store's description as JSON. The corresponding C function is `ictkit_store_description`.
@_cdecl("ictkit_store_description")
public func ictkitStoreDescription(_ store: OpaquePointer, _ length: UnsafeMutablePointer<Int>?) -> UnsafePointer<CChar>? {
    let box = StoreBox.from(store)
    length?.pointee = box.description.count - 1
    return box.description.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) }
}

/// Releases a store. The corresponding C function is `ictkit_store_free`.
@_cdecl("ictkit_store_free")
public func ictkitStoreFree(_ store: OpaquePointer?) {
    guard let store else { return }
    Unmanaged<StoreBox>.fromOpaque(UnsafeRawPointer(store)).release()
}

/// A cursor before the store's first object. The corresponding C function is `ictkit_store_cursor_open`.
@_cdecl("ictkit_store_cursor_open")
public func ictkitStoreCursorOpen(_ store: OpaquePointer) -> OpaquePointer {
    OpaquePointer(Unmanaged.passRetained(StoreCursorBox(StoreBox.from(store))).toOpaque())
}

/// Reads the next batch of objects. The corresponding C function is `ictkit_store_cursor_next`.
@_cdecl("ictkit_store_cursor_next")
public func ictkitStoreCursorNext(
    _ cursor: OpaquePointer, _ maximumObjects: Int, _ bytes: UnsafeMutablePointer<UnsafePointer<UInt8>?>?,
    _ length: UnsafeMutablePointer<Int>?, _ errorOut: UnsafeMutablePointer<OpaquePointer?>?
) -> Int64 {
    let box = StoreCursorBox.from(cursor)
    let read: Int
    do throws(CoreDataError) {
        read = try box.next(maximum: max(maximumObjects, 1))
    } catch {
        bytes?.pointee = nil
        length?.pointee = 0
        ErrorBox.report(error, to: errorOut)
        return -1
    }
    // The array's storage stays where it is until the next call mutates it: the header says the bytes are valid until then.
    box.stream.output.withUnsafeBufferPointer { buffer in bytes?.pointee = buffer.baseAddress }
    length?.pointee = box.stream.output.count
    return Int64(read)
}

/// Frees a cursor. The corresponding C function is `ictkit_store_cursor_free`.
@_cdecl("ictkit_store_cursor_free")
public func ictkitStoreCursorFree(_ cursor: OpaquePointer?) {
    guard let cursor else { return }
    // Its statements are finalised on the store's connection, which another cursor may be using: under the lock, with
    // the store held here so that it outlives the lock even when this cursor held its last reference.
    let box = StoreCursorBox.from(cursor)
    box.finish()
    let store = box.store
    store.lock.withLock { Unmanaged<StoreCursorBox>.fromOpaque(UnsafeRawPointer(cursor)).release() }
}

/// The table of a store error, or "". The corresponding C function is `ictkit_error_table`.
@_cdecl("ictkit_error_table")
public func ictkitErrorTable(_ error: OpaquePointer) -> UnsafePointer<CChar> {
    UnsafePointer(ErrorBox.from(error).storePlace?.table ?? emptyCString)
}

/// The row (primary key) of a store error, or -1. The corresponding C function is `ictkit_error_row`.
@_cdecl("ictkit_error_row")
public func ictkitErrorRow(_ error: OpaquePointer) -> Int64 { ErrorBox.from(error).storePlace?.row ?? -1 }

/// The column of a store error, or "". The corresponding C function is `ictkit_error_table_column`.
@_cdecl("ictkit_error_table_column")
public func ictkitErrorTableColumn(_ error: OpaquePointer) -> UnsafePointer<CChar> {
    UnsafePointer(ErrorBox.from(error).storePlace?.column ?? emptyCString)
}

/// The C string "" the place accessors give when there is no store place; never freed.
nonisolated(unsafe) private let emptyCString: UnsafeMutablePointer<CChar> = {
    let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: 1)
    pointer.pointee = 0
    return pointer
}()
