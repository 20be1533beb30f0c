import Foundation
import LiveQuery
import TestSupport
import Testing
import UbiquityContainers

/// Issue 39, item 2 and acceptance 1: queries on real Syncthing devices
/// (Debian's, on loopback) carry each item's sync state from the engine's
/// REST API and are told again as the engine's events arrive.
@Suite(.serialized, .enabled(if: SyncthingDevices.isInstalled, "syncthing is not installed (scripts/install-deps.sh test installs it)"))
struct SyncedQueryStatusTests {
    /// One configuration naming every device's folder as a container kept
    /// by that device's Syncthing, as a user's `containers.plist` would.
    static func containers(of sync: SyncthingDevices) throws -> UbiquityContainers {
        let configuration = UbiquityContainerConfiguration(
            containers: sync.devices.enumerated().map { index, device in
                UbiquityContainer(
                    identifier: "iCloud.test.device\(index)", folder: device.folder,
                    engine: .syncthing(home: device.home, folderID: SyncthingDevices.folderID))
            })
        let path = sync.root + "/containers.plist"
        try configuration.write(to: path)
        return UbiquityContainers(configurationPath: path, environmentFolder: nil)
    }

    /// A query of device `index`'s folder following its engine, with its gathering.
    static func query(_ sync: SyncthingDevices, _ index: Int, containers: UbiquityContainers) throws -> (MetadataQuery, Recorder) {
        let query = MetadataQuery(scopes: [sync.devices[index].folder], settleInterval: .milliseconds(100))
        query.ubiquityContainers = containers
        let recorder = Recorder()
        try query.start(on: recorder.queue) { recorder.handle($0) }
        return (query, recorder)
    }

    /// Takes updates until `condition` holds for the results of one (60 s at
    /// most), the last one already taken first; every update taken is kept in `seen`.
    @discardableResult
    static func waitFor(
        _ what: String, _ recorder: Recorder, seen: inout [MetadataQueryUpdate], _ condition: ([MetadataItem]) -> Bool
    ) throws -> MetadataQueryUpdate {
        if let last = seen.last, condition(last.results) { return last }
        let end = Date().addingTimeInterval(60)
        while Date() < end {
            guard let update = recorder.next(within: end.timeIntervalSinceNow) else { break }
            seen.append(update)
            if condition(update.results) { return update }
        }
        throw SyncthingDevices.Failure(description: "no update within 60 s where \(what); last results: \(seen.last.map { describe($0.results) } ?? "none")")
    }

    static func describe(_ items: [MetadataItem]) -> String {
        items.map { "\($0.fsName) [\($0.syncState.summary)]" }.joined(separator: ", ")
    }

    static func status(_ name: String, in items: [MetadataItem]) -> UbiquitousItemStatus? {
        items.first { $0.fsName == name }?.syncState.status
    }

    @Test func aDocumentSavedOnOneDeviceIsToldAddedThenCurrentOnTheOtherTwoAndUploadedOnItsOwn() throws {
        let sync = try SyncthingDevices(count: 3)
        defer { sync.stop() }
        let containers = try Self.containers(of: sync)
        let queries = try (0..<3).map { try Self.query(sync, $0, containers: containers) }
        defer { for (query, _) in queries { query.stop() } }

        let note = sync.devices[0].folder + "/Groceries.icfnote"
        try Data("milk\neggs\n".utf8).write(to: URL(fileURLWithPath: note), options: .atomic)
        try sync.scan(0)

        for index in 1...2 {
            var seen: [MetadataQueryUpdate] = []
            let arrival = try Self.waitFor("Groceries.icfnote is added on device \(index)", queries[index].1, seen: &seen) {
                $0.contains { $0.fsName == "Groceries.icfnote" }
            }
            #expect(arrival.added.map(\.fsName) == ["Groceries.icfnote"])
            try Self.waitFor("Groceries.icfnote is current on device \(index)", queries[index].1, seen: &seen) {
                Self.status("Groceries.icfnote", in: $0).map { $0.downloadingStatus == .current && $0.percentDownloaded == 100 && !$0.isDownloading }
                    ?? false
            }
            #expect(try String(contentsOfFile: sync.devices[index].folder + "/Groceries.icfnote", encoding: .utf8) == "milk\neggs\n")
        }
        var seen: [MetadataQueryUpdate] = []
        let uploaded = try Self.waitFor("Groceries.icfnote is uploaded on device 0", queries[0].1, seen: &seen) {
            Self.status("Groceries.icfnote", in: $0)?.isUploaded == true
        }
        let status = try #require(Self.status("Groceries.icfnote", in: uploaded.results))
        #expect(!status.isUploading && status.downloadingStatus == .current)
    }

    @Test func aLargeDocumentsPercentageRisesOnTheReceiverWhileTheSenderUploadsThenBothAreDone() throws {
        let sync = try SyncthingDevices(count: 2)
        defer { sync.stop() }
        let containers = try Self.containers(of: sync)
        // The first version reaches device 1 at full speed; the second comes slowly, so its progress is seen.
        let name = "Album.ict"
        let package = sync.devices[0].folder + "/" + name
        try FileManager.default.createDirectory(atPath: package, withIntermediateDirectories: true)
        var generator = SystemRandomNumberGenerator()
        let first = Data((0..<(256 << 10)).map { _ in UInt8.random(in: 0...255, using: &generator) })
        try first.write(to: URL(fileURLWithPath: package + "/photo.data"))
        try sync.scan(0)
        try sync.waitUntil("the first version on device 1") {
            (try? Data(contentsOf: URL(fileURLWithPath: sync.devices[1].folder + "/\(name)/photo.data"))) == first
        }
        // Loopback is a LAN to Syncthing, which limits a LAN's bandwidth only when told to.
        try sync.rest(1, "/rest/config/options", method: "PATCH", body: #"{"maxRecvKbps": 4000, "limitBandwidthInLan": true}"#)
        let receiver = try Self.query(sync, 1, containers: containers)
        let sender = try Self.query(sync, 0, containers: containers)
        defer {
            receiver.0.stop()
            sender.0.stop()
        }

        let second = Data((0..<(12 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) })
        try second.write(to: URL(fileURLWithPath: package + "/photo.data"), options: .atomic)
        try sync.scan(0)

        var received: [MetadataQueryUpdate] = []
        try Self.waitFor("\(name) is current again on device 1", receiver.1, seen: &received) {
            Self.status(name, in: $0).map { $0.downloadingStatus == .current && !$0.isDownloading }
                ?? false && (try? Data(contentsOf: URL(fileURLWithPath: sync.devices[1].folder + "/\(name)/photo.data"))) == second
        }
        let percentages = received.compactMap { Self.status(name, in: $0.results) }.filter(\.isDownloading).map(\.percentDownloaded)
        #expect(percentages.contains { $0 > 0 && $0 < 100 }, "percentages while downloading: \(percentages)")
        #expect(percentages == percentages.sorted(), "the percentage never falls: \(percentages)")
        #expect(received.contains { Self.status(name, in: $0.results)?.downloadingStatus == .downloaded })

        // Device 0 told of it uploading, then uploaded (its updates wait in order in the recorder).
        var sent: [MetadataQueryUpdate] = []
        try Self.waitFor("\(name) is uploading on device 0", sender.1, seen: &sent) { Self.status(name, in: $0)?.isUploading == true }
        try Self.waitFor("\(name) is uploaded on device 0", sender.1, seen: &sent) {
            Self.status(name, in: $0).map { $0.isUploaded && !$0.isUploading } ?? false
        }
    }

    /// The query resolves each root once and each item's path from it: a
    /// scope given as a symbolic link to a container's folder (as
    /// `~/Documents` linked into a synced folder) has its items' states too.
    @Test func aScopeGivenAsALinkToTheContainerHasItsItemsStates() throws {
        let sync = try SyncthingDevices(count: 2)
        defer { sync.stop() }
        let containers = try Self.containers(of: sync)
        let link = sync.root + "/Linked Notes"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: sync.devices[1].folder)
        let query = MetadataQuery(scopes: [link], settleInterval: .milliseconds(100))
        query.ubiquityContainers = containers
        let recorder = Recorder()
        try query.start(on: recorder.queue) { recorder.handle($0) }
        defer { query.stop() }

        try Data("tea\n".utf8).write(to: URL(fileURLWithPath: sync.devices[0].folder + "/Errands.icfnote"), options: .atomic)
        try sync.scan(0)
        var seen: [MetadataQueryUpdate] = []
        let current = try Self.waitFor("Errands.icfnote is current through the link", recorder, seen: &seen) {
            Self.status("Errands.icfnote", in: $0).map { $0.downloadingStatus == .current && $0.percentDownloaded == 100 } ?? false
        }
        #expect(current.results.map(\.path.string) == [link + "/Errands.icfnote"], "paths stay under the scope as given")
        let kind = try FileManager.default.attributesOfItem(atPath: link)[.type] as? FileAttributeType
        #expect(kind == .typeSymbolicLink, "the link is left as it was")
    }

    @Test func theEngineKilledMidTransferGivesUnknownAtOnceAndTheRightStateOnceItRestarts() throws {
        let sync = try SyncthingDevices(count: 2)
        defer { sync.stop() }
        let containers = try Self.containers(of: sync)
        let note = sync.devices[0].folder + "/Plan.icfnote"
        try Data("first".utf8).write(to: URL(fileURLWithPath: note))
        try sync.scan(0)
        try sync.waitUntil("Plan.icfnote on device 1") { FileManager.default.fileExists(atPath: sync.devices[1].folder + "/Plan.icfnote") }
        let (query, recorder) = try Self.query(sync, 1, containers: containers)
        defer { query.stop() }
        var seen: [MetadataQueryUpdate] = []
        try Self.waitFor("Plan.icfnote is current on device 1", recorder, seen: &seen) {
            Self.status("Plan.icfnote", in: $0)?.downloadingStatus == .current
        }

        // A large new version comes slowly; the receiving engine is killed while it is being fetched.
        try sync.rest(1, "/rest/config/options", method: "PATCH", body: #"{"maxRecvKbps": 2000, "limitBandwidthInLan": true}"#)
        var generator = SystemRandomNumberGenerator()
        let large = Data((0..<(8 << 20)).map { _ in UInt8.random(in: 0x61...0x7A, using: &generator) })
        try large.write(to: URL(fileURLWithPath: note), options: .atomic)
        try sync.scan(0)
        try Self.waitFor("Plan.icfnote is being fetched on device 1", recorder, seen: &seen) {
            Self.status("Plan.icfnote", in: $0).map { $0.isDownloading && $0.percentDownloaded > 0 } ?? false
        }
        sync.crash(1)
        let unknown = try Self.waitFor("the state is unknown once the engine is gone", recorder, seen: &seen) {
            $0.first { $0.fsName == "Plan.icfnote" }.map { if case .unknown = $0.syncState { true } else { false } } ?? false
        }
        let reason = unknown.results.first { $0.fsName == "Plan.icfnote" }.map { "\($0.syncState)" } ?? ""
        #expect(reason.contains("not answering"), "the reason says the engine is gone: \(reason)")
        #expect(try String(contentsOfFile: sync.devices[1].folder + "/Plan.icfnote", encoding: .utf8) == "first", "the old version stays whole")

        // The query goes on working on the folder while the engine is away.
        try Data("local".utf8).write(to: URL(fileURLWithPath: sync.devices[1].folder + "/Offline.icfnote"))
        try Self.waitFor("Offline.icfnote is added while the engine is away", recorder, seen: &seen) {
            $0.contains { $0.fsName == "Offline.icfnote" }
        }

        try sync.start(1)
        try Self.waitFor("Plan.icfnote is current again once the engine is back, with the new version", recorder, seen: &seen) {
            Self.status("Plan.icfnote", in: $0).map { $0.downloadingStatus == .current && !$0.isDownloading } ?? false
                && (try? Data(contentsOf: URL(fileURLWithPath: sync.devices[1].folder + "/Plan.icfnote"))) == large
        }

        // The real engine, asked with a key that is not its own. The engine has just restarted and
        // may still be hashing the new version, so its answer is waited for longer than the default.
        let wrongKey = UbiquityContainerConfiguration(containers: [
            UbiquityContainer(
                identifier: "iCloud.test.wrong-key", folder: sync.devices[1].folder,
                engine: .syncthing(home: sync.devices[1].home, folderID: SyncthingDevices.folderID), engineAPIKey: "not-the-key")
        ])
        try wrongKey.write(to: sync.root + "/wrong-key.plist")
        let state = UbiquityContainers(configurationPath: sync.root + "/wrong-key.plist", environmentFolder: nil)
            .syncState(ofItemAt: sync.devices[1].folder + "/Plan.icfnote", timeout: 30)
        #expect("\(state)".contains("refused the API key"), "\(state)")
    }
}
