import SystemPackage
import SystemSupport

/// Where a container's Syncthing device answers, and which of its folders
/// holds the container.
public struct SyncthingEndpoint: Sendable {
    /// The device's REST API.
    public var client: SyncthingClient
    /// The Syncthing folder holding the container.
    public var folderID: String
    /// That folder's path, with links resolved, as the kit's text for a path
    /// (each byte that is not UTF-8 as U+10FF00 + byte).
    package var folderPathText: String
    /// That folder's path, with links resolved.
    public var folderPath: FilePath {
        get { RawFileName.filePath(folderPathText) }
        set { folderPathText = RawFileName.text(newValue) }
    }
    /// The devices the folder is shared with.
    public var devices: [String]
    /// The device's configuration, when it was read (nil when the address
    /// and key were given and no `config.xml` was found).
    public var configuration: SyncthingConfiguration?

    /// The folder's state now.
    ///
    /// - Throws: `UbiquityContainerError` `.engine` when the engine cannot be asked.
    public func folderStatus() throws(UbiquityContainerError) -> SyncthingFolderStatus {
        try SyncthingFolderStatus.read(client: client, folderID: folderID, folder: folderPathText, peers: devices)
    }

    /// `folderStatus()`'s calls sent now, answered later by `folderStatus(answering:)`.
    ///
    /// - Throws: `UbiquityContainerError` `.engine` when a call cannot be sent.
    package func beginFolderStatus() throws(UbiquityContainerError) -> SyncthingFolderStatus.PendingRead {
        try SyncthingFolderStatus.beginRead(client: client, folderID: folderID, folder: folderPathText, peers: devices)
    }

    /// The folder's state from the calls `beginFolderStatus()` sent.
    ///
    /// - Throws: as `folderStatus()`.
    package func folderStatus(answering pending: SyncthingFolderStatus.PendingRead) throws(UbiquityContainerError) -> SyncthingFolderStatus {
        try SyncthingFolderStatus.read(answering: pending)
    }

    /// The ID of the engine's latest event (0 before any): where a
    /// follower of its events starts so that nothing after now is missed.
    ///
    /// - Throws: `UbiquityContainerError` `.engine` when the call fails.
    package func latestEventID() throws(UbiquityContainerError) -> Int {
        try client.get("/rest/events?since=0&limit=1&timeout=0", as: [SyncthingFolderStatus.Event].self).last?.id ?? 0
    }
}

extension UbiquityContainers {
    /// The Syncthing device and folder keeping `container`; nil for a plain folder engine.
    ///
    /// - Throws: `UbiquityContainerError` `.notFound` or `.configuration`
    ///   when Syncthing's `config.xml` cannot be read and no address and key
    ///   are given, `.engine` when its API is served over TLS, `.notConfigured`
    ///   when no Syncthing folder holds the container. Reads `config.xml`.
    public static func syncthingEndpoint(of container: UbiquityContainer, timeout: Double = 1) throws(UbiquityContainerError) -> SyncthingEndpoint? {
        guard case .syncthing(let home, let folderID) = container.engine else { return nil }
        var configuration: SyncthingConfiguration?
        var lastError: UbiquityContainerError?
        for folder in home.map({ [$0] }) ?? syncthingHomes() {
            do throws(UbiquityContainerError) {
                configuration = try SyncthingConfiguration.read(home: folder)
                break
            } catch {
                lastError = error
            }
        }
        let address = container.engineAddress ?? configuration?.address
        let key = container.engineAPIKey ?? configuration?.apiKey
        guard let address, let key else {
            throw lastError ?? UbiquityContainerError(.notFound, pathText: container.folderText, "no Syncthing configuration found for this container")
        }
        if configuration?.usesTLS == true, container.engineAddress == nil {
            throw UbiquityContainerError(
                .engine, pathText: address, "Syncthing serves its API over HTTPS, which ICTKit does not speak: set EngineAddress to a plain HTTP address")
        }
        let folder = configuration?.folder(id: folderID, containing: container.folderText)
        guard let id = folder?.id ?? folderID else {
            throw UbiquityContainerError(
                .notConfigured, pathText: container.folderText, "no Syncthing folder of \(home ?? "the default home") holds this container")
        }
        return SyncthingEndpoint(
            client: SyncthingClient(address: address, apiKey: key, timeout: timeout), folderID: id,
            folderPathText: resolvedFolder(folder?.pathText ?? container.folderText),
            devices: folder?.devices ?? [], configuration: configuration)
    }

    /// The sync state of the item at `path`, read from its container's
    /// engine now (a handful of REST calls): `.notTracked` outside
    /// containers and for a plain folder engine, `.unknown` with the
    /// reason when the engine cannot be asked within `timeout` seconds.
    package func syncState(ofItemAt path: String, timeout: Double = 1) -> UbiquitousItemSyncState {
        do throws(UbiquityContainerError) {
            guard let container = try container(containing: path), let endpoint = try Self.syncthingEndpoint(of: container, timeout: timeout) else {
                return .notTracked
            }
            var folder = try endpoint.folderStatus()
            if let relative = folder.relativeFolder(of: path) { try folder.browse(relative) }
            return .known(folder.status(ofItemAt: path))
        } catch {
            return .unknown(reason: error.description)
        }
    }

    /// The name the engine knows the device by that a conflict copy of the
    /// item at `path` names as `device` (Syncthing: the first seven
    /// characters of its ID); nil when the engine does not know it (or
    /// keeps no device list). Reads the engine's configuration.
    package func deviceName(ofConflictDevice device: String, itemAt path: String) -> String? {
        guard let container = (try? container(containing: path)) ?? nil,
            let endpoint = (try? Self.syncthingEndpoint(of: container)) ?? nil
        else { return nil }
        return endpoint.configuration?.deviceName(of: device)
    }
}

/// The sync states of many items, each container's engine asked once (its
/// folder's state read on first need and kept): what a listing of a
/// folder of documents uses, rather than a handful of REST calls per item.
public struct SyncStateReader {
    private let containers: [UbiquityContainer]
    private let timeout: Double
    private var folders: [String: Result<SyncthingFolderStatus, UbiquityContainerError>?] = [:]

    /// A reader of the states of items in `containers`' containers.
    ///
    /// - Throws: `UbiquityContainerError` `.configuration` when the configuration cannot be read.
    public init(containers: UbiquityContainers = .current, timeout: Double = 1) throws(UbiquityContainerError) {
        self.containers = try containers.all()
        self.timeout = timeout
    }

    /// The state of the item at `path`: `.notTracked` outside containers
    /// and for a plain folder sync, `.unknown` when the engine cannot be asked.
    package mutating func state(ofItemAt path: String) -> UbiquitousItemSyncState {
        guard !containers.isEmpty else { return .notTracked }
        let item = UbiquityContainers.canonical(path)
        guard let container = containers.first(where: { $0.contains(item) }) else { return .notTracked }
        if folders[container.identifier] == nil {
            do throws(UbiquityContainerError) {
                folders[container.identifier] = try UbiquityContainers.syncthingEndpoint(of: container, timeout: timeout).map { endpoint in
                    Result { () throws(UbiquityContainerError) in try endpoint.folderStatus() }
                }
            } catch {
                folders[container.identifier] = .some(.failure(error))
            }
        }
        if case .some(.some(.success(var folder))) = folders[container.identifier], let relative = folder.relativeFolder(ofResolved: item),
            !folder.hasBrowsed(relative)
        {
            // Each folder of the listing is browsed once, only what is in it.
            do throws(UbiquityContainerError) {
                try folder.browse(relative)
                folders[container.identifier] = .some(.success(folder))
            } catch {
                folders[container.identifier] = .some(.failure(error))
            }
        }
        switch folders[container.identifier] {
        case .some(.some(.success(let folder))): return .known(folder.status(ofResolvedItemAt: item))
        case .some(.some(.failure(let error))): return .unknown(reason: error.description)
        default: return .notTracked
        }
    }
}
