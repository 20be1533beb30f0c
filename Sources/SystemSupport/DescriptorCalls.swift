import CFileSystem

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The `errno` values callers tell apart, by name, and the current one.
package enum ErrorNumber {
    /// The `errno` of the system call that just failed on this thread.
    package static var current: Int32 { errno }

    /// `ENOENT`: no such file or directory.
    package static let noSuchEntry = ENOENT
    /// `ENOTDIR`: a folder on the way (or the item itself) is not a directory.
    package static let notADirectory = ENOTDIR
    /// `ELOOP`: a symbolic link where `O_NOFOLLOW` refuses one, or a loop of links.
    package static let symbolicLinkLoop = ELOOP
    /// `EEXIST`: something is already there.
    package static let alreadyExists = EEXIST
    /// `EINTR`: a signal interrupted the call.
    package static let interrupted = EINTR
    /// `EXDEV`: the two names are on different file systems.
    package static let crossDevice = EXDEV
    /// `EPERM`: the operation is not permitted.
    package static let notPermitted = EPERM
    /// `EACCES`: permission denied.
    package static let accessDenied = EACCES
    /// `EMLINK`: too many hard links.
    package static let tooManyLinks = EMLINK
    /// `ENOTSUP`: not supported by this file system.
    package static let notSupported = ENOTSUP
    /// `EOPNOTSUPP`: the operation is not supported (the same value as `ENOTSUP` on Linux).
    package static let operationNotSupported = EOPNOTSUPP
    /// `ENOSYS`: no such system call here.
    package static let noSystemCall = ENOSYS
    /// `EINVAL`: an argument the call refuses (say, a flag the file system lacks).
    package static let invalidArgument = EINVAL
    /// `EBUSY`: the item is in use.
    package static let busy = EBUSY
}

/// Opening, flushing and closing descriptors; names are relative to an open
/// directory (`CurrentDirectory.descriptor` for the working directory), as
/// the `*at` calls take them, bytes not UTF-8 as `RawFileName` carries them.
package enum DescriptorCalls {
    /// Opens `name` in `directory` with `options` (always `O_CLOEXEC`;
    /// `O_RDONLY` unless `.writeOnly`), making it with `permissions` (less
    /// the umask) when `options` holds `.create`. The caller closes the
    /// descriptor. The corresponding C function is `openat`.
    ///
    /// - Throws: `SystemCallError` naming `name`.
    package static func open(_ name: String, in directory: Int32, options: OpenFile.Options = [], permissions: UInt16 = 0o600)
        throws(SystemCallError) -> Int32
    {
        let descriptor = RawFileName.withPath(name) { openat(directory, $0, O_RDONLY | O_CLOEXEC | options.rawValue, mode_t(permissions)) }
        guard descriptor >= 0 else { throw SystemCallError(path: name) }
        return descriptor
    }

    /// Closes `descriptor`. The corresponding C function is `close`.
    package static func close(_ descriptor: Int32) {
        // PresenterChannel.swift's, outside this enum, whose own `close` hides the C function's name.
        closeDescriptor(descriptor)
    }

    /// Waits until the file's bytes and status are on disk. `path` names it
    /// in the error. The corresponding C function is `fsync`.
    ///
    /// - Throws: `SystemCallError` naming `path`.
    package static func flush(_ descriptor: Int32, path: String) throws(SystemCallError) {
        guard fsync(descriptor) == 0 else { throw SystemCallError(path: path) }
    }

    /// Flushes everything pending on the file system that holds `descriptor`;
    /// false where there is no such call (macOS). The corresponding C function is `syncfs`.
    ///
    /// - Throws: `SystemCallError` naming `path`.
    package static func flushFileSystem(of descriptor: Int32, path: String) throws(SystemCallError) -> Bool {
        if ictkit_sync_file_system(descriptor) == 0 { return true }
        if errno == ENOSYS { return false }
        throw SystemCallError(path: path)
    }

    /// Starts writing the file's bytes to disk without waiting (Linux;
    /// nothing elsewhere). The corresponding C function is `sync_file_range`.
    package static func startWriteback(_ descriptor: Int32) {
        _ = ictkit_start_writeback(descriptor)
    }

    /// Waits until the writes `startWriteback` started are on disk (Linux;
    /// nothing elsewhere, where `fsync` does it). The corresponding C function is `sync_file_range`.
    ///
    /// - Throws: `SystemCallError` naming `path`.
    package static func waitForWriteback(_ descriptor: Int32, path: String) throws(SystemCallError) {
        guard ictkit_wait_for_writeback(descriptor) == 0 else { throw SystemCallError(path: path) }
    }

    /// Sets the modification time of the open file (its access time left as
    /// it is). The corresponding C function is `futimens`.
    ///
    /// - Throws: `SystemCallError` naming `path`.
    package static func setModificationTime(_ descriptor: Int32, seconds: Int64, nanoseconds: Int64, path: String) throws(SystemCallError) {
        let times = [timespec(tv_sec: 0, tv_nsec: ictkit_utime_omit()), timespec(tv_sec: time_t(seconds), tv_nsec: Int(nanoseconds))]
        guard futimens(descriptor, times) == 0 else { throw SystemCallError(path: path) }
    }

    /// The file position of `descriptor` (-1 when it has none, as a pipe).
    /// The corresponding C function is `lseek`.
    package static func position(of descriptor: Int32) -> Int64 {
        Int64(lseek(descriptor, 0, SEEK_CUR))
    }
}


/// Names in an open directory: making, linking, renaming and removing them
/// (the `*at` calls), never following a last symbolic link.
extension Directory {
    /// Makes the directory `name` in `directory` with `permissions` (less the
    /// umask). The corresponding C function is `mkdirat`.
    ///
    /// - Throws: `SystemCallError` naming `name`.
    package static func make(_ name: String, in directory: Int32, permissions: UInt16) throws(SystemCallError) {
        guard RawFileName.withPath(name, { mkdirat(directory, $0, mode_t(permissions)) }) == 0 else { throw SystemCallError(path: name) }
    }

    /// Sets the permission bits of `name` in `directory` (a last link
    /// followed). The corresponding C function is `fchmodat`.
    ///
    /// - Throws: `SystemCallError` naming `name`.
    package static func setPermissions(_ permissions: UInt16, of name: String, in directory: Int32) throws(SystemCallError) {
        guard RawFileName.withPath(name, { fchmodat(directory, $0, mode_t(permissions), 0) }) == 0 else { throw SystemCallError(path: name) }
    }

    /// Removes the entry `name` in `directory`: a file or link, or with
    /// `isDirectory` an empty directory. The corresponding C function is `unlinkat`.
    ///
    /// - Throws: `SystemCallError` naming `name`.
    package static func remove(_ name: String, in directory: Int32, isDirectory: Bool = false) throws(SystemCallError) {
        guard RawFileName.withPath(name, { unlinkat(directory, $0, isDirectory ? AT_REMOVEDIR : 0) }) == 0 else {
            throw SystemCallError(path: name)
        }
    }

    /// Removes `name` in `directory` and everything under it, as far as it
    /// can, without following links and without saying what it could not
    /// remove (`removeTree(_:in:)`).
    package static func removeTreeIgnoringErrors(_ name: String, in directory: Int32) {
        _ = RawFileName.withPath(name) { removeTree(named: $0, in: directory) }
    }

    /// How deep `removeTree` goes: past any package the readers accept
    /// (`DocumentPackageLimits.maximumDepth`, 64 by default), within a
    /// thread's stack (about 300 bytes a level).
    package static let maximumRemovalDepth: Int32 = 1024

    /// Removes `name` in `directory` and, for a directory, everything under
    /// it, without following symbolic links; nothing there is no error.
    /// Only folders are opened up (mode 0700) to be emptied. The one tree
    /// remover, which the signal handlers call too: the C function
    /// `ictkit_remove_tree_reporting` (`unlinkat`, `getdents64` or
    /// `getattrlistbulk`), here with a buffer of this call's own.
    ///
    /// - Throws: `SystemCallError` naming `name`, with the `errno` of the
    ///   first call that failed, when anything is left (`ENOTEMPTY` for
    ///   folders nested deeper than `maximumRemovalDepth`).
    package static func removeTree(_ name: String, in directory: Int32) throws(SystemCallError) {
        let code = RawFileName.withPath(name) { removeTree(named: $0, in: directory) }
        guard code == 0 else { throw SystemCallError(path: name, code: code) }
    }

    /// `removeTree(_:in:)` of a name as C gives it; returns the `errno` of
    /// the first failure when anything is left, else 0.
    package static func removeTree(named name: UnsafePointer<CChar>, in directory: Int32) -> Int32 {
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: Int(ICTKIT_REMOVE_TREE_BUFFER_SIZE), alignment: 8)
        defer { buffer.deallocate() }
        return ictkit_remove_tree_reporting(directory, name, maximumRemovalDepth, buffer.assumingMemoryBound(to: CChar.self))
    }

    /// Renames `from` in `fromDirectory` to `to` in `toDirectory`, replacing
    /// what `to` names. The corresponding C function is `renameat`.
    ///
    /// - Throws: `SystemCallError` naming `from`.
    package static func rename(_ from: String, in fromDirectory: Int32, to: String, in toDirectory: Int32) throws(SystemCallError) {
        let renamed = RawFileName.withPath(from) { old in RawFileName.withPath(to) { renameat(fromDirectory, old, toDirectory, $0) } }
        guard renamed == 0 else { throw SystemCallError(path: from) }
    }

    /// Renames `from` to `to` (both in `directory`) only when nothing is at
    /// `to`. The corresponding C functions are `renameat2(RENAME_NOREPLACE)`
    /// (Linux) and `renameatx_np(RENAME_EXCL)` (macOS).
    ///
    /// - Throws: `SystemCallError` naming `from` (`isAlreadyExisting` when something is at `to`).
    package static func renameWithoutReplacing(_ from: String, to: String, in directory: Int32) throws(SystemCallError) {
        let renamed = RawFileName.withPath(from) { old in
            RawFileName.withPath(to) { ictkit_rename_without_replacing(directory, old, directory, $0) }
        }
        guard renamed == 0 else { throw SystemCallError(path: from) }
    }

    /// Swaps the names `first` (in `firstDirectory`) and `second` (in
    /// `secondDirectory`) in one step. The corresponding C functions are
    /// `renameat2(RENAME_EXCHANGE)` (Linux) and `renameatx_np(RENAME_SWAP)` (macOS).
    ///
    /// - Throws: `SystemCallError` naming `first` (`EINVAL`, `ENOSYS` or
    ///   `ENOTSUP` where the file system cannot).
    package static func exchange(_ first: String, in firstDirectory: Int32, with second: String, in secondDirectory: Int32)
        throws(SystemCallError)
    {
        let exchanged = RawFileName.withPath(first) { from in
            RawFileName.withPath(second) { ictkit_exchange_names(firstDirectory, from, secondDirectory, $0) }
        }
        guard exchanged == 0 else { throw SystemCallError(path: first) }
    }

    /// Gives the inode of `sourceName` in `sourceDirectory` the second name
    /// `name` in `directory`, a last link not followed. The corresponding C function is `linkat`.
    ///
    /// - Throws: `SystemCallError` naming `sourceName`.
    package static func hardLink(_ sourceName: String, in sourceDirectory: Int32, named name: String, in directory: Int32)
        throws(SystemCallError)
    {
        let linked = RawFileName.withPath(sourceName) { from in RawFileName.withPath(name) { linkat(sourceDirectory, from, directory, $0, 0) } }
        guard linked == 0 else { throw SystemCallError(path: sourceName) }
    }
}

extension SymbolicLink {
    /// Makes the symbolic link `name` in `directory`, pointing to
    /// `destination` (its bytes as `RawFileName` carries them, as the name's
    /// are). The corresponding C function is `symlinkat`.
    ///
    /// - Throws: `SystemCallError` naming `name`.
    package static func make(_ name: String, in directory: Int32, destination: String) throws(SystemCallError) {
        let made = RawFileName.withPath(destination) { target in RawFileName.withPath(name) { symlinkat(target, directory, $0) } }
        guard made == 0 else { throw SystemCallError(path: name) }
    }

    /// Sets the modification time of the link `name` in `directory` itself
    /// (not of what it points to). The corresponding C function is `utimensat`.
    ///
    /// - Throws: `SystemCallError` naming `name`.
    package static func setModificationTime(ofLinkNamed name: String, in directory: Int32, seconds: Int64, nanoseconds: Int64)
        throws(SystemCallError)
    {
        let times = [timespec(tv_sec: 0, tv_nsec: ictkit_utime_omit()), timespec(tv_sec: time_t(seconds), tv_nsec: Int(nanoseconds))]
        guard RawFileName.withPath(name, { utimensat(directory, $0, times, AT_SYMLINK_NOFOLLOW) }) == 0 else {
            throw SystemCallError(path: name)
        }
    }

    /// What the link `name` in `directory` holds, byte for byte, read into
    /// `capacity` bytes; nil when it may hold more (read again with more).
    /// The corresponding C function is `readlinkat`.
    ///
    /// - Throws: `SystemCallError` naming `name`.
    package static func destinationBytes(ofLinkNamed name: String, in directory: Int32, capacity: Int) throws(SystemCallError) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: capacity)
        let count = RawFileName.withPath(name) { readlinkat(directory, $0, &buffer, capacity) }
        guard count >= 0 else { throw SystemCallError(path: name) }
        return count < capacity ? Array(buffer[0..<count]) : nil
    }
}

/// Copying a file's bytes between open descriptors.
package enum FileCopy {
    /// Why a copy failed: the step ("copy the file", "read the file being
    /// copied", "write the file") and the `errno` of its call.
    package struct Failure: Error, Equatable, Sendable {
        package let step: String
        package let code: Int32
    }

    /// Makes `destination` (at its position) hold `source`'s bytes: a reflink
    /// (`FICLONE`) when the file system shares blocks, else an in-kernel copy
    /// (`copy_file_range`), else reads and writes from where those stopped.
    /// The corresponding C functions are `ioctl(FICLONE)`, `copy_file_range`,
    /// `pread` and `write`.
    ///
    /// - Throws: `Failure`.
    package static func copyContents(of source: Int32, size: Int64, to destination: Int32) throws(Failure) {
        // macOS copies with read and write here; clonefile(2) there creates
        // the destination itself, which the callers have already made.
        #if os(Linux)
        if ictkit_clone_file(destination, source) == 0 { return }
        var remaining = size
        while remaining > 0 {
            let copied = ictkit_copy_file_range(source, destination, UInt(min(remaining, 1 << 30)))
            if copied < 0 {
                if errno == EINTR { continue }
                if errno == EXDEV || errno == ENOSYS || errno == EINVAL || errno == EOPNOTSUPP { break }
                throw Failure(step: "copy the file", code: errno)
            }
            if copied == 0 { break }
            remaining -= Int64(copied)
        }
        if remaining == 0 { return }
        #endif
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var offset = DescriptorCalls.position(of: destination)
        while true {
            let count = buffer.withUnsafeMutableBytes { pread(source, $0.baseAddress, $0.count, off_t(offset)) }
            if count < 0 {
                if errno == EINTR { continue }
                throw Failure(step: "read the file being copied", code: errno)
            }
            if count == 0 { return }
            if let code = buffer.withUnsafeBytes({ FileWriting.writeAll(UnsafeRawBufferPointer(rebasing: $0[0..<count]), to: destination) }) {
                throw Failure(step: "write the file", code: code)
            }
            offset += Int64(count)
        }
    }
}

/// A file's bytes mapped into memory, read-only and private.
package enum MemoryMapping {
    /// Maps the first `size` bytes of the file open as `descriptor`
    /// (`size` > 0); the mapping outlives the descriptor. `path` names the
    /// file in the error. The corresponding C function is `mmap`.
    ///
    /// - Throws: `SystemCallError` naming `path`.
    package static func map(_ descriptor: Int32, size: Int, path: String) throws(SystemCallError) -> UnsafeRawBufferPointer {
        guard let address = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), address != MAP_FAILED else {
            throw SystemCallError(path: path)
        }
        return UnsafeRawBufferPointer(start: address, count: size)
    }

    /// Unmaps what `map` gave. The corresponding C function is `munmap`.
    package static func unmap(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress else { return }
        munmap(UnsafeMutableRawPointer(mutating: base), bytes.count)
    }

    /// Lets the system drop the resident pages of `range` of a mapping
    /// (rounded inward to whole pages); a private read-only mapping reads a
    /// dropped page back from the file. The corresponding C functions are
    /// `sysconf(_SC_PAGESIZE)` and `madvise(MADV_DONTNEED)`.
    package static func releasePages(_ range: Range<Int>, of bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress else { return }
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        let start = (range.lowerBound + pageSize - 1) / pageSize * pageSize
        let end = min(range.upperBound, bytes.count) / pageSize * pageSize
        guard start < end else { return }
        madvise(UnsafeMutableRawPointer(mutating: base + start), end - start, MADV_DONTNEED)
    }
}
