import Foundation
import KeyedArchive
import PropertyList
import Testing

/// Test fixtures shared by the keyed-archive tests: the interop corpus in
/// `../shared/interop` next to the repository, or, in a clone alone, the
/// slice of it that travels with the repository (`Fixtures/interop/`,
/// its `keyedarchive/` folder, with its licences in its README).
enum Fixtures {
    /// The repository root: three levels up from `Tests/KeyedArchiveTests/Fixtures.swift`.
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent()

    /// `../shared/interop`, next to the repository root.
    static let sharedCorpusRoot =
        repositoryRoot
        .deletingLastPathComponent()
        .appendingPathComponent("shared/interop", isDirectory: true)

    /// The slice of the corpus in this repository.
    static let bundledCorpusRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .appendingPathComponent("Fixtures/interop", isDirectory: true)

    /// Where the corpus is read from: `../shared/interop` when it is there, else the slice.
    static let sharedInteropRoot: URL =
        FileManager.default.fileExists(atPath: sharedCorpusRoot.appendingPathComponent("keyedarchive").path)
        ? sharedCorpusRoot : bundledCorpusRoot

    /// True when the keyed-archive corpus can be read: always, from the shared
    /// corpus or the slice, unless the slice was removed.
    static var sharedInteropExists: Bool {
        FileManager.default.fileExists(atPath: sharedInteropRoot.appendingPathComponent("keyedarchive").path)
    }

    /// True when the whole shared corpus is there, for tests of folders the
    /// slice does not carry (malformed/).
    static var fullCorpusExists: Bool {
        FileManager.default.fileExists(atPath: sharedCorpusRoot.appendingPathComponent("malformed").path)
    }

    /// Why tests of the whole corpus are disabled in a clone alone.
    static let fullCorpusMissing: Comment = "needs ../shared/interop (the whole interop corpus) next to the repository"

    /// Why corpus tests are disabled when the corpus is absent.
    static let corpusMissing: Comment = "neither ../shared/interop nor the slice Tests/KeyedArchiveTests/Fixtures/interop is there"

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
