// How shared-mime-info entries merge into registered types. `TypeRegistry`
// (every fact of every type, names as strings) and `TypeConformanceGraph`
// (identifiers and parents only, names interned as numbers) both merge
// through `mergeMimeTypes(_:)`, so the types they make and the parents they
// give cannot differ.

/// A set of registered types that shared-mime-info entries can merge into.
protocol MimeTypeMergeTarget {
    /// A MIME type's name as the target keys it, normalized (lower-cased).
    associatedtype Name: Hashable
    /// One shared-mime-info entry as the target reads it.
    associatedtype Entry

    /// The number of registered types; indexes run from 0.
    var typeCount: Int { get }
    /// The origin of the type at `type`.
    func origin(of type: Int32) -> TypeOrigin
    /// The normalized MIME-type tags of the type at `type`, in order.
    func mimeTypeNames(of type: Int32) -> [Name]
    /// The entry's MIME type.
    func mimeTypeName(of entry: Entry) -> Name
    /// The entry's MIME type as text (`text/x-foo`).
    func mimeTypeText(of entry: Entry) -> String
    /// The entry's aliases, in order.
    func aliasNames(of entry: Entry) -> [Name]
    /// The entry's `sub-class-of` MIME types, in order.
    func parentNames(of entry: Entry) -> [Name]

    /// The type registered under the dynamic identifier of the entry's MIME type, if any.
    func existingDynamicType(for entry: Entry) -> Int32?
    /// Registers the dynamic type of the entry's MIME type; returns its index.
    mutating func registerDynamicType(for entry: Entry) -> Int32
    /// Appends the tags of `entry` (its MIME type and aliases, and what
    /// else the target keeps) that `type` does not have yet.
    mutating func appendTags(of entry: Entry, to type: Int32)
    /// Appends the type at `parent` to the parents of the type at `type`,
    /// unless `type` lists its identifier (compared without regard to case) already.
    mutating func appendParentType(_ parent: Int32, to type: Int32)
    /// True when the type at `type` lists no parent.
    func hasNoParents(_ type: Int32) -> Bool
    /// Appends `identifier` to the parents of the type at `type`.
    mutating func appendParent(_ identifier: String, to type: Int32)
}

extension MimeTypeMergeTarget {
    /// For each normalized MIME type, the type a tag lookup lists first
    /// (lowest origin, then first registered).
    func bestTypeByMIMEType() -> [Name: Int32] {
        var best: [Name: Int32] = [:]
        for index in 0..<Int32(typeCount) {
            for name in mimeTypeNames(of: index) {
                if let current = best[name], origin(of: current) <= origin(of: index) { continue }
                best[name] = index
            }
        }
        return best
    }

    /// Merges `entries` as `TypeRegistry.add(_:)` documents: an entry
    /// joins the type registered for its MIME type or its first alias that
    /// is, gaining tags and `sub-class-of` parents; else it becomes a dynamic
    /// type, which conforms by default to `public.plain-text` (`text/*`),
    /// `public.item` (`inode/*`, `x-content/*`) or `public.data`.
    mutating func mergeMimeTypes(_ entries: [Entry]) {
        var byMimeType = bestTypeByMIMEType()
        var pending: [(type: Int32, parents: [Name])] = []
        var made: [(type: Int32, mimeType: String)] = []
        for entry in entries {
            let name = mimeTypeName(of: entry)
            let aliases = aliasNames(of: entry)
            var target = byMimeType[name] ?? aliases.lazy.compactMap { byMimeType[$0] }.first
            if target == nil {
                if let existing = existingDynamicType(for: entry) {
                    target = existing
                } else {
                    target = registerDynamicType(for: entry)
                    made.append((target!, mimeTypeText(of: entry)))
                }
            }
            let type = target!
            appendTags(of: entry, to: type)
            if byMimeType[name] == nil { byMimeType[name] = type }
            for alias in aliases where byMimeType[alias] == nil { byMimeType[alias] = type }
            let parents = parentNames(of: entry)
            if !parents.isEmpty { pending.append((type, parents)) }
        }
        for (type, parents) in pending {
            for parent in parents {
                guard let parentIndex = byMimeType[parent], parentIndex != type else { continue }
                appendParentType(parentIndex, to: type)
            }
        }
        for (type, mimeType) in made where hasNoParents(type) {
            let parent =
                if mimeType.hasPrefix("text/") {
                    "public.plain-text"
                } else if mimeType.hasPrefix("inode/") || mimeType.hasPrefix("x-content/") {
                    "public.item"
                } else {
                    "public.data"
                }
            appendParent(parent, to: type)
        }
    }
}

extension TypeOrigin {
    /// True when a declaration of this origin replaces a registered one of
    /// `current`'s origin with the same identifier: an export replaces an
    /// import and ICTKit's well-known-app stand-in; otherwise the first stays.
    func replaces(_ current: TypeOrigin) -> Bool {
        self == .exported && (current == .imported || current == .wellKnown)
    }
}

/// A set of types that takes shared-mime-info entries whole: `TypeRegistry`
/// and `TypeConformanceGraph`, which read a `packages` directory by the one
/// function below.
protocol MimeTypeDeclarationTarget {
    /// Adds the entries, merged as `mergeMimeTypes(_:)` merges them.
    mutating func add(_ mimeTypes: [MimeTypeDeclaration])
}

extension TypeRegistry: MimeTypeDeclarationTarget {}
extension TypeConformanceGraph: MimeTypeDeclarationTarget {}

extension MimeTypeDeclarationTarget {
    /// Adds every `*.xml` file of a shared-mime-info `packages` directory, in
    /// name order; returns the files read.
    ///
    /// - Throws: `UniformTypeError` from the first file that cannot be read;
    ///   nothing is added then.
    mutating func addPackageFiles(directory: String) throws(UniformTypeError) -> [String] {
        let (entries, files) = try SharedMimeInfoReader.read(packagesDirectory: directory)
        add(entries)
        return files
    }
}
