import Dispatch
import Foundation
import TestSupport
import Testing
import UbiquitousKeyValueStore
import UbiquityContainers

@testable import AppleCompatibility

/// `NSUbiquitousKeyValueStore` with Apple's signatures (a missing or
/// mis-typed member fails to compile) and Apple's meaning: typed getters as
/// Apple documents their defaults, the notification's `userInfo` as Apple's.
@Suite(.serialized)
struct NSUbiquitousKeyValueStoreTests {
    private static func folder() throws -> String {
        let folder = try ScratchFolder.make("nskvstore").path
        return folder
    }

    @Test func theMembersHaveApplesSignaturesAndTheReasonsApplesValues() {
        let _: () -> NSUbiquitousKeyValueStore = { NSUbiquitousKeyValueStore.default }
        let _: (NSUbiquitousKeyValueStore) -> (String) -> Any? = NSUbiquitousKeyValueStore.object(forKey:)
        let _: (NSUbiquitousKeyValueStore) -> (Any?, String) -> Void = NSUbiquitousKeyValueStore.set(_:forKey:)
        let _: (NSUbiquitousKeyValueStore) -> (String) -> Void = NSUbiquitousKeyValueStore.removeObject(forKey:)
        let _: (NSUbiquitousKeyValueStore) -> (String) -> String? = NSUbiquitousKeyValueStore.string(forKey:)
        let _: (NSUbiquitousKeyValueStore) -> (String) -> [Any]? = NSUbiquitousKeyValueStore.array(forKey:)
        let _: (NSUbiquitousKeyValueStore) -> (String) -> [String: Any]? = NSUbiquitousKeyValueStore.dictionary(forKey:)
        let _: (NSUbiquitousKeyValueStore) -> (String) -> Data? = NSUbiquitousKeyValueStore.data(forKey:)
        let _: (NSUbiquitousKeyValueStore) -> (String) -> Int64 = NSUbiquitousKeyValueStore.longLong(forKey:)
        let _: (NSUbiquitousKeyValueStore) -> (String) -> Double = NSUbiquitousKeyValueStore.double(forKey:)
        let _: (NSUbiquitousKeyValueStore) -> (String) -> Bool = NSUbiquitousKeyValueStore.bool(forKey:)
        let _: (NSUbiquitousKeyValueStore) -> () -> Bool = NSUbiquitousKeyValueStore.synchronize
        let _: KeyPath<NSUbiquitousKeyValueStore, [String: Any]> = \NSUbiquitousKeyValueStore.dictionaryRepresentation
        let _: NSNotification.Name = NSUbiquitousKeyValueStore.didChangeExternallyNotification
        let _: String = NSUbiquitousKeyValueStoreChangeReasonKey
        let _: String = NSUbiquitousKeyValueStoreChangedKeysKey
        // Apple's values (NSUbiquitousKeyValueStoreServerChange = 0, …; Foundation's NSUbiquitousKeyValueStore.h).
        let reasons: [Int] = [
            NSUbiquitousKeyValueStoreServerChange, NSUbiquitousKeyValueStoreInitialSyncChange,
            NSUbiquitousKeyValueStoreQuotaViolationChange, NSUbiquitousKeyValueStoreAccountChange,
        ]
        #expect(reasons == [0, 1, 2, 3])
        #expect(NSUbiquitousKeyValueStore.didChangeExternallyNotification.rawValue == "NSUbiquitousKeyValueStoreDidChangeExternallyNotification")
    }

    @Test func typedValuesComeBackAsApplesGettersGiveThem() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = NSUbiquitousKeyValueStore(store: KeyValueStore(container: UbiquityContainer(identifier: folder, folder: folder), watching: false))
        store.set(Int64(42), forKey: "count")
        store.set(2.5, forKey: "ratio")
        store.set(true, forKey: "flag")
        store.set("text", forKey: "name")
        store.set(Data([1, 2]), forKey: "bytes")
        store.set(["a", 1] as [Any], forKey: "list")
        store.set(["k": "v"] as [String: Any], forKey: "map")
        #expect(store.synchronize())
        #expect(store.longLong(forKey: "count") == 42 && store.double(forKey: "count") == 42)
        #expect(store.double(forKey: "ratio") == 2.5 && store.longLong(forKey: "ratio") == 2)
        #expect(store.bool(forKey: "flag") && store.longLong(forKey: "flag") == 1)
        #expect(store.string(forKey: "name") == "text" && store.string(forKey: "count") == nil)
        #expect(store.data(forKey: "bytes") == Data([1, 2]))
        #expect(store.array(forKey: "list")?.count == 2 && store.array(forKey: "list")?.first as? String == "a")
        #expect(store.dictionary(forKey: "map")?["k"] as? String == "v")
        // Apple's defaults for a key without a value: 0, false, nil.
        #expect(store.longLong(forKey: "none") == 0 && store.double(forKey: "none") == 0 && !store.bool(forKey: "none"))
        #expect(store.object(forKey: "none") == nil)
        store.set(nil as Any?, forKey: "name")
        #expect(store.string(forKey: "name") == nil)
        #expect(Set(store.dictionaryRepresentation.keys) == ["count", "ratio", "flag", "bytes", "list", "map"])
    }

    @Test func anotherDevicesChangeIsPostedWithApplesUserInfo() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let container = UbiquityContainer(identifier: folder, folder: folder)
        let store = NSUbiquitousKeyValueStore(store: KeyValueStore(container: container, deviceToken: "this"))
        let posted = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var userInfo: [AnyHashable: Any]?
        let observer = NotificationCenter.default.addObserver(
            forName: NSUbiquitousKeyValueStore.didChangeExternallyNotification, object: store, queue: nil
        ) { notification in
            userInfo = notification.userInfo
            posted.signal()
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let other = KeyValueStore(container: container, deviceToken: "other", watching: false)
        try other.set(.string("blue"), forKey: "colour")
        #expect(other.synchronize())
        #expect(posted.wait(timeout: .now() + 60) == .success, "posted within a minute (a bound, not a measure)")
        #expect((userInfo?[NSUbiquitousKeyValueStoreChangeReasonKey] as? NSNumber)?.intValue == NSUbiquitousKeyValueStoreServerChange)
        #expect(userInfo?[NSUbiquitousKeyValueStoreChangedKeysKey] as? [String] == ["colour"])
        #expect(store.string(forKey: "colour") == "blue")
    }

    @Test func aKeyPastTheLimitIsPostedAsAQuotaViolationAndNotStored() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = NSUbiquitousKeyValueStore(
            store: KeyValueStore(container: UbiquityContainer(identifier: folder, folder: folder), deviceToken: "this", watching: false))
        let posted = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var userInfo: [AnyHashable: Any]?
        let observer = NotificationCenter.default.addObserver(
            forName: NSUbiquitousKeyValueStore.didChangeExternallyNotification, object: store, queue: nil
        ) { notification in
            userInfo = notification.userInfo
            posted.signal()
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let key = String(repeating: "é", count: 33)  // 66 bytes of UTF-8, 33 characters
        store.set("value", forKey: key)
        #expect(posted.wait(timeout: .now() + 60) == .success)
        #expect((userInfo?[NSUbiquitousKeyValueStoreChangeReasonKey] as? NSNumber)?.intValue == NSUbiquitousKeyValueStoreQuotaViolationChange)
        #expect(userInfo?[NSUbiquitousKeyValueStoreChangedKeysKey] as? [String] == [key])
        #expect(store.object(forKey: key) == nil)
    }

    /// The notifications posted for one store, waited for with a bound.
    final class Posted: @unchecked Sendable {
        // @unchecked: `userInfos` is touched only under `lock`.
        private let lock = NSLock()
        private var userInfos: [[AnyHashable: Any]] = []
        private let arrived = DispatchSemaphore(value: 0)
        func add(_ notification: Notification) {
            lock.withLock { userInfos.append(notification.userInfo ?? [:]) }
            arrived.signal()
        }
        /// The next notification's reason and keys, waiting at most 60 s (as long as a loaded machine may take).
        func next() -> (reason: Int?, keys: [String]?)? {
            guard arrived.wait(timeout: .now() + 60) == .success else { return nil }
            let userInfo = lock.withLock { userInfos.removeFirst() }
            return (
                (userInfo[NSUbiquitousKeyValueStoreChangeReasonKey] as? NSNumber)?.intValue,
                userInfo[NSUbiquitousKeyValueStoreChangedKeysKey] as? [String]
            )
        }
    }

    /// Issue 40, item 1 (`accountChange`), as `UbiquityIdentityWatcherTests`: the default container's identity
    /// changing — another default container, then none — is posted as `NSUbiquitousKeyValueStoreAccountChange`
    /// naming the keys whose value changed, and the store then holds the new container's values (none: this
    /// process's, `synchronize()` false).
    @Test func anotherDefaultContainerAndNoContainerArePostedAsAccountChanges() throws {
        let root = URL(fileURLWithPath: try Self.folder()).resolvingSymlinksInPath().path
        defer { try? FileManager.default.removeItem(atPath: root) }
        for folder in ["home", "Notes", "Other"] {
            try FileManager.default.createDirectory(atPath: root + "/" + folder, withIntermediateDirectories: true)
        }
        try Data("certificate".utf8).write(to: URL(fileURLWithPath: root + "/home/cert.pem"))
        let notes = UbiquityContainer(identifier: "iCloud.test.Notes", folder: root + "/Notes", engine: .syncthing(home: root + "/home", folderID: nil))
        let other = UbiquityContainer(identifier: "iCloud.test.Other", folder: root + "/Other")
        // The other container already holds a value of another device's.
        let elsewhere = KeyValueStore(container: other, deviceToken: "elsewhere", watching: false)
        try elsewhere.set(.string("large"), forKey: "size")
        #expect(elsewhere.synchronize())
        let configurationPath = root + "/containers.plist"
        func configure(default identifier: String) throws {
            try UbiquityContainerConfiguration(containers: [notes, other], defaultIdentifier: identifier).write(to: configurationPath)
        }
        try configure(default: notes.identifier)
        let store = NSUbiquitousKeyValueStore(containers: UbiquityContainers(configurationPath: configurationPath, environmentFolder: nil))
        store.set("blue", forKey: "colour")
        #expect(store.synchronize())
        let posted = Posted()
        let observer = NotificationCenter.default.addObserver(
            forName: NSUbiquitousKeyValueStore.didChangeExternallyNotification, object: store, queue: nil
        ) { posted.add($0) }
        defer { NotificationCenter.default.removeObserver(observer) }

        try configure(default: other.identifier)
        let toOther = try #require(posted.next(), "nothing posted for another default container")
        #expect(toOther.reason == NSUbiquitousKeyValueStoreAccountChange)
        #expect(toOther.keys == ["colour", "size"])
        #expect(store.string(forKey: "colour") == nil && store.string(forKey: "size") == "large")
        #expect(store.synchronize())

        try FileManager.default.removeItem(atPath: configurationPath)
        let toNone = try #require(posted.next(), "nothing posted when the configuration went")
        #expect(toNone.reason == NSUbiquitousKeyValueStoreAccountChange)
        #expect(toNone.keys == ["size"])
        #expect(store.dictionaryRepresentation.isEmpty)
        store.set("kept here", forKey: "note")
        #expect(store.string(forKey: "note") == "kept here")
        #expect(!store.synchronize(), "no container: false, as Apple's without an account")
        let notesFiles = try FileManager.default.contentsOfDirectory(atPath: root + "/Notes/\(KeyValueStore.folderName)").filter { $0.hasSuffix(".plist") }
        #expect(notesFiles.count == 1, "Notes's file kept: \(notesFiles)")
    }
}
