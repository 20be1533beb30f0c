import SystemPackage
import SystemSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A Syncthing device's REST API, asked over HTTP with its key, each call
/// given up at `timeout` seconds: a stopped, slow or confused engine makes
/// a call fail at once with the reason, never a hang.
public struct SyncthingClient: Sendable {
    /// `127.0.0.1:8384`.
    public var address: String
    /// The `X-API-Key`.
    public var apiKey: String
    /// Seconds each call may take in all.
    public var timeout: Double

    /// A client of the API at `address` with `apiKey`.
    public init(address: String, apiKey: String, timeout: Double = 1) {
        self.address = address
        self.apiKey = apiKey
        self.timeout = timeout
    }

    /// The answer to `GET target` decoded as `type`.
    ///
    /// - Throws: `UbiquityContainerError` `.engine` saying what failed:
    ///   nothing listening, the deadline, a refused key (403), another HTTP
    ///   status, or an answer that is not the JSON expected.
    public func get<Value: Decodable>(_ target: String, as type: Value.Type) throws(UbiquityContainerError) -> Value {
        try decode(request("GET", target), as: type, target: target)
    }

    /// `body`, the answer to `target`, decoded as `type`.
    func decode<Value: Decodable>(_ body: [UInt8], as type: Value.Type, target: String) throws(UbiquityContainerError) -> Value {
        do {
            // The body is decoded where it is, not copied (an answer can be megabytes).
            return try body.withUnsafeBytes { raw in
                guard let base = raw.baseAddress else { return try JSONDecoder().decode(Value.self, from: Data()) }
                return try JSONDecoder().decode(
                    Value.self, from: Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: raw.count, deallocator: .none))
            }
        } catch {
            throw UbiquityContainerError(
                .engine, pathText: address, place: target, "Syncthing's answer is not what its API gives (\(Self.describe(error))): \(Self.excerpt(body))")
        }
    }

    /// Sends `POST target` (an empty body), as `/rest/db/scan?folder=ID`.
    ///
    /// - Throws: as `get(_:as:)`.
    public func post(_ target: String) throws(UbiquityContainerError) {
        _ = try request("POST", target)
    }

    /// The body of the answer to `method target`, when its status is 200,
    /// within `timeout` (nil: the client's) unless `cancel` is readable first.
    func request(_ method: String, _ target: String, timeout: Double? = nil, cancel: Int32? = nil) throws(UbiquityContainerError) -> [UInt8] {
        try answer(to: begin(method, target, timeout: timeout, cancel: cancel))
    }

    /// A request sent, its answer not yet read: the engine makes it while the caller does other work.
    package struct PendingRequest {
        let exchange: PendingHTTPExchange
        let target: String
        let timeout: Double
        let deadline: Double
    }

    /// Sends `method target` and returns at once; `answer(to:)` reads the answer.
    ///
    /// - Throws: `UbiquityContainerError` `.engine` when it cannot be sent (nothing listening, the deadline).
    package func begin(_ method: String, _ target: String, timeout: Double? = nil, cancel: Int32? = nil) throws(UbiquityContainerError)
        -> PendingRequest
    {
        let timeout = timeout ?? self.timeout
        let deadline = monotonicNow() + timeout
        do throws(HTTPFailure) {
            let exchange = try PendingHTTPExchange(
                HTTPRequest(method: method, address: address, target: target, headers: [("X-API-Key", apiKey)]), timeout: timeout, cancel: cancel)
            return PendingRequest(exchange: exchange, target: target, timeout: timeout, deadline: deadline)
        } catch {
            throw failure(error, target: target, timeout: timeout)
        }
    }

    /// The body of the answer to `request`, when its status is 200, waiting until its deadline.
    ///
    /// - Throws: as `get(_:as:)`.
    package func answer(to request: PendingRequest) throws(UbiquityContainerError) -> [UInt8] {
        defer { request.exchange.close() }
        let response: HTTPResponse
        do throws(HTTPFailure) {
            response = try request.exchange.wait(until: request.deadline)
        } catch {
            throw failure(error, target: request.target, timeout: request.timeout)
        }
        switch response.status {
        case 200: return response.body
        case 401, 403:
            throw UbiquityContainerError(
                .engine, pathText: address, place: request.target,
                "Syncthing refused the API key (HTTP \(response.status)): give the key of its config.xml")
        default:
            throw UbiquityContainerError(
                .engine, pathText: address, place: request.target, "Syncthing answered HTTP \(response.status): \(Self.excerpt(response.body))")
        }
    }

    private func failure(_ error: HTTPFailure, target: String, timeout: Double) -> UbiquityContainerError {
        let reason =
            switch error.kind {
            case .timedOut: "Syncthing did not answer within \(timeout) s (\(error.description))"
            case .unreachable: "Syncthing is not answering (\(error.description))"
            case .address: "Syncthing's REST address cannot be used (\(error.description))"
            case .malformed: "what answers there is not Syncthing's REST API (\(error.description))"
            case .tooLarge: "Syncthing's answer is too long (\(error.description))"
            case .cancelled: "stopped before Syncthing answered"
            }
        return UbiquityContainerError(.engine, pathText: address, place: target, reason)
    }

    private static func excerpt(_ body: [UInt8]) -> String {
        let text = String(decoding: body.prefix(80), as: UTF8.self).map { $0.isNewline ? " " : $0 }
        return "'" + String(text) + (body.count > 80 ? "…'" : "'")
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context): "not JSON: \(context.debugDescription)"
        case DecodingError.keyNotFound(let key, _): "no '\(key.stringValue)'"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            "'\(context.codingPath.map(\.stringValue).joined(separator: "."))' is of another type"
        default: "\(error)"
        }
    }
}

/// One folder's sync state as a Syncthing device tells it at one moment:
/// what this device still needs, what each other device needs of it,
/// which devices are connected, the files the engine knows and the pull
/// errors. Read with a handful of REST calls, then asked per item without
/// further calls (`status(ofItemAt:)`).
public struct SyncthingFolderStatus: Sendable {
    /// The folder's ID.
    public var folderID: String
    /// The folder, with links resolved, as the kit's text for a path (each
    /// byte that is not UTF-8 as U+10FF00 + byte).
    package var folderText: String
    /// This device's ID.
    public var deviceID: String
    /// The other devices the folder is shared with.
    public var peers: [String]
    /// The devices connected now.
    public var connected: Set<String>
    /// Each file this device needs (relative path), true when it is being fetched now.
    var localNeed: [String: Bool] = [:]
    /// Each peer's needed files, and every folder above them.
    var remoteNeed: [String: Set<String>] = [:]
    /// Each file the engine knows (relative path) with its global size and kind.
    var global: [String: (size: Int64, isDirectory: Bool)] = [:]
    /// Each file's pull error.
    var pullErrors: [String: String] = [:]
    /// Each file being fetched: bytes done and in all.
    public var downloadProgress: [String: (done: Int64, total: Int64)] = [:]
    /// Each folder's files this device needs (every folder above each needed file).
    var localNeedUnder: [String: [String]] = [:]
    /// The folders browsed.
    var browsed: Set<String> = []
    /// The API asked, for `browse`.
    var client: SyncthingClient?

    /// Reads the state of the folder `folderID` at `folder` (its local
    /// path): what each device needs, who is connected, the pull errors,
    /// the download progress; the files the engine knows are read by
    /// `browse(_:)` for the folders whose items are asked about (a whole
    /// tree of 10,000 documents is megabytes of JSON the engine is slow to make).
    ///
    /// - Throws: `UbiquityContainerError` `.engine` when any call fails.
    package static func read(client: SyncthingClient, folderID: String, folder: String, peers: [String]) throws(UbiquityContainerError)
        -> SyncthingFolderStatus
    {
        try read(answering: beginRead(client: client, folderID: folderID, folder: folder, peers: peers))
    }

    /// The calls of `read(client:folderID:folder:peers:)` sent, not yet answered.
    package struct PendingRead {
        let client: SyncthingClient
        let folderID: String
        let folder: String
        let peers: [String]
        let system: SyncthingClient.PendingRequest
        let connections: SyncthingClient.PendingRequest
        let need: SyncthingClient.PendingRequest
        let errors: SyncthingClient.PendingRequest
        let events: SyncthingClient.PendingRequest
    }

    /// Sends the calls of `read(client:folderID:folder:peers:)` at once, for
    /// the engine to answer while the caller works (`read(answering:)`
    /// reads the answers); each other device's needs are asked once this
    /// device's ID is read.
    ///
    /// - Throws: `UbiquityContainerError` `.engine` when a call cannot be sent.
    package static func beginRead(client: SyncthingClient, folderID: String, folder: String, peers: [String]) throws(UbiquityContainerError)
        -> PendingRead
    {
        let id = Self.escape(folderID)
        return PendingRead(
            client: client, folderID: folderID, folder: folder, peers: peers,
            system: try client.begin("GET", "/rest/system/status"),
            connections: try client.begin("GET", "/rest/system/connections"),
            need: try client.begin("GET", "/rest/db/need?folder=\(id)&perpage=1000000"),
            errors: try client.begin("GET", "/rest/folder/errors?folder=\(id)&perpage=1000000"),
            events: try client.begin("GET", "/rest/events?since=0&limit=200&timeout=0"))
    }

    /// The folder's state from the answers to the calls `beginRead` sent.
    ///
    /// - Throws: as `read(client:folderID:folder:peers:)`.
    package static func read(answering pending: PendingRead) throws(UbiquityContainerError) -> SyncthingFolderStatus {
        let client = pending.client
        let id = Self.escape(pending.folderID)
        func answer<Value: Decodable>(_ request: SyncthingClient.PendingRequest, as type: Value.Type) throws(UbiquityContainerError) -> Value {
            try client.decode(client.answer(to: request), as: type, target: request.target)
        }
        let me = try answer(pending.system, as: SystemStatus.self).myID
        let peers = pending.peers.filter { $0 != me }
        // Each other device's needs, asked together while the rest is read.
        var remoteNeeds: [(String, SyncthingClient.PendingRequest)] = []
        for peer in peers {
            remoteNeeds.append((peer, try client.begin("GET", "/rest/db/remoteneed?folder=\(id)&device=\(Self.escape(peer))&perpage=1000000")))
        }
        let connections = try answer(pending.connections, as: Connections.self).connections
        var status = SyncthingFolderStatus(
            folderID: pending.folderID, folderText: UbiquityContainers.resolvedFolder(pending.folder), deviceID: me, peers: peers,
            connected: Set(connections.filter { $0.value.connected }.keys))
        status.client = client
        let need = try answer(pending.need, as: Need.self)
        for file in need.progress ?? [] { status.localNeed[file.name] = true }
        for file in (need.queued ?? []) + (need.rest ?? []) where status.localNeed[file.name] == nil { status.localNeed[file.name] = false }
        for name in status.localNeed.keys {
            for ancestor in Self.ancestors(of: name) { status.localNeedUnder[ancestor, default: []].append(name) }
        }
        for error in try answer(pending.errors, as: FolderErrors.self).errors ?? [] {
            status.pullErrors[error.path] = error.error
            for ancestor in Self.ancestors(of: error.path) where status.pullErrors[ancestor] == nil { status.pullErrors[ancestor] = error.error }
        }
        let events = try answer(pending.events, as: [Event].self)
        status.downloadProgress = downloadProgress(in: events.sorted { $0.id < $1.id }, folderID: pending.folderID)
        for (peer, request) in remoteNeeds {
            let files = try answer(request, as: FileList.self).files
            let names = Set((files ?? []).map(\.name))
            status.remoteNeed[peer] = names.union(names.flatMap(Self.ancestors))
        }
        return status
    }

    /// Each file's download as the events (oldest first) last told it: its
    /// counts from the latest `DownloadProgress` listing it, all of it once
    /// `ItemFinished` without an error, forgotten when `ItemStarted` begins
    /// it again. A file that has left the progress list but is still needed
    /// (the engine's index not yet updated) keeps its count: a percentage never falls back.
    static func downloadProgress(in events: [Event], folderID: String) -> [String: (done: Int64, total: Int64)] {
        var counts: [String: (done: Int64, total: Int64)] = [:]
        for event in events {
            switch event.type {
            case "DownloadProgress":
                for (name, file) in event.data?.progress?[folderID] ?? [:] { counts[name] = (file.bytesDone ?? 0, file.bytesTotal ?? 0) }
            case "ItemStarted" where event.data?.folder == folderID:
                if let item = event.data?.item { counts[item] = nil }
            case "ItemFinished" where event.data?.folder == folderID && event.data?.error == nil:
                if let item = event.data?.item, let known = counts[item] { counts[item] = (known.total, known.total) }
            default:
                break
            }
        }
        return counts
    }

    /// Reads which files and folders the engine knows in the folder
    /// `relativeFolder` (relative to the Syncthing folder, "" for its top),
    /// `levels` deep below it (0: only what is in it; nil: all the way
    /// down). Items asked about must be in a folder browsed so.
    ///
    /// - Throws: `UbiquityContainerError` `.engine` when the call fails.
    package mutating func browse(_ relativeFolder: String, levels: Int? = 0) throws(UbiquityContainerError) {
        guard let client else { return }
        try browse(relativeFolder, levels: levels, answer: client.request("GET", Self.browseTarget(folderID, relativeFolder, levels)))
    }

    /// The browse request of `browse(_:levels:)`, sent now for its answer to
    /// be read later by `browse(_:levels:answering:)`: the engine makes it while the caller works.
    ///
    /// - Throws: `UbiquityContainerError` `.engine` when it cannot be sent.
    package static func beginBrowse(_ relativeFolder: String, levels: Int? = 0, of endpoint: SyncthingEndpoint) throws(UbiquityContainerError)
        -> SyncthingClient.PendingRequest
    {
        try endpoint.client.begin("GET", browseTarget(endpoint.folderID, relativeFolder, levels))
    }

    /// `browse(_:levels:)` with its request sent earlier by `beginBrowse`.
    ///
    /// - Throws: as `browse(_:levels:)`.
    package mutating func browse(_ relativeFolder: String, levels: Int? = 0, answering request: SyncthingClient.PendingRequest)
        throws(UbiquityContainerError)
    {
        guard let client else { return }
        try browse(relativeFolder, levels: levels, answer: client.answer(to: request))
    }

    private static func browseTarget(_ folderID: String, _ relativeFolder: String, _ levels: Int?) -> String {
        var target = "/rest/db/browse?folder=\(escape(folderID))"
        if !relativeFolder.isEmpty { target += "&prefix=\(escape(relativeFolder))" }
        if let levels { target += "&levels=\(levels)" }
        return target
    }

    private mutating func browse(_ relativeFolder: String, levels: Int?, answer body: [UInt8]) throws(UbiquityContainerError) {
        guard let client else { return }
        let target = Self.browseTarget(folderID, relativeFolder, levels)
        // Syncthing answers a prefix that names nothing with an empty object instead of a list.
        guard body.first(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }) == UInt8(ascii: "[") else {
            browsed.insert(relativeFolder)
            return
        }
        let tree = try client.decode(body, as: [BrowseEntry].self, target: target)
        flatten(tree, prefix: relativeFolder.isEmpty ? "" : relativeFolder + "/", browsing: levels == nil)
        browsed.insert(relativeFolder)
    }

    /// Whether the folder `relativeFolder` was browsed (`browse(_:levels:)`).
    package func hasBrowsed(_ relativeFolder: String) -> Bool { browsed.contains(relativeFolder) }

    /// `path`'s folder relative to the Syncthing folder ("" for its top); nil outside it.
    package func relativeFolder(of path: String) -> String? { relativeFolder(ofResolved: UbiquityContainers.canonical(path)) }

    /// `relativeFolder(of:)` for a path whose folders are resolved already
    /// (no link, no `.` or `..` above the item): what a caller that
    /// resolved its search's root once uses for each item found below it.
    package func relativeFolder(ofResolved item: String) -> String? {
        guard let relative = PathName.relative(item, to: folderText), !relative.isEmpty else { return nil }
        return PathName.split(String(relative), bareNameFolder: "").folder
    }

    /// `path` relative to the Syncthing folder ("" for the folder itself); nil outside it.
    package func relativePath(of path: String) -> String? { Self.relativePath(of: path, in: folderText) }

    /// `path` relative to `folder` (links resolved, as `SyncthingEndpoint.folderPath`): "" for the folder itself, nil outside it.
    package static func relativePath(of path: String, in folder: String) -> String? {
        PathName.relative(UbiquityContainers.canonical(path), to: folder).map(String.init)
    }

    /// Every folder above `name` (`a/b/c` → `a/b`, `a`).
    static func ancestors(of name: String) -> [String] {
        var result: [String] = []
        var rest = name
        while case let folder = PathName.split(rest, bareNameFolder: "").folder, !folder.isEmpty, !PathName.same(folder, rest) {
            result.append(folder)
            rest = folder
        }
        return result
    }

    /// Records `entries` (and their children) as files the engine knows;
    /// with `browsing`, every folder among them as browsed too (the whole tree was asked for).
    private mutating func flatten(_ entries: [BrowseEntry], prefix: String, browsing: Bool) {
        for entry in entries {
            let name = prefix + entry.name
            let isDirectory = entry.type == "FILE_INFO_TYPE_DIRECTORY" || entry.type == "DIRECTORY"
            global[name] = (entry.size ?? 0, isDirectory)
            if isDirectory, browsing { browsed.insert(name) }
            if let children = entry.children { flatten(children, prefix: name + "/", browsing: browsing) }
        }
    }

    /// The state of the item at `path` (absolute, in the folder): for a
    /// folder or package, of every file inside together — downloading
    /// while any is needed here, uploaded once a device needs none of them.
    /// Reads only the item's status (`lstat`); its folder must have been
    /// browsed (`browse(_:levels:)`) for the engine to be known to have it.
    package func status(ofItemAt path: String) -> UbiquitousItemStatus { status(ofResolvedItemAt: UbiquityContainers.canonical(path)) }

    /// `status(ofItemAt:)` for a path whose folders are resolved already
    /// (see `relativeFolder(ofResolved:)`): the item's status is read
    /// only when the engine does not know its kind or it is needed here.
    package func status(ofResolvedItemAt item: String) -> UbiquitousItemStatus {
        let relative = PathName.relative(item, to: folderText).map(String.init) ?? ""
        let known = global[relative]
        var info: FileInfo?? = nil
        func itemInfo() -> FileInfo? {
            if info == nil { info = .some(try? FileInfo.of(path: item, followingLink: false)) }
            return info!
        }
        let isDirectory = known?.isDirectory ?? (itemInfo()?.kind == .directory)
        var status = UbiquitousItemStatus(
            isUploaded: false, isUploading: false, isDownloading: false, percentDownloaded: 100, downloadingStatus: .current,
            downloadingError: pullErrors[relative])
        let needed = isDirectory ? localNeedUnder[relative] ?? [] : localNeed[relative] != nil ? [relative] : []
        if !needed.isEmpty {
            status.downloadingStatus = itemInfo() == nil ? .notDownloaded : .downloaded
            let progress = needed.compactMap { downloadProgress[$0] }
            status.isDownloading = needed.contains { localNeed[$0] == true } || !progress.isEmpty
            let total = progress.reduce(Int64(0)) { $0 + $1.total }
            let done = progress.reduce(Int64(0)) { $0 + $1.done }
            status.percentDownloaded = total > 0 ? min(100, Double(done) / Double(total) * 100) : 0
            return status
        }
        // Not among the files the engine knows: only here (not scanned yet, or never synced, as a name that is not UTF-8).
        guard relative.isEmpty || known != nil else { return status }
        status.isUploaded = peers.contains { remoteNeed[$0]?.contains(relative) == false }
        status.isUploading = !status.isUploaded && peers.contains { connected.contains($0) && remoteNeed[$0]?.contains(relative) == true }
        return status
    }

    /// `text` escaped for a query string.
    static func escape(_ text: String) -> String {
        var escaped = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
                escaped.append(Character(Unicode.Scalar(byte)))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                escaped += "%" + (hex.count == 1 ? "0" : "") + hex
            }
        }
        return escaped
    }

    // MARK: The API's answers, as far as they are read

    private struct SystemStatus: Decodable { var myID: String }
    private struct Connections: Decodable {
        struct Connection: Decodable { var connected: Bool }
        var connections: [String: Connection]
    }
    private struct FileEntry: Decodable { var name: String }
    private struct Need: Decodable {
        var progress: [FileEntry]?
        var queued: [FileEntry]?
        var rest: [FileEntry]?
    }
    private struct FileList: Decodable { var files: [FileEntry]? }
    private struct BrowseEntry: Decodable {
        var name: String
        var size: Int64?
        var type: String?
        var children: [BrowseEntry]?
    }
    private struct FolderErrors: Decodable {
        struct Entry: Decodable {
            var path: String
            var error: String
        }
        var errors: [Entry]?
    }
    struct Event: Decodable {
        struct Progress: Decodable {
            var bytesDone: Int64?
            var bytesTotal: Int64?
        }
        struct Payload: Decodable {
            var progress: [String: [String: Progress]]?
            var folder: String?
            /// ItemStarted's and ItemFinished's file.
            var item: String?
            /// ItemFinished's error; nil when it finished well.
            var error: String?

            init(from decoder: any Decoder) throws {
                // DownloadProgress's data is the progress itself (folder → file → counts); other events' are objects of their own.
                progress = try? [String: [String: Progress]](from: decoder)
                let fields = try? decoder.container(keyedBy: Key.self)
                folder = try? fields?.decode(String.self, forKey: Key(stringValue: "folder")!)
                item = try? fields?.decode(String.self, forKey: Key(stringValue: "item")!)
                error = try? fields?.decode(String.self, forKey: Key(stringValue: "error")!)
            }
        }
        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init?(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }
        var id: Int
        var type: String
        var data: Payload?
    }
}
