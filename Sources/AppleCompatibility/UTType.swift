#if !canImport(UniformTypeIdentifiers)
import Foundation
import OrderedCollections
import UniformTypes

/// A class of tags that map other type systems onto uniform types:
/// UniformTypeIdentifiers' `UTTagClass`.
public struct UTTagClass: RawRepresentable, Hashable, Sendable {
    /// The class's identifier (`public.filename-extension`).
    public let rawValue: String

    /// Makes a tag class from its identifier.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Filename extensions, without the dot.
    public static let filenameExtension = UTTagClass(rawValue: TypeTagClass.filenameExtension.rawValue)
    /// MIME types.
    public static let mimeType = UTTagClass(rawValue: TypeTagClass.mimeType.rawValue)

    var typeTagClass: TypeTagClass { TypeTagClass(rawValue: rawValue) }
}

/// A type in the uniform type hierarchy: UniformTypeIdentifiers' `UTType`,
/// answered from UniformTypes' `TypeRegistry` of ICTKit's built-in
/// declarations and the Info.plists registered with
/// `registerDeclarations(fromInfoPlistAt:)`.
///
/// Two types are equal when their identifiers are equal ignoring case.
public struct UTType: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The type's identifier (`public.png`).
    public let identifier: String

    init(knownIdentifier identifier: String) { self.identifier = identifier }

    /// The type `identifier` names; nil when no declaration names it and it
    /// is not a dynamic identifier (`dyn.a…`).
    public init?(_ identifier: String) {
        guard UTTypeDatabase.registry.declaration(for: identifier) != nil else { return nil }
        self.identifier = identifier
    }

    /// The preferred type for a filename extension that conforms to
    /// `supertype`: a declared one, else a dynamic type (which conforms to
    /// `public.data`). Nil for an empty extension or one holding `/`, or
    /// when no type conforms.
    public init?(filenameExtension: String, conformingTo supertype: UTType = .data) {
        self.init(tag: filenameExtension, tagClass: .filenameExtension, conformingTo: supertype)
    }

    /// The preferred type for a MIME type that conforms to `supertype`, as
    /// `init(filenameExtension:conformingTo:)`.
    public init?(mimeType: String, conformingTo supertype: UTType = .data) {
        self.init(tag: mimeType, tagClass: .mimeType, conformingTo: supertype)
    }

    /// The preferred type with `tag` of `tagClass` that conforms to
    /// `supertype` (any type when nil): a declared one, else a dynamic type.
    /// Nil for an empty tag, an extension holding `/`, or when no type conforms.
    public init?(tag: String, tagClass: UTTagClass, conformingTo supertype: UTType?) {
        guard let first = Self.types(tag: tag, tagClass: tagClass, conformingTo: supertype).first else { return nil }
        self = first
    }

    /// Every type with `tag` of `tagClass` that conforms to `supertype` (any
    /// type when nil), best first: system types, then exported, then
    /// imported; a dynamic type when none is declared. Empty for an invalid tag.
    public static func types(tag: String, tagClass: UTTagClass, conformingTo supertype: UTType?) -> [UTType] {
        guard !tag.isEmpty, tagClass != .filenameExtension || !tag.contains("/") else { return [] }
        return UTTypeDatabase.registry.types(forTag: tag, tagClass: tagClass.typeTagClass, conformingTo: supertype?.identifier)
            .map { UTType(knownIdentifier: $0.identifier) }
    }

    /// A type the app owns: the one its registered Info.plist exports. When
    /// no declaration names it, the type is declared here, in code,
    /// conforming to `parentType`.
    public init(exportedAs identifier: String, conformingTo parentType: UTType? = nil) {
        UTTypeDatabase.declareInCode(identifier, conformingTo: parentType)
        self.identifier = identifier
    }

    /// A type the app uses but does not own, as `init(exportedAs:conformingTo:)`.
    public init(importedAs identifier: String, conformingTo parentType: UTType? = nil) {
        UTTypeDatabase.declareInCode(identifier, conformingTo: parentType)
        self.identifier = identifier
    }

    // MARK: Hierarchy

    /// Whether this type is `type` or conforms to it, directly or through its supertypes.
    public func conforms(to type: UTType) -> Bool {
        UTTypeDatabase.registry.conforms(identifier, to: type.identifier)
    }

    /// Whether this type conforms to `type` and is not `type`.
    public func isSubtype(of type: UTType) -> Bool { self != type && conforms(to: type) }

    /// Whether `type` conforms to this type and is not this type.
    public func isSupertype(of type: UTType) -> Bool { type.isSubtype(of: self) }

    /// Every type this type conforms to, itself excluded, directly or not.
    public var supertypes: Set<UTType> {
        Set(UTTypeDatabase.registry.supertypes(of: identifier).map(UTType.init(knownIdentifier:)))
    }

    // MARK: Tags and description

    /// The type's tags by class, each list in order of preference.
    public var tags: [UTTagClass: [String]] {
        var result: [UTTagClass: [String]] = [:]
        for (tagClass, tags) in declaration?.tags ?? [:] { result[UTTagClass(rawValue: tagClass.rawValue)] = tags }
        return result
    }

    /// The first filename extension of the type, if it has one.
    public var preferredFilenameExtension: String? { declaration?.preferredTag(.filenameExtension) }

    /// The first MIME type of the type, if it has one.
    public var preferredMIMEType: String? { declaration?.preferredTag(.mimeType) }

    /// The declaration's `UTTypeDescription`, in the language it was
    /// written in (English for ICTKit's system types); nil when it has none.
    public var localizedDescription: String? { declaration?.typeDescription }

    /// The declaration's `UTTypeReferenceURL`, if any.
    public var referenceURL: URL? { declaration?.referenceURL.flatMap(URL.init(string:)) }

    /// Whether a declaration (a system type, or one from a registered
    /// Info.plist) names the type; false for dynamic types and types only
    /// declared in code.
    public var isDeclared: Bool {
        guard let declaration, declaration.origin != .dynamic else { return false }
        return !UTTypeDatabase.state.withLock { $0.declaredInCode.contains(identifier.lowercased()) }
    }

    /// Whether the type was made up for a tag nobody declared (`dyn.…`).
    public var isDynamic: Bool { identifier.lowercased().hasPrefix("dyn.") }

    /// Whether the type is in the public domain (`public.…`).
    public var isPublic: Bool { identifier.lowercased().hasPrefix("public.") }

    /// The identifier.
    public var description: String { identifier }

    /// The identifier.
    public var debugDescription: String { identifier }

    private var declaration: TypeDeclaration? { UTTypeDatabase.registry.declaration(for: identifier) }

    // MARK: Equality

    /// Whether the identifiers are equal, ignoring case.
    public static func == (lhs: UTType, rhs: UTType) -> Bool { lhs.identifier.lowercased() == rhs.identifier.lowercased() }

    /// Hashes the lower-cased identifier, consistently with `==`.
    public func hash(into hasher: inout Hasher) { hasher.combine(identifier.lowercased()) }
}
#endif
