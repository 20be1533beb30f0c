import Foundation
import ICTKit
import TestSupport
import Testing

/// `import ICTKit` alone reaches every library module: a property list, a
/// keyed archive, a package, uniform types and an `.ict` document, each
/// through its module's own API, with expected values read by python3's
/// plistlib or stated by Apple's documentation.
struct ICTKitImportTests {
    static let coffee = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("SampleDocs/Coffee.ict").path

    /// The display name python3's plistlib finds in Coffee.ict's metadata
    /// archive: `$top.DATA`'s "DISPLAY NAME" reference, followed.
    static func displayNameByPlistlib() throws -> String {
        let script = """
            import plistlib, sys
            archive = plistlib.load(open(sys.argv[1] + "/ctdocument.metadata", "rb"))
            objects = archive["$objects"]
            metadata = objects[archive["$top"]["DATA"].data]
            print(objects[metadata["DISPLAY NAME"].data], end="")
            """
        return try PythonScript.text(script, arguments: [coffee])
    }

    @Test func everyModuleIsReachable() throws {
        // DocumentFormats: the document's display name.
        let document = try ICTDocumentFile(contentsOf: Self.coffee)
        #expect(try document.displayName() == Self.displayNameByPlistlib())
        // PropertyList and KeyedArchive: the metadata entry is a binary keyed archive.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Self.coffee + "/ctdocument.metadata"))
        let read = try PropertyListReader().read(bytes)
        #expect(read.format == .binary)
        #expect(KeyedArchiveObjectGraph.looksLikeArchive(read.value))
        // UniformTypes: Apple's documentation says public.png conforms to public.image.
        #expect(TypeRegistry.builtIn.conforms("public.png", to: "public.image"))
        #expect(!TypeRegistry.builtIn.conforms("public.png", to: "public.text"))
    }

    @Test func aMissingDocumentIsAPackageError() throws {
        let error = try #require(throws: ICTDocumentError.self) { try ICTDocumentFile(contentsOf: Self.coffee + "-missing") }
        #expect(error.code == .package)
        #expect(error.packageError != nil)
    }
}
