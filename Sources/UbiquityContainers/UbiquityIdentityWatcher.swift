import Dispatch
import SystemSupport

/// Watches the identity the default container's engine syncs as
/// (`UbiquityContainers.identityToken(of:)`) and tells `handler` each time
/// it changes — the engine's keys replaced (another Syncthing identity),
/// the container's folder replaced, the configuration naming another
/// default container, or none at all (nil) — as Apple posts
/// `NSUbiquityIdentityDidChange` when the iCloud account changes. Runs on
/// the process's file-event loop: no thread of its own, no periodic wake-up.
public final class UbiquityIdentityWatcher: @unchecked Sendable {
    // @unchecked: `token`, `watches` and `stopped` are touched only on `queue`
    // (`stopped` also under `lock`).

    /// Told the new token (nil: no identity any more).
    public typealias Handler = @Sendable (String?) -> Void

    private let containers: UbiquityContainers
    private let handler: Handler
    private let loop: FileEventLoop
    private let queue = DispatchQueue.serial(label: "ICTKit identity")
    private var client: FileEventLoop.Client!
    private var token: String?
    private var watches: [Int32] = []
    private let lock = ThreadLock()
    private var stopped = false

    /// Starts watching `containers`' default container's identity; the
    /// token now is `currentToken`.
    ///
    /// - Throws: `UbiquityContainerError` `.io` when the file-event loop cannot be used.
    public init(containers: UbiquityContainers = .current, handler: @escaping Handler) throws(UbiquityContainerError) {
        self.containers = containers
        self.handler = handler
        do throws(FileEventLoop.Failure) {
            loop = try FileEventLoop.shared.get()
            client = try loop.register(queue: queue) { [weak self] _ in self?.check() }
        } catch {
            throw UbiquityContainerError(.io, pathText: containers.configurationPathText ?? "", error.description)
        }
        queue.sync {
            token = Self.token(of: containers)
            rewatch()
        }
    }

    deinit { stop() }

    /// The token as last seen.
    public var currentToken: String? { queue.syncUnlessCurrent { token } }

    /// Stops watching; nothing is told after this returns.
    public func stop() {
        let wasStopped = lock.withLock {
            defer { stopped = true }
            return stopped
        }
        guard !wasStopped else { return }
        loop.unregister(client)
        // Not from one of the queue's own blocks (its last reference let go in the handler): that would deadlock.
        queue.syncUnlessCurrent {}
    }

    private func check() {
        guard !lock.withLock({ stopped }) else { return }
        // The watches first, then the token: a change made after they are in place is an event of its own.
        rewatch()
        let now = Self.token(of: containers)
        guard now != token else { return }
        token = now
        handler(now)
    }

    /// Watches the folders the token depends on now: the configuration's,
    /// the engine's home (its keys) or the container folder's parent.
    private func rewatch() {
        var folders: [String] = []
        if let path = containers.configurationPathText { folders.append(PathName.folder(of: path)) }
        if let container = (try? containers.container(identifier: nil)) ?? nil {
            switch container.engine {
            case .folder: folders.append(PathName.folder(of: container.folderText))
            case .syncthing(let home, _): folders += home.map { [$0] } ?? UbiquityContainers.syncthingHomes()
            }
        }
        // The folders still wanted are watched again (the loop keeps one watch a client), and only the others let
        // go: a folder is never unwatched and watched again, which would lose what happened between.
        var kept: [Int32] = []
        for folder in Set(folders) {
            if let watch = try? loop.watch(folder, for: client) { kept.append(watch) }
        }
        for watch in watches where !kept.contains(watch) { loop.unwatch(watch, for: client) }
        watches = kept
    }

    private static func token(of containers: UbiquityContainers) -> String? {
        guard let container = (try? containers.container(identifier: nil)) ?? nil else { return nil }
        return UbiquityContainers.identityToken(of: container)
    }

}
