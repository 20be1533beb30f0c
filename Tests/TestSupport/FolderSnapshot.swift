import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Everything under a folder as a test compares it before and after a
/// command that must change nothing on disk: each item by its path below
/// the folder, its kind, and a file's size and checksum (FNV-1a, 64 bits),
/// a folder's permissions where they are not 0755, a link's destination, a
/// device's numbers. Links are not followed.
public enum FolderSnapshot {
    /// The items under `root` (not `root` itself), by relative path; for a
    /// `root` that is not a folder (a file, a link, a FIFO), that item alone, under ``.
    public static func take(_ root: String) throws -> [String: String] {
        var items: [String: String] = [:]
        var status = stat()
        guard lstat(root, &status) == 0 else { return items }
        guard status.st_mode & S_IFMT == S_IFDIR else { return ["": try describe(root, status)] }
        guard let enumerator = FileManager.default.enumerator(atPath: root) else { return items }
        while let name = enumerator.nextObject() as? String {
            let path = root + "/" + name
            guard lstat(path, &status) == 0 else { continue }
            items[name] = try describe(path, status)
        }
        return items
    }

    /// What a snapshot says of the item at `path`, whose `lstat` is `status`.
    private static func describe(_ path: String, _ status: stat) throws -> String {
        switch status.st_mode & S_IFMT {
        case S_IFREG:
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            return "file \(bytes.count) \(String(checksum(bytes), radix: 16))"
        case S_IFDIR:
            let mode = status.st_mode & 0o7777
            return mode == 0o755 ? "folder" : "folder \(String(mode, radix: 8))"
        case S_IFLNK: return "link " + ((try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? "?")
        case S_IFIFO: return "fifo"
        case S_IFSOCK: return "socket"
        case S_IFCHR: return "character device \(status.st_rdev)"
        case S_IFBLK: return "block device \(status.st_rdev)"
        default: return "other \(status.st_mode & S_IFMT)"
        }
    }

    /// FNV-1a over `bytes` (offset basis and prime as the FNV specification gives them).
    public static func checksum(_ bytes: Data) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return hash
    }
}
