import SystemSupport

/// Follows a Syncthing device's event stream (`/rest/events`, long-polled)
/// on a thread of its own and tells `changed` when something happened that
/// may change an item's sync state in the folder — an index updated, an
/// item fetched, progress, a device connected or gone — or when the engine
/// stopped answering (with the reason). Between events the thread sleeps in
/// the long poll; while the engine is away it tries again every second.
public final class SyncthingEventWatcher: @unchecked Sendable {
    // @unchecked: `stopped` is touched only under `lock`; the rest is fixed at init.

    /// What the watcher tells: `nil` for "something changed", else the
    /// error that keeps the engine from being asked.
    public typealias Handler = @Sendable (UbiquityContainerError?) -> Void

    private let endpoint: SyncthingEndpoint
    private let handler: Handler
    private let wake: WakeSignal
    private let lock = ThreadLock()
    private var stopped = false
    private var thread: JoinableThread<Void>?
    /// Seconds Syncthing holds a long poll open before answering with no event.
    static let pollSeconds = 50

    /// A watcher of `endpoint`'s events; nothing happens before `start()`.
    ///
    /// - Throws: `UbiquityContainerError` `.io` when no pipe can be made.
    public init(endpoint: SyncthingEndpoint, handler: @escaping Handler) throws(UbiquityContainerError) {
        self.endpoint = endpoint
        self.handler = handler
        do throws(WakeSignal.Failure) {
            wake = try WakeSignal()
        } catch {
            throw UbiquityContainerError(.io, path: endpoint.folderPath, error.description)
        }
    }

    deinit { stop() }

    /// Starts the thread. Returns false when it cannot be started.
    @discardableResult
    public func start() -> Bool {
        guard let thread = JoinableThread.start({ [self] in run() }) else { return false }
        lock.withLock { self.thread = thread }
        return true
    }

    /// Ends the long poll and the thread, and waits for it; nothing is told after.
    public func stop() {
        let thread = lock.withLock {
            stopped = true
            defer { self.thread = nil }
            return self.thread
        }
        wake.signal()
        _ = thread?.join()
    }

    private var isStopped: Bool { lock.withLock { stopped } }

    private func run() {
        var since: Int?
        var failing = false
        while !isStopped {
            do throws(UbiquityContainerError) {
                let client = endpoint.client
                if since == nil {
                    // Where the stream is now (a restarted engine counts from 1 again).
                    let latest = try client.decode(
                        client.request("GET", "/rest/events?since=0&limit=1&timeout=0", cancel: wake.descriptor), as: [Event].self, target: "/rest/events")
                    since = latest.last?.id ?? 0
                    if failing {
                        failing = false
                        handler(nil)
                    }
                }
                let target = "/rest/events?since=\(since ?? 0)&timeout=\(Self.pollSeconds)"
                let events = try client.decode(
                    client.request("GET", target, timeout: Double(Self.pollSeconds) + 10, cancel: wake.descriptor), as: [Event].self, target: target)
                if let last = events.last?.id {
                    // A restarted engine's ids start again below ours: read from where it is.
                    if last < (since ?? 0) { since = nil } else { since = last }
                }
                if events.contains(where: matters) { handler(nil) }
            } catch {
                guard !isStopped else { return }
                since = nil
                if !failing {
                    failing = true
                    handler(error)
                }
                // Tries again in a second, or at once when stopped.
                _ = waitForInput([wake.descriptor], timeout: 1)
            }
        }
    }

    /// Whether `event` may change the state of an item of the folder.
    private func matters(_ event: Event) -> Bool {
        switch event.type {
        case "DeviceConnected", "DeviceDisconnected", "DownloadProgress", "RemoteDownloadProgress": return true
        case "LocalIndexUpdated", "RemoteIndexUpdated", "ItemStarted", "ItemFinished", "FolderCompletion", "FolderErrors", "StateChanged":
            return event.data?.folder == nil || event.data?.folder == endpoint.folderID
        default: return false
        }
    }

    private typealias Event = SyncthingFolderStatus.Event
}
