import Foundation
import KeyedArchive
import PropertyList
import Testing

/// Test fixtures shared by the keyed-archive tests: the interop corpus in
/// `../shared/interop` next to the repository.
enum Fixtures {
    /// The repository root: three levels up from `Tests/KeyedArchiveTests/Fixtures.swift`.
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent()

    /// `../shared/interop`, next to the repository root.
    static let sharedInteropRoot = repositoryRoot
        .deletingLastPathComponent()
        .appendingPathComponent("shared/interop", isDirectory: true)

    /// True when the shared interop corpus is checked out next to the repository.
    static var sharedInteropExists: Bool {
        FileManager.default.fileExists(atPath: sharedInteropRoot.appendingPathComponent("keyedarchive").path)
    }

    /// Why corpus tests are disabled when the corpus is absent.
    static let corpusMissing: Comment = "the interop corpus ../shared/interop is not checked out next to the repository"

    /// The bytes of a file of the interop corpus, by its path under `../shared/interop`.
    static func interopBytes(_ relativePath: String) throws -> Data {
        try Data(contentsOf: sharedInteropRoot.appendingPathComponent(relativePath))
    }

    /// The paths under `../shared/interop/<folder>` of every file in it, sorted.
    static func corpusFiles(under folder: String) -> [String] {
        let root = sharedInteropRoot.appendingPathComponent(folder)
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
        else { return [] }
        var paths: [String] = []
        for case let url as URL in walker where (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true {
            paths.append(folder + "/" + url.path.dropFirst(root.path.count + 1))
        }
        return paths.sorted()
    }

    /// Reads an archive of the corpus.
    static func archive(_ relativePath: String) throws -> KeyedArchive {
        try KeyedArchiveReader().read(try interopBytes(relativePath))
    }
}


