import SystemSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// Each file-system step the module takes, behind one internal function that
// makes SystemSupport's `package` calls and throws `DocumentPackageError`
// naming both paths. Everything below works relative to open directory
// descriptors and never follows a symbolic link inside a package.

/// Where an entry is, for error messages: inside the package and on disk.
struct EntryLocation {
    var pathInPackage: String
    var fileSystemPath: String

    func child(_ name: String) -> EntryLocation {
        EntryLocation(
            pathInPackage: pathInPackage.isEmpty ? name : pathInPackage + "/" + name,
            fileSystemPath: fileSystemPath + "/" + name)
    }

    func error(_ action: String, errno code: Int32 = ErrorNumber.current) -> DocumentPackageError {
        let reason = SystemCallError.describe(code)
        return DocumentPackageError(
            .io, pathInPackage: pathInPackage, fileSystemPathText: fileSystemPath,
            systemErrorNumber: code, "cannot \(action): \(reason)")
    }

    func error(_ code: DocumentPackageError.Code, _ message: String) -> DocumentPackageError {
        DocumentPackageError(code, pathInPackage: pathInPackage, fileSystemPathText: fileSystemPath, message)
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

}

/// What `lstat` says about an item: enough to tell whether it changed.
struct FileIdentity: Hashable, Sendable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modificationTime: FileTimestamp
    /// The type bits (`S_IFMT`) and permission bits of `st_mode`.
    var mode: UInt32

    init(_ info: FileInfo) {
        device = info.device
        inode = info.inode
        size = info.size
        modificationTime = FileTimestamp(seconds: info.modificationSeconds, nanoseconds: info.modificationNanoseconds)
        mode = info.mode
        owner = info.owner
        group = info.group
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

    deinit { DescriptorCalls.close(rawValue) }
}

enum FileSystem {
    /// `openat(2)` of a directory, never following a final symbolic link
    /// unless `followingLink` (only the package root may be reached through one).
    static func openDirectory(
        _ name: String, in directory: Int32 = CurrentDirectory.descriptor, followingLink: Bool = false,
        at location: EntryLocation
    ) throws(DocumentPackageError) -> Descriptor {
        do throws(SystemCallError) {
            return Descriptor(try DescriptorCalls.open(name, in: directory, options: followingLink ? [.directory] : [.directory, .noFollow]))
        } catch {
            switch error.code {
            case ErrorNumber.notADirectory, ErrorNumber.symbolicLinkLoop: throw location.error(.notADirectory, "not a directory")
            case ErrorNumber.noSuchEntry: throw location.error(.notFound, "no such directory")
            default: throw location.error("open the directory", errno: error.code)
            }
        }
    }

    /// `openat(2)` of a regular file for reading, refusing a symbolic link.
    static func openFileForReading(_ name: String, in directory: Int32 = CurrentDirectory.descriptor, at location: EntryLocation)
        throws(DocumentPackageError) -> Descriptor
    {
        guard let descriptor = try openFileForReadingIfPresent(name, in: directory, at: location) else {
            throw location.error("open the file", errno: ErrorNumber.noSuchEntry)
        }
        return descriptor
    }

    /// `openFileForReading(_:in:at:)`, nil when nothing is there.
    static func openFileForReadingIfPresent(_ name: String, in directory: Int32 = CurrentDirectory.descriptor, at location: EntryLocation)
        throws(DocumentPackageError) -> Descriptor?
    {
        // Without waiting: a FIFO would hold the open until a writer came; callers refuse it by its status.
        do throws(SystemCallError) {
            return Descriptor(try DescriptorCalls.open(name, in: directory, options: [.nonBlocking, .noFollow]))
        } catch {
            if error.isNoSuchEntry { return nil }
            throw location.error("open the file", errno: error.code)
        }
    }

    /// `openat(2)` creating a new file (`O_EXCL`), refusing anything already
    /// there; `permissions` are masked by the umask.
    static func createFile(_ name: String, in directory: Int32, permissions: UInt16 = 0o600, at location: EntryLocation)
        throws(DocumentPackageError) -> Descriptor
    {
        do throws(SystemCallError) {
            let options: OpenFile.Options = [.writeOnly, .create, .exclusive, .noFollow]
            return Descriptor(try DescriptorCalls.open(name, in: directory, options: options, permissions: permissions))
        } catch {
            throw location.error("create the file", errno: error.code)
        }
    }

    /// `fstat(2)`.
    static func status(of descriptor: Descriptor, at location: EntryLocation) throws(DocumentPackageError)
        -> FileIdentity
    {
        do throws(SystemCallError) {
            return FileIdentity(try FileInfo.of(descriptor: descriptor.rawValue, path: location.fileSystemPath))
        } catch {
            throw location.error("read the status", errno: error.code)
        }
    }

    /// `fstatat(2)` without following a symbolic link; nil when nothing is there.
    static func linkStatus(_ name: String, in directory: Int32 = CurrentDirectory.descriptor, at location: EntryLocation)
        throws(DocumentPackageError) -> FileIdentity?
    {
        do throws(SystemCallError) {
            return FileIdentity(try FileInfo.of(name, in: directory, followingLink: false))
        } catch {
            if error.isNoSuchEntry { return nil }
            throw location.error("read the status", errno: error.code)
        }
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
            let destination: [UInt8]?
            do throws(SystemCallError) {
                destination = try SymbolicLink.destinationBytes(ofLinkNamed: name, in: directory, capacity: capacity)
            } catch {
                throw location.error("read the link", errno: error.code)
            }
            if let destination { return destination }
            guard capacity < RawFileName.maximumPathLength * 2 else { throw location.error(.io, "link destination too long") }
            capacity *= 2
        }
    }

    /// Reads exactly `count` bytes from the start of the file (fewer only
    /// when the file is shorter).
    static func readBytes(of descriptor: Descriptor, count: Int, at location: EntryLocation)
        throws(DocumentPackageError) -> Data
    {
        // Read straight into the buffer the Data will own: no zero-filling, no copy.
        guard count > 0 else { return Data() }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 16)
        let filled: Int
        do throws(SystemCallError) {
            filled = try PositionalIO.read(descriptor.rawValue, into: buffer, at: 0, path: location.fileSystemPath)
        } catch {
            buffer.deallocate()
            throw location.error("read the file", errno: error.code)
        }
        // The buffer was allocated above with a count > 0, so it has an address.
        return Data(bytesNoCopy: buffer.baseAddress!, count: filled, deallocator: .custom { pointer, _ in pointer.deallocate() })
    }

    /// Writes all of `bytes`, retrying short writes.
    static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Descriptor, at location: EntryLocation)
        throws(DocumentPackageError)
    {
        if let code = FileWriting.writeAll(bytes, to: descriptor.rawValue) { throw location.error("write the file", errno: code) }
    }

    /// Makes `destination` hold a copy of `source`'s bytes (`FileCopy`).
    static func copyContents(
        of source: Descriptor, size: Int64, to destination: Descriptor,
        at location: EntryLocation
    ) throws(DocumentPackageError) {
        do throws(FileCopy.Failure) {
            try FileCopy.copyContents(of: source.rawValue, size: size, to: destination.rawValue)
        } catch {
            throw location.error(error.step, errno: error.code)
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
        do throws(SystemCallError) {
            try FilePermissions.set(permissions, on: descriptor.rawValue, path: location.fileSystemPath)
        } catch {
            throw location.error("set permissions", errno: error.code)
        }
        if let modificationTime {
            do throws(SystemCallError) {
                try DescriptorCalls.setModificationTime(
                    descriptor.rawValue, seconds: modificationTime.seconds, nanoseconds: modificationTime.nanoseconds,
                    path: location.fileSystemPath)
            } catch {
                throw location.error("set the modification time", errno: error.code)
            }
        }
        if startingWriteback { DescriptorCalls.startWriteback(descriptor.rawValue) }
    }

    /// Opens `relativePath` below `directory` (no final link followed).
    static func openForFlushing(_ relativePath: String, in directory: Descriptor, at location: EntryLocation)
        throws(DocumentPackageError) -> Descriptor
    {
        do throws(SystemCallError) {
            return Descriptor(try DescriptorCalls.open(relativePath, in: directory.rawValue, options: [.noFollow]))
        } catch {
            throw location.error("open to flush to disk", errno: error.code)
        }
    }

    /// Flushes everything pending on the file system that holds `descriptor`
    /// (`syncfs`). False where there is no such call (macOS).
    static func flushFileSystem(of descriptor: Descriptor, at location: EntryLocation) throws(DocumentPackageError) -> Bool {
        do throws(SystemCallError) {
            return try DescriptorCalls.flushFileSystem(of: descriptor.rawValue, path: location.fileSystemPath)
        } catch {
            throw location.error("flush the file system", errno: error.code)
        }
    }

    /// Waits until a file's bytes are on disk (`sync_file_range` on Linux;
    /// nothing on macOS, where `fsync` does it).
    static func waitForWriteback(_ descriptor: Descriptor, at location: EntryLocation) throws(DocumentPackageError) {
        do throws(SystemCallError) {
            try DescriptorCalls.waitForWriteback(descriptor.rawValue, path: location.fileSystemPath)
        } catch {
            throw location.error("write to disk", errno: error.code)
        }
    }

    /// `fsync(2)`.
    /// `futimens(2)` of the modification time alone, when there is one; best
    /// effort, for a step that must not fail once the save is in place.
    static func setModificationTime(_ descriptor: Descriptor, _ modificationTime: FileTimestamp?) {
        guard let modificationTime else { return }
        try? DescriptorCalls.setModificationTime(
            descriptor.rawValue, seconds: modificationTime.seconds, nanoseconds: modificationTime.nanoseconds, path: "")
    }

    static func flush(_ descriptor: Descriptor, at location: EntryLocation) throws(DocumentPackageError) {
        do throws(SystemCallError) {
            try DescriptorCalls.flush(descriptor.rawValue, path: location.fileSystemPath)
        } catch {
            throw location.error("flush to disk", errno: error.code)
        }
    }

    /// `mkdirat(2)`, private to the owner until finished.
    static func makeDirectory(_ name: String, in directory: Int32, at location: EntryLocation)
        throws(DocumentPackageError)
    {
        do throws(SystemCallError) {
            try Directory.make(name, in: directory, permissions: 0o700)
        } catch {
            throw location.error("create the directory", errno: error.code)
        }
    }

    /// `symlinkat(2)`, then the link's own modification time when given.
    static func makeSymbolicLink(
        _ name: String, in directory: Int32, destination: String,
        modificationTime: FileTimestamp?, at location: EntryLocation
    )
        throws(DocumentPackageError)
    {
        do throws(SystemCallError) {
            try SymbolicLink.make(name, in: directory, destination: destination)
        } catch {
            throw location.error("create the link", errno: error.code)
        }
        if let modificationTime {
            do throws(SystemCallError) {
                try SymbolicLink.setModificationTime(
                    ofLinkNamed: name, in: directory, seconds: modificationTime.seconds, nanoseconds: modificationTime.nanoseconds)
            } catch {
                throw location.error("set the link's modification time", errno: error.code)
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
        do throws(SystemCallError) {
            try Directory.hardLink(sourceName, in: sourceDirectory, named: name, in: directory)
            return true
        } catch {
            switch error.code {
            // ENOENT: the source is gone since it was read; the caller decides what to write instead.
            case ErrorNumber.crossDevice, ErrorNumber.notPermitted, ErrorNumber.tooManyLinks, ErrorNumber.notSupported,
                ErrorNumber.noSystemCall, ErrorNumber.noSuchEntry:
                return false
            default: throw location.error("link the unchanged file", errno: error.code)
            }
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
        do throws(SystemCallError) {
            try Directory.exchange(first, in: firstDirectory, with: second, in: secondDirectory)
            return true
        } catch {
            switch error.code {
            // No exchange on this file system, across these directories, or in a folder we may not change.
            case ErrorNumber.invalidArgument, ErrorNumber.noSystemCall, ErrorNumber.notSupported, ErrorNumber.crossDevice,
                ErrorNumber.accessDenied, ErrorNumber.notPermitted, ErrorNumber.busy:
                return false
            default: throw location.error("swap in the saved package", errno: error.code)
            }
        }
    }

    /// Renames within one directory, refusing to replace an existing item
    /// (`renameat2(RENAME_NOREPLACE)`, `renameatx_np(RENAME_EXCL)` on macOS).
    static func renameWithoutReplacing(_ from: String, to: String, in directory: Int32, at location: EntryLocation)
        throws(DocumentPackageError)
    {
        do throws(SystemCallError) {
            try Directory.renameWithoutReplacing(from, to: to, in: directory)
        } catch {
            if error.isAlreadyExisting { throw location.error(.alreadyExists, "already exists") }
            throw location.error("move the package into place", errno: error.code)
        }
    }

    /// Removes `name` and, for a directory, everything under it, without
    /// following symbolic links (`Directory.removeTree`). Missing is not an error.
    static func removeTree(_ name: String, in directory: Int32, at location: EntryLocation)
        throws(DocumentPackageError)
    {
        do throws(SystemCallError) {
            try Directory.removeTree(name, in: directory)
        } catch {
            throw location.error("remove", errno: error.code)
        }
    }

    /// Makes a file (mode 0600) under a fresh temporary name for `target` in
    /// `directory` (whose path is `folder`), removed by a signal until `TemporaryItem.finished`.
    static func makeTemporaryFile(for target: String, in directory: Descriptor, folder: String, at location: EntryLocation)
        throws(DocumentPackageError) -> (Descriptor, String)
    {
        guard let (descriptor, name) = TemporaryItem.makeFile(for: target, in: directory.rawValue, folder: folder) else {
            throw location.error("create the file", errno: ErrorNumber.current)
        }
        return (Descriptor(descriptor), name)
    }

    /// `renameat(2)` within one directory, replacing what `to` names.
    static func rename(_ from: String, to: String, in directory: Int32, at location: EntryLocation) throws(DocumentPackageError) {
        do throws(SystemCallError) {
            try Directory.rename(from, in: directory, to: to, in: directory)
        } catch {
            throw location.error("move the new file into place", errno: error.code)
        }
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
