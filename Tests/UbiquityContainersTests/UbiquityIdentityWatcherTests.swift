import Foundation
import Synchronization
import TestSupport
import Testing
import UbiquityContainers

/// Issue 39, item 1: a change of the engine identity is told (what
/// `NSUbiquityIdentityDidChange` posts): Syncthing's keys replaced, the
/// configuration naming another default container, no container left.
struct UbiquityIdentityWatcherTests {
    /// The tokens told, waited for with a bound.
    final class Told: Sendable {
        private let tokens = Mutex<[String?]>([])
        private let arrived = DispatchSemaphore(value: 0)
        func add(_ token: String?) {
            tokens.withLock { $0.append(token) }
            arrived.signal()
        }
        /// The next token told, waiting at most 60 s (as long as a loaded machine may take); `.none` when none came.
        func next() -> String?? {
            guard arrived.wait(timeout: .now() + 60) == .success else { return .none }
            return .some(tokens.withLock { $0.removeFirst() })
        }
    }

    @Test func replacedKeysAnotherDefaultAndNoContainerAreEachToldOnce() throws {
        let root = try ScratchFolder.make("identity").resolvingSymlinksInPath().path
        defer { try? FileManager.default.removeItem(atPath: root) }
        for folder in ["home", "Notes", "Other"] {
            try FileManager.default.createDirectory(atPath: root + "/" + folder, withIntermediateDirectories: true)
        }
        try Data("first certificate".utf8).write(to: URL(fileURLWithPath: root + "/home/cert.pem"))
        let configurationPath = root + "/containers.plist"
        func configure(default identifier: String) throws {
            try UbiquityContainerConfiguration(
                containers: [
                    UbiquityContainer(identifier: "iCloud.test.Notes", folder: root + "/Notes", engine: .syncthing(home: root + "/home", folderID: nil)),
                    UbiquityContainer(identifier: "iCloud.test.Other", folder: root + "/Other"),
                ], defaultIdentifier: identifier
            ).write(to: configurationPath)
        }
        try configure(default: "iCloud.test.Notes")
        let containers = UbiquityContainers(configurationPath: configurationPath, environmentFolder: nil)
        let told = Told()
        let watcher = try UbiquityIdentityWatcher(containers: containers) { told.add($0) }
        defer { watcher.stop() }
        let first = try #require(watcher.currentToken)
        #expect(first.hasPrefix("syncthing-"))

        // Another identity: the device's keys replaced (as `syncthing generate` into the home does).
        // Written beside and renamed over in one step (rename(2)), as a key rotation does: never absent.
        try Data("second certificate".utf8).write(to: URL(fileURLWithPath: root + "/home/cert.pem.new"))
        try #require(rename(root + "/home/cert.pem.new", root + "/home/cert.pem") == 0)
        let second = try #require(told.next(), "no change told for new keys")
        #expect(second != nil && second != first)

        // Another default container, a plain folder.
        try configure(default: "iCloud.test.Other")
        let third = try #require(told.next(), "no change told for another default")
        #expect(third?.hasPrefix("folder-") == true)

        // No container at all.
        try FileManager.default.removeItem(atPath: configurationPath)
        let fourth = try #require(told.next(), "no change told when the configuration went")
        #expect(fourth == nil)
        #expect(watcher.currentToken == nil)
    }

    /// A watcher whose last reference is let go in its own handler (an app
    /// dropping its watcher when told) ends there: its `stop()` runs on its
    /// own queue, which it must not wait on. The handler may read
    /// `currentToken` too. Before, libdispatch stopped the process.
    @Test func aWatcherLetGoInItsOwnHandlerStopsThere() throws {
        let root = try ScratchFolder.make("identity").resolvingSymlinksInPath().path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/home", withIntermediateDirectories: true)
        try Data("first certificate".utf8).write(to: URL(fileURLWithPath: root + "/home/cert.pem"))
        let configurationPath = root + "/containers.plist"
        try UbiquityContainerConfiguration(
            containers: [UbiquityContainer(identifier: "iCloud.test.Notes", folder: root + "/Notes", engine: .syncthing(home: root + "/home", folderID: nil))],
            defaultIdentifier: "iCloud.test.Notes"
        ).write(to: configurationPath)
        final class Holder: @unchecked Sendable {
            // @unchecked: `watcher` is set before any change is made and let go once, in the handler.
            var watcher: UbiquityIdentityWatcher?
        }
        let holder = Holder()
        let told = Told()
        holder.watcher = try UbiquityIdentityWatcher(containers: UbiquityContainers(configurationPath: configurationPath, environmentFolder: nil)) { token in
            let seen = holder.watcher?.currentToken
            holder.watcher = nil
            told.add(seen ?? token)
        }
        try Data("second certificate".utf8).write(to: URL(fileURLWithPath: root + "/home/cert.pem.new"))
        try #require(rename(root + "/home/cert.pem.new", root + "/home/cert.pem") == 0)
        let token = try #require(told.next(), "no change told for new keys")
        #expect(token?.hasPrefix("syncthing-") == true)
        // Another change after the watcher went is told to no one.
        try Data("third certificate".utf8).write(to: URL(fileURLWithPath: root + "/home/cert.pem"))
        #expect(holder.watcher == nil)
    }
}
