import ICTKit
import Testing

/// The names renamed before 1.0 still compile, for a release, as deprecated
/// typealiases of the new types (this file uses them on purpose; its
/// declarations are marked deprecated so the build gives no warning).
struct DeprecatedNamesTests {
    @available(*, deprecated, message: "uses the deprecated names on purpose")
    @Test func theOldNamesAreTheRenamedTypes() {
        #expect(ICTFormat.self == ICTDocumentFormat.self)
        #expect(KeyedArchive.self == KeyedArchiveObjectGraph.self)
        #expect(ICTDocument.self == ICTDocumentFile.self)
        // Code written with the old names keeps working with the values of the new.
        let archive: KeyedArchive = KeyedArchiveObjectGraph(top: [:], objects: [.string("$null")])
        #expect(archive.objects.count == 1)
        #expect(ICTFormat.dataEntryName == "ctdocument.data")
    }
}
