#if canImport(UIKit)
import UIKit
#else
import AppleCompatibility
import Foundation
#endif

/// The database book's app delegate, as its first iCloud chapter keeps the
/// app's settings: the key-value store is synchronized at launch, and an
/// observer of its external changes copies each changed key into
/// `UserDefaults`, where the rest of the app reads its settings. As on iOS
/// but for the import block (and a block observer in place of `#selector`).
// @unchecked Sendable: the observer runs on the store's queue; `lines` is touched only under `lock`, and
// `onChange` is set before launching.
final class CTAppDelegate: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    /// What the observer did, for the tool to print: one line per key copied.
    var copied: [String] { lock.withLock { lines } }
    /// Called after each notification handled.
    var onChange: (@Sendable () -> Void)?

    func application(didFinishLaunchingWithOptions launchOptions: [String: Any]? = nil) -> Bool {
        let store = NSUbiquitousKeyValueStore.default
        NotificationCenter.default.addObserver(
            forName: NSUbiquitousKeyValueStore.didChangeExternallyNotification, object: store, queue: nil
        ) { [weak self] notification in
            self?.ubiquitousKeyValueStoreDidChange(notification)
        }
        store.synchronize()
        return true
    }

    /// Copies the keys another device changed into `UserDefaults`.
    func ubiquitousKeyValueStoreDidChange(_ notification: Notification) {
        defer { onChange?() }
        guard let userInfo = notification.userInfo,
            let reason = (userInfo[NSUbiquitousKeyValueStoreChangeReasonKey] as? NSNumber)?.intValue
        else { return }
        let changedKeys = userInfo[NSUbiquitousKeyValueStoreChangedKeysKey] as? [String] ?? []
        switch reason {
        case NSUbiquitousKeyValueStoreServerChange, NSUbiquitousKeyValueStoreInitialSyncChange:
            let store = NSUbiquitousKeyValueStore.default
            let defaults = UserDefaults.standard
            for key in changedKeys {
                defaults.set(store.object(forKey: key), forKey: key)
                let line = "reason \(reason): UserDefaults \(key) = \(defaults.object(forKey: key).map { "\($0)" } ?? "(removed)")"
                lock.withLock { lines.append(line) }
            }
        case NSUbiquitousKeyValueStoreQuotaViolationChange:
            lock.withLock { lines.append("reason \(reason): over quota: \(changedKeys.joined(separator: ", "))") }
        case NSUbiquitousKeyValueStoreAccountChange:
            lock.withLock { lines.append("reason \(reason): the iCloud account changed") }
        default:
            break
        }
    }
}
