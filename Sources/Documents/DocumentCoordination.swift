import SystemSupport

/// How a document's reads and saves take turns with every other ICTKit
/// reader and writer of the same item, in this process and others: reading
/// holds the item's lock shared, saving exclusive (`ItemLock`, kept outside
/// the document's folder and released when a process dies).
enum DocumentCoordination {
    /// Runs `body` holding the lock on `path` shared.
    ///
    /// - Throws: `DocumentError` `.locked` when a writer kept the lock past
    ///   the wait, `.io` when it cannot be taken; else what `body` throws.
    static func reading<Result>(_ path: String, _ body: () throws(DocumentError) -> Result) throws(DocumentError) -> Result {
        let lock = try acquire(path, .shared)
        defer { lock.release() }
        return try body()
    }

    /// Runs `body` holding the lock on `path` exclusive.
    ///
    /// - Throws: as `reading(_:_:)`.
    static func writing<Result>(_ path: String, _ body: () throws(DocumentError) -> Result) throws(DocumentError) -> Result {
        let lock = try acquire(path, .exclusive)
        defer { lock.release() }
        return try body()
    }

    private static func acquire(_ path: String, _ mode: ItemLock.Mode) throws(DocumentError) -> ItemLock {
        do throws(ItemLock.Failure) {
            return try ItemLock.acquire(path, mode)
        } catch {
            throw DocumentError(error.timedOut ? .locked : .io, path: path, error.description)
        }
    }
}
