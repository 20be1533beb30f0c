import LiveQuery
import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The original apps' kinds as a metadata query knows them: `.ict` and
/// `.ptk` packages with their display names and thumbnails read from the
/// metadata entry, and the notes, which give neither.
///
/// An app (or `ict list --watch`) hands them to its queries where it starts:
/// `MetadataQuery.defaultDocumentKinds = DocumentKind.metadataDocumentKinds`.
extension DocumentKind: MetadataDocumentKind {
    /// Every kind, for a query: `MetadataDocumentKinds(DocumentKind.allCases)`.
    /// Makes a small value; reads nothing.
    public static var metadataDocumentKinds: MetadataDocumentKinds { MetadataDocumentKinds(allCases) }

    /// An `.ict` document's `DISPLAY NAME` from its metadata entry
    /// (`ICTDocumentSummary`); nil for the other kinds and for a document
    /// whose metadata entry cannot be read. Reads the metadata entry (a few
    /// kilobytes), never the data entry.
    public func displayName(ofDocumentAt path: FilePath) -> String? {
        guard self == .ict else { return nil }
        return (try? ICTDocumentSummary(ofDocumentAt: path))?.displayName
    }

    /// An `.ict` or `.ptk` document's thumbnail from its metadata entry; nil
    /// for the notes, a document without one, or one whose metadata entry
    /// cannot be read. Reads and decodes the metadata entry, never the data entry.
    public func thumbnailPNG(ofDocumentAt path: FilePath) -> Data? {
        switch self {
        case .ict: (try? ICTDocumentFile(contentsOf: path).metadata())?.thumbnail
        case .ptk: (try? PTKDocumentFile(contentsOf: path).metadata())?.thumbnail
        case .icfnote, .dox: nil
        }
    }
}
