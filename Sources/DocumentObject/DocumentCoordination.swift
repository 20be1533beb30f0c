import FileCoordination

/// How a document's reads and saves take turns with every other reader and
/// writer of the same item, in this process and others: through a
/// `FileCoordinator` made with the document's own presenter registration
/// (so it is not asked about its own accesses), reading shared, saving
/// exclusive; other presenters are asked to save before a read and told of
/// a save.
struct DocumentCoordination {
    let coordinator: FileCoordinator

    /// Runs `body` in a coordinated read of `path`.
    ///
    /// - Throws: `DocumentError` `.locked` when a writer kept the item past
    ///   the wait, `.coordination` when the coordination failed otherwise;
    ///   else what `body` throws.
    func reading<Result>(_ path: String, _ body: () throws(DocumentError) -> Result) throws(DocumentError) -> Result {
        let access: CoordinatedAccess
        do throws(FileCoordinationError) {
            access = try coordinator.access(reading: path)
        } catch {
            throw DocumentError(coordinationError: error)
        }
        defer { access.release() }
        return try body()
    }

    /// Runs `body` in a coordinated write of `path`; the item's other
    /// presenters are told of the change when it ends.
    ///
    /// - Throws: as `reading(_:_:)`.
    func writing<Result>(_ path: String, _ body: () throws(DocumentError) -> Result) throws(DocumentError) -> Result {
        let access: CoordinatedAccess
        do throws(FileCoordinationError) {
            access = try coordinator.access(writing: path)
        } catch {
            throw DocumentError(coordinationError: error)
        }
        defer { access.release() }
        return try body()
    }
}

extension DocumentError {
    /// A failed coordination said of the item it is about.
    init(coordinationError error: FileCoordinationError) {
        self.init(error.code == .timedOut ? .locked : .coordination, pathText: error.pathText, error.message)
    }
}
