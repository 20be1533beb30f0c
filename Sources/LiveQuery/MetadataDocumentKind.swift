import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A kind of document as it describes itself to a metadata query: the
/// file-name extension that names it, whether its documents are packages,
/// and the summary attributes read from a document of it.
///
/// The query knows no document format of its own; a format module (or the
/// app) conforms its kinds and hands them to the query in a
/// ``MetadataDocumentKinds`` (`DocumentFormats`'s `DocumentKind.metadataDocumentKinds`
/// for `.ict`, `.ptk` and the notes).
public protocol MetadataDocumentKind: Sendable {
    /// The file-name extension, lower-case and without the dot: `ict`.
    var fileExtension: String { get }
    /// Whether a document of this kind is a package directory; a directory
    /// with the extension is then an item (never searched as a folder),
    /// whatever the query's type registry says.
    var isPackage: Bool { get }
    /// The name to show for the document at `path` (`MetadataItem.displayName`),
    /// or nil to show its name without the extension. Called on each read of
    /// the attribute, only for an item of the kind's shape (a directory for a
    /// package kind, a file for another); must not throw or wait long.
    func displayName(ofDocumentAt path: FilePath) -> String?
    /// The document's thumbnail as PNG bytes (`MetadataItem.thumbnailPNG()`),
    /// or nil when it has none or it cannot be read. Called on each call of
    /// `thumbnailPNG()`, only for an item of the kind's shape.
    func thumbnailPNG(ofDocumentAt path: FilePath) -> Data?
}

/// The document kinds a metadata query knows, by file-name extension: a
/// value, given to each query (`MetadataQuery.documentKinds`) or set once
/// as the default where the app starts (`MetadataQuery.defaultDocumentKinds`).
///
/// Empty by default: a query then names its items' kinds by its type
/// registry alone and shows every item's name without its extension.
public struct MetadataDocumentKinds: Sendable {
    private var byExtension: [String: RegisteredDocumentKind] = [:]

    /// The registry of `kinds`; of two with the same extension, the later.
    public init(_ kinds: [any MetadataDocumentKind] = []) {
        for kind in kinds { register(kind) }
    }

    /// Adds `kind`, in place of any kind registered with its extension.
    public mutating func register(_ kind: any MetadataDocumentKind) {
        byExtension[kind.fileExtension.lowercased()] = RegisteredDocumentKind(kind)
    }

    /// The kind registered for `fileExtension` (in any case, without the dot); nil for none.
    public func kind(forExtension fileExtension: some StringProtocol) -> (any MetadataDocumentKind)? {
        byExtension[fileExtension.lowercased()]?.kind
    }

    /// The kind a file name names by its last extension (`Coffee.ict`,
    /// `Note.ICFNOTE`); nil for a name without one or of no registered kind.
    func kind(ofName name: String) -> RegisteredDocumentKind? {
        guard let dot = name.lastIndex(of: ".") else { return nil }
        return byExtension[name[name.index(after: dot)...].lowercased()]
    }
}

/// A kind as a registry of kinds holds it: one object, which each item of
/// the kind refers to.
final class RegisteredDocumentKind: Sendable {
    let kind: any MetadataDocumentKind

    init(_ kind: any MetadataDocumentKind) { self.kind = kind }
}
