import Foundation
import KeyedArchive
import PropertyList
import TestSupport

/// Test fixtures shared by the keyed-archive tests: the interop corpus in
/// `../shared/interop` next to the repository, or, in a clone alone, the
/// slice of it that travels with the repository (`Fixtures/interop/`,
/// its `keyedarchive/` folder, with its licences in its README).
enum Fixtures {
    /// The slice of the corpus in this repository.
    static let bundledCorpusRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .appendingPathComponent("Fixtures/interop", isDirectory: true)

    /// Where the corpus is read from: `../shared/interop` when it is there, else the slice
    /// (tests of folders the slice does not carry take the `.interopCorpus` trait).
    static let sharedInteropRoot: URL =
        FileManager.default.fileExists(atPath: InteropCorpus.url("keyedarchive").path)
        ? InteropCorpus.root : bundledCorpusRoot

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
    static func archive(_ relativePath: String) throws -> KeyedArchiveObjectGraph {
        try KeyedArchiveReader().read(try interopBytes(relativePath))
    }
}
