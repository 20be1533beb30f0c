import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Real Syncthing devices on loopback, for tests of documents in a synced
/// folder: each device is a `syncthing serve` process of its own home, with
/// discovery, relays, NAT and upgrades off and its peers dialled at
/// `tcp://127.0.0.1:PORT`, all sharing one folder. Started one after another
/// (two dialling each other at the same instant can stall for seconds),
/// stopped by `stop()`. Every wait is bounded: it ends when what it waits for
/// is true, checking again after each event the device reports
/// (`/rest/events`, a long poll), and throws `Failure` at its deadline.
/// Debian's `syncthing` package (`scripts/install-deps.sh test`).
public final class SyncthingDevices {
    /// One device: its home, its synced folder and its REST address.
    public struct Device: Sendable {
        /// The device's ID, as Syncthing names it to its peers.
        public let id: String
        /// Its configuration folder (`config.xml`, keys, database).
        public let home: String
        /// The folder it keeps in sync.
        public let folder: String
        /// Its GUI and REST address, `127.0.0.1:PORT`.
        public let restAddress: String
        /// The REST API's key (`X-API-Key`).
        public let apiKey: String
        /// Its sync protocol's port on loopback.
        let listenPort: Int
    }

    /// What went wrong starting, asking or waiting for a device.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    /// The folder's ID on every device.
    public static let folderID = "documents"
    /// Whether Syncthing is installed.
    public static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: executable) }
    static let executable = "/usr/bin/syncthing"

    /// The devices, in the order they were made.
    public let devices: [Device]
    /// The folder holding every device's home and synced folder, removed by `stop()`.
    public let root: String
    private var processes: [Int: Process] = [:]
    private var lastEventID: [Int: Int] = [:]

    /// Makes `count` devices under a new scratch folder, each knowing every
    /// other, all sharing `folderID`, and starts them one after another,
    /// waiting until every pair is connected.
    ///
    /// - Throws: `Failure` when Syncthing is missing, a device cannot be
    ///   made or started, or the devices do not connect within `deadline` seconds.
    public init(count: Int, deadline: Double = 60) throws {
        guard Self.isInstalled else { throw Failure(description: "syncthing is not installed (scripts/install-deps.sh test installs it)") }
        root = FileManager.default.temporaryDirectory.appendingPathComponent("syncthing-\(UUID().uuidString)").path
        var made: [Device] = []
        for index in 0..<count {
            let home = "\(root)/home\(index)"
            let folder = "\(root)/device\(index)"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let generated = try Self.runTool(Self.executable, ["generate", "--home=\(home)", "--no-default-folder"])
            guard let idLine = generated.split(separator: "\n").first(where: { $0.contains("Device ID:") }) else {
                throw Failure(description: "syncthing generate printed no device ID: \(generated)")
            }
            let id = String(idLine[idLine.range(of: "Device ID:")!.upperBound...]).trimmingCharacters(in: .whitespaces)
            made.append(
                Device(
                    id: id, home: home, folder: folder, restAddress: "127.0.0.1:\(try Self.freePort())",
                    apiKey: "ictkit-test-\(index)-\(UUID().uuidString.prefix(8))", listenPort: try Self.freePort()))
        }
        devices = made
        for index in devices.indices {
            try Self.configuration(of: index, among: devices).write(toFile: devices[index].home + "/config.xml", atomically: true, encoding: .utf8)
        }
        for index in devices.indices { try start(index) }
        try waitUntil("every device connected to every other", deadline: deadline) {
            try self.devices.indices.allSatisfy { try self.connectedPeers(of: $0) == self.devices.count - 1 }
        }
    }

    deinit { stop() }

    /// The `config.xml` of device `index`: its own GUI and listening address,
    /// every other device at its loopback address, the shared folder with a
    /// one-second watcher, and nothing that reaches past this machine.
    static func configuration(of index: Int, among devices: [Device]) -> String {
        let me = devices[index]
        let deviceElements = devices.enumerated().map { other, device in
            """
                <device id="\(device.id)" name="device\(other)" compression="metadata" introducer="false">
                    <address>\(other == index ? "dynamic" : "tcp://127.0.0.1:\(device.listenPort)")</address>
                    <autoAcceptFolders>false</autoAcceptFolders>
                </device>
            """
        }.joined(separator: "\n")
        let sharedWith = devices.map { "        <device id=\"\($0.id)\"></device>" }.joined(separator: "\n")
        return """
            <configuration version="36">
                <folder id="\(folderID)" label="\(folderID)" path="\(me.folder)" type="sendreceive" rescanIntervalS="3600" fsWatcherEnabled="true" fsWatcherDelayS="1" ignorePerms="false" autoNormalize="true">
                    <filesystemType>basic</filesystemType>
            \(sharedWith)
                    <maxConflicts>10</maxConflicts>
                    <markerName>.stfolder</markerName>
                </folder>
            \(deviceElements)
                <gui enabled="true" tls="false" debugging="false">
                    <address>\(me.restAddress)</address>
                    <apikey>\(me.apiKey)</apikey>
                </gui>
                <options>
                    <listenAddress>tcp://127.0.0.1:\(me.listenPort)</listenAddress>
                    <globalAnnounceEnabled>false</globalAnnounceEnabled>
                    <localAnnounceEnabled>false</localAnnounceEnabled>
                    <relaysEnabled>false</relaysEnabled>
                    <natEnabled>false</natEnabled>
                    <reconnectionIntervalS>1</reconnectionIntervalS>
                    <startBrowser>false</startBrowser>
                    <urAccepted>-1</urAccepted>
                    <autoUpgradeIntervalH>0</autoUpgradeIntervalH>
                    <crashReportingEnabled>false</crashReportingEnabled>
                    <progressUpdateIntervalS>1</progressUpdateIntervalS>
                </options>
            </configuration>
            """
    }

    /// Starts device `index` (one process: `STMONITORED`), waiting until its REST API answers.
    ///
    /// - Throws: `Failure` when it cannot start, exits before answering
    ///   (with the end of its log), or does not answer within 90 seconds.
    public func start(_ index: Int) throws {
        let device = devices[index]
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.executable)
        process.arguments = [
            "serve", "--home=\(device.home)", "--no-browser", "--no-restart", "--no-upgrade", "--no-default-folder", "--skip-port-probing",
        ]
        var environment = ProcessInfo.processInfo.environment
        environment["STMONITORED"] = "1"
        environment["STNOUPGRADE"] = "1"
        process.environment = environment
        if !FileManager.default.fileExists(atPath: device.home + "/log") {
            FileManager.default.createFile(atPath: device.home + "/log", contents: nil)
        }
        guard let log = FileHandle(forWritingAtPath: device.home + "/log") else { throw Failure(description: "cannot open \(device.home)/log") }
        log.seekToEndOfFile()
        process.standardOutput = log
        process.standardError = log
        try process.run()
        processes[index] = process
        lastEventID[index] = 0
        // Bounded: 90 s is far past a start on an idle machine (under a second)
        // and leaves room for one beside every other suite on two cores. A
        // device that exits (its port taken, say) is reported at once, with its log.
        let end = Date().addingTimeInterval(90)
        while Date() < end {
            if (try? rest(index, "/rest/system/ping", timeout: 5)) != nil { return }
            guard process.isRunning else {
                processes[index] = nil
                let text = (try? String(contentsOfFile: device.home + "/log", encoding: .utf8)) ?? ""
                let tail = text.split(separator: "\n").suffix(8).joined(separator: "\n")
                let status = process.terminationStatus
                throw Failure(description: "device \(index) exited with status \(status) before answering on \(device.restAddress):\n\(tail)")
            }
            usleep(20_000)
        }
        throw Failure(description: "waited 90 s for device \(index) answering on \(device.restAddress)")
    }

    /// Stops device `index` (SIGTERM, then SIGKILL after 10 seconds), waiting for its process.
    /// Kills device `index`'s process at once (SIGKILL), as a crash or a
    /// power cut would end it mid-transfer; `start(_:)` starts it again.
    public func crash(_ index: Int) {
        guard let process = processes.removeValue(forKey: index) else { return }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    public func stop(_ index: Int) {
        guard let process = processes.removeValue(forKey: index) else { return }
        guard process.isRunning else { return }
        process.terminate()
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning, Date() < deadline { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Stops every device and removes every folder.
    public func stop() {
        for index in Array(processes.keys) { stop(index) }
        try? FileManager.default.removeItem(atPath: root)
    }

    // MARK: REST

    /// The body of a REST call to device `index` (`curl`, 30 seconds at most).
    ///
    /// - Throws: `Failure` when the call fails or answers with an HTTP error.
    @discardableResult
    public func rest(_ index: Int, _ path: String, method: String = "GET", body: String? = nil, timeout: Int = 30) throws -> Data {
        let device = devices[index]
        let output = try Self.runTool(
            "/usr/bin/curl",
            ["-sS", "--fail", "--max-time", String(timeout), "-X", method, "-H", "X-API-Key: \(device.apiKey)"]
                + (body.map { ["-H", "Content-Type: application/json", "--data", $0] } ?? []) + ["http://\(device.restAddress)\(path)"])
        return Data(output.utf8)
    }

    /// Asks device `index` to scan `subPath` (or the whole folder) now, rather than after its watcher's delay.
    public func scan(_ index: Int, _ subPath: String? = nil) throws {
        let sub = subPath.map { "&sub=" + ($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? $0) } ?? ""
        try rest(index, "/rest/db/scan?folder=\(Self.folderID)\(sub)", method: "POST")
    }

    /// How many peers device `index` is connected to now.
    public func connectedPeers(of index: Int) throws -> Int {
        let body = try rest(index, "/rest/system/connections")
        guard let object = try JSONSerialization.jsonObject(with: body) as? [String: Any],
            let connections = object["connections"] as? [String: [String: Any]]
        else { throw Failure(description: "device \(index): /rest/system/connections answered \(String(decoding: body, as: UTF8.self))") }
        return connections.filter { $0.key != devices[index].id && ($0.value["connected"] as? Bool) == true }.count
    }

    /// Whether device `index` has nothing left to pull and nothing to scan: `/rest/db/status` says `idle` with no needed items.
    public func isIdleAndComplete(_ index: Int) throws -> Bool {
        let body = try rest(index, "/rest/db/status?folder=\(Self.folderID)")
        guard let status = try JSONSerialization.jsonObject(with: body) as? [String: Any] else { return false }
        return (status["state"] as? String) == "idle" && (status["needTotalItems"] as? Int) == 0
    }

    // MARK: Waiting

    /// Waits until `condition` holds, checking it again after each event any
    /// running device reports (a long poll of up to a second on the first
    /// device's `/rest/events`), or with `polling`, every 20 ms.
    ///
    /// - Throws: `Failure` naming `what` after `deadline` seconds.
    public func waitUntil(_ what: String, deadline: Double = 60, polling: Bool = false, _ condition: () throws -> Bool) throws {
        let end = Date().addingTimeInterval(deadline)
        while Date() < end {
            if (try? condition()) == true { return }
            if polling || processes.isEmpty {
                usleep(20_000)
            } else {
                let index = processes.keys.min()!
                let since = lastEventID[index] ?? 0
                if let body = try? rest(index, "/rest/events?since=\(since)&timeout=1", timeout: 5),
                    let events = try? JSONSerialization.jsonObject(with: body) as? [[String: Any]],
                    let last = events.compactMap({ $0["id"] as? Int }).max()
                {
                    lastEventID[index] = last
                }
            }
        }
        if try condition() { return }
        throw Failure(description: "waited \(deadline) s for \(what)")
    }

    // MARK: Helpers

    /// A TCP port on loopback free now, below the ephemeral range (Linux
    /// 32768–60999, macOS 49152–65535): a port the kernel hands out for port 0
    /// can be taken as the source port of any client connection (another
    /// test's `curl`) before the device binds it, or while it is stopped.
    static func freePort() throws -> Int {
        for _ in 0..<500 {
            let port = Int.random(in: 20_000..<32_000)
            if try canBind(port) { return port }
        }
        throw Failure(description: "no free port on 127.0.0.1 in 20000–31999 after 500 tries")
    }

    /// Whether `port` on loopback can be bound now (bound and closed at once).
    static func canBind(_ port: Int) throws -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let length = socklen_t(MemoryLayout<sockaddr_in>.size)
        return withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 }
        }
    }

    /// Runs `tool` with `arguments`, returning its standard output.
    ///
    /// - Throws: `Failure` with its standard error when it exits non-zero.
    static func runTool(_ tool: String, _ arguments: [String]) throws -> String {
        let run = try ProgramRunner.run(tool, arguments)
        guard run.status == 0 else { throw Failure(description: "\(tool) \(arguments.joined(separator: " ")): \(run.stderr)") }
        return run.stdout + run.stderr
    }
}
