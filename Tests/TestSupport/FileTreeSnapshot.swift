import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Every item under a folder as a test compares it before and after a run:
/// a file's bytes, a link's destination, a folder's permissions, and for a
/// FIFO, socket or device its kind (and a device's numbers). Links are never
/// followed, so what a link points to outside is compared where it is.
public enum FileTreeSnapshot {
    /// The items under `path` (and `path` itself, as ``), by their path below it.
    public static func of(_ path: String) throws -> [String: String] {
        var items: [String: String] = [:]
        func walk(_ relative: String) throws {
            let full = relative.isEmpty ? path : path + "/" + relative
            var status = stat()
            guard lstat(full, &status) == 0 else { return }
            switch status.st_mode & S_IFMT {
            case S_IFLNK:
                items[relative] = "link to " + (try FileManager.default.destinationOfSymbolicLink(atPath: full))
            case S_IFDIR:
                items[relative] = "folder \(String(status.st_mode & 0o7777, radix: 8))"
                for name in try FileManager.default.contentsOfDirectory(atPath: full) {
                    try walk(relative.isEmpty ? name : relative + "/" + name)
                }
            case S_IFIFO: items[relative] = "fifo"
            case S_IFSOCK: items[relative] = "socket"
            case S_IFCHR: items[relative] = "character device \(status.st_rdev)"
            case S_IFBLK: items[relative] = "block device \(status.st_rdev)"
            default:
                items[relative] = "file " + (FileManager.default.contents(atPath: full)?.base64EncodedString() ?? "unreadable")
            }
        }
        try walk("")
        return items
    }
}
