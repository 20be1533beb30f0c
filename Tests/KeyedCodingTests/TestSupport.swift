import Foundation
import TestSupport
import Testing

/// Paths and helpers shared by the KeyedCoding tests.
enum Fixtures {
    /// `../shared/interop` next to the repository, else the slice of it in
    /// `Tests/KeyedArchiveTests/Fixtures/interop`.
    static let interopRoot: URL =
        FileManager.default.fileExists(atPath: InteropCorpus.url("keyedarchive").path)
        ? InteropCorpus.root : Repository.root.appendingPathComponent("Tests/KeyedArchiveTests/Fixtures/interop")

    /// True when the file of the interop corpus under `relativePath` is there.
    static func hasInterop(_ relativePath: String) -> Bool {
        FileManager.default.fileExists(atPath: interopRoot.appendingPathComponent(relativePath).path)
    }

    /// The bytes of a file of the interop corpus.
    static func interop(_ relativePath: String) throws -> Data {
        try Data(contentsOf: interopRoot.appendingPathComponent(relativePath))
    }

    /// The real documents in `SampleDocs/`, sorted.
    static var sampleDocuments: [URL] {
        let folder = Repository.root.appendingPathComponent("SampleDocs")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".ict") }.sorted().map { folder.appendingPathComponent($0) }
    }

    static func script(_ name: String) -> String {
        Repository.root.appendingPathComponent("Tests/KeyedCodingTests/Fixtures/\(name)").path
    }

    /// Runs python3 with `arguments` and returns its standard output.
    static func python(_ arguments: [String]) throws -> Data { try PythonScript.run(arguments: arguments) }

    /// The fields python3's plistlib reads from each document (see `Fixtures/ict_fields.py`).
    static func plistlibFields(of documents: [URL]) throws -> [String: PlistlibDocument] {
        let json = try python([script("ict_fields.py")] + documents.map(\.path))
        let decoded = try JSONSerialization.jsonObject(with: json) as? [String: [String: Any]] ?? [:]
        return decoded.mapValues(PlistlibDocument.init)
    }

    /// Writes the hand-made archive `name` of `Fixtures/make_archive.py` to `url`.
    static func makeArchive(_ name: String, at url: URL) throws {
        _ = try python([script("make_archive.py"), url.path, name])
    }
}

/// One document's fields as plistlib read them.
struct PlistlibDocument {
    var data: [String: Any]
    var metadata: [String: Any]
    var classes: [String: [String]]

    init(_ json: [String: Any]) {
        data = json["data"] as? [String: Any] ?? [:]
        metadata = json["metadata"] as? [String: Any] ?? [:]
        classes = json["classes"] as? [String: [String]] ?? [:]
    }

    /// The bytes of a data field (`{"base64": …}`), nil when absent or `$null`.
    static func bytes(_ value: Any?) -> Data? {
        (value as? [String: Any])?["base64"].flatMap { $0 as? String }.flatMap { Data(base64Encoded: $0) }
    }
}

/// A scratch folder removed when the value goes away.
final class ScratchFolder {
    let url: URL

    init() throws {
        url = try TestSupport.ScratchFolder.make("keyedcoding")
    }

    deinit { try? FileManager.default.removeItem(at: url) }
}

extension Fixtures {
    /// The root object of the archive at `url` as python3's plistlib reads
    /// it (see `Fixtures/archive_root.py`): its `$classes` and its fields.
    static func plistlibRoot(of url: URL, topKey: String = "root") throws -> (classes: [String], fields: [String: Any]) {
        let json = try python([script("archive_root.py"), url.path, topKey])
        let root = try JSONSerialization.jsonObject(with: json) as? [String: Any] ?? [:]
        return (root["classes"] as? [String] ?? [], root["fields"] as? [String: Any] ?? [:])
    }

    /// `plistlibRoot(of:topKey:)` of archive bytes.
    static func plistlibRoot(ofArchive bytes: Data, topKey: String = "root") throws -> (classes: [String], fields: [String: Any]) {
        let folder = try ScratchFolder()
        let url = folder.url.appendingPathComponent("archive.plist")
        try bytes.write(to: url)
        return try plistlibRoot(of: url, topKey: topKey)
    }
}
