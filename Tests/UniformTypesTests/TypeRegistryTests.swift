import OrderedCollections
import PropertyList
import SystemPackage
import Testing
import UniformTypes

/// Precedence, dynamic types and cycle-safe conformance.
struct TypeRegistryTests {
    private func set(exported: [TypeDeclaration] = [], imported: [TypeDeclaration] = [], file: String) -> TypeDeclarationSet {
        var set = TypeDeclarationSet(infoPlist: [:], file: FilePath(file))
        set.exported = exported
        set.imported = imported
        return set
    }

    private func type(_ id: String, _ parents: [String], ext: [String] = [], origin: TypeOrigin) -> TypeDeclaration {
        TypeDeclaration(
            identifier: id, conformsTo: parents, tags: ext.isEmpty ? [:] : [.filenameExtension: ext],
            origin: origin, source: DeclarationSource(file: "x"))
    }

    /// ICTKit's stand-in for an app's type gives way to the app's own
    /// export, and wins over another app's import.
    @Test func anAppsExportReplacesAWellKnownStandIn() {
        var registry = TypeRegistry.builtIn
        #expect(registry.declaration(for: "com.apple.xcode.project")?.origin == .wellKnown)
        registry.add(set(imported: [type("com.apple.xcode.project", ["public.data"], origin: .imported)], file: "Other.plist"))
        #expect(registry.declaration(for: "com.apple.xcode.project")?.origin == .wellKnown)
        registry.add(
            set(
                exported: [type("com.apple.xcode.project", ["com.apple.package"], ext: ["xcodeproj"], origin: .exported)],
                file: "Xcode.plist"))
        #expect(registry.declaration(for: "com.apple.xcode.project")?.source.file == "x")
        #expect(registry.declaration(for: "com.apple.xcode.project")?.origin == .exported)
        #expect(TypeRegistry.system.declaration(for: "com.apple.xcode.project") == nil)
    }

    @Test func systemDeclarationsAreNotOverridden() {
        var registry = TypeRegistry.system
        registry.add(set(exported: [type("public.png", ["public.text"], origin: .exported)], file: "app"))
        #expect(registry.conforms("public.png", to: "public.image"))
        #expect(!registry.conforms("public.png", to: "public.text"))
        #expect(registry.declaration(for: "public.png")?.origin == .system)
        #expect(registry.ignoredDeclarations.count == 1)
    }

    @Test func exportedBeatsImportedEitherOrder() {
        var registry = TypeRegistry.system
        registry.add(set(imported: [type("com.example.doc", ["public.data"], origin: .imported)], file: "a"))
        registry.add(set(exported: [type("com.example.doc", ["com.apple.package"], origin: .exported)], file: "b"))
        registry.add(set(imported: [type("com.example.doc", ["public.text"], origin: .imported)], file: "c"))
        #expect(registry.declaration(for: "com.example.doc")?.origin == .exported)
        #expect(registry.conforms("com.example.doc", to: "com.apple.package"))
        #expect(!registry.conforms("com.example.doc", to: "public.text"))
    }

    @Test func identifiersCompareWithoutCase() {
        #expect(TypeRegistry.system.conforms("Public.PNG", to: "public.IMAGE"))
    }

    @Test func cyclesTerminateAndConformBothWays() {
        var registry = TypeRegistry.system
        registry.add(
            set(
                exported: [
                    type("com.example.a", ["com.example.b"], origin: .exported),
                    type("com.example.b", ["com.example.a", "public.data"], origin: .exported),
                ], file: "x"))
        #expect(registry.conforms("com.example.a", to: "com.example.b"))
        #expect(registry.conforms("com.example.b", to: "com.example.a"))
        #expect(registry.conforms("com.example.a", to: "public.item"))
        #expect(registry.supertypes(of: "com.example.a").contains("public.item"))
    }

    @Test func undeclaredTagsGetStableDecodableDynamicTypes() throws {
        let registry = TypeRegistry.system
        let first = try #require(registry.preferredType(forTag: "Zork", tagClass: .filenameExtension))
        #expect(first.origin == .dynamic)
        #expect(first.identifier == DynamicTypeIdentifier.make(tag: "zork", tagClass: .filenameExtension))
        #expect(first.identifier.hasPrefix("dyn.a"))
        #expect(TypeDeclarationValidator.isWellFormedIdentifier(first.identifier))
        let decoded = try #require(DynamicTypeIdentifier.decode(first.identifier))
        #expect(decoded.tagClass == .filenameExtension && decoded.tag == "zork")
        #expect(registry.conforms(first.identifier, to: "public.data"))
        #expect(registry.conforms(first.identifier, to: "public.item"))
        #expect(!registry.conforms(first.identifier, to: "public.text"))
    }

    @Test func legacyPackageDocumentTypeMakesAPackageDynamicType() {
        var registry = TypeRegistry.system
        var declarations = set(file: "app")
        declarations.documentTypes = [DocumentTypeDeclaration(isPackage: true, filenameExtensions: ["bndl"], source: DeclarationSource(file: "app"))]
        registry.add(declarations)
        let type = registry.preferredType(forTag: "bndl", tagClass: .filenameExtension)
        #expect(type.map { registry.conforms($0.identifier, to: "com.apple.package") } == true)
    }

    @Test func infoPlistReadsStringOrArrayConformanceAndTags() {
        let plist: PropertyListValue = [
            "UTExportedTypeDeclarations": [
                [
                    "UTTypeIdentifier": "com.example.one",
                    "UTTypeConformsTo": "public.data",
                    "UTTypeTagSpecification": ["public.filename-extension": "one", "public.mime-type": ["application/x-one"]],
                ]
            ]
        ]
        let declarations = TypeDeclarationSet(infoPlist: plist, file: "Info.plist")
        #expect(declarations.findings.isEmpty)
        #expect(declarations.exported.first?.conformsTo == ["public.data"])
        #expect(declarations.exported.first?.tags[.filenameExtension] == ["one"])
        #expect(declarations.exported.first?.tags[.mimeType] == ["application/x-one"])
        #expect(declarations.exported.first?.source.keyPath.description == "UTExportedTypeDeclarations[0]")
    }
}
