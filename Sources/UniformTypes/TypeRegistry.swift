import OrderedCollections
import PropertyList
import SystemPackage
import SystemSupport

/// A registry of uniform types: declarations from ICTKit's system types,
/// apps' Info.plists and freedesktop shared-mime-info, answering which type
/// a tag names and what a type conforms to.
///
/// Precedence is Apple's: a system declaration is never replaced by an app's;
/// an exported declaration replaces an imported one of the same identifier
/// (and ICTKit's well-known-app stand-in);
/// a later import never replaces an earlier declaration; the first of two
/// exports stays. Identifiers compare without regard to case.
///
/// Adding declarations registers them only; the tag index and the
/// conformance bit matrix are made on first use (by a tag lookup, and by
/// `conforms(_:to:)` on indexes or `supertypes(of:)`), after which
/// `conforms(_:to:)` on indexes costs one memory load. `conforms(_:to:)` on
/// identifiers walks the parents instead, so one question about a few types
/// builds neither.
public struct TypeRegistry: Sendable {
    /// A registered type's position in the registry; valid for the registry
    /// that gave it, across later additions.
    public struct TypeIndex: Hashable, Sendable, Comparable {
        /// The position in `declarations`.
        public let rawValue: Int

        init(_ rawValue: Int) { self.rawValue = rawValue }

        public static func < (lhs: TypeIndex, rhs: TypeIndex) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// Every registered type's winning declaration, in registration order.
    public private(set) var declarations: [TypeDeclaration] = []
    /// Every `CFBundleDocumentTypes` entry added, in order.
    public private(set) var documentTypes: [DocumentTypeDeclaration] = []
    /// Declarations that lost to an earlier or stronger one of the same identifier.
    public private(set) var ignoredDeclarations: [TypeDeclaration] = []

    private var indexByIdentifier: [String: Int32] = [:]
    /// Made from `declarations` on first use; replaced on every change.
    private var derived = DerivedIndexes()

    /// The registered types by tag class and normalized tag, best first.
    private var tagIndex: [TypeTagClass: [String: [Int32]]] { derived.tagIndex { makeTagIndex() } }
    /// The transitive conformance of every registered type.
    private var closure: ConformanceClosure {
        derived.withClosure(make: makeClosure) { $0 }
    }

    /// An empty registry.
    public init() {}

    /// ICTKit's system types alone (`Schemas/system-types.plist`, built in).
    public static let system = TypeRegistry(adding: [.system])

    /// ICTKit's system types, then its stand-ins for types well-known apps
    /// export (`Schemas/well-known-app-types.plist`, origin `.wellKnown`).
    public static let builtIn = TypeRegistry(adding: [.system, .wellKnownApps])

    /// A registry of `sets`, added in order as `add(_:)` would.
    private init(adding sets: [TypeDeclarationSet]) {
        for set in sets {
            for declaration in set.exported { register(declaration) }
            for declaration in set.imported { register(declaration) }
            documentTypes += set.documentTypes
        }
        forgetDerivedIndexes()
    }

    /// The number of registered types.
    public var count: Int { declarations.count }

    // MARK: - Adding declarations

    /// Adds an Info.plist's declarations with Apple's precedence. Cost:
    /// linear in the number added (the tag index and the closure are remade
    /// on first use after it).
    public mutating func add(_ set: TypeDeclarationSet) {
        for declaration in set.exported { register(declaration) }
        for declaration in set.imported { register(declaration) }
        documentTypes += set.documentTypes
        forgetDerivedIndexes()
    }

    /// Adds freedesktop shared-mime-info types, matched to registered types
    /// by MIME type or alias. A match gains the entry's extensions, MIME
    /// types and `sub-class-of` parents, appended after its own (nothing is
    /// replaced); an entry nobody declared becomes a dynamic type
    /// (`DynamicTypeIdentifier` of its MIME type) conforming to its
    /// `sub-class-of` types, else to `public.plain-text` for `text/*`,
    /// `public.item` for `inode/*` and `x-content/*`, `public.data` otherwise.
    public mutating func add(_ mimeTypes: [MimeTypeDeclaration]) {
        mergeMimeTypes(mimeTypes)
        forgetDerivedIndexes()
    }

    /// Adds every `*.xml` file of a shared-mime-info `packages` directory, in name order.
    ///
    /// - Returns: the files read.
    /// - Throws: `UniformTypeError` from the first file that cannot be read.
    @discardableResult
    package mutating func addSharedMimeInfo(directory: String) throws(UniformTypeError) -> [String] {
        try addPackageFiles(directory: directory)
    }

    /// Adds the shared-mime-info types of the database's binary cache
    /// (`directory/mime.cache`, `SharedMimeInfoCacheReader`), as
    /// `addSharedMimeInfo` adds the XML's, when the cache is at least as new
    /// as every package file: the same types, aliases, parents and
    /// extensions, so the same conformance, but no descriptions, sources by
    /// cache file, and tags in another order.
    ///
    /// The cache lists a type's aliases by name, where the XML's order
    /// decides which registered type an entry whose own MIME type is not
    /// registered merges into (its first alias that is; `application/vnd.ms-asf`
    /// has two). For such an entry the order is read from the type's own
    /// file, `directory/MEDIA/SUBTYPE.xml`, which update-mime-database
    /// writes with the cache.
    ///
    /// - Returns: false, adding nothing, when the cache is missing or stale.
    /// - Throws: `UniformTypeError` when the cache, the `types` file or a
    ///   type's file cannot be read or is malformed; nothing is added.
    public mutating func addSharedMimeInfoCache(directory: FilePath = SharedMimeInfoCacheReader.systemDirectory)
        throws(UniformTypeError) -> Bool
    {
        try addSharedMimeInfoCache(directory: RawFileName.text(directory))
    }

    /// `addSharedMimeInfoCache(directory:)` for a folder named by text (bytes
    /// that are not UTF-8 carried as `RawFileName` carries them), for the kit's own callers.
    ///
    /// - Throws: as `addSharedMimeInfoCache(directory:)`.
    package mutating func addSharedMimeInfoCache(directory: String) throws(UniformTypeError) -> Bool {
        guard var entries = try SharedMimeInfoCacheReader.read(directory: directory, includingGlobs: true) else { return false }
        let registered = bestTypeByMIMEType()
        try SharedMimeInfoCacheReader.orderAliases(of: &entries, registered: { registered[$0] != nil }, directory: directory)
        add(entries)
        return true
    }

    /// Registers one declaration under the precedence rules; returns its index.
    @discardableResult
    private mutating func register(_ declaration: TypeDeclaration) -> Int32 {
        let key = declaration.identifier.lowercasedIfNeeded
        if let existing = indexByIdentifier[key] {
            let current = declarations[Int(existing)]
            if declaration.origin.replaces(current.origin) {
                ignoredDeclarations.append(current)
                declarations[Int(existing)] = declaration
            } else {
                ignoredDeclarations.append(declaration)
            }
            return existing
        }
        let index = Int32(declarations.count)
        declarations.append(declaration)
        indexByIdentifier[key] = index
        return index
    }

    /// Forgets the tag index and the closure, to be remade on first use.
    private mutating func forgetDerivedIndexes() {
        derived = DerivedIndexes()
    }

    /// The indexes of the registered types `type` directly conforms to, in
    /// declaration order; parents nobody registered are left out. Resolved
    /// when asked, so adding declarations resolves nothing.
    private func parentIndexes(of type: Int) -> [Int32] {
        declarations[type].conformsTo.compactMap { indexByIdentifier[$0.lowercasedIfNeeded] }
    }

    /// The conformance closure of every registered type.
    private func makeClosure() -> ConformanceClosure {
        ConformanceClosure(parents: declarations.indices.map(parentIndexes(of:)))
    }

    /// The tag index: reads each declaration in place (copying one costs a dozen retains).
    private func makeTagIndex() -> [TypeTagClass: [String: [Int32]]] {
        // One dictionary per tag class, looked up once per class and declaration
        // rather than once per tag (hashing a tag class hashes its 25-byte name).
        var byClass: [(tagClass: TypeTagClass, byTag: [String: [Int32]])] = []
        for index in declarations.indices {
            for (tagClass, tags) in declarations[index].tags {
                let slot =
                    byClass.firstIndex { $0.tagClass == tagClass }
                    ?? {
                        byClass.append((tagClass, [:]))
                        return byClass.count - 1
                    }()
                for tag in tags { byClass[slot].byTag[tagClass.normalized(tag), default: []].append(Int32(index)) }
            }
        }
        for slot in byClass.indices {
            for (tag, indexes) in byClass[slot].byTag where indexes.count > 1 {
                // Stable: by origin, then registration order.
                byClass[slot].byTag[tag] = indexes.sorted {
                    (declarations[Int($0)].origin, $0) < (declarations[Int($1)].origin, $1)
                }
            }
        }
        return Dictionary(uniqueKeysWithValues: byClass.map { ($0.tagClass, $0.byTag) })
    }

    /// True when `ancestor` is `type` or reachable through parents: from the
    /// closure when it is made, else by a walk that visits each type once.
    private func reaches(_ type: Int, _ ancestor: Int) -> Bool {
        if let answer = derived.withClosureIfMade({ $0.conforms(type, to: ancestor) }) { return answer }
        if type == ancestor { return true }
        var visited = Set<Int32>([Int32(type)])
        var stack = parentIndexes(of: type)
        while let next = stack.popLast() {
            if Int(next) == ancestor { return true }
            if visited.insert(next).inserted { stack += parentIndexes(of: Int(next)) }
        }
        return false
    }

    // MARK: - Queries

    /// The index of the type `identifier` names, or nil when none is registered.
    public func index(of identifier: String) -> TypeIndex? {
        indexByIdentifier[identifier.lowercasedIfNeeded].map { TypeIndex(Int($0)) }
    }

    /// The declaration at `index`.
    public func declaration(at index: TypeIndex) -> TypeDeclaration { declarations[index.rawValue] }

    /// The declaration of `identifier`: the registered one, or for an
    /// unregistered dynamic identifier the type it stands for; else nil.
    public func declaration(for identifier: String) -> TypeDeclaration? {
        if let index = index(of: identifier) { return declarations[index.rawValue] }
        if let (tagClass, tag) = DynamicTypeIdentifier.decode(identifier) { return dynamicType(tag: tag, tagClass: tagClass) }
        return nil
    }

    /// True when type `type` conforms to `ancestor`, directly, transitively
    /// or by being it. The first call after a change makes the conformance
    /// matrix (about a millisecond for a thousand types); each call then
    /// takes an uncontended lock and one memory load. `index(of:)` turns
    /// identifiers into indexes.
    public func conforms(_ type: TypeIndex, to ancestor: TypeIndex) -> Bool {
        derived.withClosure(make: makeClosure) {
            $0.conforms(type.rawValue, to: ancestor.rawValue)
        }
    }

    /// True when the type `identifier` names conforms to `ancestor`. An
    /// unknown identifier conforms only to itself; an unregistered dynamic
    /// one to the type its tag would give (`public.data`, …). Uses the
    /// conformance matrix when it is made, else walks the type's parents
    /// (without making the matrix).
    public func conforms(_ identifier: String, to ancestor: String) -> Bool {
        if identifier.lowercasedIfNeeded == ancestor.lowercasedIfNeeded { return true }
        if let type = index(of: identifier) {
            guard let ancestorIndex = index(of: ancestor) else { return false }
            return reaches(type.rawValue, ancestorIndex.rawValue)
        }
        guard let dynamic = declaration(for: identifier) else { return false }
        return dynamic.conformsTo.contains { conforms($0, to: ancestor) }
    }

    /// Every identifier `identifier` conforms to, itself excluded, nearest
    /// declared parents first, then the rest in registration order.
    public func supertypes(of identifier: String) -> [String] {
        guard let type = index(of: identifier) else {
            guard let dynamic = declaration(for: identifier) else { return [] }
            var result: [String] = []
            for parent in dynamic.conformsTo {
                for name in [parent] + supertypes(of: parent) where !result.contains(name) { result.append(name) }
            }
            return result
        }
        let direct = parentIndexes(of: type.rawValue).map(Int.init)
        let rest = closure.ancestors(of: type.rawValue).filter { $0 != type.rawValue && !direct.contains($0) }
        var seen = Set<Int>()
        return (direct + rest).filter { seen.insert($0).inserted }.map { declarations[$0].identifier }
    }

    /// The identifiers `identifier` directly conforms to that are registered.
    public func parents(of identifier: String) -> [String] {
        guard let type = index(of: identifier) else { return declaration(for: identifier)?.conformsTo ?? [] }
        return parentIndexes(of: type.rawValue).map { declarations[Int($0)].identifier }
    }

    /// The registered types with `tag` of `tagClass`, best first (system,
    /// exported, well-known, imported, dynamic; then registration order), keeping only
    /// those conforming to `ancestor` when given. Empty when none.
    public func declaredTypes(forTag tag: String, tagClass: TypeTagClass, conformingTo ancestor: String? = nil) -> [TypeDeclaration] {
        let indexes = tagIndex[tagClass]?[tagClass.normalized(tag)] ?? []
        return indexes.map { declarations[Int($0)] }.filter { declaration in
            ancestor.map { conforms(declaration.identifier, to: $0) } ?? true
        }
    }

    /// The types for `tag`, as `declaredTypes(forTag:tagClass:conformingTo:)`,
    /// or when none is declared, the dynamic type for the tag (if it
    /// conforms to `ancestor`).
    public func types(forTag tag: String, tagClass: TypeTagClass, conformingTo ancestor: String? = nil) -> [TypeDeclaration] {
        let declared = declaredTypes(forTag: tag, tagClass: tagClass, conformingTo: ancestor)
        if !declared.isEmpty { return declared }
        let dynamic = dynamicType(tag: tag, tagClass: tagClass)
        if let ancestor, !conforms(dynamic.identifier, to: ancestor) { return [] }
        return [dynamic]
    }

    /// The best type for `tag`: the first of `types(forTag:…)`, or nil when
    /// nothing conforms to `ancestor`.
    public func preferredType(forTag tag: String, tagClass: TypeTagClass, conformingTo ancestor: String? = nil) -> TypeDeclaration? {
        types(forTag: tag, tagClass: tagClass, conformingTo: ancestor).first
    }

    /// The first filename extension of `identifier`'s type, if it has one.
    public func preferredFilenameExtension(for identifier: String) -> String? {
        declaration(for: identifier)?.preferredTag(.filenameExtension)
    }

    /// The first MIME type of `identifier`'s type, if it has one.
    public func preferredMIMEType(for identifier: String) -> String? {
        declaration(for: identifier)?.preferredTag(.mimeType)
    }

    /// The type for a tag nobody declared: `DynamicTypeIdentifier` of the
    /// tag, conforming to `public.data`, or to `com.apple.package` when a
    /// legacy document type (one without `LSItemContentTypes`) claims the
    /// extension with `LSTypeIsPackage`.
    func dynamicType(tag: String, tagClass: TypeTagClass) -> TypeDeclaration {
        TypeDeclaration(
            identifier: DynamicTypeIdentifier.make(tag: tag, tagClass: tagClass),
            conformsTo: [Self.dynamicTypeParent(tag: tag, tagClass: tagClass, documentTypes: documentTypes)],
            tags: [tagClass: [tagClass.normalized(tag)]], origin: .dynamic, source: DeclarationSource(file: nil))
    }

    /// The parent of the dynamic type for a tag nobody declared:
    /// `com.apple.package` when a legacy document type of `documentTypes`
    /// (one without `LSItemContentTypes`) claims the extension with
    /// `LSTypeIsPackage`, else `public.data`.
    static func dynamicTypeParent(tag: String, tagClass: TypeTagClass, documentTypes: [DocumentTypeDeclaration]) -> String {
        let normalized = tagClass.normalized(tag)
        let isPackage =
            tagClass == .filenameExtension
            && documentTypes.contains { documentType in
                documentType.contentTypes.isEmpty && documentType.isPackage == true
                    && documentType.filenameExtensions.contains { $0.lowercased() == normalized }
            }
        return isPackage ? "com.apple.package" : "public.data"
    }
}

extension TypeRegistry: MimeTypeMergeTarget {
    var typeCount: Int { declarations.count }
    func origin(of type: Int32) -> TypeOrigin { declarations[Int(type)].origin }

    func mimeTypeNames(of type: Int32) -> [String] {
        (declarations[Int(type)].tags[.mimeType] ?? []).map(TypeTagClass.mimeType.normalized)
    }

    func mimeTypeName(of entry: MimeTypeDeclaration) -> String { entry.mimeType }
    func mimeTypeText(of entry: MimeTypeDeclaration) -> String { entry.mimeType }
    func aliasNames(of entry: MimeTypeDeclaration) -> [String] { entry.aliases }
    func parentNames(of entry: MimeTypeDeclaration) -> [String] { entry.parents }

    func existingDynamicType(for entry: MimeTypeDeclaration) -> Int32? {
        indexByIdentifier[DynamicTypeIdentifier.make(tag: entry.mimeType, tagClass: .mimeType).lowercasedIfNeeded]
    }

    mutating func registerDynamicType(for entry: MimeTypeDeclaration) -> Int32 {
        register(
            TypeDeclaration(
                identifier: DynamicTypeIdentifier.make(tag: entry.mimeType, tagClass: .mimeType),
                typeDescription: entry.comment, origin: .dynamic, source: entry.source))
    }

    mutating func appendTags(of entry: MimeTypeDeclaration, to type: Int32) {
        appendTags(.filenameExtension, entry.filenameExtensions, to: type)
        appendTags(.mimeType, [entry.mimeType] + entry.aliases, to: type)
    }

    private mutating func appendTags(_ tagClass: TypeTagClass, _ tags: [String], to type: Int32) {
        for tag in tags {
            let existing = declarations[Int(type)].tags[tagClass] ?? []
            if !existing.contains(where: { tagClass.normalized($0) == tagClass.normalized(tag) }) {
                declarations[Int(type)].tags[tagClass, default: []].append(tag)
            }
        }
    }

    mutating func appendParentType(_ parent: Int32, to type: Int32) {
        let identifier = declarations[Int(parent)].identifier
        let key = identifier.lowercasedIfNeeded
        if !declarations[Int(type)].conformsTo.contains(where: { $0.lowercasedIfNeeded == key }) {
            declarations[Int(type)].conformsTo.append(identifier)
        }
    }

    func hasNoParents(_ type: Int32) -> Bool { declarations[Int(type)].conformsTo.isEmpty }

    mutating func appendParent(_ identifier: String, to type: Int32) {
        declarations[Int(type)].conformsTo.append(identifier)
    }
}

/// A registry's indexes that are made on first use: each is made once, under
/// a lock, by whichever thread asks first. A registry that changes gets a new
/// instance, so copies of a registry share one only while they are equal.
// @unchecked Sendable: the two mutable properties are read and written only
// inside `lock.withLock`; nothing else is mutable.
private final class DerivedIndexes: @unchecked Sendable {
    private let lock = ThreadLock()
    private var tagIndexValue: [TypeTagClass: [String: [Int32]]]?
    private var closureValue: ConformanceClosure?

    func tagIndex(_ make: () -> [TypeTagClass: [String: [Int32]]]) -> [TypeTagClass: [String: [Int32]]] {
        lock.withLock {
            if let tagIndexValue { return tagIndexValue }
            let made = make()
            tagIndexValue = made
            return made
        }
    }

    /// `body` of the closure, made first by `make` if need be.
    func withClosure<Result>(make: () -> ConformanceClosure, _ body: (ConformanceClosure) -> Result) -> Result {
        lock.withLock {
            if closureValue == nil { closureValue = make() }
            return body(closureValue!)
        }
    }

    /// `body` of the closure when it is made, else nil.
    func withClosureIfMade<Result>(_ body: (ConformanceClosure) -> Result) -> Result? {
        lock.withLock { closureValue.map(body) }
    }
}
