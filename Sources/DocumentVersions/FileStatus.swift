import SystemSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What `lstat` says of one item, and the directory calls versions need.
struct FileStatus: Hashable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var mode: UInt32
    var seconds: Int64
    var nanoseconds: Int64

    var isDirectory: Bool { mode & UInt32(S_IFMT) == UInt32(S_IFDIR) }
    var isSymbolicLink: Bool { mode & UInt32(S_IFMT) == UInt32(S_IFLNK) }
    var modificationDate: Date { Date(timeIntervalSince1970: Double(seconds) + Double(nanoseconds) / 1_000_000_000) }

    /// The item's status, not following a last link; nil when it does not exist.
    ///
    /// - Throws: `DocumentVersionError` `.io` for any other failure.
    static func of(_ path: String) throws(DocumentVersionError) -> FileStatus? {
        var status = stat()
        guard RawFileName.withPath(path, { lstat($0, &status) }) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw DocumentVersionError(.io, path: path, "cannot read the item's status: \(String(cString: strerror(errno)))")
        }
        #if canImport(Darwin)
        let time = status.st_mtimespec
        #else
        let time = status.st_mtim
        #endif
        return FileStatus(
            device: UInt64(status.st_dev), inode: UInt64(status.st_ino), size: Int64(status.st_size),
            mode: UInt32(status.st_mode), seconds: Int64(time.tv_sec), nanoseconds: Int64(time.tv_nsec))
    }

    /// Where the symbolic link at `path` points, as stored in the link; nil
    /// when it cannot be read (not a link, or gone).
    static func linkDestination(_ path: String) -> String? {
        var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = buffer.withUnsafeMutableBufferPointer { pointer in
            pointer.withMemoryRebound(to: CChar.self) { readlink(path, $0.baseAddress!, $0.count) }
        }
        guard count >= 0 else { return nil }
        return String(decoding: buffer[..<count], as: UTF8.self)
    }

    /// The names in a directory (without `.` and `..`), in byte order.
    ///
    /// - Throws: `DocumentVersionError` `.io` when it cannot be listed.
    static func names(in directory: String) throws(DocumentVersionError) -> [String] {
        try entries(in: directory).map(\.name)
    }

    /// The entries of a directory (without `.` and `..`), in byte order, each
    /// with whether it is a directory when the listing says (`d_type`; nil
    /// for a link or a file system that does not say).
    ///
    /// - Throws: `DocumentVersionError` `.io` when it cannot be listed.
    static func entries(in directory: String) throws(DocumentVersionError) -> [(name: String, isDirectory: Bool?)] {
        guard let stream = RawFileName.withPath(directory, { opendir($0) }) else {
            throw DocumentVersionError(.io, path: directory, "cannot list the folder: \(String(cString: strerror(errno)))")
        }
        defer { closedir(stream) }
        var entries: [(name: String, isDirectory: Bool?)] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { RawFileName.decoding($0.prefix { $0 != 0 }) }
            guard name != ".", name != ".." else { continue }
            let type = Int32(entry.pointee.d_type)
            entries.append((name, type == Int32(DT_DIR) ? true : type == Int32(DT_REG) ? false : nil))
        }
        return entries.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
    }
}

/// A path's folder and last name: `a/b/Friend.ict` → (`a/b`, `Friend.ict`).
func splitPath(_ path: String) -> (folder: String, name: String) {
    var trimmed = Substring(path)
    while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
    guard let slash = trimmed.lastIndex(of: "/") else { return (".", String(trimmed)) }
    let folder = trimmed[..<slash]
    return (folder.isEmpty ? "/" : String(folder), String(trimmed[trimmed.index(after: slash)...]))
}

/// `folder/name`; a name alone for `.`, the folder `splitPath` gives a bare name.
func joinPath(_ folder: String, _ name: String) -> String {
    folder == "/" ? "/" + name : folder == "." ? name : folder + "/" + name
}
