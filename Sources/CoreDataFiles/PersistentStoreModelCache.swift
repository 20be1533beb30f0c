import DataLayers

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
            do throws(DataLayerError) {
                return try Inflate.inflate(bytes, form: .rawDeflate, limit: maximumCachedModelSize)
            } catch {
                throw CoreDataError(
                    pathText: connection.path, place: place,
                    message: "the cached model does not inflate as raw DEFLATE data (\(error.description)); give the model with --model")
            }
        }
        do {
            return try ManagedObjectModelReader().read(compiledModel: inflated, pathText: connection.path)
        } catch {
            throw CoreDataError(
                pathText: connection.path, place: place,
                message: "the cached model (inflated, \(inflated.count) bytes) is not a compiled model: \(error.message)")
        }
    }
}
