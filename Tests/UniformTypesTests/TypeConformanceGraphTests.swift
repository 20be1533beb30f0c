import Foundation
import PropertyList
import TestSupport
import Testing
import UniformTypes

/// `TypeConformanceGraph` against `TypeRegistry` made from the same sources:
/// the same types with the same parents, so every conformance answer is the
/// registry's; and facts read off the freedesktop XML by hand.
struct TypeConformanceGraphTests {
    /// The same identifiers, and for each the same registered parents in
    /// the same order: then every conformance question has one answer.
    private func expectSameGraph(_ graph: TypeConformanceGraph, _ registry: TypeRegistry, sourceLocation: SourceLocation = #_sourceLocation) {
        let identifiers = registry.declarations.map(\.identifier)
        #expect(graph.count == registry.count, sourceLocation: sourceLocation)
        #expect(Set(graph.allIdentifiers) == Set(identifiers), sourceLocation: sourceLocation)
        var differing: [String] = []
        for identifier in identifiers where graph.parents(of: identifier) != registry.parents(of: identifier) {
            differing.append(identifier)
        }
        #expect(differing.isEmpty, "parents differ for \(differing.prefix(10))", sourceLocation: sourceLocation)
    }

    @Test func builtInTypesMatchTheRegistry() {
        expectSameGraph(.builtIn, .builtIn)
        #expect(TypeConformanceGraph.builtIn.conforms("public.png", to: "public.image"))
        #expect(TypeConformanceGraph.builtIn.conforms("PUBLIC.PNG", to: "public.data"))
        #expect(!TypeConformanceGraph.builtIn.conforms("public.png", to: "public.text"))
        #expect(!TypeConformanceGraph.builtIn.conforms("com.example.unknown", to: "public.data"))
        #expect(TypeConformanceGraph.builtIn.conforms("com.example.unknown", to: "com.example.unknown"))
    }

    /// Every interop app's declarations, added in one order to both.
    @Test(.interopCorpus)
    func appDeclarationsMatchTheRegistry() throws {
        var registry = TypeRegistry.builtIn
        var graph = TypeConformanceGraph.builtIn
        let files = try FileManager.default.subpathsOfDirectory(atPath: Fixtures.utiApps.path).filter { $0.hasSuffix(".plist") }.sorted()
        #expect(files.count >= 6)
        for file in files {
            let set = try TypeDeclarationSet.read(contentsOf: Fixtures.utiApps.appendingPathComponent(file).path)
            registry.add(set)
            graph.add(set)
        }
        expectSameGraph(graph, registry)
    }

    @Test(.enabled(if: SharedMimeInfoCacheTests.systemCacheExists, "needs /usr/share/mime (Debian shared-mime-info)"))
    func theSystemCacheMatchesTheRegistry() throws {
        var registry = TypeRegistry.builtIn
        registry.add(TypeDeclarationSet.ict)
        var graph = TypeConformanceGraph.builtIn
        graph.add(TypeDeclarationSet.ict)
        #expect(try registry.addSharedMimeInfoCache())
        #expect(try graph.addSharedMimeInfoCache())
        expectSameGraph(graph, registry)
        // freedesktop.org.xml: application/atom+xml is a sub-class-of
        // application/xml, the MIME type of public.xml; nothing declares it.
        let atom = DynamicTypeIdentifier.make(tag: "application/atom+xml", tagClass: .mimeType)
        #expect(graph.conforms(atom, to: "public.xml"))
        #expect(graph.conforms(atom.uppercased(), to: "public.data"))
        #expect(!graph.conforms(atom, to: "public.image"))
        // A dynamic identifier of a MIME type the database does not know: public.data only.
        let unknown = DynamicTypeIdentifier.make(tag: "application/x-not-in-any-database", tagClass: .mimeType)
        #expect(graph.conforms(unknown, to: "public.data"))
        #expect(!graph.conforms(unknown, to: "public.xml"))
    }

    /// From the cache's bytes alone, every type the graph makes has the
    /// parents the registry gives it from what the reader reads of the
    /// same bytes; a cache cut short is refused at the same byte by both.
    @Test(.enabled(if: SharedMimeInfoCacheTests.systemCacheExists, "needs /usr/share/mime (Debian shared-mime-info)"))
    func theSystemCacheBytesMatchTheReader() throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: SharedMimeInfoCacheTests.systemCache)))
        var registry = TypeRegistry.system
        registry.add(try bytes.withUnsafeBytes { try SharedMimeInfoCacheReader.read($0, file: nil) })
        var graph = TypeConformanceGraph()
        graph.add(TypeDeclarationSet.system)
        try bytes.withUnsafeBytes { try graph.addSharedMimeInfoCache($0, types: nil) }
        #expect(graph.count > TypeRegistry.system.count)  // Not vacuous: the cache made types.
        var differing: [String] = []
        for identifier in graph.allIdentifiers where graph.parents(of: identifier) != registry.parents(of: identifier) {
            differing.append(identifier)
        }
        #expect(differing.isEmpty, "parents differ for \(differing.prefix(10))")

        // The alias list's entries run to the end of the file: cut the
        // file one byte into the last entry's second offset.
        let aliasList = Int(bytes[4]) << 24 | Int(bytes[5]) << 16 | Int(bytes[6]) << 8 | Int(bytes[7])
        let aliasCount = Int(bytes[aliasList]) << 24 | Int(bytes[aliasList + 1]) << 16 | Int(bytes[aliasList + 2]) << 8 | Int(bytes[aliasList + 3])
        let cut = Array(bytes[..<(aliasList + 4 + aliasCount * 8 - 1)])
        var expected: UniformTypeError?
        do { _ = try cut.withUnsafeBytes { try SharedMimeInfoCacheReader.read($0, file: nil) } } catch let error as UniformTypeError { expected = error }
        let readerError = try #require(expected)
        var cutGraph = TypeConformanceGraph()
        #expect {
            try cut.withUnsafeBytes { try cutGraph.addSharedMimeInfoCache($0, types: nil) }
        } throws: { error in
            (error as? UniformTypeError) == readerError
        }
        #expect(cutGraph.count == 0)
    }

    @Test(.enabled(if: Fixtures.freedesktopExists, "needs /usr/share/mime/packages (Debian shared-mime-info)"))
    func thePackagesXMLMatchesTheRegistry() throws {
        var registry = TypeRegistry.builtIn
        var graph = TypeConformanceGraph.builtIn
        let registryFiles = try registry.addSharedMimeInfo()
        #expect(try graph.addSharedMimeInfo() == registryFiles)
        expectSameGraph(graph, registry)
    }

    /// A declaration of a `dyn.` identifier takes the MIME type's entry in
    /// both (the entry merges into it), and declarations added after the
    /// merge see the dynamic types it made.
    @Test func declaredDynamicIdentifiersAndLaterDeclarationsMatchTheRegistry() {
        let declared = DynamicTypeIdentifier.make(tag: "application/x-declared", tagClass: .mimeType)
        let made = DynamicTypeIdentifier.make(tag: "application/x-made", tagClass: .mimeType)
        var first = TypeDeclarationSet(infoPlist: .dictionary([:]), file: nil)
        first.exported = [
            TypeDeclaration(identifier: declared.uppercased(), conformsTo: ["public.image"], origin: .exported, source: DeclarationSource(file: nil))
        ]
        var later = TypeDeclarationSet(infoPlist: .dictionary([:]), file: nil)
        later.exported = [
            TypeDeclaration(identifier: "com.example.child", conformsTo: [made], origin: .exported, source: DeclarationSource(file: nil)),
            TypeDeclaration(identifier: made, conformsTo: ["public.audio"], origin: .exported, source: DeclarationSource(file: nil)),
        ]
        let entries = [
            MimeTypeDeclaration(mimeType: "application/x-declared", source: DeclarationSource(file: nil)),
            MimeTypeDeclaration(mimeType: "application/x-made", aliases: ["Application/X-Alias"], parents: ["image/png"], source: DeclarationSource(file: nil)),
            MimeTypeDeclaration(mimeType: "text/x-plain-made", parents: ["application/x-made"], source: DeclarationSource(file: nil)),
        ]
        var registry = TypeRegistry.system
        var graph = TypeConformanceGraph.builtIn
        registry = TypeRegistry.system
        graph = TypeConformanceGraph()
        graph.add(TypeDeclarationSet.system)
        registry.add(first)
        graph.add(first)
        registry.add(entries)
        graph.add(entries)
        registry.add(later)
        graph.add(later)
        registry.add(entries)
        graph.add(entries)
        expectSameGraph(graph, registry)
        // By hand: x-declared merged into the declared type, an image; x-made
        // is made, a sub-class of image/png; text/x-plain-made of x-made;
        // the later declaration of x-made's identifier loses to the made type.
        #expect(graph.conforms(declared, to: "public.image"))
        #expect(graph.conforms(made, to: "public.png"))
        #expect(!graph.conforms(made, to: "public.audio"))
        #expect(graph.conforms("com.example.child", to: "public.image"))
        let plain = DynamicTypeIdentifier.make(tag: "text/x-plain-made", tagClass: .mimeType)
        #expect(graph.conforms(plain, to: "public.png"))
        #expect(!graph.conforms(plain, to: "public.plain-text"))
        #expect(graph.parents(of: plain) == [made])
    }

    /// The graph does not read the globs, so a damaged suffix tree that
    /// stops the registry does not stop it; a damaged alias list stops both.
    @Test func aDamagedSuffixTreeIsNotRead() throws {
        let directory = try ScratchFolder.make("graph-cache")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("packages"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let package = directory.appendingPathComponent("packages/x.xml")
        try Data("<mime-info/>".utf8).write(to: package)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: package.path)
        try Data("text/x-b\n".utf8).write(to: directory.appendingPathComponent("types"))
        func card32(_ value: UInt32) -> [UInt8] { [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        // text/x-b, a subclass of text/plain; the suffix tree's one root
        // (at 76) says it has 1000 children at 2000, past the end.
        func cache(aliasList: UInt32) -> [UInt8] {
            [0, 1, 0, 2]  // 0: major 1, minor 2
                + card32(aliasList) + card32(44) + card32(64) + card32(68) + card32(88)  // 4: aliases, parents, literals, suffix tree, globs
                + card32(92) + card32(92) + card32(92) + card32(92)  // 24: unread sections
                + card32(0)  // 40: no aliases
                + card32(1) + card32(96) + card32(56)  // 44: text/x-b's parents at 56
                + card32(1) + card32(105)  // 56: text/plain
                + card32(0)  // 64: no literals
                + card32(1) + card32(76)  // 68: 1 root, at 76
                + card32(0x62) + card32(1000) + card32(2000)  // 76: "b", 1000 children at 2000
                + card32(0)  // 88: no globs
                + card32(0)  // 92: empty list for the unread sections
                + Array("text/x-b\0".utf8)  // 96
                + Array("text/plain\0".utf8)  // 105
        }
        let cacheFile = directory.appendingPathComponent("mime.cache")
        try Data(cache(aliasList: 40)).write(to: cacheFile)
        var registry = TypeRegistry.system
        #expect(throws: UniformTypeError.self) { try registry.addSharedMimeInfoCache(directory: directory.path) }
        var graph = TypeConformanceGraph()
        graph.add(TypeDeclarationSet.system)
        #expect(try graph.addSharedMimeInfoCache(directory: directory.path))
        let type = DynamicTypeIdentifier.make(tag: "text/x-b", tagClass: .mimeType)
        #expect(graph.conforms(type, to: "public.plain-text"))
        // The alias list's offset past the end: both refuse, at that offset.
        try Data(cache(aliasList: 5000)).write(to: cacheFile)
        var other = TypeConformanceGraph()
        #expect {
            try other.addSharedMimeInfoCache(directory: directory.path)
        } throws: { error in
            (error as? UniformTypeError)?.location == .byteOffset(5000)
        }
        #expect(other.count == 0)
    }
}
