import PropertyList
import SystemPackage
import SystemSupport

/// What the types of a `TypeRegistry` conform to, and nothing else: each
/// type's identifier, origin, parents and MIME types, made from the same
/// sources with the same precedence and the same shared-mime-info merge, so
/// `conforms(_:to:)` answers as the registry would.
///
/// For a process that asks one question and exits (`ict types conforms`):
/// the built-in types come from their type tables without making a
/// `TypeDeclaration` each (no descriptions, tags or key paths), names are
/// kept once each as numbers (so the merge hashes numbers, not strings), the
/// identifiers of the dynamic types shared-mime-info makes are spelled only
/// when asked for, and the shared-mime-info cache is read without its
/// globs, which only give filename extensions.
public struct TypeConformanceGraph: Sendable {
    /// Lower-cased identifiers and MIME types, each once.
    private var names = NameTable()
    /// For each name, the type registered under it, else -1.
    private var typeOfName: [Int32] = []
    /// For each MIME type's name, the dynamic type made for it, else -1.
    private var dynamicTypeOfName: [Int32] = []
    /// Each type's identifier as declared; empty for a dynamic type made
    /// for a MIME type, spelled from `dynamicTags` when asked for.
    private var identifiers: [String] = []
    /// For a dynamic type made for a MIME type, the MIME type's name, else -1.
    private var dynamicTags: [Int32] = []
    private var origins: [TypeOrigin] = []
    /// Each type's parents: a name (≥ 0), resolved when asked, or a type
    /// index `i` as `-(i + 1)`, for a dynamic type made for a MIME type.
    private var parents: [[Int32]] = []
    /// Each type's MIME types, as names.
    private var mimeTypes: [[Int32]] = []
    private var documentTypes: [DocumentTypeDeclaration] = []
    /// True once a declaration named a `dyn.` identifier itself.
    private var declaresDynamicIdentifiers = false

    /// An empty graph.
    public init() {}

    /// The graph of `TypeRegistry.builtIn`: ICTKit's system types, then its
    /// stand-ins for well-known apps' types.
    public static let builtIn: TypeConformanceGraph = {
        var graph = TypeConformanceGraph()
        graph.reserveCapacity(2048)  // The built-in types and a desktop's MIME types.
        graph.addTypeTable(TypeDeclarationSet.systemTypeTable, origin: .system)
        graph.addTypeTable(TypeDeclarationSet.wellKnownAppTypeTable, origin: .wellKnown)
        return graph
    }()

    /// The number of types.
    public var count: Int { origins.count }

    // MARK: - Adding

    /// Adds an Info.plist's declarations with the registry's precedence
    /// (`TypeRegistry.add(_:)`).
    public mutating func add(_ set: TypeDeclarationSet) {
        for declaration in set.exported + set.imported {
            register(
                declaration.identifier, origin: declaration.origin,
                parents: declaration.conformsTo.map { names.intern($0.lowercasedIfNeeded) },
                mimeTypes: (declaration.tags[.mimeType] ?? []).map { names.intern(TypeTagClass.mimeType.normalized($0)) })
        }
        documentTypes += set.documentTypes
    }

    /// Adds shared-mime-info types as `TypeRegistry.add(_:)` does.
    public mutating func add(_ mimeTypes: [MimeTypeDeclaration]) {
        var entries: [NamedMimeType] = []
        entries.reserveCapacity(mimeTypes.count)
        for entry in mimeTypes {
            entries.append(
                NamedMimeType(
                    mimeType: names.intern(entry.mimeType),
                    aliases: entry.aliases.map { names.intern($0) }, parents: entry.parents.map { names.intern($0) },
                    tags: (CollectionOfOne(entry.mimeType) + entry.aliases).map { names.intern(TypeTagClass.mimeType.normalized($0)) }))
        }
        mergeMimeTypes(entries)
    }

    /// Adds the types of a shared-mime-info `packages` directory as
    /// `TypeRegistry.addSharedMimeInfo(directory:)` does (the same files,
    /// read by the same code); returns the files read.
    @discardableResult
    public mutating func addSharedMimeInfo(directory: FilePath = SharedMimeInfoReader.systemPackagesDirectory)
        throws(UniformTypeError) -> [FilePath]
    {
        try addSharedMimeInfo(directory: RawFileName.text(directory)).map(RawFileName.filePath)
    }

    /// The text form of `addSharedMimeInfo(directory:)`, as the registry's.
    @discardableResult
    package mutating func addSharedMimeInfo(directory: String) throws(UniformTypeError) -> [String] {
        try addPackageFiles(directory: directory)
    }

    /// Adds the types of the shared-mime-info cache as
    /// `TypeRegistry.addSharedMimeInfoCache(directory:)` does, without
    /// reading its globs: false, adding nothing, when the cache is missing or
    /// stale; throws as the registry's method does, but for a damaged suffix
    /// tree, which is not read (nothing is added).
    public mutating func addSharedMimeInfoCache(directory: FilePath = SharedMimeInfoCacheReader.systemDirectory)
        throws(UniformTypeError) -> Bool
    {
        try addSharedMimeInfoCache(directory: RawFileName.text(directory))
    }

    /// The text form of `addSharedMimeInfoCache(directory:)`, as the registry's.
    package mutating func addSharedMimeInfoCache(directory: String) throws(UniformTypeError) -> Bool {
        guard let (cachePath, typesPath) = SharedMimeInfoCacheReader.freshFiles(directory: directory) else { return false }
        let cache = try mapFile(cachePath, readingAs: .malformedMimeCache)
        let types = try mapFile(typesPath, readingAs: .inconsistentMimeDatabase)
        var table = names  // Kept only when nothing throws.
        var entries = try withExtendedLifetime((cache, types)) { () throws(UniformTypeError) in
            do throws(PropertyListError) {
                return try Self.readEntries(cache: cache.bytes, types: types.bytes, names: &table)
            } catch {
                throw UniformTypeError(error, path: cachePath, as: .malformedMimeCache)
            }
        }
        let registered = bestTypeByMIMEType()
        for index in entries.indices
        where registered[entries[index].mimeType] == nil && entries[index].aliases.filter({ registered[$0] != nil }).count > 1 {
            let ordered = try SharedMimeInfoCacheReader.orderedAliases(
                ofType: table.text(of: entries[index].mimeType), entries[index].aliases.map(table.text(of:)), directory: directory)
            entries[index].aliases = ordered.map { table.intern($0) }
            entries[index].tags = [entries[index].mimeType] + entries[index].aliases
        }
        names = table
        mergeMimeTypes(entries)
        return true
    }

    /// Adds the types of a mime.cache's bytes and, when given, its `types`
    /// file's, as `TypeRegistry.add(_:)` adds what
    /// `SharedMimeInfoCacheReader.read(_:file:)` reads from the same bytes,
    /// but for the types only the globs name, and with aliases in the
    /// cache's order (`addSharedMimeInfoCache(directory:)` reads the XML
    /// where that order decides a merge).
    ///
    /// - Throws: `UniformTypeError` `.malformedMimeCache` at the byte
    ///   concerned, as the reader does; nothing is added.
    public mutating func addSharedMimeInfoCache(_ cache: UnsafeRawBufferPointer, types: UnsafeRawBufferPointer?) throws(UniformTypeError) {
        var table = names
        let entries: [NamedMimeType]
        do {
            entries = try Self.readEntries(cache: cache, types: types ?? UnsafeRawBufferPointer(start: nil, count: 0), names: &table)
        } catch {
            throw UniformTypeError(error, path: nil, as: .malformedMimeCache)
        }
        names = table
        mergeMimeTypes(entries)
    }

    /// The entries `SharedMimeInfoCacheReader.read(directory:)` reads, in its
    /// order, without globs, their names interned in `names`: the types the
    /// cache names as aliases' targets or parents, with their aliases and
    /// parents, then those only the `types` file lists.
    private static func readEntries(cache bytes: UnsafeRawBufferPointer, types: UnsafeRawBufferPointer, names: inout NameTable)
        throws(PropertyListError) -> [NamedMimeType]
    {
        let cache = try MimeCache(bytes)
        var entries: [NamedMimeType] = []
        entries.reserveCapacity(1024)  // A desktop's database has about 900 types.
        var entryOfName: [Int32] = []  // By name: the entry's index + 1, or 0.
        entryOfName.reserveCapacity(4096)
        func entry(named name: Int32) -> Int {
            if Int(name) < entryOfName.count, entryOfName[Int(name)] > 0 { return Int(entryOfName[Int(name)]) - 1 }
            entries.append(NamedMimeType(mimeType: name, aliases: [], parents: [], tags: [name]))
            if Int(name) >= entryOfName.count { entryOfName += repeatElement(0, count: max(Int(name) + 1, names.count) - entryOfName.count) }
            entryOfName[Int(name)] = Int32(entries.count)
            return entries.count - 1
        }
        func name(at offset: Int) throws(PropertyListError) -> Int32 { names.intern(lowercasing: try cache.stringBytes(at: offset)) }
        for (aliasOffset, typeOffset) in try cache.offsetPairs(listAt: MimeCache.aliasListField) {
            let alias = try name(at: aliasOffset)
            let type = entry(named: try name(at: typeOffset))
            entries[type].aliases.append(alias)
            entries[type].tags.append(alias)
        }
        for (typeOffset, parentsOffset) in try cache.offsetPairs(listAt: MimeCache.parentListField) {
            let type = entry(named: try name(at: typeOffset))
            for parentOffset in try cache.offsets(listAt: parentsOffset) {
                let parent = try name(at: parentOffset)
                _ = entry(named: parent)
                entries[type].parents.append(parent)
            }
        }
        SharedMimeInfoCacheReader.forEachLine(of: types) { line in
            let type = names.intern(lowercasing: line)
            if Int(type) >= entryOfName.count || entryOfName[Int(type)] == 0 {
                entries.append(NamedMimeType(mimeType: type, aliases: [], parents: [], tags: [type]))
            }
        }
        return entries
    }

    // MARK: - Queries

    /// True when the type `identifier` names conforms to `ancestor`,
    /// directly, transitively or by being it, as
    /// `TypeRegistry.conforms(_:to:)` answers for the same sources.
    public func conforms(_ identifier: String, to ancestor: String) -> Bool {
        let key = identifier.lowercasedIfNeeded
        if key == ancestor.lowercasedIfNeeded { return true }
        if let found = type(ofIdentifier: key) {
            guard let target = type(ofIdentifier: ancestor.lowercasedIfNeeded) else { return false }
            return reaches(found, target)
        }
        guard let parent = unregisteredDynamicTypeParent(identifier) else { return false }
        return conforms(parent, to: ancestor)
    }

    /// The registered types `identifier` directly conforms to, in
    /// declaration order, as `TypeRegistry.parents(of:)` gives them.
    public func parents(of identifier: String) -> [String] {
        if let found = type(ofIdentifier: identifier.lowercasedIfNeeded) {
            return parentTypes(of: found).map(self.identifier(of:))
        }
        return unregisteredDynamicTypeParent(identifier).map { [$0] } ?? []
    }

    /// The identifiers of every type, in registration order.
    public var allIdentifiers: [String] { (0..<Int32(count)).map(identifier(of:)) }

    // MARK: - Private

    /// The parent of the dynamic type for an unregistered dynamic identifier, else nil.
    private func unregisteredDynamicTypeParent(_ identifier: String) -> String? {
        guard let (tagClass, tag) = DynamicTypeIdentifier.decode(identifier) else { return nil }
        return TypeRegistry.dynamicTypeParent(tag: tag, tagClass: tagClass, documentTypes: documentTypes)
    }

    /// The identifier of the type at `type`, as declared or as made.
    private func identifier(of type: Int32) -> String {
        let tag = dynamicTags[Int(type)]
        if tag >= 0 { return DynamicTypeIdentifier.make(tag: names.text(of: tag), tagClass: .mimeType) }
        return identifiers[Int(type)]
    }

    /// The type registered under the name `name`: declared under it, or a
    /// dynamic type made for a MIME type whose identifier it spells.
    private func type(ofName name: Int32) -> Int32? {
        if Int(name) < typeOfName.count, typeOfName[Int(name)] >= 0 { return typeOfName[Int(name)] }
        guard !dynamicTypeOfName.isEmpty, names.hasDynamicPrefix(name) else { return nil }
        return madeDynamicType(spelledBy: names.text(of: name))
    }

    /// The type registered under `key`, a lower-cased identifier.
    private func type(ofIdentifier key: String) -> Int32? {
        if let name = names.find(key) { return type(ofName: name) }
        return madeDynamicType(spelledBy: key)
    }

    /// The dynamic type made for a MIME type whose identifier is `key`.
    private func madeDynamicType(spelledBy key: String) -> Int32? {
        guard key.hasPrefix(DynamicTypeIdentifier.prefix), let (tagClass, tag) = DynamicTypeIdentifier.decode(key),
            tagClass == .mimeType, let name = names.find(TypeTagClass.mimeType.normalized(tag)),
            Int(name) < dynamicTypeOfName.count, dynamicTypeOfName[Int(name)] >= 0,
            DynamicTypeIdentifier.make(tag: tag, tagClass: tagClass) == key
        else { return nil }
        return dynamicTypeOfName[Int(name)]
    }

    /// Reads a built-in type table's identifiers, parents and MIME types.
    private mutating func addTypeTable(_ table: String, origin: TypeOrigin) {
        var table = table
        table.withUTF8 { bytes in
            var identifier: (text: String, name: Int32)?
            var typeParents: [Int32] = []
            var typeMIMETypes: [Int32] = []
            var inMIMETypes = false
            func finish() {
                if let identifier { register(identifier.text, name: identifier.name, origin: origin, parents: typeParents, mimeTypes: typeMIMETypes) }
                (typeParents, typeMIMETypes, inMIMETypes) = ([], [], false)
            }
            TypeTableReader(bytes: bytes).forEachLine { kind, field in
                switch kind {
                case UInt8(ascii: "I"):
                    finish()
                    identifier = (String(decoding: field, as: UTF8.self), names.intern(lowercasing: field))
                case UInt8(ascii: "C"): typeParents.append(names.intern(lowercasing: field))
                case UInt8(ascii: "K"): inMIMETypes = field.elementsEqual(TypeTagClass.mimeType.rawValue.utf8)
                case UInt8(ascii: "T") where inMIMETypes: typeMIMETypes.append(names.intern(lowercasing: field))
                default: break
                }
            }
            finish()
        }
    }

    private mutating func reserveCapacity(_ types: Int) {
        identifiers.reserveCapacity(types)
        dynamicTags.reserveCapacity(types)
        origins.reserveCapacity(types)
        parents.reserveCapacity(types)
        mimeTypes.reserveCapacity(types)
        typeOfName.reserveCapacity(types * 2)
    }

    /// Registers a type under `TypeRegistry`'s precedence rules.
    private mutating func register(_ identifier: String, origin: TypeOrigin, parents typeParents: [Int32], mimeTypes typeMIMETypes: [Int32]) {
        register(identifier, name: names.intern(identifier.lowercasedIfNeeded), origin: origin, parents: typeParents, mimeTypes: typeMIMETypes)
    }

    /// `register(_:origin:parents:mimeTypes:)` with the identifier's name, its lower-cased form, interned.
    private mutating func register(
        _ identifier: String, name: Int32, origin: TypeOrigin, parents typeParents: [Int32], mimeTypes typeMIMETypes: [Int32]
    ) {
        if let existing = type(ofName: name) {
            let index = Int(existing)
            if origin.replaces(origins[index]) {
                (identifiers[index], dynamicTags[index], origins[index]) = (identifier, -1, origin)
                (parents[index], mimeTypes[index]) = (typeParents, typeMIMETypes)
            }
            return
        }
        if names.hasDynamicPrefix(name) { declaresDynamicIdentifiers = true }
        let index = appendType(identifier: identifier, dynamicTag: -1, origin: origin, parents: typeParents, mimeTypes: typeMIMETypes)
        Self.setEntry(&typeOfName, at: name, to: index, nameCount: names.count)
    }

    private mutating func appendType(identifier: String, dynamicTag: Int32, origin: TypeOrigin, parents typeParents: [Int32], mimeTypes typeMIMETypes: [Int32])
        -> Int32
    {
        identifiers.append(identifier)
        dynamicTags.append(dynamicTag)
        origins.append(origin)
        parents.append(typeParents)
        mimeTypes.append(typeMIMETypes)
        return Int32(origins.count - 1)
    }

    /// Sets `table[name]`, growing the table with -1 to cover every name.
    private static func setEntry(_ table: inout [Int32], at name: Int32, to type: Int32, nameCount: Int) {
        if Int(name) >= table.count { table += repeatElement(-1, count: max(Int(name) + 1, nameCount) - table.count) }
        table[Int(name)] = type
    }

    /// The registered types the type at `type` directly conforms to, in order.
    private func parentTypes(of type: Int32) -> [Int32] {
        parents[Int(type)].compactMap { $0 < 0 ? -($0 + 1) : self.type(ofName: $0) }
    }

    /// True when `ancestor` is `type` or reachable through parents.
    private func reaches(_ type: Int32, _ ancestor: Int32) -> Bool {
        if type == ancestor { return true }
        var visited = [Bool](repeating: false, count: count)
        visited[Int(type)] = true
        var stack = parentTypes(of: type)
        while let next = stack.popLast() {
            if next == ancestor { return true }
            if !visited[Int(next)] {
                visited[Int(next)] = true
                stack += parentTypes(of: next)
            }
        }
        return false
    }
}

/// A shared-mime-info entry with its names interned.
struct NamedMimeType {
    var mimeType: Int32
    var aliases: [Int32]
    var parents: [Int32]
    /// The MIME type and the aliases, normalized: the tags a type gains.
    var tags: [Int32]
}

extension TypeConformanceGraph: MimeTypeMergeTarget {
    var typeCount: Int { count }
    func origin(of type: Int32) -> TypeOrigin { origins[Int(type)] }
    func mimeTypeNames(of type: Int32) -> [Int32] { mimeTypes[Int(type)] }
    func mimeTypeName(of entry: NamedMimeType) -> Int32 { entry.mimeType }
    func mimeTypeText(of entry: NamedMimeType) -> String { names.text(of: entry.mimeType) }
    func aliasNames(of entry: NamedMimeType) -> [Int32] { entry.aliases }
    func parentNames(of entry: NamedMimeType) -> [Int32] { entry.parents }

    func existingDynamicType(for entry: NamedMimeType) -> Int32? {
        if Int(entry.mimeType) < dynamicTypeOfName.count, dynamicTypeOfName[Int(entry.mimeType)] >= 0 {
            return dynamicTypeOfName[Int(entry.mimeType)]
        }
        // Only a declaration can have registered the identifier otherwise.
        guard declaresDynamicIdentifiers,
            let name = names.find(DynamicTypeIdentifier.make(tag: names.text(of: entry.mimeType), tagClass: .mimeType)),
            Int(name) < typeOfName.count, typeOfName[Int(name)] >= 0
        else { return nil }
        return typeOfName[Int(name)]
    }

    mutating func registerDynamicType(for entry: NamedMimeType) -> Int32 {
        let index = appendType(identifier: "", dynamicTag: entry.mimeType, origin: .dynamic, parents: [], mimeTypes: [])
        Self.setEntry(&dynamicTypeOfName, at: entry.mimeType, to: index, nameCount: names.count)
        return index
    }

    mutating func appendTags(of entry: NamedMimeType, to type: Int32) {
        for name in entry.tags where !mimeTypes[Int(type)].contains(name) {
            mimeTypes[Int(type)].append(name)
        }
    }

    mutating func appendParentType(_ parent: Int32, to type: Int32) {
        if parentTypes(of: type).contains(parent) { return }
        if dynamicTags[Int(parent)] >= 0 {
            parents[Int(type)].append(-(parent + 1))
        } else {
            parents[Int(type)].append(names.intern(identifiers[Int(parent)].lowercasedIfNeeded))
        }
    }

    func hasNoParents(_ type: Int32) -> Bool { parents[Int(type)].isEmpty }

    mutating func appendParent(_ identifier: String, to type: Int32) {
        parents[Int(type)].append(names.intern(identifier.lowercasedIfNeeded))
    }
}

/// Strings kept once each, numbered from 0 in order of arrival, and found
/// again by hash (the standard library's seeded hasher, so crafted names
/// cannot make lookups slow).
private struct NameTable: Sendable {
    private var bytes: [UInt8] = []
    /// Where each name starts in `bytes`; one more entry than names.
    private var starts: [Int32] = [0]
    /// Open addressing: a name's number + 1, or 0 for an empty slot.
    /// Room for the ~3,000 names of the built-in types and a desktop's database without growing.
    private var slots = [Int32](repeating: 0, count: 8192)

    /// The number of names.
    var count: Int { starts.count - 1 }

    /// An empty table with room for the built-in types' and a desktop
    /// database's names (about 3,000, 60 KB), so that it does not grow by
    /// copying: each new page a process touches costs a page fault, about
    /// 2 µs here, more than interning a name.
    init() {
        bytes.reserveCapacity(64 * 1024)
        starts.reserveCapacity(4096)
    }

    /// The number of `text`, added if new.
    mutating func intern(_ text: String) -> Int32 {
        var text = text
        return text.withUTF8 { intern(bytes: $0) }
    }

    /// The number of `field` lower-cased as `lowercasedIfNeeded` lowers it.
    mutating func intern(lowercasing field: UnsafeBufferPointer<UInt8>) -> Int32 {
        if field.contains(where: { $0 >= 0x80 || (0x41...0x5A).contains($0) }) {
            return intern(String(decoding: field, as: UTF8.self).lowercased())
        }
        return intern(bytes: field)
    }

    /// `intern(lowercasing:)` of raw bytes.
    mutating func intern(lowercasing field: UnsafeRawBufferPointer) -> Int32 {
        intern(lowercasing: field.assumingMemoryBound(to: UInt8.self))
    }

    /// The number of `text`, if it has one.
    func find(_ text: String) -> Int32? {
        var text = text
        return text.withUTF8 { key in
            let (slot, found) = probe(key)
            return found ? slots[slot] - 1 : nil
        }
    }

    /// True when the name numbered `name` starts with `DynamicTypeIdentifier.prefix`.
    func hasDynamicPrefix(_ name: Int32) -> Bool {
        bytes[Int(starts[Int(name)])..<Int(starts[Int(name) + 1])].starts(with: DynamicTypeIdentifier.prefix.utf8)
    }

    /// The name numbered `name`.
    func text(of name: Int32) -> String {
        bytes.withUnsafeBufferPointer {
            String(decoding: UnsafeBufferPointer(rebasing: $0[Int(starts[Int(name)])..<Int(starts[Int(name) + 1])]), as: UTF8.self)
        }
    }

    private mutating func intern(bytes key: UnsafeBufferPointer<UInt8>) -> Int32 {
        let (slot, found) = probe(key)
        if found { return slots[slot] - 1 }
        let name = Int32(count)
        bytes.append(contentsOf: key)
        starts.append(Int32(bytes.count))
        slots[slot] = name + 1
        if count * 2 > slots.count { grow() }
        return name
    }

    /// The slot holding `key`, or the empty slot where it would go.
    private func probe(_ key: UnsafeBufferPointer<UInt8>) -> (slot: Int, found: Bool) {
        let mask = slots.count - 1
        var slot = Self.hash(key) & mask
        return bytes.withUnsafeBufferPointer { stored in
            while true {
                let entry = Int(slots[slot])
                if entry == 0 { return (slot, false) }
                let start = Int(starts[entry - 1])
                if Int(starts[entry]) - start == key.count
                    && (key.isEmpty || MemoryBytes.equal(stored.baseAddress! + start, key.baseAddress!, count: key.count))
                {
                    return (slot, true)
                }
                slot = (slot + 1) & mask
            }
        }
    }

    private static func hash(_ key: UnsafeBufferPointer<UInt8>) -> Int {
        var hasher = Hasher()
        hasher.combine(bytes: UnsafeRawBufferPointer(key))
        return hasher.finalize()
    }

    private mutating func grow() {
        slots = [Int32](repeating: 0, count: slots.count * 2)
        let mask = slots.count - 1
        bytes.withUnsafeBufferPointer { stored in
            for name in 0..<count {
                let range = Int(starts[name])..<Int(starts[name + 1])
                var slot = Self.hash(UnsafeBufferPointer(rebasing: stored[range])) & mask
                while slots[slot] != 0 { slot = (slot + 1) & mask }
                slots[slot] = Int32(name + 1)
            }
        }
    }
}
