import PropertyList

/// Checks an Info.plist's type declarations the way a careful reviewer
/// would, against the types a registry already knows (by default the system's).
///
/// Checks, each reported with file and key path: malformed identifiers;
/// `public.*`, `com.apple.*` and `dyn.*` identifiers exported by a third
/// party; conformance to identifiers nobody declares; conformance cycles;
/// duplicate identifiers, parents and tags; document types naming
/// undeclared types; `LSTypeIsPackage` disagreeing with conformance to
/// `com.apple.package`; extensions with a leading dot or upper case and
/// malformed MIME types; tags a system type owns; types whose parents never
/// reach `public.item`; `CFBundleTypeRole` and `LSHandlerRank` values
/// outside their documented sets.
///
/// An identifier nobody declares is a warning, even under `public.` or
/// `com.apple.`: ICTKit knows only part of the system's types. Errors are
/// kept for what is certainly wrong, such as a malformed identifier.
public struct TypeDeclarationValidator: Sendable {
    /// The types known besides those the checked file declares.
    public var registry: TypeRegistry

    /// Makes a validator that knows `registry`'s types (by default the
    /// system's and the well-known apps').
    public init(registry: TypeRegistry = .builtIn) {
        self.registry = registry
    }

    /// The documented `CFBundleTypeRole` values (`MDImporter`: a Spotlight importer's bundle).
    public static let roles: Set<String> = ["Editor", "Viewer", "Shell", "QLGenerator", "MDImporter", "None"]
    /// The documented `LSHandlerRank` values.
    public static let handlerRanks: Set<String> = ["Owner", "Default", "Alternate", "None"]

    /// All findings for `set`, the reading findings first, then by declaration order.
    public func validate(_ set: TypeDeclarationSet) -> [TypeDeclarationFinding] {
        var check = Check(set: set, registry: registry)
        check.run()
        return set.findings + check.findings
    }

    /// True when `identifier` is a well-formed uniform type identifier:
    /// dot-separated non-empty components of ASCII letters, digits and
    /// hyphens, or any character above U+007F.
    public static func isWellFormedIdentifier(_ identifier: String) -> Bool {
        guard !identifier.isEmpty else { return false }
        var previousWasDot = true
        for scalar in identifier.unicodeScalars {
            if scalar == "." {
                if previousWasDot { return false }
                previousWasDot = true
                continue
            }
            previousWasDot = false
            let value = scalar.value
            let allowed =
                (value >= 0x61 && value <= 0x7A) || (value >= 0x41 && value <= 0x5A) || (value >= 0x30 && value <= 0x39)
                || value == 0x2D || value > 0x7F
            if !allowed { return false }
        }
        return !previousWasDot
    }
}

/// One run of the checks over one declaration set.
private struct Check {
    let declarationSet: TypeDeclarationSet
    let registry: TypeRegistry
    var findings: [TypeDeclarationFinding] = []
    /// The file's declarations by lower-cased identifier; the first of each wins here as in the registry.
    var local: [String: TypeDeclaration] = [:]

    init(set: TypeDeclarationSet, registry: TypeRegistry) {
        self.declarationSet = set
        self.registry = registry
    }

    var isApple: Bool { declarationSet.bundleIdentifier?.lowercased().hasPrefix("com.apple.") ?? false }

    mutating func run() {
        checkDuplicates()
        for declaration in declarationSet.exported + declarationSet.imported { checkType(declaration) }
        for documentType in declarationSet.documentTypes { checkDocumentType(documentType) }
    }

    mutating func add(
        _ severity: TypeDeclarationFinding.Severity, _ kind: TypeDeclarationFinding.Kind,
        _ path: PropertyListKeyPath, _ message: String
    ) {
        findings.append(TypeDeclarationFinding(severity, kind, fileText: declarationSet.fileText, keyPath: path, message))
    }

    // MARK: Identifiers

    mutating func checkDuplicates() {
        for declaration in declarationSet.exported + declarationSet.imported {
            let key = declaration.identifier.lowercased()
            let path = declaration.source.keyPath.appending(.key("UTTypeIdentifier"))
            guard let first = local[key] else {
                local[key] = declaration
                continue
            }
            if first.origin == declaration.origin {
                add(
                    declaration.origin == .imported ? .warning : .error, .duplicate, path,
                    "\(declaration.identifier) is declared again (first at \(first.source.keyPath)); the first declaration wins")
            } else {
                add(
                    .warning, .duplicate, path,
                    "\(declaration.identifier) is both exported and imported; the exported declaration wins")
            }
        }
    }

    /// The parents of `identifier` as the registry would see them with this
    /// file added: a system declaration wins, else the file's, else any other known one.
    func parents(of identifier: String) -> [String]? {
        if let known = registry.declaration(for: identifier), known.origin == .system { return known.conformsTo }
        if let declared = local[identifier.lowercased()] { return declared.conformsTo }
        return registry.declaration(for: identifier)?.conformsTo
    }

    func isKnown(_ identifier: String) -> Bool {
        local[identifier.lowercased()] != nil || registry.index(of: identifier) != nil
    }

    /// True when `identifier` conforms to `ancestor` through known parents.
    func conforms(_ identifier: String, to ancestor: String) -> Bool {
        var seen: Set<String> = []
        var stack = [identifier.lowercased()]
        while let next = stack.popLast() {
            if next == ancestor { return true }
            guard seen.insert(next).inserted else { continue }
            stack += (parents(of: next) ?? []).map { $0.lowercased() }
        }
        return false
    }

    /// Whether the parents of `identifier` reach it again, and whether every identifier reached is known.
    func ancestry(of identifier: String) -> (cycle: Bool, allKnown: Bool, reachesItem: Bool) {
        let start = identifier.lowercased()
        var seen: Set<String> = []
        var stack = (parents(of: identifier) ?? []).map { $0.lowercased() }
        var cycle = false
        var allKnown = true
        while let next = stack.popLast() {
            if next == start { cycle = true; continue }
            guard seen.insert(next).inserted else { continue }
            guard let nextParents = parents(of: next) else { allKnown = false; continue }
            stack += nextParents.map { $0.lowercased() }
        }
        return (cycle, allKnown, seen.contains("public.item") || start == "public.item")
    }

    mutating func checkType(_ declaration: TypeDeclaration) {
        let identifier = declaration.identifier
        let lowered = identifier.lowercased()
        let base = declaration.source.keyPath
        let identifierPath = base.appending(.key("UTTypeIdentifier"))
        guard TypeDeclarationValidator.isWellFormedIdentifier(identifier) else {
            add(
                .error, .malformedIdentifier, identifierPath,
                "\"\(identifier)\" is not a uniform type identifier (dot-separated letters, digits and hyphens)")
            return
        }
        let isReserved = lowered.hasPrefix("public.") || lowered.hasPrefix("com.apple.") || lowered.hasPrefix("dyn.")
        if declaration.origin == .exported, isReserved, !isApple {
            add(
                .error, .reservedIdentifier, identifierPath,
                "\(identifier) is in a domain reserved for Apple; export it under your own reverse-DNS domain")
        }
        // A system type's own declaration wins; the file's parents and tags for it are never used.
        if let system = registry.declaration(for: identifier), system.origin == .system { return }
        if local[lowered] != declaration { return }  // A duplicate, reported already.
        checkParents(declaration)
        checkTags(declaration)
    }

    mutating func checkParents(_ declaration: TypeDeclaration) {
        var seen: Set<String> = []
        for (parent, path) in zip(declaration.conformsTo, declaration.conformsToPaths) {
            let lowered = parent.lowercased()
            if !TypeDeclarationValidator.isWellFormedIdentifier(parent) {
                add(.error, .malformedIdentifier, path, "\"\(parent)\" is not a uniform type identifier")
            } else if !seen.insert(lowered).inserted {
                add(.warning, .duplicate, path, "\(parent) is listed twice")
            } else if lowered == declaration.identifier.lowercased() {
                add(.error, .conformanceCycle, path, "\(declaration.identifier) conforms to itself")
            } else if !isKnown(parent) {
                add(
                    .warning, .unknownConformance, path,
                    Self.isSystemDomain(lowered)
                        ? Self.notAmongSystemTypes(parent)
                        : "\(parent) is declared neither here nor by the system; another app must declare it")
            }
        }
        let ancestry = ancestry(of: declaration.identifier)
        let conformsPath = declaration.source.keyPath.appending(.key("UTTypeConformsTo"))
        if ancestry.cycle, !declaration.conformsTo.contains(where: { $0.lowercased() == declaration.identifier.lowercased() }) {
            add(.error, .conformanceCycle, conformsPath, "\(declaration.identifier) conforms to itself through its parents")
        }
        if !ancestry.reachesItem, ancestry.allKnown {
            add(
                .error, .notUnderItem, declaration.conformsTo.isEmpty ? declaration.source.keyPath : conformsPath,
                "\(declaration.identifier) conforms to nothing under public.item (such as public.data or com.apple.package), so no file can have it")
        }
    }

    mutating func checkTags(_ declaration: TypeDeclaration) {
        for (tagClass, tags) in declaration.tags {
            let paths = declaration.tagPaths[tagClass] ?? []
            var seen: Set<String> = []
            for (tag, path) in zip(tags, paths) {
                if !seen.insert(tagClass.normalized(tag)).inserted {
                    add(.warning, .duplicate, path, "\(tagClass) \"\(tag)\" is listed twice")
                    continue
                }
                guard checkTagSpelling(tag, tagClass, path) else { continue }
                if let owner = registry.declaredTypes(forTag: tag, tagClass: tagClass).first(where: { $0.origin == .system }),
                    !(tagClass == .osType && tag.trimmingSpaces.isEmpty)
                {
                    add(
                        .warning, .systemOwnedTag, path,
                        "\(tagClass) \"\(tag)\" belongs to the system type \(owner.identifier), which lookups prefer")
                }
            }
        }
    }

    /// Reports a badly written extension or MIME type; true when it is well written.
    mutating func checkTagSpelling(_ tag: String, _ tagClass: TypeTagClass, _ path: PropertyListKeyPath) -> Bool {
        if tagClass == .filenameExtension {
            if tag.isEmpty || tag.contains("/") {
                add(.error, .malformedTag, path, "\"\(tag)\" is not a filename extension")
                return false
            }
            if tag.hasPrefix(".") {
                add(.error, .malformedTag, path, "extension \"\(tag)\" starts with a dot, so it never matches; write \"\(tag.dropFirst())\"")
                return false
            }
            if tag != tag.lowercased() {
                add(.warning, .malformedTag, path, "extension \"\(tag)\" has upper case; extensions match without case, write \"\(tag.lowercased())\"")
            }
        } else if tagClass == .mimeType {
            let parts = tag.split(separator: "/", omittingEmptySubsequences: false)  // A MIME type, not a path.
            if parts.count != 2 || parts.contains(where: \.isEmpty) || tag.contains(" ") {
                add(.error, .malformedTag, path, "\"\(tag)\" is not a MIME type (type/subtype)")
                return false
            }
        }
        return true
    }

    static func isSystemDomain(_ lowered: String) -> Bool {
        lowered.hasPrefix("public.") || lowered.hasPrefix("com.apple.")
    }

    /// A warning, not an error: ICTKit knows only part of the system's types.
    static func notAmongSystemTypes(_ identifier: String) -> String {
        "\(identifier) is not among ICTKit's \(TypeDeclarationSet.system.exported.count) system types; "
            + "check the spelling: if the system does not declare it either, nothing has this type"
    }

    // MARK: Document types

    mutating func checkDocumentType(_ documentType: DocumentTypeDeclaration) {
        let base = documentType.source.keyPath
        if let role = documentType.role, !TypeDeclarationValidator.roles.contains(role) {
            add(
                .error, .invalidValue, base.appending(.key("CFBundleTypeRole")),
                "CFBundleTypeRole \"\(role)\" is not one of Editor, Viewer, Shell, QLGenerator, MDImporter, None")
        }
        if let rank = documentType.handlerRank, !TypeDeclarationValidator.handlerRanks.contains(rank) {
            add(
                .error, .invalidValue, base.appending(.key("LSHandlerRank")),
                "LSHandlerRank \"\(rank)\" is not one of Owner, Default, Alternate, None")
        }
        if documentType.contentTypes.isEmpty && documentType.filenameExtensions.isEmpty
            && documentType.mimeTypes.isEmpty && documentType.osTypes.isEmpty
        {
            add(.warning, .invalidValue, base, "the document type names no content type, extension, MIME type or OS type, so it matches nothing")
        }
        var seen: Set<String> = []
        for (index, identifier) in documentType.contentTypes.enumerated() {
            let path = base.appending(.key("LSItemContentTypes")).appending(.index(index))
            let lowered = identifier.lowercased()
            if !TypeDeclarationValidator.isWellFormedIdentifier(identifier) {
                add(.error, .malformedIdentifier, path, "\"\(identifier)\" is not a uniform type identifier")
                continue
            }
            if !seen.insert(lowered).inserted {
                add(.warning, .duplicate, path, "\(identifier) is listed twice")
                continue
            }
            if !isKnown(identifier) {
                add(
                    .warning, .undeclaredDocumentType, path,
                    Self.isSystemDomain(lowered)
                        ? Self.notAmongSystemTypes(identifier)
                        : "\(identifier) is declared neither here nor by the system; declare it in UTImportedTypeDeclarations")
                continue
            }
            let isPackageType = conforms(identifier, to: "com.apple.package")
            if documentType.isPackage == true, !isPackageType {
                add(
                    .error, .packageMismatch, path,
                    "LSTypeIsPackage is true but \(identifier) does not conform to com.apple.package, so its items are not packages")
            } else if documentType.isPackage != true, isPackageType {
                add(
                    .warning, .packageMismatch, path,
                    "\(identifier) conforms to com.apple.package but LSTypeIsPackage is not true")
            }
        }
        for (index, tag) in documentType.filenameExtensions.enumerated() where tag != "*" {
            _ = checkTagSpelling(tag, .filenameExtension, base.appending(.key("CFBundleTypeExtensions")).appending(.index(index)))
        }
        for (index, tag) in documentType.mimeTypes.enumerated() {
            _ = checkTagSpelling(tag, .mimeType, base.appending(.key("CFBundleTypeMIMETypes")).appending(.index(index)))
        }
    }
}

private extension String {
    var trimmingSpaces: Substring { drop { $0 == " " } }
}
