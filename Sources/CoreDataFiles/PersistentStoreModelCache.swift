import CLibZ

extension PersistentStoreReader {
    /// Where a reader's model came from.
    public enum ModelSource: Hashable, Sendable {
        /// Given by the caller (a model file).
        case given
        /// The store's own `Z_MODELCACHE`.
        case modelCache
        /// None: values are read as SQLite stores them.
        case none
    }

    /// The largest model `Z_MODELCACHE` may inflate to.
    static let maximumCachedModelSize = 64 << 20

    /// The model a store caches in `Z_MODELCACHE`: `Z_CONTENT` is a compiled model (a keyed archive of
    /// `NSManagedObjectModel`, as a `.mom` is, but with its entities in an `NSKnownKeysDictionary1`) compressed
    /// as raw DEFLATE (`NSData`'s `.zlib` algorithm); nil when the store has no such table or row (stores before
    /// macOS 10.12 and iOS 10).
    ///
    /// - Throws: `CoreDataError` at table `Z_MODELCACHE`, column `Z_CONTENT` when the blob does not inflate (or
    ///   inflates past 64 MB) or is not a compiled model.
    static func cachedModel(_ connection: SQLiteConnection) throws(CoreDataError) -> ManagedObjectModel? {
        let table = "Z_MODELCACHE"
        let statement = try connection.prepare("SELECT Z_CONTENT FROM Z_MODELCACHE", table: table)
        guard try statement.step(), statement.storage(0) == .blob else { return nil }
        let place = CoreDataError.Place.table(table, row: nil, column: "Z_CONTENT")
        let inflated = try statement.withBytes(0) { bytes throws(CoreDataError) in
            guard let inflated = inflateRawDeflate(bytes, limit: maximumCachedModelSize) else {
                throw CoreDataError(
                    path: connection.path, place: place,
                    message: "the cached model is not raw DEFLATE data (or inflates past 64 MB); give the model with --model")
            }
            return inflated
        }
        do {
            return try ManagedObjectModelReader().read(compiledModel: inflated, path: connection.path)
        } catch {
            throw CoreDataError(
                path: connection.path, place: place,
                message: "the cached model (inflated, \(inflated.count) bytes) is not a compiled model: \(error.message)")
        }
    }
}

/// `bytes` inflated as raw DEFLATE (no zlib header), or nil when they are not, are cut short, or inflate past
/// `limit` bytes. The corresponding C functions are `inflateInit2` and `inflate`.
func inflateRawDeflate(_ bytes: UnsafeRawBufferPointer, limit: Int) -> [UInt8]? {
    var stream = z_stream()
    guard ictkit_inflate_init_raw(&stream) == Z_OK else { return nil }
    defer { inflateEnd(&stream) }
    guard let base = bytes.baseAddress, bytes.count > 0, bytes.count <= Int(UInt32.max) else { return nil }
    stream.next_in = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: Bytef.self))
    // Checked above: the count fits zlib's 32-bit `uInt`.
    stream.avail_in = uInt(bytes.count)
    var output: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 64 << 10)
    while true {
        let (result, produced) = chunk.withUnsafeMutableBufferPointer { buffer -> (Int32, Int) in
            stream.next_out = buffer.baseAddress
            stream.avail_out = uInt(buffer.count)
            let result = inflate(&stream, Z_NO_FLUSH)
            return (result, buffer.count - Int(stream.avail_out))
        }
        guard result == Z_OK || result == Z_STREAM_END, output.count <= limit - produced else { return nil }
        output.append(contentsOf: chunk[..<produced])
        if result == Z_STREAM_END { return output }
        if produced == 0 && stream.avail_in == 0 { return nil }  // Cut short: no more input, no end of stream.
    }
}
