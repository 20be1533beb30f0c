import SystemPackage
import SystemSupport

// The public forms of the calls that name an item: each takes a `FilePath`,
// byte for byte, valid UTF-8 or not. (The `String` forms are `package`: the
// kit's own callers hold names as text, each byte that is not UTF-8 carried
// as U+10FF00 + byte.)

extension UbiquityContainers {
    /// The container whose folder holds `path` (a link in the path's folders
    /// resolved), nil for none.
    ///
    /// - Throws: as `configuration()`. Reads the configuration file.
    public func container(containing path: FilePath) throws(UbiquityContainerError) -> UbiquityContainer? {
        try container(containing: RawFileName.text(path))
    }

    /// Whether `path` is in a container (Apple's `isUbiquitousItem(at:)`);
    /// false when the configuration cannot be read. Reads the configuration file.
    public func isUbiquitousItem(_ path: FilePath) -> Bool {
        isUbiquitousItem(RawFileName.text(path))
    }

    /// Apple's `startDownloadingUbiquitousItem(at:)`: a folder sync keeps a
    /// whole copy of every item on every device, so an item present is
    /// already downloaded and nothing is to be done.
    ///
    /// - Throws: `UbiquityContainerError` `.notInContainer`, or `.notFound`
    ///   when the engine has not brought the item (it downloads everything
    ///   by itself: the item comes as soon as it syncs).
    public func startDownloadingItem(at path: FilePath) throws(UbiquityContainerError) {
        try startDownloadingItem(at: RawFileName.text(path))
    }

    /// Apple's `evictUbiquitousItem(at:)`, which no folder sync can do.
    ///
    /// - Throws: `UbiquityContainerError` `.notInContainer`, else always
    ///   `.unsupported`: the engine keeps a whole copy of every item on every
    ///   device and has no placeholder to leave in its place.
    public func evictItem(at path: FilePath) throws(UbiquityContainerError) {
        try evictItem(at: RawFileName.text(path))
    }

    /// The sync state of the item at `path`, read from its container's
    /// engine now (a handful of REST calls): `.notTracked` outside
    /// containers and for a plain folder engine, `.unknown` with the
    /// reason when the engine cannot be asked within `timeout` seconds.
    public func syncState(ofItemAt path: FilePath, timeout: Double = 1) -> UbiquitousItemSyncState {
        syncState(ofItemAt: RawFileName.text(path), timeout: timeout)
    }

    /// The name the engine knows the device by that a conflict copy of the
    /// item at `path` names as `device` (Syncthing: the first seven
    /// characters of its ID); nil when the engine does not know it (or
    /// keeps no device list). Reads the engine's configuration.
    public func deviceName(ofConflictDevice device: String, itemAt path: FilePath) -> String? {
        deviceName(ofConflictDevice: device, itemAt: RawFileName.text(path))
    }
}

extension SyncStateReader {
    /// The state of the item at `path`: `.notTracked` outside containers
    /// and for a plain folder sync, `.unknown` when the engine cannot be
    /// asked. The engine of its container is asked once, on first need.
    public mutating func state(ofItemAt path: FilePath) -> UbiquitousItemSyncState {
        state(ofItemAt: RawFileName.text(path))
    }
}

extension SyncthingFolderStatus {
    /// The folder, with links resolved.
    public var folder: FilePath {
        get { RawFileName.filePath(folderText) }
        set { folderText = RawFileName.text(newValue) }
    }

    /// Reads the state of the folder `folderID` at `folder` (its local
    /// path): what each device needs, who is connected, the pull errors,
    /// the download progress; the files the engine knows are read by
    /// `browse(_:)` for the folders whose items are asked about.
    ///
    /// - Throws: `UbiquityContainerError` `.engine` when any call fails.
    public static func read(client: SyncthingClient, folderID: String, folder: FilePath, peers: [String]) throws(UbiquityContainerError)
        -> SyncthingFolderStatus
    {
        try read(client: client, folderID: folderID, folder: RawFileName.text(folder), peers: peers)
    }

    /// Reads which files and folders the engine knows in the folder
    /// `relativeFolder` (relative to the Syncthing folder, empty for its
    /// top), `levels` deep below it (0: only what is in it; nil: all the way
    /// down). Items asked about must be in a folder browsed so.
    ///
    /// - Throws: `UbiquityContainerError` `.engine` when the call fails.
    public mutating func browse(_ relativeFolder: FilePath, levels: Int? = 0) throws(UbiquityContainerError) {
        try browse(RawFileName.text(relativeFolder), levels: levels)
    }

    /// Whether the folder `relativeFolder` was browsed (`browse(_:levels:)`).
    public func hasBrowsed(_ relativeFolder: FilePath) -> Bool { hasBrowsed(RawFileName.text(relativeFolder)) }

    /// `path`'s folder relative to the Syncthing folder (empty for its top);
    /// nil outside it. Resolves the links of `path`'s folders.
    public func relativeFolder(of path: FilePath) -> FilePath? {
        relativeFolder(of: RawFileName.text(path)).map(RawFileName.filePath)
    }

    /// `path` relative to the Syncthing folder (empty for the folder
    /// itself); nil outside it. Resolves the links of `path`'s folders.
    public func relativePath(of path: FilePath) -> FilePath? {
        relativePath(of: RawFileName.text(path)).map(RawFileName.filePath)
    }

    /// `path` relative to `folder` (links resolved, as
    /// `SyncthingEndpoint.folderPath`): empty for the folder itself, nil
    /// outside it. Resolves the links of `path`'s folders.
    public static func relativePath(of path: FilePath, in folder: FilePath) -> FilePath? {
        relativePath(of: RawFileName.text(path), in: RawFileName.text(folder)).map(RawFileName.filePath)
    }

    /// The state of the item at `path` (absolute, in the folder): for a
    /// folder or package, of every file inside together — downloading
    /// while any is needed here, uploaded once a device needs none of them.
    /// Reads only the item's status (`lstat`); its folder must have been
    /// browsed (`browse(_:levels:)`) for the engine to be known to have it.
    public func status(ofItemAt path: FilePath) -> UbiquitousItemStatus { status(ofItemAt: RawFileName.text(path)) }
}
