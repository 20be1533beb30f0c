import SystemSupport

/// The `ItemLock` a command's read-modify-write holds, with the failure as
/// the command reports it.
enum ItemLockSupport {
    /// Takes the exclusive lock on `path` (nil for standard input, and when
    /// the path's folder does not exist: reading it then says what is wrong).
    ///
    /// - Throws: the report's failure when another process kept the lock
    ///   past the timeout or the lock directory cannot be used.
    static func exclusive(_ path: String, report: Report) throws -> ItemLock? {
        guard path != "-" else { return nil }
        do throws(ItemLock.Failure) {
            return try ItemLock.acquire(path, .exclusive)
        } catch {
            if !error.timedOut, FileStamp(path: folder(of: path)) == nil { return nil }
            throw report.fail(Problem(path: path, "cannot lock it for editing: \(error.description)"))
        }
    }

    /// `exclusive(_:report:)` for commands that print `plutil`'s messages: the failure's words, or nil.
    static func exclusive(_ path: String) -> Result<ItemLock?, ItemLock.Failure> {
        guard path != "-" else { return .success(nil) }
        do throws(ItemLock.Failure) {
            return .success(try ItemLock.acquire(path, .exclusive))
        } catch {
            if !error.timedOut, FileStamp(path: folder(of: path)) == nil { return .success(nil) }
            return .failure(error)
        }
    }

    private static func folder(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }
}
