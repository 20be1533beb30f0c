#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a file at a path, never leaving a half-written file.
///
/// A path naming a device, pipe or socket (say `/dev/stdout` or
/// `/dev/null`) is written directly, never replaced. Any other path gets a
/// new regular file written beside it under a temporary name
/// (`TemporaryItem`: `.NAME.ict-new-PID-RANDOM`), flushed, and renamed over
/// it in one step by `commit()`, keeping an existing file's permissions (and
/// its owner and group, where the process may); if anything fails before
/// that, the temporary file is removed and the old file is untouched.
/// SIGINT, SIGTERM and SIGHUP remove the temporary file before the process
/// ends; one left by a killed writer (SIGKILL, a crash) is removed by the
/// next one writing the same file, once its process is gone.
package final class AtomicFileWriter {
    /// Why a write failed: what was being done and what the system said.
    package struct Failure: Error, CustomStringConvertible, Equatable, Sendable {
        package let description: String
        /// The file in place is not the one that was read: another program
        /// replaced or rewrote it, and it was left as that program left it.
        package var changedSinceRead = false

        package init(description: String, changedSinceRead: Bool = false) {
            self.description = description
            self.changedSinceRead = changedSinceRead
        }

        package static let changed = Failure(
            description: "the file changed since it was read (another program wrote it); nothing was saved, run the command again",
            changedSinceRead: true)
    }

    private let descriptor: Int32
    /// The temporary file and the file it will replace, for a regular-file target.
    private let replacement: (temporary: String, target: String)?
    /// Whether a link at the path is written through (else replaced).
    private let followsLink: Bool
    private var finished = false

    /// Opens the destination named `path`: a device or pipe as it is, or a
    /// new temporary file beside a regular file's path. A symbolic link at
    /// `path` is written through to the file it names; one that names
    /// nothing (dangling) is refused, as `cp` does, rather than create a
    /// file wherever it points. Without `followingLink`, a link at `path`
    /// is replaced by the new file, never written through.
    ///
    /// Lists the folder for temporaries killed writers left behind (once
    /// for a run of files written into one folder) and removes them.
    ///
    /// - Throws: `Failure` for a directory, a dangling link, or a folder or
    ///   file that cannot be opened or made.
    package init(path: String, followingLink: Bool = true) throws(Failure) {
        followsLink = followingLink
        var status = stat()
        let found = RawFileName.withPath(path) { followingLink ? stat($0, &status) : lstat($0, &status) } == 0
        if found, (status.st_mode & S_IFMT) != S_IFREG, followingLink || (status.st_mode & S_IFMT) != S_IFLNK {
            guard (status.st_mode & S_IFMT) != S_IFDIR else { throw Failure(description: "is a directory, not a file") }
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
        replacement = (TemporaryItem.path(temporaryName, in: folder), target)
    }

    deinit {
        if !finished { abandon() }
    }

    /// Appends `bytes`; on failure the destination is abandoned.
    ///
    /// - Throws: `Failure` ("cannot write") with what the system said.
    package func write(_ bytes: UnsafeRawBufferPointer) throws(Failure) {
        if let code = FileWriting.writeAll(bytes, to: descriptor) {
            errno = code
            let failure = Self.systemFailure("cannot write")
            abandon()
            throw failure
        }
    }

    /// Finishes: for a regular file, sets the old file's owner, group and
    /// permissions (or the defaults), flushes, and renames the temporary file over the target.
    /// With `expected` (the stamp of the file taken before it was read, for
    /// a read-modify-write), only while the file in place is still that one:
    /// otherwise nothing is replaced and `Failure.changed` is thrown.
    ///
    /// - Throws: `Failure` when the file cannot be flushed or put in place
    ///   (the old file is then as it was).
    package func commit(expecting expected: FileStamp? = nil) throws(Failure) {
        finished = true
        guard let (temporary, target) = replacement else {
            close(descriptor)
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
                throw abandoning(Failure(description: "cannot keep the owner of the file: \(SystemCallError.describe(failed))"))
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
    package func abandon() {
        finished = true
        guard let (temporary, _) = replacement else { return }
        close(descriptor)
        RawFileName.withPath(temporary) { _ = unlink($0) }
        TemporaryItem.finished(temporary, folder: "")
    }

    private func abandoning(_ failure: Failure) -> Failure {
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
    /// Serialises `lastListed` between threads.
    private static let lastListedLock = ThreadLock()

    /// Removes the temporaries of `name` in `folder` that a killed run left
    /// behind, once their process is gone (`TemporaryItem.removeStale`).
    private static func removeStaleTemporaries(of name: String, in folder: String, descriptor: Int32) {
        lastListedLock.withLock {
            if lastListed?.folder != folder { lastListed = (folder, TemporaryItem.candidates(in: descriptor)) }
            guard let candidates = lastListed?.candidates else { return }
            let handled = TemporaryItem.removeStale(of: name, among: candidates, in: descriptor)
            if !handled.isEmpty { lastListed?.candidates.removeAll { handled.contains($0) } }
        }
    }

    /// The file a symbolic link at `path` points to, so the link itself stays a link.
    ///
    /// - Throws: `Failure` for a link that names nothing (or a loop of links).
    private static func resolvedPath(_ path: String) throws(Failure) -> String {
        guard (try? FileInfo.of(path: path, followingLink: false))?.kind == .symbolicLink else { return path }
        do throws(SystemCallError) {
            return try SymbolicLink.resolvedPath(path)
        } catch {
            let link = error.code == ELOOP ? "a loop of symbolic links" : "a symbolic link to nothing (dangling)"
            throw Failure(description: "is \(link); not writing through it, which would make a file wherever it points")
        }
    }

    private static func systemFailure(_ action: String) -> Failure {
        Failure(description: "\(action): \(SystemCallError.describe(errno))")
    }
}
