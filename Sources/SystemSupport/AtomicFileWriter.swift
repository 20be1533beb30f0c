#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a file at a path, never leaving a half-written file: the one
/// atomic single-file writer (`ict`'s output files, one-file documents,
/// conflict versions copied in).
///
/// A path naming a device, pipe or socket (say `/dev/stdout` or
/// `/dev/null`, or a link to one) is written directly, never replaced; any
/// other symbolic link is refused, never written through unless `Options.links` says so (a link
/// planted where a file is expected, say by a peer of a synced folder, would
/// send the bytes wherever it points). Any other path gets a
/// new regular file written beside it under a temporary name
/// (`TemporaryItem`: `.NAME.ict-new-PID-RANDOM`), flushed, and renamed over
/// it in one step by `commit()`, keeping an existing file's permissions (and
/// its owner and group, where the process may); if anything fails before
/// that, the temporary file is removed and the old file is untouched.
/// SIGINT, SIGTERM and SIGHUP remove the temporary file before the process
/// ends; one left by a killed writer (SIGKILL, a crash) is removed by the
/// next one writing the same file, once its process is gone. `Options`
/// changes these defaults for the library's writers.
package final class AtomicFileWriter {
    /// Why a write failed: what was being done and what the system said.
    package struct Failure: Error, CustomStringConvertible, Equatable, Sendable {
        /// The step of a write, for a caller that says a failure its own way.
        package enum Step: Sendable, Equatable {
            /// Opening a device or pipe written in place; refusing a directory or a dangling link.
            case open
            /// Refusing a symbolic link at the path (`Options.links` is `.refused`).
            case symbolicLink
            /// Refusing a device, pipe or socket at the path (`Options.specialFiles` is `.refused`).
            case specialFile
            /// Opening the folder the new file is written into.
            case openFolder
            /// Making the temporary file beside the target.
            case createTemporary
            /// Writing the bytes.
            case write
            /// Giving the new file the old one's owner and group.
            case keepOwner
            /// Setting the new file's permissions.
            case setPermissions
            /// Flushing the new file to disk.
            case flush
            /// Renaming the new file over the target.
            case replace
        }

        package let description: String
        /// The file in place is not the one that was read: another program
        /// replaced or rewrote it, and it was left as that program left it.
        package var changedSinceRead = false
        /// The step that failed.
        package var step = Step.open
        /// The `errno` of the call that failed; 0 where none did (a
        /// directory, a dangling link, a file changed since it was read).
        package var systemError: Int32 = 0

        package init(description: String, changedSinceRead: Bool = false, step: Step = .open, systemError: Int32 = 0) {
            self.description = description
            self.changedSinceRead = changedSinceRead
            self.step = step
            self.systemError = systemError
        }

        package static let changed = Failure(
            description: "the file changed since it was read (another program wrote it); nothing was saved, run the command again",
            changedSinceRead: true, step: .replace)
    }

    /// The permissions (and owner) the new file gets.
    package enum Permissions: Sendable, Equatable {
        /// The replaced file's permissions, owner and group (where the
        /// process may); 0666 less the umask for a new file.
        case keepingReplaced
        /// Exactly these permission bits, whatever the umask; the owner is the process's.
        case exactly(UInt16)
        /// These permission bits less the umask, as the file is made; the owner is the process's.
        case lessUmask(UInt16)
    }

    /// What a writer does with a symbolic link at the path.
    package enum LinkHandling: Sendable, Equatable {
        /// The link is refused (`Failure.Step.symbolicLink`) and nothing is
        /// written: the default, since a link may point anywhere.
        case refused
        /// The bytes go to the file the link names (a link to nothing is
        /// refused), as Apple's `plutil` writes; the link stays a link.
        case followed
        /// The link is replaced by the new file; what it names is untouched.
        case replaced
    }

    /// What a writer does with a device, FIFO or socket at the path.
    package enum SpecialFileHandling: Sendable, Equatable {
        /// Written directly, as a stream (`-o /dev/stdout`): the default.
        case writtenInPlace
        /// Refused (`Failure.Step.specialFile`) and left as it is: for a
        /// document, which is never a stream.
        case refused
    }

    /// How the new file is written and put in place. The defaults are those
    /// of `ict`'s output files.
    package struct Options: Sendable {
        /// A symbolic link at the path: refused by default.
        package var links = LinkHandling.refused
        /// A device, pipe or socket at the path: written directly by default.
        package var specialFiles = SpecialFileHandling.writtenInPlace
        /// The new file's permissions and owner.
        package var permissions = Permissions.keepingReplaced
        /// The folder is listed for temporaries killed writers left once for
        /// a run of files written into it (a batch); else for each writer
        /// (a process that lives long and saves again and again).
        package var listingFolderOnce = true
        /// After the rename the folder is flushed too (`fsync`), so the new
        /// name is on disk as well as the new bytes. A failure there is not reported.
        package var flushingFolder = false

        package init() {}
    }

    private let descriptor: Int32
    /// The temporary file and the file it will replace, for a regular-file target.
    private let replacement: (temporary: String, target: String, folder: String)?
    private let options: Options
    private var finished = false

    /// Opens the destination named `path`: a device or pipe as it is, or a
    /// new temporary file beside a regular file's path. A symbolic link at
    /// `path` is refused; with `links: .followed` it is written through to
    /// the file it names, and one that names nothing (dangling) is refused,
    /// as `cp` does, rather than create a file wherever it points.
    ///
    /// Lists the folder for temporaries killed writers left behind (once
    /// for a run of files written into one folder) and removes them.
    ///
    /// - Throws: `Failure` for a directory, a symbolic link (unless
    ///   followed), a dangling link, or a folder or file that cannot be
    ///   opened or made.
    package convenience init(path: String, links: LinkHandling = .refused) throws(Failure) {
        var options = Options()
        options.links = links
        try self.init(path: path, options: options)
    }

    /// Opens the destination named `path` as `options` say (see `Options`;
    /// the defaults are `init(path:links:)`'s).
    ///
    /// - Throws: `Failure` for a directory, a link or special file the
    ///   options refuse, a dangling link, or a folder or file that cannot be
    ///   opened or made.
    package init(path: String, options: Options) throws(Failure) {
        self.options = options
        if let opened = try Self.openInPlace(path, options: options) {
            descriptor = opened
            replacement = nil
            return
        }
        let target = options.links == .followed ? try Self.resolvedPath(path) : path
        if target.utf8.count > 1, target.utf8.last == UInt8(ascii: "/") {
            // `x/` names a folder, never a file to write (the file system says so to `open`, too).
            errno = ENOTDIR
            throw Self.systemFailure("cannot write a file at a path that ends with \"/\"", .open)
        }
        let (folder, name) = PathName.split(target)
        let folderDescriptor = RawFileName.withPath(folder) { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard folderDescriptor >= 0 else { throw Self.systemFailure("cannot open the folder to write into", .openFolder) }
        defer { close(folderDescriptor) }
        if options.listingFolderOnce {
            Self.removeStaleTemporaries(of: name, in: folder, descriptor: folderDescriptor)
        } else {
            TemporaryItem.removeStale(of: name, in: folderDescriptor)
        }
        let creationPermissions: UInt16
        switch options.permissions {
        case .keepingReplaced: creationPermissions = 0o600
        case .exactly(let bits), .lessUmask(let bits): creationPermissions = bits
        }
        guard
            let (made, temporaryName) = TemporaryItem.makeFile(
                for: name, in: folderDescriptor, folder: folder, permissions: creationPermissions)
        else {
            throw Self.systemFailure("cannot create a temporary file beside it", .createTemporary)
        }
        descriptor = made
        replacement = (TemporaryItem.path(temporaryName, in: folder), target, folder)
    }

    /// The descriptor of what is at `path` when it is written in place (a
    /// device, pipe or socket), nil for a regular file, a link replaced, or nothing.
    ///
    /// - Throws: `Failure` for a directory, a link or special file `options`
    ///   refuse, or a device that cannot be opened.
    private static func openInPlace(_ path: String, options: Options) throws(Failure) -> Int32? {
        var status = stat()
        guard RawFileName.withPath(path, { lstat($0, &status) }) == 0 else { return nil }
        if (status.st_mode & S_IFMT) == S_IFLNK {
            var resolved = stat()
            let resolves = RawFileName.withPath(path, { stat($0, &resolved) }) == 0
            // A link to a stream (`/dev/stdout`, `/dev/fd/1`) is written as the stream, whatever `links` says: no file can be changed through it.
            let toStream = resolves && FileKind(mode: UInt32(resolved.st_mode)).isSpecial && options.specialFiles == .writtenInPlace
            switch options.links {
            case .replaced: return nil
            case .refused: guard toStream else { throw linkRefused(path) }
            case .followed:
                // A dangling link is refused with the path resolved (`resolvedPath`).
                guard resolves else { return nil }
            }
            status = resolved
        }
        let kind = FileKind(mode: UInt32(status.st_mode))
        guard kind != .regular else { return nil }
        guard kind != .directory else { throw Failure(description: "is a directory, not a file") }
        guard options.specialFiles == .writtenInPlace else {
            throw Failure(description: "is \(kind.phrase), not a regular file; it is left as it is", step: .specialFile)
        }
        let descriptor = RawFileName.withPath(path) { open($0, O_WRONLY | O_CLOEXEC) }
        guard descriptor >= 0 else { throw Self.systemFailure("cannot open", .open) }
        return descriptor
    }

    /// The `Failure` of a symbolic link at `path` that is not to be written through.
    private static func linkRefused(_ path: String) -> Failure {
        let destination = (try? SymbolicLink.destination(ofLinkAt: path)).map { " (to \"\(RawFileName.escaped($0, everyRawByte: false))\")" } ?? ""
        return Failure(
            description: "is a symbolic link\(destination); not written through it, which would change whatever it points to",
            step: .symbolicLink)
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
            let failure = Self.systemFailure("cannot write", .write)
            abandon()
            throw failure
        }
    }

    /// Finishes: for a regular file, gives it its permissions (and owner,
    /// as `Options.permissions` says), flushes, and renames the temporary
    /// file over the target (then flushes the folder, with `Options.flushingFolder`).
    /// With `expected` (the stamp of the file taken before it was read, for
    /// a read-modify-write), only while the file in place is still that one:
    /// otherwise nothing is replaced and `Failure.changed` is thrown.
    ///
    /// - Throws: `Failure` when the file cannot be flushed or put in place
    ///   (the old file is then as it was).
    package func commit(expecting expected: FileStamp? = nil) throws(Failure) {
        finished = true
        guard let (temporary, target, folder) = replacement else {
            close(descriptor)
            return
        }
        defer { close(descriptor) }
        switch options.permissions {
        case .keepingReplaced: try keepReplacedPermissions(of: target)
        case .exactly(let bits):
            guard fchmod(descriptor, mode_t(bits)) == 0 else {
                throw abandoning(Self.systemFailure("cannot set the permissions of the new file", .setPermissions))
            }
        case .lessUmask: break
        }
        guard fsync(descriptor) == 0 else { throw abandoning(Self.systemFailure("cannot flush the new file", .flush)) }
        do throws(FileStamp.ReplaceFailure) {
            try FileStamp.replace(temporary, over: target, expecting: expected)
        } catch {
            if error.changedSinceRead {
                TemporaryItem.finished(temporary, folder: "")
                throw .changed
            }
            errno = error.systemError
            throw abandoning(Self.systemFailure("cannot replace it", .replace))
        }
        TemporaryItem.finished(temporary, folder: "")
        if options.flushingFolder, let folderDescriptor = try? Directory.openDescriptor(atPath: folder) {
            _ = fsync(folderDescriptor)
            close(folderDescriptor)
        }
    }

    /// Gives the new file the permissions of the regular file at `target`
    /// (a link followed as `Options.links` says), and its owner and
    /// group where the process may; 0666 less the umask when there is none.
    private func keepReplacedPermissions(of target: String) throws(Failure) {
        var existing = stat()
        let mode: mode_t
        let statted = RawFileName.withPath(target) { options.links == .followed ? stat($0, &existing) : lstat($0, &existing) } == 0
        if statted, (existing.st_mode & S_IFMT) == S_IFREG {
            mode = existing.st_mode & 0o7777
            // The old file's owner and group too, where the process may (as root): before fchmod, which chown would undo.
            if let failed = FileOwnership.keep(owner: existing.st_uid, group: existing.st_gid, on: descriptor) {
                throw abandoning(
                    Failure(
                        description: "cannot keep the owner of the file: \(SystemCallError.describe(failed))", step: .keepOwner,
                        systemError: failed))
            }
        } else {
            let mask = umask(0)
            umask(mask)
            mode = 0o666 & ~mask
        }
        guard fchmod(descriptor, mode) == 0 else {
            throw abandoning(Self.systemFailure("cannot set the permissions of the new file", .setPermissions))
        }
    }

    /// Removes the temporary file, leaving any old file as it was.
    package func abandon() {
        finished = true
        guard let (temporary, _, _) = replacement else { return }
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

    private static func systemFailure(_ action: String, _ step: Failure.Step) -> Failure {
        let code = errno
        return Failure(description: "\(action): \(SystemCallError.describe(code))", step: step, systemError: code)
    }
}
