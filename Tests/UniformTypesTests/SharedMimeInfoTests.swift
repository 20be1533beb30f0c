import Foundation
import PropertyList
import TestSupport
import Testing
import UniformTypes

/// shared-mime-info: a small document by hand, and acceptance 3 on Debian's full database.
struct SharedMimeInfoTests {
    static let sample = """
        <?xml version="1.0" encoding="UTF-8"?>
        <mime-info xmlns="http://www.freedesktop.org/standards/shared-mime-info">
          <mime-type type="application/x-example">
            <comment>Example document</comment>
            <comment xml:lang="de">Beispieldokument</comment>
            <sub-class-of type="application/xml"/>
            <alias type="application/x-example-old"/>
            <glob pattern="*.EXA"/>
            <glob pattern="*.tar.exa"/>
            <glob pattern="README*"/>
          </mime-type>
          <mime-type type="image/png"><glob pattern="*.png"/><glob pattern="*.pngx"/></mime-type>
        </mime-info>
        """

    private func read(_ text: String) throws -> [MimeTypeDeclaration] {
        let bytes = Array(text.utf8)
        return try bytes.withUnsafeBytes { buffer throws(UniformTypeError) in try SharedMimeInfoReader.read(buffer, file: "sample.xml") }
    }

    @Test func readsTypesGlobsAliasesParentsAndTheUntranslatedComment() throws {
        let entries = try read(Self.sample)
        #expect(entries.count == 2)
        let example = try #require(entries.first)
        #expect(example.mimeType == "application/x-example")
        #expect(example.comment == "Example document")
        #expect(example.parents == ["application/xml"])
        #expect(example.aliases == ["application/x-example-old"])
        #expect(example.filenameExtensions == ["exa", "tar.exa"])
        #expect(example.source.line == 3)
    }

    @Test func matchesByMimeTypeAndMakesDynamicTypesForTheRest() throws {
        var registry = TypeRegistry.system
        registry.add(try read(Self.sample))
        // image/png matched the system type, which gains the new extension after its own.
        #expect(registry.declaration(for: "public.png")?.tags[.filenameExtension] == ["png", "pngx"])
        #expect(registry.declaration(for: "public.png")?.origin == .system)
        let example = try #require(registry.preferredType(forTag: "application/x-example", tagClass: .mimeType))
        #expect(example.origin == .dynamic)
        #expect(example.identifier == DynamicTypeIdentifier.make(tag: "application/x-example", tagClass: .mimeType))
        #expect(registry.preferredType(forTag: "application/x-example-old", tagClass: .mimeType)?.identifier == example.identifier)
        #expect(registry.preferredType(forTag: "exa", tagClass: .filenameExtension)?.identifier == example.identifier)
        #expect(registry.conforms(example.identifier, to: "public.xml"))
    }

    @Test func malformedXMLIsAnErrorWithItsFileAndLine() throws {
        #expect { try read("<mime-info>\n<mime-type type=\"a/b\">\n</mime-info>") } throws: { error in
            guard let error = error as? UniformTypeError, case .lineColumn(let line, _) = error.location else { return false }
            return error.code == .malformedSharedMimeInfo && error.propertyListError?.code == .malformedXML && line == 3
                && error.path == "sample.xml" && error.description.hasPrefix("sample.xml:3:")
        }
    }

    @Test func theICTSchemaMatchesTheICTTypeByMimeType() throws {
        var registry = TypeRegistry.system
        registry.add(TypeDeclarationSet.ict)
        let before = registry.count
        registry.add(try SharedMimeInfoReader.read(contentsOf: Repository.root.appendingPathComponent("Schemas/ict.mime.xml").path))
        #expect(registry.count == before)
        #expect(registry.preferredType(forTag: "application/x-icloudtest-doc", tagClass: .mimeType)?.identifier == "com.appmosphereinc.icloudtest.doc")
        #expect(!registry.conforms("com.appmosphereinc.icloudtest.doc", to: "public.folder"))
    }

    /// Acceptance 3.
    @Test(
        .enabled(if: Fixtures.freedesktopExists, "needs /usr/share/mime/packages/freedesktop.org.xml (Debian shared-mime-info; scripts/install-deps.sh test)"))
    func fullFreedesktopDatabase() throws {
        let entries = try SharedMimeInfoReader.read(contentsOf: Fixtures.freedesktopXML)
        #expect(entries.count > 700)
        var registry = TypeRegistry.system
        registry.add(TypeDeclarationSet.ict)
        registry.add(entries)
        var systemDistinguished: [String] = []
        for entry in entries {
            let type = registry.preferredType(forTag: entry.mimeType, tagClass: .mimeType)
            #expect(type != nil && registry.index(of: type!.identifier) != nil, "\(entry.mimeType) resolves to a registered type")
            for alias in entry.aliases {
                // The alias names the entry's type. Where ICTKit's system types tell
                // the two names apart (image/heic is public.heic, image/heif
                // public.heif; freedesktop aliases them), the system type is
                // preferred, as system declarations always are.
                let aliasTypes = registry.types(forTag: alias, tagClass: .mimeType)
                #expect(aliasTypes.contains { $0.identifier == type?.identifier }, "alias \(alias)")
                if let preferred = aliasTypes.first, preferred.identifier != type?.identifier {
                    #expect(preferred.origin == .system, "alias \(alias)")
                    systemDistinguished.append(alias)
                }
            }
            for parent in entry.parents {
                guard let parentType = registry.preferredType(forTag: parent, tagClass: .mimeType), let type else { continue }
                #expect(registry.conforms(type.identifier, to: parentType.identifier), "\(entry.mimeType) sub-class-of \(parent)")
            }
        }
        #expect(entries.contains { !$0.parents.isEmpty })
        #expect(systemDistinguished.count <= 5, "\(systemDistinguished)")
        #expect(registry.preferredType(forTag: "image/png", tagClass: .mimeType)?.identifier == "public.png")
        #expect(registry.preferredType(forTag: "inode/directory", tagClass: .mimeType)?.identifier == "public.directory")
    }
}
