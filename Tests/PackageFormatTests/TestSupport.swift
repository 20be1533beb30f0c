import Foundation
import PackageFormat
import TestSupport
import Testing

/// A scratch folder (`ScratchFolder.make`) with this suite's helpers; `remove()` removes it.
struct TemporaryDirectory {
    let path: String

    init() throws { path = try ScratchFolder.make("PackageFormatTests").path }

    func remove() {
        _ = try? FileManager.default.removeItem(atPath: path)
    }

    /// `path/relative`.
    func appending(_ relative: String) -> String { path + "/" + relative }
}

/// One entry of a tree on disk as `lstat` and the bytes tell: what the
/// round-trip and crash tests compare.
enum TreeEntry: Hashable, CustomStringConvertible {
    case directory(permissions: UInt16)
    case file(permissions: UInt16, bytes: Data)
    case link(destination: String)

    var description: String {
        switch self {
        case .directory(let permissions): "directory \(String(permissions, radix: 8))"
        case .file(let permissions, let bytes): "file \(String(permissions, radix: 8)) \(bytes.count) bytes"
        case .link(let destination): "link -> \(destination)"
        }
    }
}

/// Every entry under `root` (not `root` itself), keyed by relative path,
/// without following symbolic links. The manifest every save writes at the
/// root (`.ictkit-manifest.plist`) is left out: it is not an entry, and its
/// generation is random, so no two saves write the same bytes
/// (`PackageManifestTests` checks it against the tree).
func snapshot(of root: String) throws -> [String: TreeEntry] {
    var result: [String: TreeEntry] = [:]
    func walk(_ relative: String) throws {
        let directory = relative.isEmpty ? root : root + "/" + relative
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
            if relative.isEmpty, name == PackageManifest.fileName { continue }
            let childRelative = relative.isEmpty ? name : relative + "/" + name
            let path = root + "/" + childRelative
            var status = stat()
            guard lstat(path, &status) == 0 else { throw POSIXError(.EIO) }
            let permissions = UInt16(status.st_mode & 0o7777)
            switch status.st_mode & 0o170000 {
            case 0o040000:
                result[childRelative] = .directory(permissions: permissions)
                try walk(childRelative)
            case 0o120000:
                result[childRelative] = .link(destination: try FileManager.default.destinationOfSymbolicLink(atPath: path))
            default:
                result[childRelative] = .file(permissions: permissions, bytes: try Data(contentsOf: URL(fileURLWithPath: path)))
            }
        }
    }
    try walk("")
    return result
}

/// The inode of the item at `path` (not following a link), 0 when there is none.
func inode(_ path: String) -> UInt64 {
    var status = stat()
    return lstat(path, &status) == 0 ? UInt64(status.st_ino) : 0
}

/// Writes a file, making its directory.
func writeFile(_ path: String, _ contents: String, permissions: Int = 0o644) throws {
    try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try Data(contents.utf8).write(to: URL(fileURLWithPath: path))
    chmod(path, mode_t(permissions))
}

/// The names beside `packagePath` that are temporaries of its saves.
func strayTemporaries(of packagePath: String) throws -> [String] {
    let url = URL(fileURLWithPath: packagePath)
    let name = url.lastPathComponent
    return try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)
        .filter { $0.hasPrefix(".\(name).ict-") || $0.hasPrefix(".\(name).saving-") || $0.hasPrefix(".\(name).replaced-") }
}

/// The error `body` throws, or nil.
func packageError(_ body: () throws -> Void) -> DocumentPackageError? {
    do {
        try body()
        return nil
    } catch let error as DocumentPackageError {
        return error
    } catch {
        Issue.record("unexpected error \(error)")
        return nil
    }
}
