import Foundation
import KeyedArchive
import PropertyList
import TestSupport
import Testing

@Suite struct KeyedArchiveWriterTests {
    static let foundationArchives =
        Fixtures.corpusFiles(under: "keyedarchive/swift-corelibs-foundation/macOS-10.14")
        + ["keyedarchive/swift-corelibs-foundation/NSKeyedUnarchiver-ComplexTest.plist"]

    @Test(arguments: foundationArchives)
    func rewritesFoundationArchiveByteForByte(_ path: String) throws {
        let original = try Fixtures.interopBytes(path)
        let archive = try KeyedArchiveReader().read(original)
        let written = try KeyedArchiveWriter().encode(archive)
        #expect(Data(written) == original, "\(path): \(written.count) bytes written, \(original.count) in the file")
    }

    /// `ClassNameOnlyArchive` is written back as it is: no `$classes` added.
    @Test func keepsAClassDescriptionWithoutClasses() throws {
        let archive = try KeyedArchiveReader().read(ClassNameOnlyArchive.bytes)
        #expect(try KeyedArchiveWriter().encode(archive) == ClassNameOnlyArchive.bytes)
    }

    /// Every keyed archive of `../shared/interop/realworld/` (Interface
    /// Builder nibs, Xcode state), binary and XML: read keeping its layout,
    /// through JSON text and back, written in its own form. Prints
    /// "N of M byte-identical"; every binary one must be.
    @Test(.interopCorpus)
    func rewritesRealWorldArchivesThroughJSONByteForByte() throws {
        let files = Fixtures.corpusFiles(under: "realworld").filter { file in
            guard let bytes = try? Fixtures.interopBytes(file) else { return false }
            return bytes.range(of: Data("NSKeyedArchiver".utf8)) != nil
                && (bytes.starts(with: Array("bplist00".utf8)) || bytes.starts(with: Array("<?xml".utf8)))
        }
        var identical = 0
        var left: [String] = []
        for file in files {
            let original = try Fixtures.interopBytes(file)
            let isBinary = original.starts(with: Array("bplist00".utf8))
            do {
                let archive = try KeyedArchiveReader(keepsLayout: true).read(original)
                let text = try JSONPropertyListWriter().encode(archive.jsonForm)
                let back = try KeyedArchiveObjectGraph(jsonForm: text.withUnsafeBytes { bytes in try JSONPropertyListReader().read(bytes) })
                let written = try KeyedArchiveWriter(format: isBinary ? .binary : .xml).encode(back)
                if Data(written) == original {
                    identical += 1
                } else {
                    left.append("\(file): \(written.count) bytes written, \(original.count) in the file")
                }
            } catch {
                left.append("\(file): \(error)")
            }
            if isBinary { #expect(left.last?.hasPrefix(file + ":") != true, "\(left.last ?? "")") }
        }
        print("realworld keyed archives through JSON: \(identical) of \(files.count) byte-identical")
        for line in left { print("  not identical: \(line)") }
        #expect(files.count == 39)
    }
}
