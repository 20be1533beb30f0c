import Foundation

/// Scratch folders and files for tests, under the system's temporary folder
/// (`FileManager.temporaryDirectory`, so `TMPDIR` moves them): the one way the
/// suites make them. Each name is `ictkit-LABEL-UUID`, so a folder left
/// behind says which suite made it. (Suites that test the kit's own
/// temporary-item code make their items with that code instead.)
///
/// Two ways to hold one: an instance (`ScratchFolder()`), removed with
/// everything in it when the value goes away, or the static `make(_:)` and
/// `with(_:_:)`.
public final class ScratchFolder {
    /// The folder's path.
    public let path: String

    /// Makes a new, empty folder, removed when this value goes away.
    ///
    /// - Throws: What `FileManager` throws when it cannot be made.
    public init(_ label: String = "scratch") throws {
        path = try Self.make(label).path
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// Makes a new, empty folder of its own and returns its URL; the caller
    /// removes it (or leaves it to the system's clean-up).
    ///
    /// - Throws: what `FileManager.createDirectory` throws.
    public static func make(_ label: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ictkit-\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Calls `body` with a new, empty folder of its own, and removes the
    /// folder and everything in it afterwards, whether `body` throws or not.
    ///
    /// - Throws: what `make(_:)` or `body` throws.
    public static func with<Result>(_ label: String, _ body: (URL) throws -> Result) throws -> Result {
        let folder = try make(label)
        defer { try? FileManager.default.removeItem(at: folder) }
        return try body(folder)
    }

    /// The path of a new file in the temporary folder, `ictkit-LABEL-UUID.EXTENSION`,
    /// not yet made; the caller writes and removes it.
    public static func filePath(_ label: String, extension fileExtension: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("ictkit-\(label)-\(UUID().uuidString).\(fileExtension)").path
    }
}
