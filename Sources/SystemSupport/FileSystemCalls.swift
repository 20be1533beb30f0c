#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A system call that failed on a path: the path as it was given and the
/// `errno` the call set, so a caller can say where and why.
package struct SystemCallError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The path as the caller gave it (names not UTF-8 as `RawFileName` carries them).
    package let path: String
    /// The `errno` of the failed call.
    package let code: Int32

    /// The error of the call that just failed on `path` (reads `errno`).
    package init(path: String, code: Int32 = errno) {
        self.path = path
        self.code = code
    }

    /// What the system says of `code` (`strerror`), without the path.
    package var reason: String { SystemCallError.describe(code) }

    /// Whether nothing is at the path: `ENOENT`, or `ENOTDIR` (a folder on
    /// the way is a file).
    package var isMissing: Bool { code == ENOENT || code == ENOTDIR }

    /// Whether the process may not do it: `EACCES` or `EPERM`.
    package var isPermissionDenied: Bool { code == EACCES || code == EPERM }

    /// Whether no entry has the path's last name: `ENOENT` alone (a folder
    /// on the way that is a file is not counted, as `isMissing` counts it).
    package var isNoSuchEntry: Bool { code == ENOENT }

    /// Whether something is already at the path: `EEXIST`.
    package var isAlreadyExisting: Bool { code == EEXIST }

    /// Whether a descriptor that does not block had nothing to give yet: `EAGAIN`.
    package var isWouldBlock: Bool { code == EAGAIN || code == EWOULDBLOCK }

    /// `path: reason`, the path with control characters escaped.
    package var description: String { "\(RawFileName.escaped(path, everyRawByte: false)): \(reason)" }

    /// What the system says of the `errno` value `code`. The corresponding C function is `strerror`.
    package static func describe(_ code: Int32) -> String { String(cString: strerror(code)) }
}

/// What kind of file-system object a path names.
package enum FileKind: Sendable, Equatable {
    case regular, directory, symbolicLink, fifo, characterDevice, blockDevice, socket, unknown

    /// The kind in the `S_IFMT` bits of `mode` (`st_mode`).
    package init(mode: UInt32) {
        switch mode_t(truncatingIfNeeded: mode) & S_IFMT {
        case S_IFREG: self = .regular
        case S_IFDIR: self = .directory
        case S_IFLNK: self = .symbolicLink
        case S_IFIFO: self = .fifo
        case S_IFCHR: self = .characterDevice
        case S_IFBLK: self = .blockDevice
        case S_IFSOCK: self = .socket
        default: self = .unknown
        }
    }

    /// The kind in words with its article, for messages: "a regular file",
    /// "a FIFO (named pipe)", "a character device", ….
    package var phrase: String {
        switch self {
        case .regular: "a regular file"
        case .directory: "a folder"
        case .symbolicLink: "a symbolic link"
        case .fifo: "a FIFO (named pipe)"
        case .characterDevice: "a character device"
        case .blockDevice: "a block device"
        case .socket: "a socket"
        case .unknown: "a special file"
        }
    }

    /// Whether the kind is a device, FIFO or socket: neither a regular
    /// file, a folder nor a symbolic link.
    package var isSpecial: Bool {
        switch self {
        case .regular, .directory, .symbolicLink: false
        case .fifo, .characterDevice, .blockDevice, .socket, .unknown: true
        }
    }
}

/// What `stat` says of a file-system object, without C types.
package struct FileInfo: Sendable, Equatable {
    package let kind: FileKind
    /// The whole `st_mode`: the kind's bits and the permissions.
    package let mode: UInt32
    /// The permission bits (`st_mode & 0o7777`).
    package let permissions: UInt16
    package let size: Int64
    package let owner: UInt32
    package let group: UInt32
    package let device: UInt64
    package let inode: UInt64
    /// The modification time: seconds since 1970 and nanoseconds within the second.
    package let modificationSeconds: Int64
    package let modificationNanoseconds: Int64

    package init(_ status: stat) {
        mode = UInt32(status.st_mode)
        kind = FileKind(mode: mode)
        permissions = UInt16(truncatingIfNeeded: status.st_mode & 0o7777)
        size = Int64(status.st_size)
        owner = UInt32(status.st_uid)
        group = UInt32(status.st_gid)
        device = UInt64(truncatingIfNeeded: status.st_dev)
        inode = UInt64(truncatingIfNeeded: status.st_ino)
        #if canImport(Darwin)
        let time = status.st_mtimespec
        #else
        let time = status.st_mtim
        #endif
        modificationSeconds = Int64(time.tv_sec)
        modificationNanoseconds = Int64(time.tv_nsec)
    }

    /// The object at `path`, following a last symbolic link or (without
    /// `followingLink`) describing the link itself.
    /// The corresponding C functions are `stat` and `lstat`.
    ///
    /// - Throws: `SystemCallError` naming `path` when nothing can be found there.
    package static func of(path: String, followingLink: Bool = true) throws(SystemCallError) -> FileInfo {
        var status = stat()
        let result = RawFileName.withPath(path) { followingLink ? stat($0, &status) : lstat($0, &status) }
        guard result == 0 else { throw SystemCallError(path: path) }
        return FileInfo(status)
    }

    /// The object `name` in the directory open as `directory` (or
    /// `AT_FDCWD`), as `of(path:followingLink:)`. The corresponding C function is `fstatat`.
    ///
    /// - Throws: `SystemCallError` naming `name`.
    package static func of(_ name: String, in directory: Int32, followingLink: Bool = true) throws(SystemCallError) -> FileInfo {
        var status = stat()
        let result = RawFileName.withPath(name) { fstatat(directory, $0, &status, followingLink ? 0 : AT_SYMLINK_NOFOLLOW) }
        guard result == 0 else { throw SystemCallError(path: name) }
        return FileInfo(status)
    }

    /// The object open as `descriptor`; `path` names it in the error.
    /// The corresponding C function is `fstat`.
    ///
    /// - Throws: `SystemCallError` naming `path`.
    package static func of(descriptor: Int32, path: String) throws(SystemCallError) -> FileInfo {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw SystemCallError(path: path) }
        return FileInfo(status)
    }
}

/// A file opened for reading, closed when the value goes away.
package final class OpenFile {
    /// How a file is opened: always `O_CLOEXEC`, `O_RDONLY` unless
    /// `writeOnly`, and these (`OpenFile` itself opens for reading only;
    /// `DescriptorCalls.open` takes them all).
    package struct Options: OptionSet, Sendable {
        package let rawValue: Int32
        package init(rawValue: Int32) { self.rawValue = rawValue }
        /// `[]` and `[.a, .b]` without SetAlgebra's generic `init(_:)`, which this module
        /// leaves unspecialised: its metadata look-ups cost a small `ict` run 285,000
        /// instructions (38 % of it; callgrind) on every start.
        package init(arrayLiteral elements: Options...) {
            var raw: Int32 = 0
            for element in elements { raw |= element.rawValue }
            self.init(rawValue: raw)
        }
        /// `O_DIRECTORY`: only a directory opens.
        package static let directory = Options(rawValue: O_DIRECTORY)
        /// `O_NOFOLLOW`: a last symbolic link is refused (`ELOOP`).
        package static let noFollow = Options(rawValue: O_NOFOLLOW)
        /// `O_NONBLOCK`: opening a FIFO without a writer does not wait.
        package static let nonBlocking = Options(rawValue: O_NONBLOCK)
        /// `O_NOCTTY`: a terminal does not become the controlling one.
        package static let noControllingTerminal = Options(rawValue: O_NOCTTY)
        /// `O_WRONLY`: for writing, not reading.
        package static let writeOnly = Options(rawValue: O_WRONLY)
        /// `O_CREAT`: made when missing.
        package static let create = Options(rawValue: O_CREAT)
        /// `O_EXCL`: with `create`, refused when something is already there.
        package static let exclusive = Options(rawValue: O_EXCL)
    }

    /// The open descriptor, valid while this value lives.
    package let descriptor: Int32
    /// The path as given, for errors.
    package let path: String

    /// Opens `path` (names not UTF-8 as `RawFileName` carries them) for reading.
    /// The corresponding C function is `open`.
    ///
    /// - Throws: `SystemCallError` naming `path`.
    package init(path: String, options: Options = []) throws(SystemCallError) {
        let descriptor = RawFileName.withPath(path) { open($0, O_RDONLY | O_CLOEXEC | options.rawValue) }
        guard descriptor >= 0 else { throw SystemCallError(path: path) }
        self.descriptor = descriptor
        self.path = path
    }

    deinit { close(descriptor) }

    /// What the open object is. The corresponding C function is `fstat`.
    ///
    /// - Throws: `SystemCallError` naming the path.
    package func info() throws(SystemCallError) -> FileInfo {
        try FileInfo.of(descriptor: descriptor, path: path)
    }

    /// Clears `O_NONBLOCK` (set to open a FIFO without waiting), so reads wait for data.
    /// The corresponding C function is `fcntl`.
    ///
    /// - Throws: `SystemCallError` naming the path.
    package func makeBlocking() throws(SystemCallError) {
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK) == 0 else { throw SystemCallError(path: path) }
    }

    /// Waits until the file has data to read (or its end, or an error) for
    /// at most `milliseconds` (-1: as long as it takes), again after a
    /// signal (`EINTR`). Returns false when the time passed first.
    /// The corresponding C function is `poll`.
    ///
    /// - Throws: `SystemCallError` naming the path.
    package func waitUntilReadable(milliseconds: Int32) throws(SystemCallError) -> Bool {
        while true {
            var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&request, 1, milliseconds)
            if ready >= 0 { return ready > 0 }
            if errno != EINTR { throw SystemCallError(path: path) }
        }
    }

    /// Reads up to `buffer.count` bytes, again after a signal (`EINTR`);
    /// 0 at the end. The corresponding C function is `read`.
    ///
    /// - Throws: `SystemCallError` naming the path.
    package func read(into buffer: UnsafeMutableRawBufferPointer) throws(SystemCallError) -> Int {
        try FileReading.read(descriptor, into: buffer, path: path)
    }

    /// Every byte up to the end, read in chunks of 64 KiB; at most `limit`
    /// bytes (nil when there are more).
    ///
    /// - Throws: `SystemCallError` naming the path.
    package func readToEnd(limit: Int = .max) throws(SystemCallError) -> [UInt8]? {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = try chunk.withUnsafeMutableBytes { buffer in Result { () throws(SystemCallError) in try read(into: buffer) } }.get()
            if count == 0 { return bytes }
            guard bytes.count <= limit - count else { return nil }
            bytes.append(contentsOf: chunk[..<count])
        }
    }
}

/// Reading from a descriptor the caller holds and closes (standard input, say).
package enum FileReading {
    /// Reads up to `buffer.count` bytes from `descriptor`, again after a
    /// signal (`EINTR`); 0 at the end. `path` names it in the error.
    /// The corresponding C function is `read`.
    ///
    /// - Throws: `SystemCallError` naming `path` (`EAGAIN` from a descriptor
    ///   that does not block and has no data yet).
    package static func read(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, path: String) throws(SystemCallError) -> Int {
        while true {
            let count = systemRead(descriptor, buffer.baseAddress, buffer.count)
            if count >= 0 { return count }
            if errno != EINTR { throw SystemCallError(path: path) }
        }
    }
}

/// Writing to open descriptors.
package enum FileWriting {
    /// Writes every byte of `bytes` to `descriptor`, again after a signal
    /// (`EINTR`) or a short write. The corresponding C function is `write`.
    ///
    /// - Returns: the `errno` of a failure, else nil.
    package static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Int32? {
        var written = 0
        while written < bytes.count {
            // `written < bytes.count`, so the base address is not nil and the offset is inside.
            let count = systemWrite(descriptor, bytes.baseAddress! + written, bytes.count - written)
            if count < 0 {
                if errno == EINTR { continue }
                return errno
            }
            written += count
        }
        return nil
    }
}

#if canImport(Glibc)
private let systemRead = Glibc.read
private let systemWrite = Glibc.write
#elseif canImport(Musl)
private let systemRead = Musl.read
private let systemWrite = Musl.write
#elseif canImport(Darwin)
private let systemRead = Darwin.read
private let systemWrite = Darwin.write
#endif

/// One entry of a directory, as `readdir` gives it.
package struct DirectoryEntry: Sendable, Equatable {
    /// The entry's name, byte for byte (a name on disk need not be UTF-8).
    package let bytes: [UInt8]
    /// The kind `readdir` reports, or nil when the file system does not say (`DT_UNKNOWN`).
    package let kind: FileKind?

    /// The entry's name, bytes that are not UTF-8 as `RawFileName` carries them.
    package var name: String { RawFileName.decoding(bytes) }
}

/// Reading and writing at an offset, without moving the file position.
package enum PositionalIO {
    /// Reads from `offset` until `buffer` is full or the file ends, again
    /// after a signal (`EINTR`); returns how many bytes were read (fewer than
    /// `buffer.count` only at the end). `path` names the file in the error.
    /// The corresponding C function is `pread`.
    ///
    /// - Throws: `SystemCallError` naming `path`.
    package static func read(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64, path: String)
        throws(SystemCallError) -> Int
    {
        var filled = 0
        while filled < buffer.count {
            // `filled < buffer.count`: the base address is not nil and the pointer stays inside the buffer.
            let count = pread(descriptor, buffer.baseAddress! + filled, buffer.count - filled, off_t(offset) + off_t(filled))
            if count < 0 {
                if errno == EINTR { continue }
                throw SystemCallError(path: path)
            }
            if count == 0 { break }
            filled += count
        }
        return filled
    }

    /// Writes every byte of `bytes` at `offset`, again after a signal
    /// (`EINTR`) or a short write. The corresponding C function is `pwrite`.
    ///
    /// - Throws: `SystemCallError` naming `path`.
    package static func write(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, at offset: UInt64, path: String) throws(SystemCallError) {
        var written = 0
        while written < bytes.count {
            // `written < bytes.count`: the base address is not nil and the pointer stays inside.
            let count = pwrite(descriptor, bytes.baseAddress! + written, bytes.count - written, off_t(offset) + off_t(written))
            if count < 0 {
                if errno == EINTR { continue }
                throw SystemCallError(path: path)
            }
            written += count
        }
    }
}

/// The permissions of files.
package enum FilePermissions {
    /// What a new file made with 0666 gets: 0666 less the process's umask.
    /// The corresponding C function is `umask` (set and at once set back).
    package static func forNewFile() -> UInt16 {
        let mask = umask(0)
        umask(mask)
        return UInt16(truncatingIfNeeded: 0o666 & ~mask)
    }

    /// Sets the permission bits of the file open as `descriptor`.
    /// The corresponding C function is `fchmod`.
    ///
    /// - Throws: `SystemCallError` naming `path`.
    package static func set(_ permissions: UInt16, on descriptor: Int32, path: String) throws(SystemCallError) {
        guard fchmod(descriptor, mode_t(permissions)) == 0 else { throw SystemCallError(path: path) }
    }
}

/// Listing and making directories.
package enum Directory {
    /// Opens the directory at `path` (a last symbolic link followed) and
    /// hands its descriptor to the caller, who closes it.
    /// The corresponding C function is `open`.
    ///
    /// - Throws: `SystemCallError` naming `path`.
    package static func openDescriptor(atPath path: String) throws(SystemCallError) -> Int32 {
        let descriptor = RawFileName.withPath(path) { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard descriptor >= 0 else { throw SystemCallError(path: path) }
        return descriptor
    }

    /// Makes the directory `path` with the permissions `permissions` (less
    /// the umask). The corresponding C function is `mkdir`.
    ///
    /// - Throws: `SystemCallError` naming `path` (`isAlreadyExisting` when
    ///   something is there).
    package static func make(atPath path: String, permissions: UInt16 = 0o777) throws(SystemCallError) {
        guard RawFileName.withPath(path, { mkdir($0, mode_t(permissions)) }) == 0 else { throw SystemCallError(path: path) }
    }

    /// The entries of the directory at `path` (a last symbolic link
    /// followed), as `entries(of:path:)`. The corresponding C function is `open`.
    ///
    /// - Throws: `SystemCallError` naming `path` when it cannot be opened or
    ///   listed (say `ENOTDIR`, `ENOENT`, `EACCES`).
    package static func entries(atPath path: String) throws(SystemCallError) -> [DirectoryEntry] {
        let directory = try OpenFile(path: path, options: .directory)
        return try entries(of: directory.descriptor, path: path)
    }

    /// The entries of the directory open as `descriptor`, from its start,
    /// but `.` and `..`, in the order the file system gives them; the
    /// descriptor stays open (a duplicate is read). `path` names the
    /// directory in errors. The corresponding C functions are `dup`,
    /// `fdopendir`, `rewinddir`, `readdir` and `closedir`.
    ///
    /// - Throws: `SystemCallError` naming `path` when it cannot be listed.
    package static func entries(of descriptor: Int32, path: String) throws(SystemCallError) -> [DirectoryEntry] {
        let copy = dup(descriptor)
        guard copy >= 0, let stream = fdopendir(copy) else {
            let error = SystemCallError(path: path)
            if copy >= 0 { close(copy) }
            throw error
        }
        defer { closedir(stream) }
        rewinddir(stream)
        var entries: [DirectoryEntry] = []
        while true {
            errno = 0
            guard let entry = readdir(stream) else {
                if errno != 0 { throw SystemCallError(path: path) }
                return entries
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { [UInt8]($0.prefix { $0 != 0 }) }
            if name == [UInt8(ascii: ".")] || name == [UInt8(ascii: "."), UInt8(ascii: ".")] { continue }
            entries.append(DirectoryEntry(bytes: name, kind: kind(ofEntryType: entry.pointee.d_type)))
        }
    }

    private static func kind(ofEntryType type: UInt8) -> FileKind? {
        switch Int32(type) {
        case Int32(DT_REG): return .regular
        case Int32(DT_DIR): return .directory
        case Int32(DT_LNK): return .symbolicLink
        case Int32(DT_FIFO): return .fifo
        case Int32(DT_CHR): return .characterDevice
        case Int32(DT_BLK): return .blockDevice
        case Int32(DT_SOCK): return .socket
        default: return nil
        }
    }
}

/// What the process may do with a file.
package enum FileAccess {
    /// Whether the process may write the object at `path` (by its real user
    /// and group, a last link followed). The corresponding C function is `access`.
    package static func isWritable(_ path: String) -> Bool {
        RawFileName.withPath(path) { access($0, W_OK) } == 0
    }
}

/// Symbolic links and the paths they resolve to.
package enum SymbolicLink {
    /// What the link at `path` holds, byte for byte. The corresponding C function is `readlink`.
    ///
    /// - Throws: `SystemCallError` naming `path` (`EINVAL`: not a link).
    package static func destination(ofLinkAt path: String) throws(SystemCallError) -> String {
        var buffer = [CChar](repeating: 0, count: 4097)
        let count = RawFileName.withPath(path) { readlink($0, &buffer, buffer.count - 1) }
        guard count >= 0 else { throw SystemCallError(path: path) }
        return RawFileName.decoding(buffer[..<count].map { UInt8(bitPattern: $0) })
    }

    /// The absolute path of `path` with every link and `.`/`..` resolved.
    /// The corresponding C function is `realpath`.
    ///
    /// - Throws: `SystemCallError` naming `path` (`ENOENT` for a dangling
    ///   link, `ELOOP` for a loop of links).
    package static func resolvedPath(_ path: String) throws(SystemCallError) -> String {
        guard let resolved = RawFileName.withPath(path, { realpath($0, nil) }) else { throw SystemCallError(path: path) }
        defer { free(resolved) }
        return RawFileName.decoding(UnsafeRawBufferPointer(start: resolved, count: strlen(resolved)))
    }
}

/// The process's current directory.
package enum CurrentDirectory {
    /// The descriptor that names it to the calls taking a directory and a
    /// relative name (`AT_FDCWD`).
    package static let descriptor: Int32 = AT_FDCWD

    /// Its absolute path (bytes not UTF-8 as `RawFileName` carries them);
    /// nil when it cannot be told (removed, or unreadable on the way up).
    /// The corresponding C function is `getcwd`.
    package static func path() -> String? {
        guard let directory = getcwd(nil, 0) else { return nil }
        defer { free(directory) }
        return RawFileName.decoding(UnsafeRawBufferPointer(start: directory, count: strlen(directory)))
    }
}
