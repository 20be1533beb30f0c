import Foundation
import PropertyList
import SystemPackage
import TestSupport
import Testing
import UniformTypes

/// The mime.cache reader: the machine's cache against the XML it was made
/// from (update-mime-database wrote it, not this code), and hand-made
/// caches, good and corrupt, as annotated bytes.
struct SharedMimeInfoCacheTests {
    static let systemCache = "/usr/share/mime/mime.cache"
    static var systemCacheExists: Bool {
        Fixtures.freedesktopExists && FileManager.default.fileExists(atPath: systemCache)
    }

    /// A CARD32, big-endian.
    private static func card32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    /// A small cache: text/x-b (alias application/x-a) is a subclass of
    /// text/plain and has the glob `*.x`.
    private static let small: [UInt8] =
        [0, 1, 0, 2]  // 0: major 1, minor 2
        + card32(40)  // 4: alias list
        + card32(52)  // 8: parent list
        + card32(72)  // 12: literal list
        + card32(76)  // 16: reverse suffix tree
        + card32(120)  // 20: glob list
        + card32(124) + card32(124) + card32(124) + card32(124)  // 24: magic, namespaces, icons, generic icons (unread)
        + card32(1) + card32(128) + card32(144)  // 40: 1 alias: application/x-a → text/x-b
        + card32(1) + card32(144) + card32(64)  // 52: 1 parent entry: text/x-b, parents at 64
        + card32(1) + card32(153)  // 64: 1 parent: text/plain
        + card32(0)  // 72: no literals
        + card32(1) + card32(84)  // 76: 1 root, at 84
        + card32(0x78) + card32(1) + card32(96)  // 84: "x", 1 child at 96
        + card32(0x2E) + card32(1) + card32(108)  // 96: ".", 1 child at 108
        + card32(0) + card32(144) + card32(50)  // 108: leaf: text/x-b, weight 50
        + card32(0)  // 120: no other globs
        + card32(0)  // 124: empty list for the unread sections
        + Array("application/x-a\0".utf8)  // 128
        + Array("text/x-b\0".utf8)  // 144
        + Array("text/plain\0".utf8)  // 153

    private func read(_ bytes: [UInt8]) throws -> [MimeTypeDeclaration] {
        try bytes.withUnsafeBytes { buffer throws(UniformTypeError) in try SharedMimeInfoCacheReader.read(buffer, file: "test") }
    }

    /// The bytes of `small` with the CARD32 at `offset` replaced.
    private func small(setting offset: Int, to value: UInt32) -> [UInt8] {
        var bytes = Self.small
        bytes.replaceSubrange(offset..<(offset + 4), with: Self.card32(value))
        return bytes
    }

    private func expectError(_ code: PropertyListError.Code, atByte offset: Int, reading bytes: [UInt8]) {
        #expect { try read(bytes) } throws: { error in
            guard let error = error as? UniformTypeError else { return false }
            return error.code == .malformedMimeCache && error.propertyListError?.code == code && error.path == "test"
                && error.location == .byteOffset(offset)
        }
    }

    @Test func readsASmallCache() throws {
        let entries = try read(Self.small)
        #expect(entries.map(\.mimeType) == ["text/x-b", "text/plain"])  // In the order first named.
        let b = entries[0]
        #expect(b.aliases == ["application/x-a"])
        #expect(b.parents == ["text/plain"])
        #expect(b.globs == ["*.x"])
        #expect(b.filenameExtensions == ["x"])
        #expect(b.comment == nil)
    }

    @Test func rejectsATruncatedHeader() {
        expectError(.truncated, atByte: 39, reading: Array(Self.small[..<39]))
    }

    @Test func rejectsAnotherMajorVersion() {
        var bytes = Self.small
        bytes[1] = 2  // major version 2
        expectError(.unrecognizedFormat, atByte: 0, reading: bytes)
    }

    @Test func rejectsAListOffsetPastTheEnd() {
        expectError(.truncated, atByte: 4096, reading: small(setting: 4, to: 4096))  // alias list at 4096
    }

    @Test func rejectsACountThatRunsPastTheEnd() {
        expectError(.truncated, atByte: 40, reading: small(setting: 40, to: 0xFFFF_FFFF))  // 4 billion aliases
    }

    @Test func rejectsAStringOffsetPastTheEnd() {
        expectError(.truncated, atByte: 9999, reading: small(setting: 48, to: 9999))  // the alias's type at 9999
    }

    @Test func rejectsAStringWithoutNUL() {
        expectError(.invalidString, atByte: 153, reading: Array(Self.small.dropLast()))  // "text/plain" loses its NUL
    }

    @Test func rejectsACyclicSuffixTree() {
        expectError(.cycle, atByte: 96, reading: small(setting: 104, to: 96))  // "." is its own child
    }

    @Test func rejectsASuffixTreeNodeThatIsNoCharacter() {
        expectError(.invalidString, atByte: 84, reading: small(setting: 84, to: 0xD800))  // a surrogate
    }

    /// A cache in which text/a and text/b are each other's parent.
    private static let cyclicParents: [UInt8] =
        [0, 1, 0, 2]  // 0: major 1, minor 2
        + card32(40) + card32(44) + card32(80) + card32(84) + card32(92)  // 4: aliases, parents, literals, suffix tree, globs
        + card32(96) + card32(96) + card32(96) + card32(96)  // 24: magic, namespaces, icons, generic icons (unread)
        + card32(0)  // 40: no aliases
        + card32(2) + card32(100) + card32(64) + card32(107) + card32(72)  // 44: text/a's parents at 64, text/b's at 72
        + card32(1) + card32(107)  // 64: text/a < text/b
        + card32(1) + card32(100)  // 72: text/b < text/a
        + card32(0)  // 80: no literals
        + card32(0) + card32(0)  // 84: a suffix tree without roots
        + card32(0)  // 92: no globs
        + card32(0)  // 96: empty list for the unread sections
        + Array("text/a\0".utf8)  // 100
        + Array("text/b\0".utf8)  // 107

    /// Cyclic parents are the registry's to handle, as they are from the
    /// XML: the two types conform to each other and nothing loops.
    @Test func cyclicParentsReadAndConformBothWays() throws {
        let entries = try read(Self.cyclicParents)
        #expect(entries.map(\.parents) == [["text/b"], ["text/a"]])
        var registry = TypeRegistry.system
        registry.add(entries)
        let a = try #require(registry.preferredType(forTag: "text/a", tagClass: .mimeType)).identifier
        let b = try #require(registry.preferredType(forTag: "text/b", tagClass: .mimeType)).identifier
        #expect(registry.conforms(a, to: b))
        #expect(registry.conforms(b, to: a))
        #expect(registry.supertypes(of: a) == [b])
        #expect(!registry.conforms(a, to: "public.data"))
    }

    /// A cache older than a package file is not read: it would miss what the file says.
    @Test func aStaleCacheIsNotRead() throws {
        let directory = try ScratchFolder.make("mime-cache")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("packages"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let package = directory.appendingPathComponent("packages/x.xml")
        try Data("<mime-info/>".utf8).write(to: package)
        try Data(Self.small).write(to: directory.appendingPathComponent("mime.cache"))
        try Data("text/x-b\ntext/x-only-listed\n".utf8).write(to: directory.appendingPathComponent("types"))
        let old = Date(timeIntervalSinceNow: -3600)
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: package.path)
        let fresh = try #require(try SharedMimeInfoCacheReader.read(directory: FilePath(directory.path)))
        #expect(fresh.map(\.mimeType) == ["text/x-b", "text/plain", "text/x-only-listed"])
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: 3600)], ofItemAtPath: package.path)
        #expect(try SharedMimeInfoCacheReader.read(directory: FilePath(directory.path)) == nil)
    }

    /// application/x-both, aliased image/jpeg and image/png, both registered types' MIME types.
    private static let twoRegisteredAliases: [UInt8] =
        [0, 1, 0, 2]  // 0: major 1, minor 2
        + card32(40) + card32(60) + card32(64) + card32(68) + card32(76)  // 4: aliases, parents, literals, suffix tree, globs
        + card32(80) + card32(80) + card32(80) + card32(80)  // 24: magic, namespaces, icons, generic icons (unread)
        + card32(2) + card32(84) + card32(95) + card32(114) + card32(95)  // 40: image/jpeg and image/png → application/x-both
        + card32(0)  // 60: no parents
        + card32(0)  // 64: no literals
        + card32(0) + card32(0)  // 68: a suffix tree without roots
        + card32(0)  // 76: no globs
        + card32(0)  // 80: empty list for the unread sections
        + Array("image/jpeg\0".utf8)  // 84
        + Array("application/x-both\0".utf8)  // 95
        + Array("image/png\0".utf8)  // 114

    /// A database directory made of `cache`, a `types` file, an old package file and, when given, the type's own file.
    private func database(_ cache: [UInt8], types: String, typeFile: (name: String, text: String)?) throws -> URL {
        let directory = try ScratchFolder.make("mime-cache")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("packages"), withIntermediateDirectories: true)
        let package = directory.appendingPathComponent("packages/x.xml")
        try Data("<mime-info/>".utf8).write(to: package)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: package.path)
        try Data(cache).write(to: directory.appendingPathComponent("mime.cache"))
        try Data(types.utf8).write(to: directory.appendingPathComponent("types"))
        if let typeFile {
            let url = directory.appendingPathComponent(typeFile.name + ".xml")
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(typeFile.text.utf8).write(to: url)
        }
        return directory
    }

    private func typeFile(_ aliases: [String]) -> (name: String, text: String) {
        (
            "application/x-both",
            """
            <?xml version="1.0" encoding="utf-8"?>
            <mime-type xmlns="http://www.freedesktop.org/standards/shared-mime-info" type="application/x-both">
            \(aliases.map { "  <alias type=\"\($0)\"/>" }.joined(separator: "\n"))
            </mime-type>
            """
        )
    }

    /// The XML's alias order decides which registered type an unregistered
    /// MIME type merges into; the cache sorts aliases, so the type's own file says.
    @Test(arguments: [(["image/jpeg", "image/png"], "public.jpeg"), (["image/png", "image/jpeg"], "public.png")])
    func twoRegisteredAliasesMergeIntoTheFirstTheTypesFileLists(aliases: [String], expected: String) throws {
        let directory = try database(Self.twoRegisteredAliases, types: "application/x-both\n", typeFile: typeFile(aliases))
        defer { try? FileManager.default.removeItem(at: directory) }
        var registry = TypeRegistry.system
        #expect(try registry.addSharedMimeInfoCache(directory: directory.path))
        #expect(registry.preferredType(forTag: "application/x-both", tagClass: .mimeType)?.identifier == expected)
        // The conformance graph merges alike: a later sub-class of
        // application/x-both conforms to the type it merged into.
        var graph = TypeConformanceGraph()
        graph.add(TypeDeclarationSet.system)
        #expect(try graph.addSharedMimeInfoCache(directory: directory.path))
        graph.add([MimeTypeDeclaration(mimeType: "text/x-child", parents: ["application/x-both"], source: DeclarationSource(file: nil))])
        let child = DynamicTypeIdentifier.make(tag: "text/x-child", tagClass: .mimeType)
        #expect(graph.parents(of: child) == [expected])
    }

    @Test func aMissingTypesFileForTwoRegisteredAliasesThrowsAndAddsNothing() throws {
        let directory = try database(Self.twoRegisteredAliases, types: "application/x-both\n", typeFile: nil)
        defer { try? FileManager.default.removeItem(at: directory) }
        var registry = TypeRegistry.system
        let count = registry.count
        let error = try #require(throws: UniformTypeError.self) { try registry.addSharedMimeInfoCache(directory: directory.path) }
        #expect(error.code == .io)
        #expect(error.path == FilePath(directory.path + "/application/x-both.xml"))
        #expect(registry.count == count)
        var graph = TypeConformanceGraph()
        graph.add(TypeDeclarationSet.system)
        #expect(throws: UniformTypeError.self) { try graph.addSharedMimeInfoCache(directory: directory.path) }
        #expect(graph.count == count)
    }

    @Test func aTypesFileListingOtherAliasesThrows() throws {
        let directory = try database(Self.twoRegisteredAliases, types: "application/x-both\n", typeFile: typeFile(["image/png"]))
        defer { try? FileManager.default.removeItem(at: directory) }
        var registry = TypeRegistry.system
        let error = try #require(throws: UniformTypeError.self) { try registry.addSharedMimeInfoCache(directory: directory.path) }
        #expect(error.code == .inconsistentMimeDatabase)
        #expect(error.path == FilePath(directory.path + "/application/x-both.xml"))
    }

    /// A cache of another major version in a database: the error names the cache file and byte 0.
    @Test func anotherMajorVersionNamesTheCacheFile() throws {
        var cache = Self.twoRegisteredAliases
        cache[1] = 2  // major version 2
        let directory = try database(cache, types: "application/x-both\n", typeFile: nil)
        defer { try? FileManager.default.removeItem(at: directory) }
        let error = try #require(throws: UniformTypeError.self) { try SharedMimeInfoCacheReader.read(directory: FilePath(directory.path)) }
        #expect(error.code == .malformedMimeCache)
        #expect(error.propertyListError?.code == .unrecognizedFormat)
        #expect(error.path == FilePath(directory.path + "/mime.cache"))
        #expect(error.location == .byteOffset(0))
        #expect(error.description == directory.path + "/mime.cache:byte 0: mime.cache major version 2 is not 1")
        var graph = TypeConformanceGraph()
        #expect(throws: error) { try graph.addSharedMimeInfoCache(directory: directory.path) }
    }

    @Test func aMissingCacheIsNotRead() throws {
        #expect(try SharedMimeInfoCacheReader.read(directory: FilePath("/nonexistent-\(UUID())")) == nil)
    }

    /// The machine's cache, written by update-mime-database from the
    /// packages XML, gives the XML's parents, aliases and glob extensions.
    @Test(.enabled(if: systemCacheExists, "needs /usr/share/mime (Debian shared-mime-info)"))
    func systemCacheMatchesThePackagesXML() throws {
        let xml = try SharedMimeInfoReader.read(contentsOf: Fixtures.freedesktopXML)
        let cached = try #require(try SharedMimeInfoCacheReader.read())
        let byType = Dictionary(cached.map { ($0.mimeType, $0) }, uniquingKeysWith: { first, _ in first })
        #expect(Set(cached.map(\.mimeType)) == Set(xml.map(\.mimeType)))
        for entry in xml {
            let fromCache = try #require(byType[entry.mimeType], "\(entry.mimeType)")
            #expect(fromCache.parents == entry.parents, "\(entry.mimeType)")
            #expect(Set(fromCache.aliases) == Set(entry.aliases), "\(entry.mimeType)")
            #expect(Set(fromCache.filenameExtensions) == Set(entry.filenameExtensions), "\(entry.mimeType)")
        }
    }

    /// A registry given the cache's declarations answers every conformance
    /// question as one given the XML's: same types, same supertypes.
    @Test(.enabled(if: systemCacheExists, "needs /usr/share/mime (Debian shared-mime-info)"))
    func registryFromTheCacheConformsAsTheOneFromTheXML() throws {
        var fromXML = TypeRegistry.builtIn
        fromXML.add(TypeDeclarationSet.ict)
        var fromCache = fromXML
        fromXML.add(try SharedMimeInfoReader.read(contentsOf: Fixtures.freedesktopXML))
        #expect(try fromCache.addSharedMimeInfoCache())
        #expect(Set(fromCache.declarations.map { $0.identifier.lowercased() }) == Set(fromXML.declarations.map { $0.identifier.lowercased() }))
        for declaration in fromXML.declarations {
            #expect(
                Set(fromCache.supertypes(of: declaration.identifier)) == Set(fromXML.supertypes(of: declaration.identifier)),
                "\(declaration.identifier)")
        }
    }
}
