import SystemPackage
import SystemSupport

// The public forms of the coordinations: each names its items by `FilePath`,
// byte for byte, valid UTF-8 or not, and hands `body` the same `FilePath`s.
// (The `String` forms are `package`: the kit's own callers hold names as text,
// each byte that is not UTF-8 carried as U+10FF00 + byte.)

extension FileCoordinator {
    /// Runs `body` with `filePath` while no writer changes the item (readers
    /// may read at once). Unless `options` has `.withoutChanges`, the item's
    /// presenters are first asked to save.
    ///
    /// - Throws: `FileCoordinationError` when the coordination failed
    ///   (`body` did not run), or what `body` throws. Waits up to `timeout`.
    public func coordinate<Result>(
        reading filePath: FilePath, options: FileReadingOptions = [], timeout: Duration = defaultTimeout,
        _ body: (FilePath) throws -> Result
    ) throws -> Result {
        let access = try access(reading: filePath, options: options, timeout: timeout)
        defer { access.release() }
        return try body(filePath)
    }

    /// Runs `body` with `filePath` while no other reader or writer uses the
    /// item. Presenters are asked first as `options` say (`.forMerging`: to
    /// save; `.forDeleting`: to accommodate the deletion), and told when it
    /// ends (that it changed, or moved: see `itemMoved(from:to:)`), even
    /// when `body` throws.
    ///
    /// - Throws: `FileCoordinationError` when the coordination failed
    ///   (`body` did not run), or what `body` throws. Waits up to `timeout`.
    public func coordinate<Result>(
        writing filePath: FilePath, options: FileWritingOptions = [], timeout: Duration = defaultTimeout,
        _ body: (FilePath) throws -> Result
    ) throws -> Result {
        let access = try access(writing: filePath, options: options, timeout: timeout)
        defer { access.release() }
        return try body(filePath)
    }

    /// Runs `body` reading one item and writing another (a copy, or a move
    /// read from `readPath` to `writePath`). Both are taken in one order
    /// every process uses, so two such coordinations never deadlock; the
    /// same item named twice is written.
    ///
    /// - Throws: `FileCoordinationError` (with the path it is about) when
    ///   the coordination failed, or what `body` throws.
    public func coordinate<Result>(
        reading readPath: FilePath, options readOptions: FileReadingOptions = [],
        writing writePath: FilePath, options writeOptions: FileWritingOptions = [],
        timeout: Duration = defaultTimeout, _ body: (FilePath, FilePath) throws -> Result
    ) throws -> Result {
        try coordinate(
            reading: RawFileName.text(readPath), options: readOptions, writing: RawFileName.text(writePath), options: writeOptions,
            timeout: timeout
        ) { _, _ in try body(readPath, writePath) }
    }

    /// Runs `body` writing two items at once (a move: the source with
    /// `.forMoving`, the destination with `.forReplacing`), taken in one
    /// order every process uses.
    ///
    /// - Throws: `FileCoordinationError` when the coordination failed, or
    ///   what `body` throws.
    public func coordinate<Result>(
        writing firstPath: FilePath, options firstOptions: FileWritingOptions = [],
        writing secondPath: FilePath, options secondOptions: FileWritingOptions = [],
        timeout: Duration = defaultTimeout, _ body: (FilePath, FilePath) throws -> Result
    ) throws -> Result {
        try coordinate(
            writing: RawFileName.text(firstPath), options: firstOptions, writing: RawFileName.text(secondPath), options: secondOptions,
            timeout: timeout
        ) { _, _ in try body(firstPath, secondPath) }
    }

    /// Starts a coordinated read of `filePath` (as `coordinate(reading:)`),
    /// held until the access is released.
    ///
    /// - Throws: `FileCoordinationError`. Waits up to `timeout`.
    public func access(
        reading filePath: FilePath, options: FileReadingOptions = [], timeout: Duration = defaultTimeout
    ) throws(FileCoordinationError) -> CoordinatedAccess {
        try access(reading: RawFileName.text(filePath), options: options, timeout: timeout)
    }

    /// Starts a coordinated write of `filePath` (as `coordinate(writing:)`),
    /// held until the access is released; presenters are told then.
    ///
    /// - Throws: `FileCoordinationError`. Waits up to `timeout`.
    public func access(
        writing filePath: FilePath, options: FileWritingOptions = [], timeout: Duration = defaultTimeout
    ) throws(FileCoordinationError) -> CoordinatedAccess {
        try access(writing: RawFileName.text(filePath), options: options, timeout: timeout)
    }
}
