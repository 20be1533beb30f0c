import Foundation
import TestSupport
import Testing
import UniformTypes

/// The built-in declaration files and the facts Apple documents about the system's types.
struct SystemTypeDeclarationsTests {
    @Test func builtInSystemTypesAreTheSchemasFile() throws {
        #expect(TypeDeclarationSet.systemTypeDeclarationsText + "\n" == (try Fixtures.schema("system-types.plist")))
    }

    @Test func builtInICTTypesAreTheSchemasFile() throws {
        #expect(TypeDeclarationSet.ictTypeDeclarationsText + "\n" == (try Fixtures.schema("ict-types.plist")))
    }

    @Test func systemDeclaresAtLeast850TypesCleanly() {
        let system = TypeDeclarationSet.system
        #expect(system.findings.isEmpty)
        #expect(system.exported.count >= 850)
        #expect(system.exported.allSatisfy { $0.origin == .system })
        #expect(Set(system.exported.map { $0.identifier.lowercased() }).count == system.exported.count)
        // Every parent named is itself declared, and every type reaches public.item or is abstract.
        let registry = TypeRegistry.system
        for declaration in system.exported {
            for parent in declaration.conformsTo { #expect(registry.index(of: parent) != nil, "\(declaration.identifier) → \(parent)") }
        }
    }

    /// Every declaration names its source, and every source is listed,
    /// with its licence, in Schemas/system-types-SOURCES.md.
    @Test func everyDeclarationNamesASourceListedInSchemas() throws {
        let sources = try Fixtures.schema("system-types-SOURCES.md")
        #expect(sources.contains("| licence |"))
        var used: Set<String> = []
        for declaration in TypeDeclarationSet.system.exported {
            guard let reference = declaration.source.reference else {
                Issue.record("\(declaration.identifier) names no ICTKitSource")
                continue
            }
            used.insert(reference)
        }
        #expect(used == ["apple-docs", "macos-13.3.1", "macos-12.7.6"])
        for reference in used { #expect(sources.contains("| `\(reference)` |"), "\(reference) is not listed") }
    }

    /// The parents of every type macOS 12.7.6's CoreTypes.bundle declares,
    /// as `scripts/import-coretypes.py` took them from the copy cited in
    /// Schemas/system-types-SOURCES.md (Tests/UniformTypesTests/Fixtures/coretypes/).
    static func coreTypesParents() throws -> [String: [String]] {
        let url = Repository.root.appendingPathComponent("Tests/UniformTypesTests/Fixtures/coretypes/parents.json")
        return try JSONDecoder().decode([String: [String]].self, from: Data(contentsOf: url))
    }

    /// Every type the CoreTypes copy declares is built in, with the copy's
    /// parents (as sets, identifiers without regard to case). The types the
    /// copy lacks (declared elsewhere in macOS, or by Apple's documentation
    /// only) keep the parents of their own sources and are not compared.
    @Test func parentLinksAgreeWithCoreTypes() throws {
        let copy = try Self.coreTypesParents()
        #expect(copy.count == 873)
        // By hand from the copy (CoreTypes 517): a leaf, an abstract root and a type of two parents.
        #expect(copy["public.jpeg"] == ["public.image"])
        #expect(copy["public.item"] == [])
        #expect(Set(copy["public.comma-separated-values-text"] ?? []) == ["public.plain-text", "public.delimited-values-text"])
        let declared = Dictionary(
            TypeDeclarationSet.system.exported.map { ($0.identifier.lowercased(), $0) }, uniquingKeysWith: { first, _ in first })
        for (identifier, parents) in copy {
            guard let declaration = declared[identifier.lowercased()] else {
                Issue.record("\(identifier) is declared by CoreTypes.bundle but not built in")
                continue
            }
            #expect(
                Set(declaration.conformsTo.map { $0.lowercased() }) == Set(parents.map { $0.lowercased() }),
                "\(identifier): built in \(declaration.conformsTo), CoreTypes \(parents)")
        }
        // 14 from the other sources, and the 28 camera RAW types of the nested RawCameraTypes.bundle.
        #expect(declared.count - copy.count == 14 + 28, "types the copy lacks")
    }

    /// The camera RAW types the copy's nested `RawCameraTypes.bundle` declares
    /// (identifier → parents, extensions, MIME types), as
    /// `scripts/import-coretypes.py --whole` took them (Fixtures/coretypes/SOURCES.md).
    struct CameraRawDeclaration: Decodable {
        let parents: [String]
        let extensions: [String]
        let mimeTypes: [String]
    }

    @Test func cameraRawTypesAreRawCameraTypesBundles() throws {
        let url = Repository.root.appendingPathComponent("Tests/UniformTypesTests/Fixtures/coretypes/whole-bundles.json")
        let bundles = try JSONDecoder().decode([String: [String: CameraRawDeclaration]].self, from: Data(contentsOf: url))
        let raw = try #require(bundles["RawCameraTypes.bundle"])
        // By hand from the bundle's Info.plist: 29 types, com.adobe.raw-image among them (already in Apple's documentation).
        #expect(raw.count == 29)
        #expect(raw["com.sony.arw-raw-image"]?.extensions == ["arw"])
        let registry = TypeRegistry.system
        for (identifier, facts) in raw {
            guard let declaration = registry.declaration(for: identifier) else {
                Issue.record("\(identifier) is declared by RawCameraTypes.bundle but not built in")
                continue
            }
            #expect(declaration.origin == .system)
            #expect(declaration.conformsTo == facts.parents, "\(identifier)")
            #expect(declaration.tags[.filenameExtension] ?? [] == facts.extensions, "\(identifier)")
            #expect(declaration.tags[.mimeType] ?? [] == facts.mimeTypes, "\(identifier)")
            #expect(registry.conforms(identifier, to: "public.camera-raw-image"), "\(identifier)")
            #expect(registry.conforms(identifier, to: "public.image"), "\(identifier)")
        }
    }

    /// The types the issue named, and two whose parent is another RAW type (facts of the bundle, by hand).
    @Test func aPhotographersFilesHaveTheirRawTypes() {
        let registry = TypeRegistry.system
        let byExtension = { (tag: String) in registry.preferredType(forTag: tag, tagClass: .filenameExtension)?.identifier }
        #expect(byExtension("cr2") == "com.canon.cr2-raw-image")
        #expect(byExtension("NEF") == "com.nikon.raw-image")
        #expect(byExtension("arw") == "com.sony.arw-raw-image")
        #expect(byExtension("cr3") == "com.canon.cr3-raw-image")
        #expect(byExtension("raf") == "com.fuji.raw-image")
        // Three types share orf; the bundle declares com.olympus.raw-image first, which is the one preferred.
        #expect(byExtension("orf") == "com.olympus.raw-image")
        #expect(registry.conforms("com.olympus.sr-raw-image", to: "com.olympus.raw-image"))
        #expect(!registry.conforms("com.nikon.raw-image", to: "public.tiff"))
    }

    /// Types the issue named as missing (Quicksilver, MacVim, TextEdit).
    @Test(arguments: [
        "com.apple.bom-compressed-cpio", "public.precompiled-c-header", "public.lex-source",
        "org.openoffice.text", "public.yacc-source", "com.apple.xar-archive",
    ])
    func knowsTypesRealAppsConformTo(_ identifier: String) {
        let registry = TypeRegistry.system
        #expect(registry.declaration(for: identifier)?.origin == .system)
        #expect(registry.conforms(identifier, to: "public.item"), "\(identifier) reaches public.item")
    }

    @Test func ictDeclarationsAreSectionEightsAndValid() {
        let ict = TypeDeclarationSet.ict
        #expect(ict.exported.first?.identifier == "com.appmosphereinc.icloudtest.doc")
        #expect(ict.exported.first?.conformsTo == ["com.apple.package"])
        #expect(ict.exported.first?.tags[.filenameExtension] == ["ict"])
        #expect(ict.documentTypes.first?.isPackage == true)
        #expect(ict.documentTypes.first?.handlerRank == "Owner")
        #expect(TypeDeclarationValidator().validate(ict).isEmpty)
    }

    /// The other apps' types beside it: the photo app's own declaration (its
    /// PhotoKeeper-Info.plist) and ICTKit's names for the two notes' types.
    @Test func theOtherAppsTypesAreDeclaredBesideIt() {
        let ict = TypeDeclarationSet.ict
        #expect(
            ict.exported.map(\.identifier) == [
                "com.appmosphereinc.icloudtest.doc", "com.razeware.PhotoKeeper.doc", "com.ictkit.icfnote.doc", "com.ictkit.dox.doc",
            ])
        #expect(ict.exported.map { $0.tags[.filenameExtension] ?? [] } == [["ict"], ["ptk"], ["icfnote"], ["dox"]])
        var registry = TypeRegistry.system
        registry.add(ict)
        #expect(registry.conforms("com.razeware.PhotoKeeper.doc", to: "com.apple.package"))
        #expect(registry.conforms("com.ictkit.icfnote.doc", to: "public.plain-text"))
        #expect(registry.conforms("com.ictkit.dox.doc", to: "public.text"))
        #expect(!registry.conforms("com.ictkit.dox.doc", to: "com.apple.package"))
    }

    /// (type, supertype, conforms?) — facts from Apple's documentation of the
    /// system-declared uniform types (UTType's constants and the UTI reference).
    static let facts: [(String, String, Bool)] = [
        ("public.png", "public.image", true),
        ("public.png", "public.data", true),
        ("public.png", "public.item", true),
        ("public.png", "public.content", true),
        ("com.apple.package", "public.directory", true),
        ("com.apple.package", "public.item", true),
        ("com.appmosphereinc.icloudtest.doc", "com.apple.package", true),
        ("com.appmosphereinc.icloudtest.doc", "public.item", true),
        ("com.appmosphereinc.icloudtest.doc", "public.directory", true),
        ("com.appmosphereinc.icloudtest.doc", "public.data", false),
        ("public.plain-text", "public.image", false),
        ("public.plain-text", "public.text", true),
        ("public.utf8-plain-text", "public.plain-text", true),
        ("public.jpeg", "public.image", true),
        ("public.tiff", "public.image", true),
        ("com.compuserve.gif", "public.image", true),
        ("public.heic", "public.heif-standard", true),
        ("public.svg-image", "public.image", true),
        ("com.adobe.pdf", "public.data", true),
        ("com.adobe.pdf", "public.composite-content", true),
        ("com.adobe.pdf", "public.image", false),
        ("public.rtf", "public.text", true),
        ("com.apple.rtfd", "com.apple.package", true),
        ("com.apple.rtfd", "public.composite-content", true),
        ("com.apple.flat-rtfd", "public.data", true),
        ("public.html", "public.text", true),
        ("public.xml", "public.text", true),
        ("public.json", "public.text", true),
        ("public.json", "public.data", true),
        ("public.yaml", "public.text", true),
        ("public.folder", "public.directory", true),
        ("public.volume", "public.folder", true),
        ("public.folder", "com.apple.package", false),
        ("com.apple.bundle", "public.directory", true),
        ("com.apple.application-bundle", "com.apple.bundle", true),
        ("com.apple.application-bundle", "com.apple.package", true),
        ("com.apple.application-bundle", "public.executable", true),
        ("com.apple.framework", "com.apple.package", false),
        ("public.symlink", "public.item", true),
        ("public.symlink", "public.data", false),
        ("public.unix-executable", "public.executable", true),
        ("public.unix-executable", "public.data", true),
        ("public.mp3", "public.audio", true),
        ("public.mp3", "public.audiovisual-content", true),
        ("public.mp3", "public.movie", false),
        ("com.apple.quicktime-movie", "public.movie", true),
        ("public.mpeg-4", "public.movie", true),
        ("public.mpeg-4-audio", "public.audio", true),
        // UTCoreTypes.h says public.mpeg-4 too; macOS 12.7.6's CoreTypes.bundle declares public.audio alone.
        ("public.mpeg-4-audio", "public.mpeg-4", false),
        ("public.aiff-audio", "public.aifc-audio", true),
        ("com.microsoft.waveform-audio", "public.audio", true),
        ("public.zip-archive", "com.pkware.zip-archive", true),
        ("com.pkware.zip-archive", "public.archive", true),
        ("org.gnu.gnu-zip-tar-archive", "org.gnu.gnu-zip-archive", true),
        ("public.tar-archive", "public.archive", true),
        ("com.apple.disk-image", "public.disk-image", true),
        ("com.sun.java-archive", "com.pkware.zip-archive", true),
        ("public.swift-source", "public.source-code", true),
        ("public.c-source", "public.plain-text", true),
        ("public.python-script", "public.script", true),
        ("public.shell-script", "public.script", true),
        ("public.script", "public.source-code", true),
        ("public.source-code", "public.image", false),
        ("com.apple.xml-property-list", "com.apple.property-list", true),
        ("com.apple.xml-property-list", "public.xml", true),
        ("com.apple.binary-property-list", "com.apple.property-list", true),
        ("com.apple.binary-property-list", "public.text", false),
        ("com.apple.property-list", "public.data", true),
        ("public.comma-separated-values-text", "public.delimited-values-text", true),
        ("public.vcard", "public.contact", true),
        // CoreTypes.bundle (macOS 12.7.6): Office Open XML is public.data, not a zip archive the Finder would offer to expand.
        ("org.openxmlformats.wordprocessingml.document", "public.zip-archive", false),
        ("org.openxmlformats.wordprocessingml.document", "public.data", true),
        ("public.truetype-font", "public.font", true),
        ("public.image", "public.png", false),
        ("public.item", "public.data", false),
    ]

    @Test func conformanceFactsFromAppleDocumentation() {
        #expect(Self.facts.count >= 45)
        var registry = TypeRegistry.system
        registry.add(TypeDeclarationSet.ict)
        for (type, ancestor, expected) in Self.facts {
            #expect(registry.conforms(type, to: ancestor) == expected, "\(type) → \(ancestor)")
            #expect(registry.index(of: type) != nil, "\(type) is declared")
        }
    }

    /// The shared-mime-info database adds parents; it must not make any fact false.
    @Test(
        .enabled(if: Fixtures.freedesktopExists, "needs /usr/share/mime/packages/freedesktop.org.xml (Debian shared-mime-info; scripts/install-deps.sh test)"))
    func conformanceFactsHoldWithTheDesktopDatabase() throws {
        var registry = TypeRegistry.system
        registry.add(TypeDeclarationSet.ict)
        registry.add(try SharedMimeInfoReader.read(contentsOf: Fixtures.freedesktopXML))
        for (type, ancestor, expected) in Self.facts {
            #expect(registry.conforms(type, to: ancestor) == expected, "\(type) → \(ancestor)")
        }
    }

    @Test func tagsAndPreferredTags() {
        let registry = TypeRegistry.system
        #expect(registry.preferredType(forTag: "PNG", tagClass: .filenameExtension)?.identifier == "public.png")
        #expect(registry.preferredType(forTag: "image/jpeg", tagClass: .mimeType)?.identifier == "public.jpeg")
        #expect(registry.preferredFilenameExtension(for: "public.jpeg") == "jpeg")
        #expect(registry.preferredMIMEType(for: "public.png") == "image/png")
        #expect(registry.preferredType(forTag: "PNGf", tagClass: .osType)?.identifier == "public.png")
        // rtfd names a package and a flat file: conformance picks.
        #expect(registry.preferredType(forTag: "rtfd", tagClass: .filenameExtension, conformingTo: "public.data")?.identifier == "com.apple.flat-rtfd")
        #expect(registry.preferredType(forTag: "rtfd", tagClass: .filenameExtension, conformingTo: "com.apple.package")?.identifier == "com.apple.rtfd")
        #expect(registry.preferredType(forTag: "png", tagClass: .filenameExtension, conformingTo: "public.text") == nil)
    }
}
