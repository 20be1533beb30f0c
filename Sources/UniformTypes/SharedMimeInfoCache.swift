import PropertyList
import SystemPackage
import SystemSupport

// Reading freedesktop shared-mime-info's binary cache, `mime.cache`, which
// `update-mime-database` writes from the same `packages/*.xml` that
// `SharedMimeInfoReader` reads: big-endian CARD16/CARD32 fields and
// NUL-terminated strings at offsets from the start of the file (the layout
// is in the Shared MIME-info Database specification, "The cache format").
// It holds the aliases, parents and globs of the types, not their comments;
// the database's `types` file lists every type, also those the cache names
// nowhere (a type with only a comment, say).
//
// The bytes are hostile: every offset and count is checked before use, a
// string must end with a NUL inside the file, and the reverse suffix tree
// (which a corrupt file can make cyclic) is walked with a depth and a node
// limit.

/// Reads shared-mime-info's binary cache, `mime.cache`, into the same
/// declarations `SharedMimeInfoReader` gives for the XML, without comments.
public enum SharedMimeInfoCacheReader {
    /// The directory Debian's `shared-mime-info` writes `mime.cache` and `types` in.
    public static let systemDirectory: FilePath = "/usr/share/mime"
    /// `systemDirectory` as text, for the kit's own callers.
    package static let systemDirectoryText = "/usr/share/mime"

    /// The longest glob the reverse suffix tree may spell; deeper is an error (a cycle, in practice).
    public static let maximumGlobLength = 255

    /// The types the cache at `bytes` names — as aliases' targets, parents or
    /// globs' types — with their aliases, parents and globs (the suffix tree's
    /// `*suffix` globs, then the literal names and the other globs), in the
    /// order the cache first names them. Names are lower-cased, as
    /// `SharedMimeInfoReader` does.
    ///
    /// - Throws: `UniformTypeError` `.malformedMimeCache` naming `file`, at
    ///   the byte concerned, with `propertyListError` saying how:
    ///   `.unrecognizedFormat` for another major version, `.truncated` for an
    ///   offset or count that reaches past the end, `.invalidString` for a
    ///   string without a NUL, `.cycle` for a suffix tree deeper than
    ///   `maximumGlobLength` or with more nodes than the file can hold.
    public static func read(_ bytes: UnsafeRawBufferPointer, file: FilePath?) throws(UniformTypeError) -> [MimeTypeDeclaration] {
        try read(bytes, file: file.map(RawFileName.text), includingGlobs: true)
    }

    /// `read(_:file:)`, leaving out the globs when `includingGlobs` is false:
    /// a type then named only by a glob is not among the result.
    static func read(_ bytes: UnsafeRawBufferPointer, file: String?, includingGlobs: Bool) throws(UniformTypeError) -> [MimeTypeDeclaration] {
        do {
            return try readEntries(bytes, file: file, includingGlobs: includingGlobs).entries
        } catch {
            throw UniformTypeError(error, path: file, as: .malformedMimeCache)
        }
    }

    /// The entries of `read(_:file:includingGlobs:)` and each one's index by MIME type.
    private static func readEntries(_ bytes: UnsafeRawBufferPointer, file: String?, includingGlobs: Bool) throws(PropertyListError) -> (
        entries: [MimeTypeDeclaration], byName: [String: Int]
    ) {
        let cache = try MimeCache(bytes)
        var entries: [MimeTypeDeclaration] = []
        var entryByName: [String: Int] = [:]
        var entryByOffset: [Int: Int] = [:]  // Most types are named at one offset throughout.
        func entry(typeAt offset: Int) throws(PropertyListError) -> Int {
            if let known = entryByOffset[offset] { return known }
            let name = try cache.string(at: offset).lowercasedIfNeeded
            let index =
                entryByName[name]
                ?? {
                    entries.append(MimeTypeDeclaration(mimeType: name, source: DeclarationSource(fileText: file)))
                    entryByName[name] = entries.count - 1
                    return entries.count - 1
                }()
            entryByOffset[offset] = index
            return index
        }
        for (aliasOffset, typeOffset) in try cache.offsetPairs(listAt: MimeCache.aliasListField) {
            let alias = try cache.string(at: aliasOffset).lowercasedIfNeeded
            let type = try entry(typeAt: typeOffset)
            entries[type].aliases.append(alias)
        }
        for (typeOffset, parentsOffset) in try cache.offsetPairs(listAt: MimeCache.parentListField) {
            let type = try entry(typeAt: typeOffset)
            for parentOffset in try cache.offsets(listAt: parentsOffset) {
                let parent = try entry(typeAt: parentOffset)
                entries[type].parents.append(entries[parent].mimeType)
            }
        }
        guard includingGlobs else { return (entries, entryByName) }
        var globs = try cache.suffixGlobs()
        for (patternOffset, typeOffset) in try cache.offsetPairs(listAt: MimeCache.literalListField, entrySize: 12)
            + cache.offsetPairs(listAt: MimeCache.globListField, entrySize: 12)
        {
            globs.append((try cache.string(at: patternOffset), typeOffset))
        }
        for (glob, typeOffset) in globs {
            let type = try entry(typeAt: typeOffset)
            if !entries[type].globs.contains(glob) { entries[type].globs.append(glob) }
        }
        return (entries, entryByName)
    }

    /// The declarations of the database in `directory`: those of its
    /// `mime.cache`, then an empty one for each type its `types` file lists
    /// that the cache does not name. Nil when the cache or the `types` file
    /// is missing or older than a file in `directory/packages`, whose
    /// declarations it would then not hold.
    ///
    /// Costs a `stat` of each package file and reading two small files.
    ///
    /// - Throws: `UniformTypeError` as `read(_:file:)`, or `.io` when a
    ///   file cannot be read.
    public static func read(directory: FilePath = systemDirectory) throws(UniformTypeError) -> [MimeTypeDeclaration]? {
        try read(directory: RawFileName.text(directory), includingGlobs: true)
    }

    /// `read(directory:)`, leaving out the globs (so the filename extensions)
    /// when `includingGlobs` is false: the same types, aliases and parents,
    /// those named only by a glob coming from the `types` file, without
    /// walking the suffix tree.
    static func read(directory: String, includingGlobs: Bool) throws(UniformTypeError) -> [MimeTypeDeclaration]? {
        guard let (cachePath, typesPath) = freshFiles(directory: directory) else { return nil }
        let cache = try mapFile(cachePath, readingAs: .malformedMimeCache)
        let read = try withExtendedLifetime(cache) { () throws(UniformTypeError) in
            do throws(PropertyListError) {
                return try readEntries(cache.bytes, file: cachePath, includingGlobs: includingGlobs)
            } catch {
                throw UniformTypeError(error, path: cachePath, as: .malformedMimeCache)
            }
        }
        var entries = read.entries
        let named = read.byName
        let types = try mapFile(typesPath, readingAs: .inconsistentMimeDatabase)
        withExtendedLifetime(types) {
            forEachLine(of: types.bytes) { line in
                let type = String(decoding: line, as: UTF8.self).lowercasedIfNeeded
                if named[type] == nil { entries.append(MimeTypeDeclaration(mimeType: type, source: DeclarationSource(fileText: typesPath))) }
            }
        }
        return entries
    }

    /// The paths of the cache and the `types` file of the database in
    /// `directory`, or nil when either is missing or older than a file in
    /// `directory/packages`.
    static func freshFiles(directory: String) -> (cache: String, types: String)? {
        let cachePath = directory + "/mime.cache"
        let typesPath = directory + "/types"
        let packages = directory + "/packages"
        guard let cacheTime = FileSystem.modificationTime(ofFile: cachePath),
            let typesTime = FileSystem.modificationTime(ofFile: typesPath)
        else { return nil }
        for name in FileSystem.entries(of: packages) where name.hasSuffix(".xml") {
            guard let packageTime = FileSystem.modificationTime(ofFile: packages + "/" + name),
                packageTime <= cacheTime, packageTime <= typesTime
            else { return nil }
        }
        return (cachePath, typesPath)
    }

    /// Calls `body` with each non-empty line of a `types` file's bytes.
    static func forEachLine(of bytes: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> Void) {
        var start = 0
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            if end > start { body(UnsafeRawBufferPointer(rebasing: bytes[start..<end])) }
            start = end + 1
        }
    }

    /// `aliases`, the aliases mime.cache lists for the type `name`, in the
    /// order of the type's own XML file, `directory/MEDIA/SUBTYPE.xml`.
    ///
    /// - Throws: `UniformTypeError` `.inconsistentMimeDatabase` when `name` is
    ///   not MEDIA/SUBTYPE or the file lists other aliases, or as
    ///   `SharedMimeInfoReader.read(contentsOf:)` when it cannot be read.
    static func orderedAliases(ofType name: String, _ aliases: [String], directory: String) throws(UniformTypeError) -> [String] {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)  // A MIME type, not a path.
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." }) else {
            throw UniformTypeError(
                .inconsistentMimeDatabase, pathText: directory + "/mime.cache", "the MIME type \(name) in \(directory)/mime.cache is not MEDIA/SUBTYPE")
        }
        let path = directory + "/" + name + ".xml"
        let file = try SharedMimeInfoReader.read(contentsOf: path)
        guard let ordered = file.first?.aliases, Set(ordered) == Set(aliases) else {
            throw UniformTypeError(.inconsistentMimeDatabase, pathText: path, "\(directory)/\(name).xml does not list the aliases mime.cache lists")
        }
        return ordered
    }

    /// Puts the aliases of each entry of `entries` in the order of the
    /// type's own XML file, `directory/MEDIA/SUBTYPE.xml`, where the order
    /// decides what the entry merges into: its own MIME type is not in
    /// `registered` and more than one of its aliases is (the cache lists
    /// aliases by name).
    ///
    /// - Throws: `UniformTypeError` when such a file cannot be read, or
    ///   lists other aliases than the cache.
    static func orderAliases(
        of entries: inout [MimeTypeDeclaration], registered: (String) -> Bool, directory: String
    ) throws(UniformTypeError) {
        for index in entries.indices
        where !registered(entries[index].mimeType) && entries[index].aliases.filter(registered).count > 1 {
            entries[index].aliases = try orderedAliases(ofType: entries[index].mimeType, entries[index].aliases, directory: directory)
        }
    }
}

/// A checked view of a mime.cache: the header is read on creation, and
/// every later read checks its offset.
struct MimeCache {
    let bytes: UnsafeRawBufferPointer

    /// The header's byte offsets of the list offsets used.
    static let aliasListField = 4
    static let parentListField = 8
    static let literalListField = 12
    static let suffixTreeField = 16
    static let globListField = 20
    /// The header's size: two CARD16 versions and nine CARD32 offsets.
    static let headerSize = 40

    init(_ bytes: UnsafeRawBufferPointer) throws(PropertyListError) {
        self.bytes = bytes
        guard bytes.count >= Self.headerSize else {
            throw PropertyListError(
                .truncated, at: .byteOffset(bytes.count),
                "a mime.cache header is \(Self.headerSize) bytes; the file has \(bytes.count)")
        }
        let major = Int(bytes[0]) << 8 | Int(bytes[1])
        guard major == 1 else {
            throw PropertyListError(.unrecognizedFormat, at: .byteOffset(0), "mime.cache major version \(major) is not 1")
        }
    }

    /// The CARD32 at `offset`; `.truncated` when its four bytes are not all in the file.
    func card32(at offset: Int) throws(PropertyListError) -> Int {
        guard offset >= 0, offset <= bytes.count - 4 else {
            throw PropertyListError(.truncated, at: .byteOffset(offset), "a 4-byte field at byte \(offset) runs past the end (\(bytes.count) bytes)")
        }
        // In bounds: checked above.
        return Int(bytes[offset]) << 24 | Int(bytes[offset &+ 1]) << 16 | Int(bytes[offset &+ 2]) << 8 | Int(bytes[offset &+ 3])
    }

    /// The NUL-terminated string at `offset`.
    func string(at offset: Int) throws(PropertyListError) -> String {
        String(decoding: try stringBytes(at: offset), as: UTF8.self)
    }

    /// The bytes of the NUL-terminated string at `offset`, without the NUL.
    func stringBytes(at offset: Int) throws(PropertyListError) -> UnsafeRawBufferPointer {
        guard offset >= 0, offset < bytes.count else {
            throw PropertyListError(.truncated, at: .byteOffset(offset), "a string offset \(offset) is past the end (\(bytes.count) bytes)")
        }
        guard let end = bytes[offset...].firstIndex(of: 0) else {
            throw PropertyListError(.invalidString, at: .byteOffset(offset), "the string at byte \(offset) has no NUL before the end")
        }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<end])
    }

    /// The first entry's offset and the count of the CARD32-counted list of
    /// `entrySize`-byte entries at `offset`, checked to lie inside the file.
    private func list(at offset: Int, entrySize: Int) throws(PropertyListError) -> (first: Int, count: Int) {
        let count = try card32(at: offset)
        // A CARD32 count times a small entry size cannot overflow Int.
        guard count * entrySize <= bytes.count - offset - 4 else {
            throw PropertyListError(
                .truncated, at: .byteOffset(offset),
                "the list at byte \(offset) of \(count) entries of \(entrySize) bytes runs past the end (\(bytes.count) bytes)")
        }
        return (offset + 4, count)
    }

    /// The first two CARD32s of each entry of the list whose offset is in
    /// header field `field`: (alias, type), (type, parents), (pattern, type).
    func offsetPairs(listAt field: Int, entrySize: Int = 8) throws(PropertyListError) -> [(Int, Int)] {
        let (first, count) = try list(at: card32(at: field), entrySize: entrySize)
        var result: [(Int, Int)] = []
        result.reserveCapacity(count)  // Checked above to fit in the file.
        for index in 0..<count {
            let entry = first + index * entrySize
            result.append((try card32(at: entry), try card32(at: entry + 4)))
        }
        return result
    }

    /// The offsets of a CARD32-counted list of CARD32 offsets at `offset` (a type's parents).
    func offsets(listAt offset: Int) throws(PropertyListError) -> [Int] {
        let (first, count) = try list(at: offset, entrySize: 4)
        var result: [Int] = []
        result.reserveCapacity(count)
        for index in 0..<count { result.append(try card32(at: first + index * 4)) }
        return result
    }

    /// The `*suffix` globs of the reverse suffix tree, with their types' offsets, in tree order.
    ///
    /// A node is (character, child count, first child's offset); a leaf is
    /// (0, type's offset, weight and flags). The path from a root to a leaf
    /// spells the suffix backwards.
    func suffixGlobs() throws(PropertyListError) -> [(String, Int)] {
        let tree = try card32(at: Self.suffixTreeField)
        let (rootCount, firstRoot) = (try card32(at: tree), try card32(at: tree + 4))
        var result: [(String, Int)] = []
        var nodeBudget = bytes.count / 12  // A tree has at most one node per 12 bytes; more visits mean a cycle.
        var reversed: [Unicode.Scalar] = []
        func walk(first: Int, count: Int) throws(PropertyListError) {
            guard count <= (bytes.count - min(first, bytes.count)) / 12 else {
                throw PropertyListError(.truncated, at: .byteOffset(first), "\(count) suffix tree nodes at byte \(first) run past the end")
            }
            for index in 0..<count {
                let node = first + index * 12
                nodeBudget -= 1
                guard nodeBudget >= 0, reversed.count <= SharedMimeInfoCacheReader.maximumGlobLength else {
                    throw PropertyListError(.cycle, at: .byteOffset(node), "the suffix tree at byte \(node) is deeper or larger than the file can hold")
                }
                let character = try card32(at: node)
                if character == 0 {
                    // Encoded as UTF-8 bytes: appending scalars to a String's view costs five times as much.
                    var glob: [UInt8] = [UInt8(ascii: "*")]
                    for scalar in reversed.reversed() { glob.append(contentsOf: UTF8.encode(scalar)!) }  // Every scalar encodes.
                    result.append((String(decoding: glob, as: UTF8.self), try card32(at: node + 4)))
                    continue
                }
                guard let scalar = Unicode.Scalar(UInt32(character)) else {
                    throw PropertyListError(.invalidString, at: .byteOffset(node), "the suffix tree node at byte \(node) holds \(character), not a character")
                }
                reversed.append(scalar)
                try walk(first: card32(at: node + 8), count: card32(at: node + 4))
                reversed.removeLast()
            }
        }
        try walk(first: firstRoot, count: rootCount)
        return result
    }
}
