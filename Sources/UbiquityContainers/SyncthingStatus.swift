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
            return try JSONDecoder().decode(Value.self, from: Data(body))
        } catch {
            throw UbiquityContainerError(
                .engine, path: address, place: target, "Syncthing's answer is not what its API gives (\(Self.describe(error))): \(Self.excerpt(body))")
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
        let timeout = timeout ?? self.timeout
        let response: HTTPResponse
        do throws(HTTPFailure) {
            response = try HTTPExchange.perform(
                HTTPRequest(method: method, address: address, target: target, headers: [("X-API-Key", apiKey)]), timeout: timeout, cancel: cancel)
        } catch {
            let reason =
                switch error.kind {
                case .timedOut: "Syncthing did not answer within \(timeout) s (\(error.description))"
                case .unreachable: "Syncthing is not answering (\(error.description))"
                case .address: "Syncthing's REST address cannot be used (\(error.description))"
                case .malformed: "what answers there is not Syncthing's REST API (\(error.description))"
                case .tooLarge: "Syncthing's answer is too long (\(error.description))"
                case .cancelled: "stopped before Syncthing answered"
                }
            throw UbiquityContainerError(.engine, path: address, place: target, reason)
        }
        switch response.status {
        case 200: return response.body
        case 401, 403:
            throw UbiquityContainerError(
                .engine, path: address, place: target, "Syncthing refused the API key (HTTP \(response.status)): give the key of its config.xml")
        default:
            throw UbiquityContainerError(.engine, path: address, place: target, "Syncthing answered HTTP \(response.status): \(Self.excerpt(response.body))")
        }
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
    /// The folder, with links resolved.
    public var folder: String
    /// This device's ID.
    public var deviceID: String
    /// The other devices the folder is shared with.
    public var peers: [String]
    /// The devices connected now.
    public var connected: Set<String>
    /// Each file this device needs (relative path), true when it is being fetched now.
    var localNeed: [String: Bool] = [:]
    /// Each peer's needed files.
    var remoteNeed: [String: Set<String>] = [:]
    /// Each file the engine knows (relative path) with its global size and kind.
    var global: [String: (size: Int64, isDirectory: Bool)] = [:]
    /// Each file's pull error.
    var pullErrors: [String: String] = [:]
    /// Each file being fetched: bytes done and in all.
    public var downloadProgress: [String: (done: Int64, total: Int64)] = [:]

    /// Reads the state of the folder `folderID` at `folder` (its local path).
    ///
    /// - Throws: `UbiquityContainerError` `.engine` when any call fails.
    public static func read(client: SyncthingClient, folderID: String, folder: String, peers: [String]) throws(UbiquityContainerError)
        -> SyncthingFolderStatus
    {
        let id = Self.escape(folderID)
        let me = try client.get("/rest/system/status", as: SystemStatus.self).myID
        let connections = try client.get("/rest/system/connections", as: Connections.self).connections
        var status = SyncthingFolderStatus(
            folderID: folderID, folder: UbiquityContainers.resolvedFolder(folder), deviceID: me, peers: peers.filter { $0 != me },
            connected: Set(connections.filter { $0.value.connected }.keys))
        let need = try client.get("/rest/db/need?folder=\(id)&perpage=1000000", as: Need.self)
        for file in need.progress ?? [] { status.localNeed[file.name] = true }
        for file in (need.queued ?? []) + (need.rest ?? []) where status.localNeed[file.name] == nil { status.localNeed[file.name] = false }
        for peer in status.peers {
            let files = try client.get("/rest/db/remoteneed?folder=\(id)&device=\(Self.escape(peer))&perpage=1000000", as: FileList.self).files
            status.remoteNeed[peer] = Set((files ?? []).map(\.name))
        }
        let tree = try client.get("/rest/db/browse?folder=\(id)", as: [BrowseEntry].self)
        status.flatten(tree, prefix: "")
        for error in try client.get("/rest/folder/errors?folder=\(id)&perpage=1000000", as: FolderErrors.self).errors ?? [] {
            status.pullErrors[error.path] = error.error
        }
        let events = try client.get("/rest/events?since=0&limit=200&timeout=0", as: [Event].self)
        if let progress = events.last(where: { $0.type == "DownloadProgress" })?.data?.progress?[folderID] {
            for (name, file) in progress { status.downloadProgress[name] = (file.bytesDone ?? 0, file.bytesTotal ?? 0) }
        }
        return status
    }

    private mutating func flatten(_ entries: [BrowseEntry], prefix: String) {
        for entry in entries {
            let name = prefix + entry.name
            let isDirectory = entry.type == "FILE_INFO_TYPE_DIRECTORY" || entry.type == "DIRECTORY"
            global[name] = (entry.size ?? 0, isDirectory)
            if let children = entry.children { flatten(children, prefix: name + "/") }
        }
    }

    /// The state of the item at `path` (absolute, in the folder): for a
    /// folder or package, of every file inside combined
    /// (`UbiquitousItemStatus.combining`). Reads only the item's status (`lstat`).
    public func status(ofItemAt path: String) -> UbiquitousItemStatus {
        let item = UbiquityContainers.canonical(path)
        let relative = item == folder ? "" : String(item.dropFirst(folder == "/" ? 1 : folder.count + 1))
        let isDirectory = global[relative]?.isDirectory ?? ((try? FileInfo.of(path: item, followingLink: false))?.kind == .directory)
        guard isDirectory else { return fileStatus(relative, exists: (try? FileInfo.of(path: item, followingLink: false)) != nil) }
        let prefix = relative.isEmpty ? "" : relative + "/"
        var names = Set(global.filter { $0.key.hasPrefix(prefix) && !$0.value.isDirectory }.map(\.key))
        names.formUnion(localNeed.keys.filter { $0.hasPrefix(prefix) })
        let sorted = names.sorted()
        let statuses = sorted.map { fileStatus($0, exists: (try? FileInfo.of(path: folder + "/" + $0, followingLink: false)) != nil) }
        var combined = UbiquitousItemStatus.combining(statuses, sizes: sorted.map { global[$0]?.size ?? 0 })
        if global[relative] == nil {  // The package itself is not indexed yet: it has not left this device.
            combined.isUploaded = false
        }
        return combined
    }

    private func fileStatus(_ name: String, exists: Bool) -> UbiquitousItemStatus {
        let known = global[name] != nil
        var status = UbiquitousItemStatus(
            isUploaded: false, isUploading: false, isDownloading: false, percentDownloaded: 100, downloadingStatus: .current,
            downloadingError: pullErrors[name])
        if let fetching = localNeed[name] {
            status.downloadingStatus = exists ? .downloaded : .notDownloaded
            let progress = downloadProgress[name]
            status.isDownloading = fetching || progress != nil
            status.percentDownloaded = progress.map { $0.total > 0 ? min(100, Double($0.done) / Double($0.total) * 100) : 0 } ?? 0
            return status
        }
        guard known else { return status }  // Not indexed yet: only here.
        status.isUploaded = peers.contains { remoteNeed[$0]?.contains(name) == false }
        status.isUploading = !status.isUploaded && peers.contains { connected.contains($0) && remoteNeed[$0]?.contains(name) == true }
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

            init(from decoder: any Decoder) throws {
                // DownloadProgress's data is the progress itself (folder → file → counts); other events' are objects of their own.
                progress = try? [String: [String: Progress]](from: decoder)
                folder = try? decoder.container(keyedBy: Key.self).decode(String.self, forKey: Key(stringValue: "folder")!)
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
