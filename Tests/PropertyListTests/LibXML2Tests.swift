import Foundation
import PropertyList
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

#if os(Linux)
/// Found by the xml-plist fuzz target (LeakSanitizer): each read of XML with
/// a DOCTYPE (or a libxml2 error) leaked libxml2's document tree, since
/// asking `xmlTextReaderCurrentDoc` for the internal subset makes the caller
/// the document's owner.
@Test func readingXMLFreesLibXML2sDocument() throws {
    let fixture = Repository.root.appendingPathComponent("Tests/PropertyListTests/Fixtures/fuzz/leak-xml-reader-document.plist")
    let bytes = try Data(contentsOf: fixture)
    let reader = XMLPropertyListReader()
    _ = try reader.read(bytes)
    // The resident size's growth over 6,000 reads, three times: the leak
    // (about 5 KB a read, 30 MB a round) shows in every round; the growth
    // other tests' allocations cause while they run at once (up to 6.4 MB a
    // round seen in the whole suite on two cores) stays under the 12 MB asked.
    var smallestGrowth = Int.max
    for _ in 0..<3 {
        let before = try residentBytes()
        for _ in 0..<6_000 { _ = try reader.read(bytes) }
        smallestGrowth = min(smallestGrowth, try residentBytes() - before)
    }
    #expect(smallestGrowth < 12 << 20, "the process grew by \(smallestGrowth) bytes over 6,000 reads")
}

/// This process's resident size, from `/proc/self/statm` (in pages).
private func residentBytes() throws -> Int {
    let fields = try String(contentsOfFile: "/proc/self/statm", encoding: .utf8).split(separator: " ")
    return Int(fields[1])! * Int(sysconf(Int32(_SC_PAGESIZE)))
}
#endif
