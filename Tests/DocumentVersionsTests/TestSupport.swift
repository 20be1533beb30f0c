import Foundation

/// A new empty directory under the system's temporary directory, removed by `remove()`.
struct TemporaryDirectory {
    let path: String

    init() throws {
        var bytes = Array((NSTemporaryDirectory() + "/DocumentVersionsTests.XXXXXX").utf8CString)
        guard mkdtemp(&bytes) != nil else { throw POSIXError(.EIO) }
        path = String(decoding: bytes.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    func remove() { _ = try? FileManager.default.removeItem(atPath: path) }

    func appending(_ relative: String) -> String { path + "/" + relative }

    /// Writes `text` at `relative`, making its folders.
    func write(_ text: String, at relative: String) throws {
        let url = URL(fileURLWithPath: appending(relative))
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    func read(_ relative: String) throws -> String {
        String(decoding: try Data(contentsOf: URL(fileURLWithPath: appending(relative))), as: UTF8.self)
    }

    /// The names in `relative` (the directory itself by default), sorted,
    /// but the manifest a package save writes (`.ictkit-manifest.plist`, not
    /// an entry; `PackageConsistencyTests` check it).
    func names(_ relative: String = "") throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: relative.isEmpty ? path : appending(relative))
            .filter { $0 != ".ictkit-manifest.plist" }.sorted()
    }
}
