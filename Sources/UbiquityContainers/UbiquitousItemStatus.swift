/// An item's sync state as its engine tells it: what Apple's
/// `NSMetadataUbiquitousItem…` keys say of an item in iCloud.
///
/// With a peer-to-peer engine there is no server: an item is *uploaded*
/// once at least one other device sharing the folder holds this device's
/// version of it (it no longer lives only here), *uploading* while it is
/// not and a device that needs it is connected, and *downloading* while
/// this device lacks the version another device has made.
public struct UbiquitousItemStatus: Sendable, Hashable, Codable {
    /// Apple's downloading status (`NSMetadataUbiquitousItemDownloadingStatusKey`).
    public enum DownloadingStatus: String, Sendable, Hashable, Codable {
        /// The latest version is here (`…DownloadingStatusCurrent`).
        case current
        /// A version is here, but a newer one is on another device (`…DownloadingStatusDownloaded`).
        case downloaded
        /// No version is here yet (`…DownloadingStatusNotDownloaded`).
        case notDownloaded
    }

    /// Whether this device's version is now on another device too.
    public var isUploaded: Bool
    /// Whether a connected device is fetching this device's version.
    public var isUploading: Bool
    /// Whether a newer version is being fetched to this device.
    public var isDownloading: Bool
    /// How much of the version being fetched is here, 0 to 100; 100 when current.
    public var percentDownloaded: Double
    /// How much of this device's version the fetching device has, 0 to 100,
    /// where the engine tells it; nil otherwise.
    public var percentUploaded: Double?
    /// The downloading status.
    public var downloadingStatus: DownloadingStatus
    /// Why the engine could not fetch it, as the engine says; nil for no error.
    public var downloadingError: String?
    /// Why the engine could not send it, as the engine says; nil for no error.
    public var uploadingError: String?

    /// A status.
    public init(
        isUploaded: Bool, isUploading: Bool, isDownloading: Bool, percentDownloaded: Double, percentUploaded: Double? = nil,
        downloadingStatus: DownloadingStatus, downloadingError: String? = nil, uploadingError: String? = nil
    ) {
        self.isUploaded = isUploaded
        self.isUploading = isUploading
        self.isDownloading = isDownloading
        self.percentDownloaded = percentDownloaded
        self.percentUploaded = percentUploaded
        self.downloadingStatus = downloadingStatus
        self.downloadingError = downloadingError
        self.uploadingError = uploadingError
    }

    /// One word for a column: `downloading 42%`, `uploading`, `error`, `current`, `local`.
    public var summary: String {
        if downloadingError != nil || uploadingError != nil { return "error" }
        if downloadingStatus != .current {
            return isDownloading ? "downloading \(Int(percentDownloaded.rounded(.down)))%" : "waiting"
        }
        if isUploading { return percentUploaded.map { "uploading \(Int($0.rounded(.down)))%" } ?? "uploading" }
        return isUploaded ? "current" : "local"
    }

    /// The status of a package whose entries have `statuses`: uploaded and
    /// current only when every entry is, uploading or downloading when any
    /// is, the percentage weighted by `sizes` (the entries' byte counts).
    public static func combining(_ statuses: [UbiquitousItemStatus], sizes: [Int64]) -> UbiquitousItemStatus {
        guard !statuses.isEmpty else {
            return UbiquitousItemStatus(isUploaded: false, isUploading: false, isDownloading: false, percentDownloaded: 100, downloadingStatus: .current)
        }
        let total = max(sizes.reduce(0, +), 1)
        let done = zip(statuses, sizes).reduce(0.0) { $0 + $1.0.percentDownloaded / 100 * Double($1.1) }
        let status: DownloadingStatus =
            statuses.contains { $0.downloadingStatus == .notDownloaded }
            ? .notDownloaded : statuses.contains { $0.downloadingStatus == .downloaded } ? .downloaded : .current
        return UbiquitousItemStatus(
            isUploaded: statuses.allSatisfy(\.isUploaded), isUploading: statuses.contains(where: \.isUploading),
            isDownloading: statuses.contains(where: \.isDownloading),
            percentDownloaded: status == .current ? 100 : min(100, done / Double(total) * 100),
            percentUploaded: statuses.compactMap(\.percentUploaded).min(), downloadingStatus: status,
            downloadingError: statuses.compactMap(\.downloadingError).first, uploadingError: statuses.compactMap(\.uploadingError).first)
    }
}

/// What is known of an item's sync state.
public enum UbiquitousItemSyncState: Sendable, Hashable {
    /// The engine told it.
    case known(UbiquitousItemStatus)
    /// The engine could not be asked or gave nonsense: `reason` says why
    /// (stopped, unreachable, too slow, wrong key, garbage).
    case unknown(reason: String)
    /// The item's engine keeps no per-item state (a plain folder sync).
    case notTracked

    /// The status when known.
    public var status: UbiquitousItemStatus? {
        if case .known(let status) = self { return status }
        return nil
    }

    /// One word for a column: the status's summary, `unknown`, or `-`.
    public var summary: String {
        switch self {
        case .known(let status): status.summary
        case .unknown: "unknown"
        case .notTracked: "-"
        }
    }
}
