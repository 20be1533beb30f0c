import Foundation
import PropertyList
import SystemPackage
import TestSupport
import Testing

/// The `URL` and `FilePath` forms of `MappedFile` and `PartialBinaryPropertyList`:
/// the same bytes and values as the `String` form, the file's size as the file
/// system reports it, CPython plistlib's value, and errors that name what was asked for.
@Suite(.interopCorpus)
struct PropertyListURLTests {
    /// Cocoa's binary plist of CPython's test data (894 bytes per the corpus MANIFEST).
    static let corpusFile = "bplist/cpython-plistlib/TESTDATA_FMT_BINARY.bplist"

    /// A copy of the corpus file under a folder whose name holds a space and
    /// a literal `%20`, named `Ünïcode copy.plist`; removed with the value.
    final class AwkwardlyNamedCopy {
        let folder: URL
        let file: URL

        init() throws {
            folder = FileManager.default.temporaryDirectory
                .appendingPathComponent("url overloads %20 \(UUID().uuidString)", isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            file = folder.appendingPathComponent("Ünïcode copy.plist")
            try FileManager.default.copyItem(at: InteropCorpus.url(corpusFile), to: file)
        }

        /// The path as the file system spells it: the folder name with its literal `%20`.
        var path: String { folder.path + "/Ünïcode copy.plist" }

        deinit { try? FileManager.default.removeItem(at: folder) }
    }

    /// The file's size from the file system, not from the code under test.
    static func sizeOnDisk(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
    }

    @Test func mappedFileFromURLMatchesPathAndPlistlib() throws {
        let copy = try AwkwardlyNamedCopy()
        let byURL = try MappedFile(url: copy.file)
        let byPath = try MappedFile(path: copy.path)
        #expect(byURL.path == FilePath(copy.path))
        #expect(Array(byURL.bytes) == Array(byPath.bytes))
        #expect(byURL.bytes.count == 894)
        #expect(byURL.bytes.count == (try Self.sizeOnDisk(copy.path)))
        let value = try BinaryPropertyListReader().read(byURL)
        #expect(value == (try BinaryPropertyListReader().read(byPath)))
        #expect(PropertyListComparison.plistlib.firstDifference(value, try Fixtures.pythonPlistlib(copy.file)) == nil)
    }

    @Test func mappedFileFromPercentEncodedURLString() throws {
        let copy = try AwkwardlyNamedCopy()
        // Spelled out by hand: the folder's `%` as `%25`, the space as `%20`, Ü and ï in UTF-8.
        let folderName = copy.folder.lastPathComponent
            .replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: " ", with: "%20")
        let text =
            "file://" + copy.folder.deletingLastPathComponent().path + "/" + folderName
            + "/%C3%9Cn%C3%AFcode%20copy.plist"
        let url = try #require(URL(string: text))
        let file = try MappedFile(url: url)
        #expect(file.path == FilePath(copy.path))
        #expect(file.bytes.count == (try Self.sizeOnDisk(copy.path)))
    }

    @Test func mappedFileFromFilePathMatchesPath() throws {
        let copy = try AwkwardlyNamedCopy()
        let byFilePath = try MappedFile(filePath: FilePath(copy.path))
        let byPath = try MappedFile(path: copy.path)
        #expect(byFilePath.path == FilePath(copy.path))
        #expect(Array(byFilePath.bytes) == Array(byPath.bytes))
        #expect(byFilePath.bytes.count == (try Self.sizeOnDisk(copy.path)))
    }

    @Test func partialPropertyListFromURLAndFilePathMatchesPathAndPlistlib() throws {
        let copy = try AwkwardlyNamedCopy()
        let byPath = try PartialBinaryPropertyList(path: copy.path)
        let expected = try Fixtures.pythonPlistlib(copy.file)
        for plist in [try PartialBinaryPropertyList(url: copy.file), try PartialBinaryPropertyList(filePath: FilePath(copy.path))] {
            #expect(plist.path == FilePath(copy.path))
            #expect(plist.size == (try Self.sizeOnDisk(copy.path)))
            #expect(plist.topObject == byPath.topObject)
            let value = try PartialBinaryPropertyListTests.walk(plist, plist.topObject)
            #expect(value == (try PartialBinaryPropertyListTests.walk(byPath, byPath.topObject)))
            #expect(PropertyListComparison.plistlib.firstDifference(value, expected) == nil)
        }
    }

    /// A `FilePath` whose name is not UTF-8 (`bad` 0xFF `.plist`) opens that very file, not a name with U+FFFD
    /// in its place; `path` carries the byte as U+10FF00 + 0xFF = U+10FFFF (written out by hand).
    @Test func filePathFormsOpenANameThatIsNotUTF8ByteForByte() throws {
        let copy = try AwkwardlyNamedCopy()
        let nameBytes = Array("bad".utf8) + [0xFF] + Array(".plist".utf8)
        let pathBytes = Array(copy.folder.path.utf8) + [UInt8(ascii: "/")] + nameBytes
        let contents = try Data(contentsOf: copy.file)
        let descriptor = (pathBytes.map { CChar(bitPattern: $0) } + [0]).withUnsafeBufferPointer {
            open($0.baseAddress!, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        }
        try #require(descriptor >= 0)
        _ = contents.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        let filePath = FilePath(platformString: pathBytes.map { CChar(bitPattern: $0) } + [0])
        let expectedPath = copy.folder.path + "/bad\u{10FFFF}.plist"
        let mapped = try MappedFile(filePath: filePath)
        #expect(Array(mapped.bytes) == Array(contents))
        #expect(mapped.path == filePath)
        #expect(mapped.pathText == expectedPath)
        let partial = try PartialBinaryPropertyList(filePath: filePath)
        #expect(partial.size == contents.count)
        #expect(partial.path == filePath)
        #expect(partial.pathText == expectedPath)
    }

    @Test func missingFileErrorNamesThePath() throws {
        let copy = try AwkwardlyNamedCopy()
        let missing = copy.folder.appendingPathComponent("Nöt here.plist")
        let expectedPath = copy.folder.path + "/Nöt here.plist"
        for attempt in [
            { _ = try MappedFile(url: missing) }, { _ = try MappedFile(filePath: FilePath(expectedPath)) },
            { _ = try PartialBinaryPropertyList(url: missing) },
            { _ = try PartialBinaryPropertyList(filePath: FilePath(expectedPath)) },
        ] as [() throws -> Void] {
            let error = try #require(throws: PropertyListError.self, performing: attempt)
            #expect(error.code == .io)
            #expect(error.message.contains(expectedPath), "\(error.message)")
        }
    }

    @Test func nonFileURLIsRefusedNamingIt() throws {
        let url = try #require(URL(string: "https://example.com/Info.plist"))
        for attempt in [{ _ = try MappedFile(url: url) }, { _ = try PartialBinaryPropertyList(url: url) }] as [() throws -> Void] {
            let error = try #require(throws: PropertyListError.self, performing: attempt)
            #expect(error.code == .io)
            #expect(error.message == "https://example.com/Info.plist is not a file URL")
        }
    }
}
