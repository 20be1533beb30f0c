import DocumentFormats
import Foundation
import TestSupport
import Testing

@testable import ICTKitTooling

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `InputKind(classifying:)` on the sample documents and on real folders,
/// files, a zip Python's zipfile wrote, and a FIFO with no writer (which
/// must not be waited on).
struct InputKindTests {
    static let sampleDocs = Repository.root.appendingPathComponent("SampleDocs").path

    @Test func samplesAreClassifiedByWhatTheyAre() {
        #expect(InputKind(classifying: "-") == .standardInput)
        #expect(InputKind(classifying: Self.sampleDocs + "/Coffee.ict") == .document)
        #expect(InputKind(classifying: Self.sampleDocs + "/Coffee.ict/") == .document)
        #expect(InputKind(classifying: Self.sampleDocs) == .package)
        #expect(InputKind(classifying: Self.sampleDocs + "/Info.plist") == .file)
        #expect(InputKind(classifying: Self.sampleDocs + "/Nobody here.plist") == .file)
        #expect(InputKind(classifying: Self.sampleDocs).isDirectory)
        #expect(!InputKind(classifying: Self.sampleDocs + "/Info.plist").isDirectory)
    }

    @Test func anICTFolderWithoutMetadataAndAZipAreTheirOwnKinds() throws {
        let folder = try ScratchFolder()
        try FileManager.default.createDirectory(atPath: folder.path + "/Empty.ict", withIntermediateDirectories: false)
        #expect(InputKind(classifying: folder.path + "/Empty.ict") == .documentWithoutMetadata)
        #expect(InputKind(classifying: folder.path + "/Empty.ict").isDirectory)
        // A zip as Python's zipfile writes it, not as this package does.
        _ = try PythonScript.run("import sys, zipfile; zipfile.ZipFile(sys.argv[1], 'w').writestr('a.txt', 'hi')", arguments: [folder.path + "/a.zip"])
        #expect(InputKind(classifying: folder.path + "/a.zip") == .zipArchive)
    }

    @Test func aFIFOWithNoWriterIsAFileAndIsNotWaitedOn() throws {
        let folder = try ScratchFolder()
        let fifo = folder.path + "/pipe"
        try #require(mkfifo(fifo, 0o600) == 0)
        // Classifying reads nothing of it: returning at all is the test (opening it to read would wait for a writer).
        #expect(InputKind(classifying: fifo) == .file)
    }
}
