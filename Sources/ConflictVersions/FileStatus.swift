import SystemSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What `lstat` says of one item, and the directory calls versions need.
struct FileStatus: Hashable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var mode: UInt32
    var seconds: Int64
    var nanoseconds: Int64

    var isDirectory: Bool { FileKind(mode: mode) == .directory }
    var isSymbolicLink: Bool { FileKind(mode: mode) == .symbolicLink }
    /// A device, FIFO or socket: neither a file, a folder nor a link.
    var isSpecialFile: Bool { FileKind(mode: mode).isSpecial }
    var kind: FileKind { FileKind(mode: mode) }
    var modificationDate: Date { Date(timeIntervalSince1970: Double(seconds) + Double(nanoseconds) / 1_000_000_000) }

    /// The item's status, not following a last link; nil when it does not exist.
    ///
    /// - Throws: `DocumentVersionError` `.io` for any other failure.
    static func of(_ path: String) throws(DocumentVersionError) -> FileStatus? {
        let info: FileInfo
        do throws(SystemCallError) {
            info = try FileInfo.of(path: path, followingLink: false)
        } catch {
            if error.isMissing { return nil }
            throw DocumentVersionError(.io, pathText: path, "cannot read the item's status: \(error.reason)")
        }
        return FileStatus(
            device: info.device, inode: info.inode, size: info.size, mode: info.mode, seconds: info.modificationSeconds,
            nanoseconds: info.modificationNanoseconds)
    }

    /// Where the symbolic link at `path` points, as stored in the link; nil
    /// when it cannot be read (not a link, or gone).
    static func linkDestination(_ path: String) -> String? {
        try? SymbolicLink.destination(ofLinkAt: path)
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
        let listed: [DirectoryEntry]
        do throws(SystemCallError) {
            listed = try Directory.entries(atPath: directory)
        } catch {
            throw DocumentVersionError(.io, pathText: directory, "cannot list the folder: \(error.reason)")
        }
        let entries = listed.map { entry in
            (name: entry.name, isDirectory: entry.kind == .directory ? true : entry.kind == .regular ? false : nil)
        }
        return entries.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
    }
}
