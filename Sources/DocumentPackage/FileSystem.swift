import CFileSystem
import SystemSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// Each system call the module makes, behind one internal function that
// throws `DocumentPackageError` naming both paths. Everything below works
// relative to open directory descriptors and never follows a symbolic link
// inside a package.

/// Where an entry is, for error messages: inside the package and on disk.
struct EntryLocation {
    var pathInPackage: String
    var fileSystemPath: String

    func child(_ name: String) -> EntryLocation {
        EntryLocation(
            pathInPackage: pathInPackage.isEmpty ? name : pathInPackage + "/" + name,
            fileSystemPath: fileSystemPath + "/" + name)
    }

    func error(_ action: String, errno code: Int32 = errno) -> DocumentPackageError {
        let reason = String(cString: strerror(code))
        return DocumentPackageError(
            .io, pathInPackage: pathInPackage, fileSystemPath: fileSystemPath,
            systemErrorNumber: code, "cannot \(action): \(reason)")
    }

    func error(_ code: DocumentPackageError.Code, _ message: String) -> DocumentPackageError {
        DocumentPackageError(code, pathInPackage: pathInPackage, fileSystemPath: fileSystemPath, message)
    }
}

/// A modification time to the nanosecond, as `stat` reports it.
struct FileTimestamp: Hashable, Sendable {
    var seconds: Int64
    var nanoseconds: Int64

    init(seconds: Int64, nanoseconds: Int64) {
        self.seconds = seconds
        self.nanoseconds = nanoseconds
    }

    init(_ time: timespec) {
        seconds = Int64(time.tv_sec)
        nanoseconds = Int64(time.tv_nsec)
    }

    var timespecValue: timespec { timespec(tv_sec: time_t(seconds), tv_nsec: Int(nanoseconds)) }
}

/// What `lstat` says about an item: enough to tell whether it changed.
struct FileIdentity: Hashable, Sendable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modificationTime: FileTimestamp
    /// The type bits (`S_IFMT`) and permission bits of `st_mode`.
    var mode: UInt32

    init(_ status: stat) {
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
        size = Int64(status.st_size)
        #if canImport(Darwin)
        modificationTime = FileTimestamp(status.st_mtimespec)
        #else
        modificationTime = FileTimestamp(status.st_mtim)
        #endif
        mode = UInt32(status.st_mode)
        owner = UInt32(status.st_uid)
        group = UInt32(status.st_gid)
    }

    /// `S_IFMT` and the type values, which Glibc's overlay imports ambiguously.
    static let typeMask: UInt32 = 0o170000
    static let directoryType: UInt32 = 0o040000
    static let regularFileType: UInt32 = 0o100000
    static let symbolicLinkType: UInt32 = 0o120000

    var fileType: UInt32 { mode & Self.typeMask }
    /// The owner's user ID.
    var owner: UInt32
    /// The group ID.
    var group: UInt32
    var permissions: UInt16 { UInt16(mode & 0o7777) }

    /// Same item, same bytes as far as the file system tells: device, inode,
    /// size and modification time agree.
    func sameContents(as other: FileIdentity) -> Bool {
        device == other.device && inode == other.inode && size == other.size
            && modificationTime == other.modificationTime
    }
}

/// An open file or directory descriptor, closed when the value is dropped.
final class Descriptor {
    let rawValue: Int32

    init(_ rawValue: Int32) { self.rawValue = rawValue }

    deinit { close(rawValue) }
}

enum FileSystem {
    /// `openat(2)` of a directory, never following a final symbolic link
    /// unless `followingLink` (only the package root may be reached through one).
    static func openDirectory(
        _ name: String, in directory: Int32 = AT_FDCWD, followingLink: Bool = false,
        at location: EntryLocation
    ) throws(DocumentPackageError) -> Descriptor {
        let flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | (followingLink ? 0 : O_NOFOLLOW)
        let descriptor = RawFileName.withPath(name) { openat(directory, $0, flags) }
        guard descriptor >= 0 else {
            let code = errno
            switch code {
            case ENOTDIR, ELOOP: throw location.error(.notADirectory, "not a directory")
            case ENOENT: throw location.error(.notFound, "no such directory")
            default: throw location.error("open the directory", errno: code)
            }
        }
        return Descriptor(descriptor)
    }

    /// `openat(2)` of a regular file for reading, refusing a symbolic link.
    static func openFileForReading(_ name: String, in directory: Int32 = AT_FDCWD, at location: EntryLocation)
        throws(DocumentPackageError) -> Descriptor
    {
        guard let descriptor = try openFileForReadingIfPresent(name, in: directory, at: location) else {
            throw location.error("open the file", errno: ENOENT)
        }
        return descriptor
    }

    /// `openFileForReading(_:in:at:)`, nil when nothing is there.
    static func openFileForReadingIfPresent(_ name: String, in directory: Int32 = AT_FDCWD, at location: EntryLocation)
        throws(DocumentPackageError) -> Descriptor?
    {
        // Without waiting: a FIFO would hold the open until a writer came; callers refuse it by its status.
        let descriptor = RawFileName.withPath(name) { openat(directory, $0, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC) }
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw location.error("open the file")
        }
        return Descriptor(descriptor)
    }

    /// `openat(2)` creating a new file (`O_EXCL`), refusing anything already
    /// there; `permissions` are masked by the umask.
    static func createFile(_ name: String, in directory: Int32, permissions: mode_t = 0o600, at location: EntryLocation)
        throws(DocumentPackageError) -> Descriptor
    {
        let descriptor = RawFileName.withPath(name) { openat(directory, $0, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, permissions) }
        guard descriptor >= 0 else { throw location.error("create the file") }
        return Descriptor(descriptor)
    }

    /// `fstat(2)`.
    static func status(of descriptor: Descriptor, at location: EntryLocation) throws(DocumentPackageError)
        -> FileIdentity
    {
        var result = stat()
        guard fstat(descriptor.rawValue, &result) == 0 else { throw location.error("read the status") }
        return FileIdentity(result)
    }

    /// `fstatat(2)` without following a symbolic link; nil when nothing is there.
    static func linkStatus(_ name: String, in directory: Int32 = AT_FDCWD, at location: EntryLocation)
        throws(DocumentPackageError) -> FileIdentity?
    {
        var result = stat()
        guard RawFileName.withPath(name, { fstatat(directory, $0, &result, AT_SYMLINK_NOFOLLOW) }) == 0 else {
            if errno == ENOENT { return nil }
            throw location.error("read the status")
        }
        return FileIdentity(result)
    }

    /// The names in a directory, `.` and `..` left out, as raw bytes
    /// (a name on disk need not be UTF-8).
    static func entryNames(of directory: Descriptor, at location: EntryLocation) throws(DocumentPackageError)
        -> [[UInt8]]
    {
        do throws(SystemCallError) {
            return try Directory.entries(of: directory.rawValue, path: "").map(\.bytes)
        } catch {
            throw location.error("list the directory", errno: error.code)
        }
    }

    /// `readlinkat(2)`: the destination bytes of a symbolic link.
    static func linkDestination(_ name: String, in directory: Int32, size: Int64, at location: EntryLocation)
        throws(DocumentPackageError) -> [UInt8]
    {
        var capacity = max(Int(clamping: size), 0) + 1
        while true {
            var buffer = [UInt8](repeating: 0, count: capacity)
            let count = RawFileName.withPath(name) { readlinkat(directory, $0, &buffer, capacity) }
            guard count >= 0 else { throw location.error("read the link") }
            if count < capacity { return Array(buffer[0..<count]) }
            guard capacity < Int(PATH_MAX) * 2 else { throw location.error(.io, "link destination too long") }
            capacity *= 2
        }
    }

    /// Reads exactly `count` bytes from the start of the file (fewer only
    /// when the file is shorter).
    static func readBytes(of descriptor: Descriptor, count: Int, at location: EntryLocation)
        throws(DocumentPackageError) -> Data
    {
        // Read straight into the buffer the Data will own: no zero-filling, no copy.
        guard count > 0, let buffer = malloc(count) else { return Data() }
        var filled = 0
        while filled < count {
            // `filled < count`, so the pointer stays inside the buffer.
            let result = pread(descriptor.rawValue, buffer + filled, count - filled, off_t(filled))
            if result < 0 {
                if errno == EINTR { continue }
                let error = location.error("read the file")
                free(buffer)
                throw error
            }
            if result == 0 { break }
            filled += result
        }
        return Data(bytesNoCopy: buffer, count: filled, deallocator: .free)
    }

    /// Writes all of `bytes`, retrying short writes.
    static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Descriptor, at location: EntryLocation)
        throws(DocumentPackageError)
    {
        if let code = FileWriting.writeAll(bytes, to: descriptor.rawValue) { throw location.error("write the file", errno: code) }
    }

    /// Makes `destination` hold a copy of `source`'s bytes: a reflink
    /// (`FICLONE`) when the file system shares blocks, else an in-kernel copy
    /// (`copy_file_range`), else reads and writes.
    static func copyContents(
        of source: Descriptor, size: Int64, to destination: Descriptor,
        at location: EntryLocation
    ) throws(DocumentPackageError) {
        // macOS copies with read and write here; clonefile(2) there creates
        // the destination itself, which this flow has already made.
        #if os(Linux)
        if ictkit_clone_file(destination.rawValue, source.rawValue) == 0 { return }
        var remaining = size
        while remaining > 0 {
            let copied = ictkit_copy_file_range(source.rawValue, destination.rawValue, UInt(min(remaining, 1 << 30)))
            if copied < 0 {
                if errno == EINTR { continue }
                if errno == EXDEV || errno == ENOSYS || errno == EINVAL || errno == EOPNOTSUPP { break }
                throw location.error("copy the file")
            }
            if copied == 0 { break }
            remaining -= Int64(copied)
        }
        if remaining == 0 { return }
        #endif
        let done = lseek(destination.rawValue, 0, SEEK_CUR)
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var offset = Int64(done)
        while true {
            let count = buffer.withUnsafeMutableBytes { pread(source.rawValue, $0.baseAddress, $0.count, off_t(offset)) }
            if count < 0 {
                if errno == EINTR { continue }
                throw location.error("read the file being copied")
            }
            if count == 0 { return }
            let result: Result<Void, DocumentPackageError> = buffer.withUnsafeBytes { raw in
                Result { () throws(DocumentPackageError) in
                    try writeAll(UnsafeRawBufferPointer(rebasing: raw[0..<count]), to: destination, at: location)
                }
            }
            try result.get()
            offset += Int64(count)
        }
    }

    /// `fchmod(2)` and `futimens(2)` (when a time is given): the last steps
    /// of writing a file or directory. With `startingWriteback`, the file's
    /// bytes start going to disk now (`sync_file_range` on Linux) so that
    /// the flush at the end of the save waits less.
    static func finish(
        _ descriptor: Descriptor, permissions: UInt16, modificationTime: FileTimestamp?,
        startingWriteback: Bool, at location: EntryLocation
    ) throws(DocumentPackageError) {
        guard fchmod(descriptor.rawValue, mode_t(permissions)) == 0 else { throw location.error("set permissions") }
        if let modificationTime {
            let times = [timespec(tv_sec: 0, tv_nsec: ictkit_utime_omit()), modificationTime.timespecValue]
            guard futimens(descriptor.rawValue, times) == 0 else { throw location.error("set the modification time") }
        }
        if startingWriteback { _ = ictkit_start_writeback(descriptor.rawValue) }
    }

    /// Opens `relativePath` below `directory` (no final link followed).
    static func openForFlushing(_ relativePath: String, in directory: Descriptor, at location: EntryLocation)
        throws(DocumentPackageError) -> Descriptor
    {
        let descriptor = RawFileName.withPath(relativePath) { openat(directory.rawValue, $0, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) }
        guard descriptor >= 0 else { throw location.error("open to flush to disk") }
        return Descriptor(descriptor)
    }

    /// Flushes everything pending on the file system that holds `descriptor`
    /// (`syncfs`). False where there is no such call (macOS).
    static func flushFileSystem(of descriptor: Descriptor, at location: EntryLocation) throws(DocumentPackageError) -> Bool {
        if ictkit_sync_file_system(descriptor.rawValue) == 0 { return true }
        if errno == ENOSYS { return false }
        throw location.error("flush the file system")
    }

    /// Waits until a file's bytes are on disk (`sync_file_range` on Linux;
    /// nothing on macOS, where `fsync` does it).
    static func waitForWriteback(_ descriptor: Descriptor, at location: EntryLocation) throws(DocumentPackageError) {
        guard ictkit_wait_for_writeback(descriptor.rawValue) == 0 else { throw location.error("write to disk") }
    }

    /// `fsync(2)`.
    /// `futimens(2)` of the modification time alone, when there is one; best
    /// effort, for a step that must not fail once the save is in place.
    static func setModificationTime(_ descriptor: Descriptor, _ modificationTime: FileTimestamp?) {
        guard let modificationTime else { return }
        let times = [timespec(tv_sec: 0, tv_nsec: ictkit_utime_omit()), modificationTime.timespecValue]
        _ = futimens(descriptor.rawValue, times)
    }

    static func flush(_ descriptor: Descriptor, at location: EntryLocation) throws(DocumentPackageError) {
        guard fsync(descriptor.rawValue) == 0 else { throw location.error("flush to disk") }
    }

    /// `mkdirat(2)`, private to the owner until finished.
    static func makeDirectory(_ name: String, in directory: Int32, at location: EntryLocation)
        throws(DocumentPackageError)
    {
        guard RawFileName.withPath(name, { mkdirat(directory, $0, 0o700) }) == 0 else { throw location.error("create the directory") }
    }

    /// `symlinkat(2)`, then the link's own modification time when given.
    static func makeSymbolicLink(
        _ name: String, in directory: Int32, destination: String,
        modificationTime: FileTimestamp?, at location: EntryLocation
    )
        throws(DocumentPackageError)
    {
        guard RawFileName.withPath(name, { symlinkat(destination, directory, $0) }) == 0 else { throw location.error("create the link") }
        if let modificationTime {
            let times = [timespec(tv_sec: 0, tv_nsec: ictkit_utime_omit()), modificationTime.timespecValue]
            guard RawFileName.withPath(name, { utimensat(directory, $0, times, AT_SYMLINK_NOFOLLOW) }) == 0 else {
                throw location.error("set the link's modification time")
            }
        }
    }

    /// `linkat(2)` without following a symbolic link: a second name for the
    /// inode of `sourceName` in `sourceDirectory`. False when the file system
    /// refuses (another device, no hard links); other failures throw.
    static func hardLink(
        _ sourceName: String, in sourceDirectory: Int32, named name: String, in directory: Int32,
        at location: EntryLocation
    ) throws(DocumentPackageError) -> Bool {
        if RawFileName.withPath(sourceName, { from in RawFileName.withPath(name) { linkat(sourceDirectory, from, directory, $0, 0) } }) == 0 { return true }
        switch errno {
        // ENOENT: the source is gone since it was read; the caller decides what to write instead.
        case EXDEV, EPERM, EMLINK, ENOTSUP, ENOSYS, ENOENT: return false
        default: throw location.error("link the unchanged file")
        }
    }

    /// Swaps two names in one step. False when the file system cannot
    /// (`renameat2(RENAME_EXCHANGE)` on Linux, `renameatx_np(RENAME_SWAP)` on macOS).
    static func exchange(_ first: String, _ second: String, in directory: Int32, at location: EntryLocation)
        throws(DocumentPackageError) -> Bool
    {
        try exchange(first, in: directory, with: second, in: directory, at: location)
    }

    /// `exchange(_:_:in:at:)` of names in two directories of one file system.
    static func exchange(
        _ first: String, in firstDirectory: Int32, with second: String, in secondDirectory: Int32,
        at location: EntryLocation
    ) throws(DocumentPackageError) -> Bool {
        if RawFileName.withPath(first, { from in RawFileName.withPath(second) { ictkit_exchange_names(firstDirectory, from, secondDirectory, $0) } }) == 0 {
            return true
        }
        switch errno {
        // No exchange on this file system, across these directories, or in a folder we may not change.
        case EINVAL, ENOSYS, ENOTSUP, EXDEV, EACCES, EPERM, EBUSY: return false
        default: throw location.error("swap in the saved package")
        }
    }

    /// Renames within one directory, refusing to replace an existing item
    /// (`renameat2(RENAME_NOREPLACE)`, `renameatx_np(RENAME_EXCL)` on macOS).
    static func renameWithoutReplacing(_ from: String, to: String, in directory: Int32, at location: EntryLocation)
        throws(DocumentPackageError)
    {
        if RawFileName.withPath(from, { old in RawFileName.withPath(to) { ictkit_rename_without_replacing(directory, old, directory, $0) } }) == 0 {
            return
        }
        if errno == EEXIST { throw location.error(.alreadyExists, "already exists") }
        throw location.error("move the package into place")
    }

    /// Removes `name` and, for a directory, everything under it, without
    /// following symbolic links. Missing is not an error.
    static func removeTree(_ name: String, in directory: Int32, at location: EntryLocation)
        throws(DocumentPackageError)
    {
        try removeTree(RawFileName.bytes(name).map { CChar(bitPattern: $0) } + [0], in: directory, at: location)
    }

    /// `removeTree(_:in:at:)` of a NUL-terminated name.
    private static func removeTree(_ cName: [CChar], in directory: Int32, at location: EntryLocation)
        throws(DocumentPackageError)
    {
        if unlinkat(directory, cName, 0) == 0 || errno == ENOENT { return }
        let unlinkError = errno
        var status = stat()
        guard fstatat(directory, cName, &status, AT_SYMLINK_NOFOLLOW) == 0, FileIdentity(status).fileType == FileIdentity.directoryType else {
            throw location.error("remove", errno: unlinkError)
        }
        try removeDirectory(cName, in: directory, at: location)
    }

    /// Empties and removes the directory `cName`. The listing's entry types
    /// spare a system call or two per entry: a directory is emptied without
    /// first trying to unlink it, anything else unlinked without a status;
    /// only an entry of unknown type that will not unlink is looked at.
    private static func removeDirectory(_ cName: [CChar], in directory: Int32, at location: EntryLocation)
        throws(DocumentPackageError)
    {
        // A read-only directory's entries cannot be removed by its owner; open
        // it up first. Only directories are changed: a file may share its
        // inode (a hard link) with a package that stays.
        _ = fchmodat(directory, cName, 0o700, 0)
        let descriptor = openat(directory, cName, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { throw location.error("open the directory to remove") }
        // Closed after the directory is gone: the kernel frees it on this close.
        defer { close(descriptor) }
        // All entries read before any is removed.
        let entries: [DirectoryEntry]
        do throws(SystemCallError) {
            entries = try Directory.entries(of: descriptor, path: "")
        } catch {
            throw location.error("list the directory", errno: error.code)
        }
        for entry in entries {
            let entryName = entry.bytes.map { CChar(bitPattern: $0) } + [0]
            if entry.kind == .directory {
                try removeDirectory(entryName, in: descriptor, at: location.child(entry.name))
            } else if unlinkat(descriptor, entryName, 0) != 0, errno != ENOENT {
                try removeTree(entryName, in: descriptor, at: location.child(entry.name))
            }
        }
        guard unlinkat(directory, cName, AT_REMOVEDIR) == 0 || errno == ENOENT else { throw location.error("remove") }
    }

    /// Makes a file (mode 0600) under a fresh temporary name for `target` in
    /// `directory` (whose path is `folder`), removed by a signal until `TemporaryItem.finished`.
    static func makeTemporaryFile(for target: String, in directory: Descriptor, folder: String, at location: EntryLocation)
        throws(DocumentPackageError) -> (Descriptor, String)
    {
        guard let (descriptor, name) = TemporaryItem.makeFile(for: target, in: directory.rawValue, folder: folder) else {
            throw location.error("create the file")
        }
        return (Descriptor(descriptor), name)
    }

    /// `renameat(2)` within one directory, replacing what `to` names.
    static func rename(_ from: String, to: String, in directory: Int32, at location: EntryLocation) throws(DocumentPackageError) {
        let renamed = RawFileName.withPath(from) { old in RawFileName.withPath(to) { renameat(directory, old, directory, $0) } }
        guard renamed == 0 else { throw location.error("move the new file into place") }
    }

    /// Makes a folder under a fresh temporary name for `target` in `directory`
    /// (whose path is `folder`), removed by a signal until `TemporaryItem.finished`.
    static func makeTemporaryFolder(for target: String, in directory: Descriptor, folder: String, at location: EntryLocation)
        throws(DocumentPackageError) -> String
    {
        guard let name = TemporaryItem.makeFolder(for: target, in: directory.rawValue, folder: folder) else {
            throw location.error("create a temporary folder beside it")
        }
        return name
    }
}
