// This file imports the five modules by their names before 0.13 only: each still compiles, for one release, as a
// module re-exporting its new name (Sources/Deprecated).
import DocumentPackage
import DocumentQuery
import DocumentVersions
import Documents
import ICTDocument
import Testing

struct OldModuleNamesTests {
    @Test func eachOldModuleNameStillBringsItsTypes() throws {
        // DocumentPackage → PackageFormat, DocumentVersions → ConflictVersions, DocumentQuery → LiveQuery,
        // Documents → DocumentObject, ICTDocument → DocumentFormats: a type of each, by its plain name.
        let wrapper = try PackageWrapper(directoryWithChildren: [:])
        #expect(wrapper.children.isEmpty)
        #expect(String(reflecting: PackageWrapper.self) == "PackageFormat.PackageWrapper")
        #expect(String(reflecting: DocumentVersion.self) == "ConflictVersions.DocumentVersion")
        #expect(String(reflecting: MetadataQuery.self) == "LiveQuery.MetadataQuery")
        #expect(String(reflecting: DocumentState.self) == "DocumentObject.DocumentState")
        #expect(String(reflecting: ICTDocumentFile.self) == "DocumentFormats.ICTDocumentFile")
    }
}
