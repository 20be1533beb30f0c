import SystemPackage
import SystemSupport
import UbiquityContainers

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One result of a metadata query: a file or a package under a scope,
/// with `NSMetadataItem`'s attributes where they have a meaning here.
///
/// Two items are equal when they name the same path with the same status
/// (file identity, size, modification times, number of entries) and the
/// same conflict state: an item that changed on disk is not equal to what
/// it was.
public struct MetadataItem: Sendable, Hashable {
    /// The item's path as the query found it: the scope, `/`, the path under it
    /// (`path`), with a byte that is not UTF-8 carried as `RawFileName` does.
    package var pathString: String
    /// The item's name, the last component of `path`.
    public var fsName: String
    /// The item's file URL (a directory URL for a package).
    public var url: URL
    /// The file's size in bytes; for a package, the sum of its entries' sizes.
    public var fsSize: Int64
    /// When the item was made, where the file system keeps it (Linux `statx`'s
    /// birth time); nil where it does not.
    public var creationDate: Date?
    /// The latest modification time of the file, or of the package and every entry in it.
    public var contentChangeDate: Date
    /// The item's uniform type identifier, from the type registry by its
    /// extension (`com.appmosphereinc.icloudtest.doc` for `.ict`); nil when
    /// the registry gives none.
    public var contentType: String?
    /// Whether a sync tool's conflict copy of the item is beside it
    /// (`ConflictVersions`' `ConflictName`: Syncthing, Nextcloud, Dropbox).
    public var hasUnresolvedConflicts: Bool
    /// Whether the item is a package (a directory shown as one document).
    /// (Beside the other `Bool`: the two share the padding before `syncState`.)
    var isPackage: Bool
    /// The item's sync state as its container's engine last told it
    /// (`.notTracked` outside containers and for a plain folder sync;
    /// `.unknown` while the engine cannot be asked).
    public var syncState: UbiquitousItemSyncState = .notTracked
    /// What the item's status was when it was found: two items differ when it does.
    var stamp: ItemStamp
    /// The registered kind its extension names, when the item has that
    /// kind's shape (a directory for a package kind, a file for another):
    /// one reference, where the kind itself would be an existential of 40
    /// bytes in each of the 10,000 items a query holds several copies of.
    var documentKind: RegisteredDocumentKind?

    /// The item's path as the query found it: the scope, `/`, the path under
    /// it, byte for byte. Makes a small value; reads nothing.
    public var path: FilePath { RawFileName.withPath(pathString) { FilePath(platformString: $0) } }

    /// The name to show: what the item's document kind reads from it
    /// (`MetadataDocumentKind.displayName(ofDocumentAt:)`: for `DocumentFormats`'s
    /// kinds, an `.ict` document's `DISPLAY NAME` from its metadata entry),
    /// else the name without its extension.
    ///
    /// Read on each use, with whatever that costs the kind (`DocumentFormats`'s
    /// reads an `.ict`'s metadata entry, a few kilobytes, never its data
    /// entry); a document whose kind gives no name shows its name without
    /// the extension.
    public var displayName: String {
        if let name = documentKind?.kind.displayName(ofDocumentAt: self.path) { return name }
        guard let dot = fsName.lastIndex(of: "."), dot != fsName.startIndex else { return fsName }
        return String(fsName[..<dot])
    }

    /// The document's thumbnail as PNG bytes, as its document kind reads it
    /// (`MetadataDocumentKind.thumbnailPNG(ofDocumentAt:)`: for `DocumentFormats`'s
    /// kinds, an `.ict` or `.ptk` document's, from its metadata entry alone);
    /// nil for an item of no registered kind, a document without a
    /// thumbnail, or one whose thumbnail cannot be read.
    ///
    /// Reads on each call (`DocumentFormats`'s kinds read and decode the metadata
    /// entry, never the data entry).
    public func thumbnailPNG() -> Data? {
        documentKind?.kind.thumbnailPNG(ofDocumentAt: self.path)
    }

    /// The value of `attribute`: a `String` (name, display name, path,
    /// content type), a `URL`, an `Int64` (size), a `Date` or a `Bool`
    /// (conflicts); nil for a creation date or content type the item does
    /// not have. The display name reads as `displayName` does.
    public func value(forAttribute attribute: MetadataAttribute) -> (any Sendable)? {
        switch attribute {
        case .fsName: fsName
        case .displayName: displayName
        case .url: url
        case .path: pathString
        case .fsSize: fsSize
        case .fsCreationDate: creationDate
        case .fsContentChangeDate: contentChangeDate
        case .contentType: contentType
        case .hasUnresolvedConflicts: hasUnresolvedConflicts
        case .isUploaded: syncState.status?.isUploaded
        case .isUploading: syncState.status?.isUploading
        case .isDownloading: syncState.status?.isDownloading
        case .percentDownloaded: syncState.status?.percentDownloaded
        case .percentUploaded: syncState.status?.percentUploaded
        case .downloadingStatus: syncState.status.map { Self.downloadingStatusValue($0.downloadingStatus) }
        case .downloadingError: syncState.status?.downloadingError
        case .uploadingError: syncState.status?.uploadingError
        }
    }

    /// Apple's value of `NSMetadataUbiquitousItemDownloadingStatusKey` for `status`.
    public static func downloadingStatusValue(_ status: UbiquitousItemStatus.DownloadingStatus) -> String {
        switch status {
        case .current: "NSMetadataUbiquitousItemDownloadingStatusCurrent"
        case .downloaded: "NSMetadataUbiquitousItemDownloadingStatusDownloaded"
        case .notDownloaded: "NSMetadataUbiquitousItemDownloadingStatusNotDownloaded"
        }
    }

    public static func == (lhs: MetadataItem, rhs: MetadataItem) -> Bool {
        lhs.pathString == rhs.pathString && lhs.stamp == rhs.stamp && lhs.hasUnresolvedConflicts == rhs.hasUnresolvedConflicts
            && lhs.syncState == rhs.syncState
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(pathString)
        hasher.combine(stamp)
        hasher.combine(hasUnresolvedConflicts)
        hasher.combine(syncState)
    }
}

/// What an item's status was when it was read: the item's identity, its
/// size (a package's entries' total), the latest modification time of it
/// and its entries, and its number of entries.
struct ItemStamp: Hashable, Sendable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    /// Nanoseconds since 1970.
    var latestModification: Int64
    /// Nanoseconds since 1970; nil when the file system does not keep it.
    var birth: Int64?
    /// The package's files and folders, all levels; 0 for a file.
    var entryCount: Int
    /// The package's entries' names, inodes, sizes and times, hashed (in
    /// this process): an entry replaced by another of the same size and time still changes it.
    var entriesDigest: Int
    /// The package's entries named as conflict copies (`ConflictName`): two
    /// devices changed one entry.
    var conflictEntryCount = 0
    /// Whether the package has its manifest at its top (`PackageConsistency.manifestName`).
    var hasManifest = false
    /// Whether the package is a conflict to resolve: entries that are
    /// conflict copies, or a mix of saves by its manifest (`PackageConsistency`).
    var packageInConflict = false
}
