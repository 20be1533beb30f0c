import Foundation
import KeyedArchive
import PropertyList
import Testing

@Suite struct KeyedArchiveWriterTests {
    static let foundationArchives = Fixtures.corpusFiles(under: "keyedarchive/swift-corelibs-foundation/macOS-10.14")
        + ["keyedarchive/swift-corelibs-foundation/NSKeyedUnarchiver-ComplexTest.plist"]

    @Test(.enabled(if: Fixtures.sharedInteropExists, Fixtures.corpusMissing), arguments: foundationArchives)
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
}
