import Dispatch
import SystemSupport

/// Follows a Syncthing device's event stream (`/rest/events`, long-polled)
/// on the process's file-event loop (`FileEventLoop`: no thread of its own)
/// and tells `handler` when something happened that may change an item's
/// sync state in the folder — an index updated, an item fetched, progress,
/// a device connected or gone — or when the engine stopped answering (with
/// the reason). Between events the loop waits on the long poll's
/// connection; while the engine is away it asks again every second.
public final class SyncthingEventWatcher: @unchecked Sendable {
    // @unchecked: the mutable state is touched only on `queue`; `stopped`
    // under `lock`.

    /// What the watcher tells: `nil` for "something changed", else the
    /// error that keeps the engine from being asked.
    public typealias Handler = @Sendable (UbiquityContainerError?) -> Void

    private let endpoint: SyncthingEndpoint
    private let handler: Handler
    private let loop: FileEventLoop
    private let queue = DispatchQueue.serial(label: "ICTKit engine events")
    private var client: FileEventLoop.Client!
    private let lock = ThreadLock()
    private var stopped = false
    /// The long poll under way, and the event it asks after.
    private var exchange: PendingHTTPExchange?
    private var target = ""
    private var since: Int?
    private var failing = false
    /// Seconds Syncthing holds a long poll open before answering with no event.
    static let pollSeconds = 50

    /// A watcher of `endpoint`'s events; nothing is asked before `start()`.
    ///
    /// - Throws: `UbiquityContainerError` `.io` when the file-event loop cannot be used.
    public init(endpoint: SyncthingEndpoint, handler: @escaping Handler) throws(UbiquityContainerError) {
        self.endpoint = endpoint
        self.handler = handler
        do throws(FileEventLoop.Failure) {
            loop = try FileEventLoop.shared.get()
            client = try loop.register(queue: queue) { [weak self] delivery in self?.handle(delivery) }
        } catch {
            throw UbiquityContainerError(.io, pathText: endpoint.folderPathText, error.description)
        }
    }

    deinit { stop() }

    /// Starts following the events. Returns true.
    @discardableResult
    public func start() -> Bool { start(after: nil) }

    /// Starts following the events after the one `eventID` names (nil:
    /// where the stream is when it starts), as read by
    /// `SyncthingEndpoint.latestEventID()` before the caller read the
    /// folder's state: whatever happened since is told. Returns true.
    @discardableResult
    package func start(after eventID: Int?) -> Bool {
        queue.async { [self] in
            if since == nil { since = eventID }
            poll()
        }
        return true
    }

    /// Stops following: the long poll is dropped and nothing is told after this returns.
    public func stop() {
        let wasStopped = lock.withLock {
            defer { stopped = true }
            return stopped
        }
        guard !wasStopped else { return }
        loop.unregister(client)
        // Not from one of the queue's own blocks (its last reference let go there): that would deadlock.
        queue.syncUnlessCurrent {
            exchange?.close()
            exchange = nil
        }
    }

    private var isStopped: Bool { lock.withLock { stopped } }

    /// Asks for the events after `since` (first where the stream is now), on `queue`.
    private func poll() {
        guard !isStopped else { return }
        let client = endpoint.client
        do throws(UbiquityContainerError) {
            if since == nil {
                // Where the stream is now (a restarted engine counts from 1 again).
                since = try endpoint.latestEventID()
                if failing {
                    failing = false
                    handler(nil)
                }
            }
            target = "/rest/events?since=\(since ?? 0)&timeout=\(Self.pollSeconds)"
            do throws(HTTPFailure) {
                exchange = try PendingHTTPExchange(
                    HTTPRequest(address: client.address, target: target, headers: [("X-API-Key", client.apiKey)]), timeout: client.timeout)
            } catch {
                throw UbiquityContainerError(.engine, pathText: client.address, place: target, "Syncthing is not answering (\(error.description))")
            }
            loop.add(exchange!.descriptor, for: self.client)
            loop.schedule(monotonicNow() + Double(Self.pollSeconds) + 10, for: self.client)
        } catch {
            fail(error)
        }
    }

    /// What the loop told: the long poll's answer arriving, or its deadline (or a retry's) passing.
    private func handle(_ delivery: FileEventLoop.Delivery) {
        guard !isStopped else { return }
        guard let exchange else {
            if delivery.isDue { poll() }  // The second after a failure.
            return
        }
        let client = endpoint.client
        do throws(UbiquityContainerError) {
            let response: HTTPResponse?
            do throws(HTTPFailure) {
                response = try exchange.readAvailable()
            } catch {
                throw UbiquityContainerError(.engine, pathText: client.address, place: target, "Syncthing is not answering (\(error.description))")
            }
            guard let response else {
                if delivery.isDue {
                    throw UbiquityContainerError(
                        .engine, pathText: client.address, place: target, "Syncthing did not answer within \(Self.pollSeconds + 10) s")
                }
                loop.rearm(exchange.descriptor, for: self.client)
                return
            }
            finishExchange()
            guard response.status == 200 else {
                throw UbiquityContainerError(.engine, pathText: client.address, place: target, "Syncthing answered HTTP \(response.status)")
            }
            let events = try client.decode(response.body, as: [Event].self, target: target)
            if let last = events.last?.id {
                // A restarted engine's ids start again below ours: read from where it is.
                since = last < (since ?? 0) ? nil : last
            }
            if events.contains(where: matters) { handler(nil) }
            poll()
        } catch {
            finishExchange()
            fail(error)
        }
    }

    private func finishExchange() {
        if let exchange {
            loop.remove(exchange.descriptor, for: client)
            exchange.close()
        }
        exchange = nil
    }

    /// Tells the failure once, and asks again in a second.
    private func fail(_ error: UbiquityContainerError) {
        guard !isStopped else { return }
        since = nil
        if !failing {
            failing = true
            handler(error)
        }
        loop.schedule(monotonicNow() + 1, for: client)
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
