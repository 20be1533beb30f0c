import Dispatch
import Foundation
import PropertyList
import Testing
import UbiquitousKeyValueStore
import UbiquityContainers

/// The store on one machine: two "devices" are two stores with their own
/// device tokens over one folder (as a sync engine would make it look).
struct KeyValueStoreTests {
    private static func scratch() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kvstore-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return URL(fileURLWithPath: folder).resolvingSymlinksInPath().path
    }

    @Test func aRemovalIsAChangeThatWinsOverAnOlderValueElsewhere() throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let container = UbiquityContainer(identifier: folder, folder: folder)
        let one = KeyValueStore(container: container, deviceToken: "one", wallClock: { 1_000 }, watching: false)
        let two = KeyValueStore(container: container, deviceToken: "two", wallClock: { 2_000 }, watching: false)
        try one.set(.string("kept"), forKey: "k")
        #expect(one.synchronize())
        #expect(two.synchronize())
        #expect(two.value(forKey: "k") == .string("kept"))
        two.removeValue(forKey: "k")
        #expect(two.synchronize())
        #expect(one.synchronize())
        #expect(one.value(forKey: "k") == nil)
        #expect(one.entries.first { $0.key == "k" }?.entry == KeyValueStoreEntry(value: nil, time: 2_000, device: "two"))
    }

    @Test func anIdentityChangeIsToldAsAnAccountChangeOnTheSequence() async throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let home = folder + "/engine"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        try Data("first certificate".utf8).write(to: URL(fileURLWithPath: home + "/cert.pem"))
        let container = UbiquityContainer(identifier: "iCloud.a", folder: folder + "/c", engine: .syncthing(home: home, folderID: nil))
        try FileManager.default.createDirectory(atPath: container.folder, withIntermediateDirectories: true)
        let store = KeyValueStore(container: container, watching: false)
        let first = try #require(store.deviceToken)
        let changes = store.changes()
        try Data("another certificate".utf8).write(to: URL(fileURLWithPath: home + "/cert.pem"))
        #expect(store.synchronize())
        #expect(store.deviceToken != first)
        store.close()
        var told: [KeyValueStoreChange] = []
        for await change in changes { told.append(change) }
        #expect(told == [KeyValueStoreChange(reason: .accountChange, changedKeys: [])])
    }

    @Test func withoutAnEngineIdentityValuesStayInMemoryAndSynchronizeIsFalse() throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let container = UbiquityContainer(identifier: "iCloud.a", folder: folder, engine: .syncthing(home: folder + "/none", folderID: nil))
        let store = KeyValueStore(container: container, watching: false)
        #expect(store.deviceToken == nil)
        try store.set(.bool(true), forKey: "flag")
        #expect(store.value(forKey: "flag") == .bool(true))
        #expect(!store.synchronize())
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: store.folder)) ?? []).isEmpty, "nothing written")
    }

    @Test(arguments: ["link", "folder", "fifo"])
    func anotherDevicesFileThatIsNotAFileIsSkippedWithAWarningWithoutWaiting(_ kind: String) throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let container = UbiquityContainer(identifier: folder, folder: folder)
        let writer = KeyValueStore(container: container, deviceToken: "one", watching: false)
        try writer.set(.string("v"), forKey: "k")
        #expect(writer.synchronize())
        let odd = folder + "/\(KeyValueStore.folderName)/odd.plist"
        switch kind {
        case "link": try FileManager.default.createSymbolicLink(atPath: odd, withDestinationPath: folder + "/\(KeyValueStore.folderName)/one.plist")
        case "folder": try FileManager.default.createDirectory(atPath: odd, withIntermediateDirectories: false)
        default: #expect(mkfifo(odd, 0o644) == 0)
        }
        let reader = KeyValueStore(container: container, deviceToken: "two", watching: false)
        #expect(reader.value(forKey: "k") == .string("v"))
        let warning = try #require(reader.warnings.first)
        #expect(warning.path == odd)
        #expect(warning.message.contains(kind == "link" ? "symbolic link" : kind == "folder" ? "a folder" : "FIFO"), "\(warning)")
    }

    @Test func aWatchingStoreTellsAnotherProcessesChangeOnItsQueue() throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let container = UbiquityContainer(identifier: folder, folder: folder)
        let watching = KeyValueStore(container: container, deviceToken: "one")
        let told = DispatchSemaphore(value: 0)
        let observation = watching.observe(on: DispatchQueue.global()) { change in
            if change == KeyValueStoreChange(reason: .serverChange, changedKeys: ["k"]) { told.signal() }
        }
        let other = KeyValueStore(container: container, deviceToken: "two", watching: false)
        try other.set(.string("v"), forKey: "k")
        #expect(other.synchronize())
        #expect(told.wait(timeout: .now() + 60) == .success, "told within a minute (a bound, not a measure)")
        #expect(watching.value(forKey: "k") == .string("v"))
        observation.cancel()
    }
}
