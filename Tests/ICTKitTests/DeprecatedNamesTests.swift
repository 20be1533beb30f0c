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
        // The coder classes, named for what they do since 0.13.
        #expect(ICTCoder.self == ArchiveCoder.self)
        #expect(ICTKeyedArchiver.self == KeyedObjectArchiver.self)
        #expect(ICTKeyedUnarchiver.self == KeyedObjectUnarchiver.self)
        #expect(ICTObject.self == ArchivableObject.self)
        #expect(ICTNumber.self == ArchivedNumber.self)
        #expect(ICTNull.self == ArchivedNull.self)
        #expect(ICTNumber(value: 8) == ArchivedNumber(value: 8.0))
        let coding: any ICTCoding.Type = ArchivableCodingProbe.self
        #expect(coding is any ArchiveCoding.Type)
        #expect((ArchivableCodingProbe.self as Any.Type) is any ICTSecureCoding.Type)
    }
}

/// A class written with the old protocol names, as code from before 0.13 is.
@available(*, deprecated, message: "uses the deprecated names on purpose")
private final class ArchivableCodingProbe: ICTObject, ICTSecureCoding {
    static var supportsSecureCoding: Bool { true }
    override init() {}
    init?(coder: ICTCoder) {}
    func encode(with coder: ICTCoder) {}
}
