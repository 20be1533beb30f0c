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
    /// Whether this device's version is on another device too (`NSMetadataUbiquitousItemIsUploadedKey`): a `Bool`, where the engine tells it.
    case isUploaded = "NSMetadataUbiquitousItemIsUploadedKey"
    /// Whether a connected device is fetching it (`NSMetadataUbiquitousItemIsUploadingKey`): a `Bool`, where the engine tells it.
    case isUploading = "NSMetadataUbiquitousItemIsUploadingKey"
    /// Whether a newer version is being fetched (`NSMetadataUbiquitousItemIsDownloadingKey`): a `Bool`, where the engine tells it.
    case isDownloading = "NSMetadataUbiquitousItemIsDownloadingKey"
    /// How much of the version being fetched is here (`NSMetadataUbiquitousItemPercentDownloadedKey`): a `Double`, 0 to 100.
    case percentDownloaded = "NSMetadataUbiquitousItemPercentDownloadedKey"
    /// How much of this version the fetching device has (`NSMetadataUbiquitousItemPercentUploadedKey`): a `Double`, where told.
    case percentUploaded = "NSMetadataUbiquitousItemPercentUploadedKey"
    /// `NSMetadataUbiquitousItemDownloadingStatusKey`: a `String`, Apple's
    /// `NSMetadataUbiquitousItemDownloadingStatusCurrent`, `…Downloaded` or `…NotDownloaded`.
    case downloadingStatus = "NSMetadataUbiquitousItemDownloadingStatusKey"
    /// Why the engine could not fetch it (`NSMetadataUbiquitousItemDownloadingErrorKey`): a `String`.
    case downloadingError = "NSMetadataUbiquitousItemDownloadingErrorKey"
    /// Why the engine could not send it (`NSMetadataUbiquitousItemUploadingErrorKey`): a `String`.
    case uploadingError = "NSMetadataUbiquitousItemUploadingErrorKey"
}
