import SystemSupport

#if canImport(Glibc)
import Glibc
private let systemWrite = Glibc.write
#elseif canImport(Darwin)
import Darwin
private let systemWrite = Darwin.write
#endif

/// Writes command output where the user asked, never leaving a half-written file.
///
/// `-` is standard output. A path naming a device, pipe or socket (say
/// `/dev/stdout` or `/dev/null`) is written directly, never replaced. Any
/// other path gets a new regular file written beside it under a temporary
/// name (`TemporaryItem`: `.NAME.ict-new-PID-RANDOM`), flushed, and renamed
/// over it in one step by `commit()`, keeping an existing file's permissions
/// (and its owner and group, where the process may); if anything fails
/// before that, the temporary file is removed and the old file is untouched.
/// SIGINT, SIGTERM and SIGHUP remove the temporary file before the process
/// ends; one left by a killed run (SIGKILL, a crash) is
/// removed by the next run writing the same file, once its process is gone.
final class OutputFile {
    private let path: String
    private let descriptor: Int32
    /// The temporary file and the file it will replace, for a regular-file target.
    private let replacement: (temporary: String, target: String)?
    /// Whether a link at the path is written through (else replaced).
    private let followsLink: Bool
    private var finished = false

    /// True when `path` is `-` or names a terminal.
    static func isTerminal(_ path: String) -> Bool {
        if path == "-" { return isatty(STDOUT_FILENO) == 1 }
        let descriptor = RawFileName.withPath(path) { open($0, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC) }
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return isatty(descriptor) == 1
    }

    /// Writes all of `bytes` to `path` and commits; with `expected`, only
    /// over the file that stamp describes (see `commit(expecting:)`).
    static func write(_ bytes: [UInt8], to path: String, expecting expected: FileStamp? = nil, followingLink: Bool = true) throws(CommandFailure) {
        let output = try OutputFile(path: path, followingLink: followingLink)
        let result: Result<Void, CommandFailure> = bytes.withUnsafeBytes { buffer in
            Result { () throws(CommandFailure) in try output.write(buffer) }
        }
        try result.get()
        try output.commit(expecting: expected)
    }

    /// Opens the destination named `path`: standard output, a device or pipe
    /// as it is, or a new temporary file beside a regular file's path. A
    /// symbolic link at `path` is written through to the file it names;
    /// one that names nothing (dangling) is refused, as `cp` does, rather
    /// than create a file wherever it points. Without `followingLink`, a
    /// link at `path` is replaced by the new file, never written through.
    init(path: String, followingLink: Bool = true) throws(CommandFailure) {
        self.path = path
        followsLink = followingLink
        if path == "-" {
            descriptor = STDOUT_FILENO
            replacement = nil
            return
        }
        var status = stat()
        let found = RawFileName.withPath(path) { followingLink ? stat($0, &status) : lstat($0, &status) } == 0
        if found, (status.st_mode & S_IFMT) != S_IFREG, followingLink || (status.st_mode & S_IFMT) != S_IFLNK {
            guard (status.st_mode & S_IFMT) != S_IFDIR else { throw CommandFailure("is a directory, not a file") }
            descriptor = RawFileName.withPath(path) { open($0, O_WRONLY | O_CLOEXEC) }
            guard descriptor >= 0 else { throw Self.systemFailure("cannot open") }
            replacement = nil
            return
        }
        let target = followingLink ? try Self.resolvedPath(path) : path
        let slash = target.lastIndex(of: "/")
        let directory = slash.map { String(target[..<$0]) } ?? "."
        let name = slash.map { String(target[target.index(after: $0)...]) } ?? target
        let folder = directory.isEmpty ? "/" : directory
        let folderDescriptor = RawFileName.withPath(folder) { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard folderDescriptor >= 0 else { throw Self.systemFailure("cannot open the folder to write into") }
        defer { close(folderDescriptor) }
        Self.removeStaleTemporaries(of: name, in: folder, descriptor: folderDescriptor)
        guard let (made, temporaryName) = TemporaryItem.makeFile(for: name, in: folderDescriptor, folder: folder) else {
            throw Self.systemFailure("cannot create a temporary file beside it")
        }
        descriptor = made
        let temporary = TemporaryItem.path(temporaryName, in: folder)
        replacement = (temporary, target)
    }

    deinit {
        if !finished { abandon() }
    }

    /// Appends `bytes`; on failure the destination is abandoned.
    func write(_ bytes: UnsafeRawBufferPointer) throws(CommandFailure) {
        var written = 0
        while written < bytes.count {
            let count = systemWrite(descriptor, bytes.baseAddress! + written, bytes.count - written)
            if count < 0 {
                if errno == EINTR { continue }
                let failure = Self.systemFailure("cannot write")
                abandon()
                throw failure
            }
            written += count
        }
    }

    /// Finishes: for a regular file, sets the old file's owner, group and
    /// permissions (or the defaults), flushes, and renames the temporary file over the target.
    /// With `expected` (the stamp of the file taken before it was read, for
    /// a read-modify-write), only while the file in place is still that one:
    /// otherwise nothing is replaced and `CommandFailure.changed` is thrown.
    func commit(expecting expected: FileStamp? = nil) throws(CommandFailure) {
        finished = true
        guard let (temporary, target) = replacement else {
            if descriptor != STDOUT_FILENO { close(descriptor) }
            return
        }
        defer { close(descriptor) }
        var existing = stat()
        let mode: mode_t
        let statted = RawFileName.withPath(target) { followsLink ? stat($0, &existing) : lstat($0, &existing) } == 0
        if statted, (existing.st_mode & S_IFMT) == S_IFREG {
            mode = existing.st_mode & 0o7777
            // The old file's owner and group too, where the process may (as root): before fchmod, which chown would undo.
            if let failed = FileOwnership.keep(owner: existing.st_uid, group: existing.st_gid, on: descriptor) {
                throw abandoning(CommandFailure("cannot keep the owner of the file: \(String(cString: strerror(failed)))"))
            }
        } else {
            let mask = umask(0)
            umask(mask)
            mode = 0o666 & ~mask
        }
        guard fchmod(descriptor, mode) == 0 else { throw abandoning(Self.systemFailure("cannot set the permissions of the new file")) }
        guard fsync(descriptor) == 0 else { throw abandoning(Self.systemFailure("cannot flush the new file")) }
        do throws(FileStamp.ReplaceFailure) {
            try FileStamp.replace(temporary, over: target, expecting: expected)
        } catch {
            if error.changedSinceRead {
                TemporaryItem.finished(temporary, folder: "")
                throw .changed
            }
            errno = error.systemError
            throw abandoning(Self.systemFailure("cannot replace it"))
        }
        TemporaryItem.finished(temporary, folder: "")
    }

    /// Removes the temporary file, leaving any old file as it was.
    func abandon() {
        finished = true
        guard let (temporary, _) = replacement else { return }
        close(descriptor)
        RawFileName.withPath(temporary) { _ = unlink($0) }
        TemporaryItem.finished(temporary, folder: "")
    }

    private func abandoning(_ failure: CommandFailure) -> CommandFailure {
        if let temporary = replacement?.temporary {
            RawFileName.withPath(temporary) { _ = unlink($0) }
            TemporaryItem.finished(temporary, folder: "")
        }
        return failure
    }

    /// The folder last written into and its entries that may be
    /// temporaries (`TemporaryItem.candidates`). A folder is listed once for
    /// all the files written into it in a row: a batch writing n files into
    /// one folder listed it for each, reading n² entries in all.
    nonisolated(unsafe) private static var lastListed: (folder: String, candidates: [[UInt8]])?

    /// Removes the temporaries of `name` in `folder` that a killed run left
    /// behind, once their process is gone (`TemporaryItem.removeStale`).
    private static func removeStaleTemporaries(of name: String, in folder: String, descriptor: Int32) {
        if lastListed?.folder != folder { lastListed = (folder, TemporaryItem.candidates(in: descriptor)) }
        guard let candidates = lastListed?.candidates else { return }
        let handled = TemporaryItem.removeStale(of: name, among: candidates, in: descriptor)
        if !handled.isEmpty { lastListed?.candidates.removeAll { handled.contains($0) } }
    }

    /// The file a symbolic link at `path` points to, so the link itself stays a link.
    ///
    /// - Throws: `CommandFailure` for a link that names nothing (or a loop of links).
    private static func resolvedPath(_ path: String) throws(CommandFailure) -> String {
        var linkStatus = stat()
        guard RawFileName.withPath(path, { lstat($0, &linkStatus) }) == 0, (linkStatus.st_mode & S_IFMT) == S_IFLNK else { return path }
        guard let resolved = RawFileName.withPath(path, { realpath($0, nil) }) else {
            let link = errno == ELOOP ? "a loop of symbolic links" : "a symbolic link to nothing (dangling)"
            throw CommandFailure("is \(link); not writing through it, which would make a file wherever it points")
        }
        defer { free(resolved) }
        return RawFileName.decoding(UnsafeRawBufferPointer(start: resolved, count: strlen(resolved)))
    }

    private static func systemFailure(_ action: String) -> CommandFailure {
        CommandFailure("\(action): \(String(cString: strerror(errno)))")
    }
}
