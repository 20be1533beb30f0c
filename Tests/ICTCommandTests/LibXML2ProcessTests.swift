import Foundation
import TestSupport
import Testing

/// Found by the xml-plist fuzz target (LeakSanitizer): each read of XML with
/// a DOCTYPE (or a libxml2 error) leaked libxml2's document tree, about 5 KB
/// a read.
///
/// Measured in a process of its own: `ict plutil -lint` reads the file once
/// for each time it is named, and the peak resident size of a run naming it
/// 6,000 times is compared with one naming it 200 times. (Measuring the test
/// process itself failed on CI: other tests running at once grew it by more
/// than 12 MB in each of three rounds.)
@Test func readingXMLFreesLibXML2sDocument() throws {
    let fixture = Repository.root.appendingPathComponent("Tests/PropertyListTests/Fixtures/fuzz/leak-xml-reader-document.plist").path
    func peakMemory(reads: Int) throws -> Int {
        let run = try ICTRunner.run(["plutil", "-lint", "-s"] + Array(repeating: fixture, count: reads))
        #expect(run.status == 0, "\(run.stderr)")
        return run.peakMemory
    }
    let few = try peakMemory(reads: 200)
    let many = try peakMemory(reads: 6_000)
    // A leak of 5 KB a read is 29 MB more for the 5,800 more reads; the
    // arguments themselves are under 1 MB more.
    #expect(many - few < 8 << 20, "6,000 reads peaked at \(many) bytes, 200 reads at \(few)")
}

/// libxml2 prints a few messages itself, to standard error, with no parser
/// context: bytes its converter refuses in a declared encoding ("encoding
/// error : input conversion failed…", "xmlParseChunk: encoder error"). The
/// only line `ict` prints is its own, saying where.
@Test func bytesLibXML2CannotConvertGetOneLineOfOurs() throws {
    let folder = try ScratchFolder.make("utf7")
    defer { try? FileManager.default.removeItem(at: folder) }
    let path = folder.appendingPathComponent("bad.plist").path
    let bytes =
        Array("<?xml version=\"1.0\" encoding=\"UTF-7\"?>\n<plist><string>".utf8) + [0xFF, 0xFF, 0xFF, 0xFF]
        + Array("</string></plist>\n".utf8)
    #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
    let run = try ICTRunner.run(["plutil", "-lint", path])
    #expect(run.status == 1)
    #expect(run.stderr == "\(path): (2:16: the document holds no property-list value)\n", "\(run.stderr)")
}
