import Dispatch
import Foundation
import PropertyList
import Synchronization
import SystemPackage
import TestSupport
import Testing
import UbiquitousKeyValueStore
import UbiquityContainers

/// The store on one machine: two "devices" are two stores with their own
/// device tokens over one folder (as a sync engine would make it look).
struct KeyValueStoreTests {
    private static func scratch() throws -> String {
        let folder = try ScratchFolder.make("kvstore").path
        return URL(fileURLWithPath: folder).resolvingSymlinksInPath().path
    }

    /// A container folder whose name is not UTF-8 (`c` 0xFF): the store's folder is inside it by its bytes, and
    /// Python finds the device's file there by the bytes of its name.
    @Test func aContainerFolderThatIsNotUTF8KeepsItsStoreByItsBytes() throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let bytes = Array(folder.utf8) + Array("/c".utf8) + [0xFF]
        let box = FilePath(platformString: bytes.map { CChar(bitPattern: $0) } + [0])
        _ = try PythonScript.run("import os, sys; os.mkdir(os.fsencode(sys.argv[1]) + b'/c\\xff')", arguments: [folder])
        let store = KeyValueStore(container: UbiquityContainer(identifier: "iCloud.a", folder: box), deviceToken: "one", watching: false)
        #expect(store.folder == FilePath(platformString: (bytes + Array("/.ictkit-kvstore".utf8)).map { CChar(bitPattern: $0) } + [0]))
        try store.set(.string("v"), forKey: "k")
        #expect(store.synchronize())
        let listed = try PythonScript.text(
            "import os, sys; print(sorted(os.listdir(os.fsencode(sys.argv[1]) + b'/c\\xff/.ictkit-kvstore')))", arguments: [folder])
        #expect(listed == "[b'one.plist']\n")
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

    @Test func twoProcessesOfOneDeviceKeepTheLaterChangeOfEachKeyAndEveryOtherKey() throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let container = UbiquityContainer(identifier: folder, folder: folder)
        // Two processes of device "one", both opened before either writes; times from their injected clocks.
        let early = KeyValueStore(container: container, deviceToken: "one", wallClock: { 1_000 }, watching: false)
        let middle = KeyValueStore(container: container, deviceToken: "one", wallClock: { 2_000 }, watching: false)
        try early.set(.string("early"), forKey: "shared")  // 1000: older than middle's, so lost at early's write
        try early.set(.string("early only"), forKey: "mine")  // 1001
        try middle.set(.string("middle"), forKey: "shared")  // 2000
        #expect(middle.synchronize())
        #expect(early.synchronize())
        #expect(early.value(forKey: "shared") == .string("middle"))
        #expect(early.value(forKey: "mine") == .string("early only"))
        // A change made here later than the file's stays to be written over it.
        let late = KeyValueStore(container: container, deviceToken: "one", wallClock: { 3_000 }, watching: false)
        try late.set(.string("late"), forKey: "shared")  // 3000
        try middle.set(.string("middle again"), forKey: "other")  // 2001
        #expect(middle.synchronize())
        #expect(late.synchronize())
        let reader = KeyValueStore(container: container, deviceToken: "two", watching: false)
        #expect(
            reader.dictionaryRepresentation == ["mine": .string("early only"), "other": .string("middle again"), "shared": .string("late")])
        #expect(reader.entries.first { $0.key == "shared" }?.entry == KeyValueStoreEntry(value: .string("late"), time: 3_000, device: "one"))
    }

    @Test func aValueOfExactlyOneMegabyteWithItsKeyIsRefusedSayingTheTotal() throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = KeyValueStore(container: UbiquityContainer(identifier: folder, folder: folder), deviceToken: "one", watching: false)
        // 1 byte of key + 1,048,576 of value = 1,048,577 > 1,048,576; the value alone is at its limit.
        #expect {
            try store.set(.data(Data(count: 1_048_576)), forKey: "k")
        } throws: { error in
            let error = error as? KeyValueStoreError
            return error?.code == .quotaViolation && error?.key == "k"
                && error?.message == "1048577 bytes of keys and values; the store holds at most 1048576"
        }
        #expect(store.dictionaryRepresentation.isEmpty)
        try store.set(.data(Data(count: 1_048_575)), forKey: "k")
        #expect(store.value(forKey: "k") == .data(Data(count: 1_048_575)))
        // A UID deep inside a value is refused, and the value before it stays.
        #expect {
            try store.set(.array([.string("a"), .dictionary(["u": .uid(7)])]), forKey: "k")
        } throws: { error in
            (error as? KeyValueStoreError)?.message == "a UID is not a property-list type the key-value store accepts"
        }
        #expect(store.value(forKey: "k") == .data(Data(count: 1_048_575)))
    }

    @Test func anIdentityChangeIsToldAsAnAccountChangeOnTheSequence() async throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let home = folder + "/engine"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        try Data("first certificate".utf8).write(to: URL(fileURLWithPath: home + "/cert.pem"))
        let container = UbiquityContainer(identifier: "iCloud.a", folder: folder + "/c", engine: .syncthing(home: home, folderID: nil))
        try FileManager.default.createDirectory(atPath: container.folder.string, withIntermediateDirectories: true)
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

    /// The changes told to an observer, waited for with a bound.
    final class Told: Sendable {
        private let changes = Mutex<[KeyValueStoreChange]>([])
        private let arrived = DispatchSemaphore(value: 0)
        func add(_ change: KeyValueStoreChange) {
            changes.withLock { $0.append(change) }
            arrived.signal()
        }
        /// The next change told, waiting at most 60 s (as long as a loaded machine may take); nil when none came.
        func next() -> KeyValueStoreChange? {
            guard arrived.wait(timeout: .now() + 60) == .success else { return nil }
            return changes.withLock { $0.removeFirst() }
        }
    }

    /// Issue 40, item 1 (`accountChange`), as `UbiquityIdentityWatcherTests`: while watching, the engine's keys
    /// replaced are told when it happens, with no `synchronize()`; the old identity's file is then another
    /// device's, so no value is lost.
    @Test func whileWatchingReplacedKeysAreToldAsAnAccountChangeAtOnce() throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let home = folder + "/engine"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        try Data("first certificate".utf8).write(to: URL(fileURLWithPath: home + "/cert.pem"))
        let container = UbiquityContainer(identifier: "iCloud.a", folder: folder + "/c", engine: .syncthing(home: home, folderID: nil))
        try FileManager.default.createDirectory(atPath: container.folder.string, withIntermediateDirectories: true)
        let store = KeyValueStore(container: container)
        defer { store.close() }
        let first = try #require(store.deviceToken)
        try store.set(.string("blue"), forKey: "colour")
        #expect(store.synchronize())
        let told = Told()
        let observation = store.observe(on: DispatchQueue.global()) { told.add($0) }
        defer { observation.cancel() }

        // Another identity: written beside and renamed over in one step, as a key rotation does (never absent).
        // Another file in the engine's home changing is not an identity change.
        try Data("config".utf8).write(to: URL(fileURLWithPath: home + "/config.xml"))
        try Data("second certificate".utf8).write(to: URL(fileURLWithPath: home + "/cert.pem.new"))
        try #require(rename(home + "/cert.pem.new", home + "/cert.pem") == 0)
        let change = try #require(told.next(), "no change told for new keys")
        #expect(change == KeyValueStoreChange(reason: .accountChange, changedKeys: []))
        let second = try #require(store.deviceToken)
        #expect(second != first && second.hasPrefix("syncthing-"))
        #expect(store.value(forKey: "colour") == .string("blue"), "the old identity's file counts as another device's")
        #expect(store.synchronize())
        let files = try FileManager.default.contentsOfDirectory(atPath: store.folder.string).filter { $0.hasSuffix(".plist") }.sorted()
        #expect(files == [first + ".plist", second + ".plist"].sorted())
    }

    /// A plain folder's identity is the folder itself: another folder put in its place is another account, whose
    /// store is empty, told with the keys that went, when it happens.
    @Test func whileWatchingAContainerFolderReplacedIsToldAsAnAccountChangeNamingTheKeysThatWent() throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let container = UbiquityContainer(identifier: "iCloud.a", folder: folder + "/c")
        try FileManager.default.createDirectory(atPath: container.folder.string, withIntermediateDirectories: true)
        let other = KeyValueStore(container: container, deviceToken: "other", watching: false)
        try other.set(.string("round"), forKey: "shape")
        #expect(other.synchronize())
        let store = KeyValueStore(container: container)
        defer { store.close() }
        let first = try #require(store.deviceToken)
        try store.set(.string("blue"), forKey: "colour")
        #expect(store.synchronize())
        let told = Told()
        let observation = store.observe(on: DispatchQueue.global()) { told.add($0) }
        defer { observation.cancel() }
        // Another device's change, told: the store has handled the events of its own write (which has nothing
        // left to write) before the folder goes, so only the identity's watch can tell it.
        try other.set(.string("large"), forKey: "size")
        #expect(other.synchronize())
        #expect(told.next() == KeyValueStoreChange(reason: .serverChange, changedKeys: ["size"]))

        try FileManager.default.createDirectory(atPath: folder + "/new", withIntermediateDirectories: false)
        try #require(rename(container.folder.string, folder + "/old") == 0)
        try #require(rename(folder + "/new", container.folder.string) == 0)
        // The first change told is the old folder going (a second, naming no key, may follow: the new one coming).
        let change = try #require(told.next(), "no change told for the folder replaced")
        #expect(change == KeyValueStoreChange(reason: .accountChange, changedKeys: ["colour", "shape", "size"]))
        #expect(store.synchronize())
        #expect(store.deviceToken != nil && store.deviceToken != first)
        #expect(store.dictionaryRepresentation.isEmpty)
        let kept = KeyValueStore(container: UbiquityContainer(identifier: "iCloud.a", folder: folder + "/old"), watching: false)
            .dictionaryRepresentation
        #expect(kept.keys.sorted() == ["colour", "shape", "size"], "the old folder's store is as it was")
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
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: store.folder.string)) ?? []).isEmpty, "nothing written")
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
        #expect(warning.path.string == odd)
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
