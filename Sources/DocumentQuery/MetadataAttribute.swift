/// An attribute of a metadata query's result, named by Apple's key string
/// (`NSMetadataItemFSNameKey` is `kMDItemFSName`): what a result can be
/// sorted by and asked for (`MetadataItem.value(forAttribute:)`).
public enum MetadataAttribute: String, Sendable, CaseIterable {
    /// The file name (`NSMetadataItemFSNameKey`): a `String`.
    case fsName = "kMDItemFSName"
    /// The name to show (`NSMetadataItemDisplayNameKey`): a `String`; reads an `.ict`'s metadata entry.
    case displayName = "kMDItemDisplayName"
    /// The file URL (`NSMetadataItemURLKey`): a `URL`.
    case url = "kMDItemURL"
    /// The path (`NSMetadataItemPathKey`): a `String`.
    case path = "kMDItemPath"
    /// The size in bytes (`NSMetadataItemFSSizeKey`): an `Int64`; a package's is the sum of its entries'.
    case fsSize = "kMDItemFSSize"
    /// When the file was made (`NSMetadataItemFSCreationDateKey`): a `Date`, where the file system keeps it.
    case fsCreationDate = "kMDItemFSCreationDate"
    /// When the content last changed (`NSMetadataItemFSContentChangeDateKey`): a `Date`.
    case fsContentChangeDate = "kMDItemFSContentChangeDate"
    /// The uniform type identifier (`NSMetadataItemContentTypeKey`): a `String`.
    case contentType = "kMDItemContentType"
    /// Whether a sync tool left a conflict copy beside it (`NSMetadataUbiquitousItemHasUnresolvedConflictsKey`): a `Bool`.
    case hasUnresolvedConflicts = "NSMetadataUbiquitousItemHasUnresolvedConflictsKey"
}
