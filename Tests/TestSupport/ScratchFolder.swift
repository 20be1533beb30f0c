import Foundation

/// A scratch folder under the temporary directory, with a fresh name,
/// removed with everything in it when the value goes away.
public final class ScratchFolder {
    /// The folder's path.
    public let path: String

    /// Makes the folder.
    ///
    /// - Throws: What `FileManager` throws when it cannot be made.
    public init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("ictdoc-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
