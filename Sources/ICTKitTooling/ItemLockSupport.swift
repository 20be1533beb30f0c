import FileCoordination
import SystemSupport

/// The coordinated write a command's read-modify-write holds (a
/// `.forMerging` write: the document's presenters in other processes save
/// first, and are told of the change when it ends), with the failure as the
/// command reports it.
package enum ItemLockSupport {
    /// Starts the coordinated write of `path` (nil for standard input, and
    /// when the path's folder does not exist: reading it then says what is wrong).
    ///
    /// - Throws: the report's failure when another process kept the document
    ///   past the timeout, a presenter failed to save, or the lock directory
    ///   cannot be used.
    package static func exclusive(_ path: String, report: Report) throws -> CoordinatedAccess? {
        switch exclusive(path) {
        case .success(let access): return access
        case .failure(let error): throw report.fail(Problem(path: path, "cannot lock it for editing: \(error.message)"))
        }
    }

    /// `exclusive(_:report:)` for commands that print `plutil`'s messages: the failure, or nil.
    package static func exclusive(_ path: String) -> Result<CoordinatedAccess?, FileCoordinationError> {
        guard path != "-" else { return .success(nil) }
        do throws(FileCoordinationError) {
            return .success(try FileCoordinator().access(writing: path, options: .forMerging))
        } catch {
            if error.code == .unavailable, FileStamp(path: PathName.folder(of: path)) == nil { return .success(nil) }
            return .failure(error)
        }
    }

    /// Runs `body` in a coordinated read of `path`, so it never sees the
    /// document part way through a coordinated save (which need not be one
    /// rename: a package's entries are files of their own). Presenters are
    /// not asked to save (`.withoutChanges`): a command reads what is on
    /// disk. Nothing is coordinated for standard input, nor when the path's
    /// folder does not exist (reading it then says what is wrong).
    ///
    /// - Throws: a `Problem` at `path` when the read cannot be coordinated
    ///   (another process kept the document past the timeout, or the lock
    ///   directory cannot be used); else what `body` throws.
    package static func reading<Result>(_ path: String, _ body: () throws -> Result) throws -> Result {
        var access: CoordinatedAccess?
        if path != "-" {
            do throws(FileCoordinationError) {
                access = try FileCoordinator().access(reading: path, options: .withoutChanges)
            } catch {
                if error.code != .unavailable || FileStamp(path: PathName.folder(of: path)) != nil {
                    throw Problem(path: path, "cannot read it coordinated: \(error.message)")
                }
            }
        }
        defer { access?.release() }
        return try body()
    }
}
