import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Everything under a folder as a test compares it before and after a
/// command that must change nothing on disk: each item by its path below
/// the folder, its kind, and a file's size and checksum (FNV-1a, 64 bits)
/// or a link's destination. Links are not followed.
public enum FolderSnapshot {
    /// The items under `root` (not `root` itself), by relative path.
    public static func take(_ root: String) throws -> [String: String] {
        var items: [String: String] = [:]
        guard let enumerator = FileManager.default.enumerator(atPath: root) else { return items }
        while let name = enumerator.nextObject() as? String {
            let path = root + "/" + name
            var status = stat()
            guard lstat(path, &status) == 0 else { continue }
            switch status.st_mode & S_IFMT {
            case S_IFREG:
                let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
                items[name] = "file \(bytes.count) \(String(checksum(bytes), radix: 16))"
            case S_IFDIR: items[name] = "folder"
            case S_IFLNK: items[name] = "link " + ((try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? "?")
            case S_IFIFO: items[name] = "fifo"
            default: items[name] = "other \(status.st_mode & S_IFMT)"
            }
        }
        return items
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
