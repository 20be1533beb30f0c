import KeyedArchive
import PropertyList
import Testing

/// `KeyedArchiveObjectGraph.jsonForm` and `init(jsonForm:)`: JSON text and back gives the same archive and the same bytes.
struct KeyedArchiveJSONFormTests {
    /// `archive` through JSON text and back, as `ict convert` does it.
    static func throughJSONText(_ archive: KeyedArchiveObjectGraph) throws -> KeyedArchiveObjectGraph {
        let text = try JSONPropertyListWriter().encode(archive.jsonForm)
        return try KeyedArchiveObjectGraph(jsonForm: text.withUnsafeBytes { bytes in try JSONPropertyListReader().read(bytes) })
    }

    /// `ClassNameOnlyArchive`: the description stays `{"$classname": "TestDummy"}`, no `$classes` added.
    @Test func carriesAClassDescriptionWithoutClasses() throws {
        let archive = try KeyedArchiveReader().read(ClassNameOnlyArchive.bytes)
        let text = String(decoding: try JSONPropertyListWriter().encode(archive.jsonForm), as: UTF8.self)
        #expect(!text.contains("$classes"))
        let back = try Self.throughJSONText(archive)
        #expect(back == archive)
        #expect(try KeyedArchiveWriter().encode(back) == ClassNameOnlyArchive.bytes)
    }
}
