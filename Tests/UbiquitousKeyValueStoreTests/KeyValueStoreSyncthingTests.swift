import Dispatch
import Foundation
import PropertyList
import TestSupport
import Testing
import UbiquitousKeyValueStore
import UbiquityContainers

/// The store between real Syncthing devices on loopback (issue 40's
/// acceptance): each device's store is opened on its synced folder, as the
/// container of that device's Syncthing identity; every wait is bounded
/// (`SyncthingDevices.waitUntil`, checked again after each event a device
/// reports); no test sleeps. Every test ends by checking that no device's
/// folder holds a `.sync-conflict-` file.
@Suite(.serialized, .enabled(if: SyncthingDevices.isInstalled, "syncthing is not installed (scripts/install-deps.sh test installs it)"))
struct KeyValueStoreSyncthingTests {
    /// One device's store and what it was told.
    final class Device: @unchecked Sendable {
        // @unchecked: `told` and `warned` are touched only under `lock`.
        let store: KeyValueStore
        private let lock = NSLock()
        private var told: [KeyValueStoreChange] = []
        private var warned: [KeyValueStoreWarning] = []
        private var observation: KeyValueStoreObservation?

        init(_ devices: SyncthingDevices, _ index: Int, wallClock: @escaping @Sendable () -> Int64 = HybridLogicalClock.systemMilliseconds) {
            let device = devices.devices[index]
            let container = UbiquityContainer(
                identifier: "iCloud.org.ictkit.Settings", folder: device.folder,
                engine: .syncthing(home: device.home, folderID: SyncthingDevices.folderID))
            let box = WarningBox()
            store = KeyValueStore(container: container, wallClock: wallClock, warnings: { box.add($0) })
            box.device = self
            observation = store.observe(on: DispatchQueue.global()) { [weak self] change in self?.record(change) }
        }

        private func record(_ change: KeyValueStoreChange) { lock.withLock { told.append(change) } }
        fileprivate func record(_ warning: KeyValueStoreWarning) { lock.withLock { warned.append(warning) } }

        /// The changes told so far.
        var changes: [KeyValueStoreChange] { lock.withLock { told } }
        /// The warnings given so far.
        var warnings: [KeyValueStoreWarning] { lock.withLock { warned } }

        func string(_ key: String) -> String? {
            guard case .string(let text)? = store.value(forKey: key) else { return nil }
            return text
        }
    }

    /// Carries warnings given while the store is being opened to its device once it is made.
    final class WarningBox: @unchecked Sendable {
        weak var device: Device?
        func add(_ warning: KeyValueStoreWarning) { device?.record(warning) }
    }

    /// Sets `values` on `device`, writes them and asks its Syncthing to scan the store's folder now.
    private func set(_ values: [String: String], on device: Device, index: Int, _ devices: SyncthingDevices) throws {
        for (key, value) in values.sorted(by: { $0.key < $1.key }) { try device.store.set(.string(value), forKey: key) }
        #expect(device.store.synchronize())
        try? devices.scan(index, KeyValueStore.folderName)
    }

    /// Every file under the devices' folders whose name says it is a sync conflict.
    private func conflictCopies(_ devices: SyncthingDevices) -> [String] {
        devices.devices.flatMap { device in
            (FileManager.default.enumerator(atPath: device.folder)?.allObjects as? [String] ?? []).filter { $0.contains(".sync-conflict-") }
        }
    }

    @Test func aKeySetOnOneDeviceArrivesOnTheOtherAsAServerChangeNamingExactlyThatKey() throws {
        let devices = try SyncthingDevices(count: 2)
        defer { devices.stop() }
        let first = Device(devices, 0)
        let second = Device(devices, 1)
        try set(["colour": "blue"], on: first, index: 0, devices)
        try devices.waitUntil("the key on device 2, told") {
            second.string("colour") == "blue" && !second.changes.isEmpty
        }
        #expect(second.changes == [KeyValueStoreChange(reason: .serverChange, changedKeys: ["colour"])])
        #expect(first.changes.isEmpty, "device 1 made the change itself: nothing to tell it")
        #expect(conflictCopies(devices) == [])
    }

    @Test func theSameKeySetOnTwoDevicesApartConvergesToTheLatestAndTheLoserIsTold() throws {
        let devices = try SyncthingDevices(count: 2)
        defer { devices.stop() }
        let first = Device(devices, 0)
        // Device 2's change is made after device 1's: its clock is a second ahead, so the order is certain.
        let second = Device(devices, 1, wallClock: { HybridLogicalClock.systemMilliseconds() + 1000 })
        try set(["greeting": "hello"], on: first, index: 0, devices)
        try devices.waitUntil("both devices synced once") {
            second.string("greeting") == "hello"
                && FileManager.default.fileExists(atPath: devices.devices[0].folder + "/\(KeyValueStore.folderName)/\(second.store.deviceToken!).plist")
        }
        _ = first.store.synchronize()
        let toldBefore = (first.changes.count, second.changes.count)

        devices.stop(1)
        try set(["theme": "from device 1"], on: first, index: 0, devices)
        try set(["theme": "from device 2"], on: second, index: 1, devices)
        try devices.start(1)
        // The value can be read a moment before its notification is posted (on the store's queue): wait for both.
        try devices.waitUntil("both devices holding the later value, device 1 told") {
            first.string("theme") == "from device 2" && second.string("theme") == "from device 2"
                && first.changes.dropFirst(toldBefore.0).contains { $0.changedKeys.contains("theme") }
        }
        let firstTold = first.changes.dropFirst(toldBefore.0)
        let secondTold = second.changes.dropFirst(toldBefore.1)
        #expect(firstTold.contains { $0.reason == .serverChange && $0.changedKeys == ["theme"] }, "device 1's value lost: \(firstTold)")
        #expect(!secondTold.contains { $0.changedKeys.contains("theme") }, "device 2's value won: nothing changed there: \(secondTold)")
        #expect(conflictCopies(devices) == [])
    }

    @Test func aDeviceJoiningWithValuesOfItsOwnIsToldTheInitialSync() throws {
        let devices = try SyncthingDevices(count: 2)
        defer { devices.stop() }
        devices.stop(1)
        let first = Device(devices, 0)
        let second = Device(devices, 1)
        try set(["mine": "device 2's"], on: second, index: 1, devices)
        try set(["theirs": "device 1's"], on: first, index: 0, devices)
        try devices.start(1)
        try devices.waitUntil("both devices holding both keys") {
            second.string("theirs") == "device 1's" && first.string("mine") == "device 2's"
        }
        try devices.waitUntil("both told") { !first.changes.isEmpty && !second.changes.isEmpty }
        #expect(second.changes.first == KeyValueStoreChange(reason: .initialSyncChange, changedKeys: ["theirs"]))
        #expect(first.changes.first == KeyValueStoreChange(reason: .initialSyncChange, changedKeys: ["mine"]))
        #expect(conflictCopies(devices) == [])
    }

    @Test func changesPastTheLimitsAreRefusedAndToldAndEveryOtherKeyStays() throws {
        let devices = try SyncthingDevices(count: 2)
        defer { devices.stop() }
        let first = Device(devices, 0)
        let second = Device(devices, 1)
        let keys = (0..<1024).map { "key\(String(format: "%04d", $0))" }
        for key in keys { try first.store.set(.string("v"), forKey: key) }
        #expect(first.store.synchronize())
        // 1,024 keys of 7 bytes and values of 1: 8,192 bytes, far below 1 MB; the 1,025th key is the limit passed.
        let refused: [(String, PropertyListValue)] = [
            ("key1024", .string("one too many")),
            (String(repeating: "k", count: 65), .string("65-byte key")),
            ("key0000", .data(Data(count: 1_048_577))),
        ]
        for (key, value) in refused {
            #expect(throws: KeyValueStoreError.self) { try first.store.set(value, forKey: key) }
        }
        try? devices.scan(0, KeyValueStore.folderName)
        try devices.waitUntil("every key on device 2") { second.store.dictionaryRepresentation.count == 1024 }
        try devices.waitUntil("three quota violations told") { first.changes.count == 3 }
        #expect(first.changes.map(\.reason) == [.quotaViolationChange, .quotaViolationChange, .quotaViolationChange])
        #expect(first.changes.map(\.changedKeys) == refused.map { [$0.0] })
        for store in [first.store, second.store] {
            let values = store.dictionaryRepresentation
            #expect(Array(values.keys) == keys)
            #expect(values.values.allSatisfy { $0 == .string("v") }, "key0000 keeps its value")
        }
        #expect(conflictCopies(devices) == [])
    }

    @Test func aDeviceWhoseClockIsNinetySecondsBehindDoesNotLoseItsLaterChange() throws {
        let devices = try SyncthingDevices(count: 2)
        defer { devices.stop() }
        let first = Device(devices, 0)
        let behind = Device(devices, 1, wallClock: { HybridLogicalClock.systemMilliseconds() - 90_000 })
        try set(["level": "first"], on: first, index: 0, devices)
        try devices.waitUntil("the first value on the device behind, and its file on device 1") {
            behind.string("level") == "first"
                && FileManager.default.fileExists(atPath: devices.devices[0].folder + "/\(KeyValueStore.folderName)/\(behind.store.deviceToken!).plist")
        }
        _ = first.store.synchronize()
        try set(["level": "second, later"], on: behind, index: 1, devices)
        // The change is told on another queue after the value is there to read: wait for both.
        try devices.waitUntil("the later value on both devices, and device 1 told of it") {
            first.string("level") == "second, later" && behind.string("level") == "second, later"
                && first.changes.last == KeyValueStoreChange(reason: .serverChange, changedKeys: ["level"])
        }
        let times = [first, behind].map { $0.store.entries.first { $0.key == "level" }?.entry.time }
        #expect(times[0] == times[1])
        // Its wall clock said 90 s earlier than device 1's change; the change came after it, and is later.
        #expect(behind.changes.allSatisfy { !$0.changedKeys.contains("level") || $0.reason == .serverChange })
        #expect(first.changes.last == KeyValueStoreChange(reason: .serverChange, changedKeys: ["level"]))
        #expect(conflictCopies(devices) == [])
    }

    @Test(arguments: ["truncated", "garbage"])
    func anotherDevicesBrokenFileIsSkippedWithAWarningAndNothingIsLost(_ damage: String) throws {
        let devices = try SyncthingDevices(count: 2)
        defer { devices.stop() }
        let first = Device(devices, 0)
        let second = Device(devices, 1)
        try set(["a": "1", "b": "2"], on: first, index: 0, devices)
        let secondsFile = "\(devices.devices[0].folder)/\(KeyValueStore.folderName)/\(second.store.deviceToken!).plist"
        try devices.waitUntil("both keys on device 2, and its file on device 1") {
            second.string("a") == "1" && second.string("b") == "2" && FileManager.default.fileExists(atPath: secondsFile)
        }
        // Device 1's store closed, so it does not mend its file before Syncthing carries the damage.
        first.store.close()
        let file = "\(devices.devices[0].folder)/\(KeyValueStore.folderName)/\(first.store.deviceToken!).plist"
        let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        // Written in place, as an engine that does not rename would leave it mid-transfer.
        let broken = damage == "truncated" ? bytes.prefix(bytes.count / 2) : Data("not a property list at all\u{0}\u{1}".utf8)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: file))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: broken)
        try handle.close()
        try? devices.scan(0, KeyValueStore.folderName)
        let path = "\(devices.devices[1].folder)/\(KeyValueStore.folderName)/\(first.store.deviceToken!).plist"
        try devices.waitUntil("device 2 warning of device 1's file") { second.warnings.contains { $0.path.string == path } }
        let warning = try #require(second.warnings.first { $0.path.string == path })
        #expect(warning.message.contains("not a store file"), "\(warning)")
        #expect(second.string("a") == "1" && second.string("b") == "2", "what the file held when last read whole still counts")

        // Device 1's store, opened again, skips its own broken file, has its keys back from device 2's, and
        // writes its file whole again; device 2 reads it again once it has settled.
        let reopened = Device(devices, 0)
        #expect(reopened.string("a") == "1" && reopened.string("b") == "2")
        try set(["c": "3"], on: reopened, index: 0, devices)
        try devices.waitUntil("the new key on device 2") { second.string("c") == "3" }
        #expect(second.string("a") == "1" && second.string("b") == "2")
        #expect(second.store.warnings.isEmpty, "the file read again whole")
        #expect(conflictCopies(devices) == [])
    }
}
