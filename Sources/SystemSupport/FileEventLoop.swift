import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's one file-event loop: one inotify descriptor and one
/// thread, shared by every presenter, query and watcher of the process.
///
/// A client registers with a serial queue and a handler; it then asks for
/// folders to be watched (a client holds a folder's watch once, however
/// often it asks; watches of one folder by several clients are one kernel
/// watch, which goes with its last holder), for descriptors of its own to be waited on (a
/// presenter's FIFO: each readiness is told once, until the client
/// `rearm`s it, so a descriptor not yet drained does not spin the loop),
/// and for a wake-up at a deadline. The loop's thread waits in `poll` with
/// no timeout while nothing is due — no periodic wake-ups — and hands what
/// happened to each client's handler on the client's queue, in order, so a
/// handler may block (wait for a lock) without holding up the others.
package final class FileEventLoop: @unchecked Sendable {
    // @unchecked: every mutable field is touched only under `lock`; the
    // watcher's descriptor is read by the loop's thread alone.

    /// What the loop tells a client at once.
    package struct Delivery: Sendable {
        /// The file events of the client's watches (and every overflow).
        package var events: [DirectoryWatcher.Event] = []
        /// The client's descriptors that became readable (now disarmed).
        package var readable: [Int32] = []
        /// Whether the client's deadline passed (it is then cleared).
        package var isDue = false
        /// Whether the client asked to be woken (`wake(_:)`).
        package var isWoken = false

        var isEmpty: Bool { events.isEmpty && readable.isEmpty && !isDue && !isWoken }
    }

    /// A registered client; `FileEventLoop` methods take it.
    package final class Client: @unchecked Sendable {
        // @unchecked: the fields are touched only under the loop's `lock`,
        // but `queue` and `handler`, fixed at init.
        let queue: DispatchQueue
        let handler: @Sendable (Delivery) -> Void
        var watches: Set<Int32> = []
        var descriptors: [Int32: Bool] = [:]
        var deadline: Double?
        var isWoken = false
        var isActive = true
        /// What was told and not yet handed to the handler (or taken by `takePending`).
        var pending = Delivery()
        /// Whether a call of the handler is queued.
        var isScheduled = false
        /// The thread running the handler now, if any.
        var handlingThread: pthread_t?

        init(queue: DispatchQueue, handler: @escaping @Sendable (Delivery) -> Void) {
            self.queue = queue
            self.handler = handler
        }
    }

    /// Why the loop cannot be used.
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    /// The process's loop; nil when it cannot be made (no inotify, no pipe,
    /// no thread): the error says why.
    package static let shared: Result<FileEventLoop, Failure> = {
        do throws(Failure) {
            return .success(try FileEventLoop())
        } catch {
            return .failure(error)
        }
    }()

    private let lock = ThreadLock()
    /// The inotify descriptor; nil where the platform has none (then only descriptors and deadlines are waited on).
    private let watcher: DirectoryWatcher?
    private let wakeSignal: WakeSignal
    private var clients: [ObjectIdentifier: Client] = [:]
    /// Which clients hold each kernel watch.
    private var watchHolders: [Int32: Set<ObjectIdentifier>] = [:]
    private var thread: DetachedThread?
    /// Held by `holdingTurns` and taken by the thread before it reads events.
    private let holdLock = ThreadLock()
    /// How many times the loop's thread came out of `poll` (for tests and benchmarks).
    private var turns = 0
    /// Broadcast at the end of each turn, for `settle()`.
    private let turnEnded = ConditionVariable()
    /// Turns ended; touched only under `turnEnded`'s mutex.
    private var finishedTurns = 0

    /// A loop of its own, apart from the process's (`shared`): for a test
    /// that must fill its kernel queue without touching anyone else's.
    ///
    /// - Throws: `Failure` when no pipe can be made.
    package init() throws(Failure) {
        watcher = try? DirectoryWatcher()
        do throws(WakeSignal.Failure) {
            wakeSignal = try WakeSignal()
        } catch {
            throw Failure(description: error.description)
        }
    }

    /// Registers a client whose `handler` runs on `queue` (serial) with what happened.
    ///
    /// - Throws: `Failure` when the loop's thread cannot be started.
    package func register(queue: DispatchQueue, handler: @escaping @Sendable (Delivery) -> Void) throws(Failure) -> Client {
        let client = Client(queue: queue, handler: handler)
        try lock.withLock { () throws(Failure) in
            if thread == nil {
                let made = DetachedThread(name: "ICTKit files") { [self] in run() }
                guard made.start() else { throw Failure(description: "cannot start the file-event thread (the process is at its thread limit)") }
                thread = made
            }
            clients[ObjectIdentifier(client)] = client
        }
        return client
    }

    /// Ends `client`: its watches and descriptors are let go, and no handler
    /// call starts after this returns (one running goes on to its end).
    package func unregister(_ client: Client) {
        lock.withLock {
            guard client.isActive else { return }
            client.isActive = false
            for watch in client.watches { release(watch, of: client) }
            client.watches = []
            client.descriptors = [:]
            clients[ObjectIdentifier(client)] = nil
        }
        wakeSignal.signal()
    }

    /// Whether the calling thread is running `client`'s handler.
    package func isHandling(_ client: Client) -> Bool {
        lock.withLock { client.handlingThread.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }

    /// Watches the folder at `path` for `client` (the same kernel watch for
    /// every client of one folder); returns the watch, as its events carry it.
    ///
    /// - Throws: `DirectoryWatcher.Failure` as `DirectoryWatcher.watch`.
    package func watch(_ path: String, followingLink: Bool = true, for client: Client) throws(DirectoryWatcher.Failure) -> Int32 {
        try lock.withLock { () throws(DirectoryWatcher.Failure) in
            guard let watcher else { throw DirectoryWatcher.Failure(description: "watching folders for changes is not supported on this platform yet") }
            let watch = try watcher.watch(path, followingLink: followingLink)
            client.watches.insert(watch)
            watchHolders[watch, default: []].insert(ObjectIdentifier(client))
            return watch
        }
    }

    /// Lets go of `client`'s watch; the kernel watch goes with its last holder.
    package func unwatch(_ watch: Int32, for client: Client) {
        lock.withLock {
            guard client.watches.remove(watch) != nil else { return }
            release(watch, of: client)
        }
    }

    /// The inotify descriptor (for tests that read its watches in
    /// `/proc/self/fdinfo`); nil where the platform has none.
    package var inotifyDescriptor: Int32? { watcher?.descriptor }

    /// Under `lock`: `client` no longer holds `watch`.
    private func release(_ watch: Int32, of client: Client) {
        watchHolders[watch]?.remove(ObjectIdentifier(client))
        if watchHolders[watch]?.isEmpty ?? true {
            watchHolders[watch] = nil
            watcher?.unwatch(watch)
        }
    }

    /// Waits on `descriptor` (readable) for `client`: told once, then disarmed until `rearm`.
    package func add(_ descriptor: Int32, for client: Client) {
        lock.withLock { if client.isActive { client.descriptors[descriptor] = true } }
        wakeSignal.signal()
    }

    /// Waits on `descriptor` again after it was told.
    package func rearm(_ descriptor: Int32, for client: Client) {
        lock.withLock { if client.isActive, client.descriptors[descriptor] != nil { client.descriptors[descriptor] = true } }
        wakeSignal.signal()
    }

    /// Stops waiting on `descriptor` for `client`.
    package func remove(_ descriptor: Int32, for client: Client) {
        lock.withLock { client.descriptors[descriptor] = nil }
        wakeSignal.signal()
    }

    /// Tells `client` once the monotonic clock (`monotonicNow()`) passes `deadline`; nil for never.
    package func schedule(_ deadline: Double?, for client: Client) {
        let changed = lock.withLock {
            defer { client.deadline = deadline }
            return client.deadline != deadline
        }
        if changed { wakeSignal.signal() }
    }

    /// Tells `client` soon, with `isWoken` (another thread has news for it).
    package func wake(_ client: Client) {
        lock.withLock { client.isWoken = true }
        wakeSignal.signal()
    }

    /// Takes what was told to `client` and not yet handed to its handler,
    /// having first let the loop read every event the kernel holds
    /// (`settle()`) when `settling`. For a handler that waited (for a
    /// lock) and wants the events that came meanwhile at once.
    package func takePending(for client: Client, settling: Bool) -> Delivery {
        if settling { settle() }
        return lock.withLock {
            defer { client.pending = Delivery() }
            return client.pending
        }
    }

    /// Runs `body` while the loop's thread is held before it reads the
    /// kernel's events (so they queue up there, and can overflow it).
    package func holdingTurns(_ body: () -> Void) {
        holdLock.withLock { body() }
    }

    /// How many times the loop's thread has woken so far.
    package var wakeCount: Int { lock.withLock { turns } }

    /// Returns once the loop's thread has read every file event the kernel
    /// held when this was called and queued it to its client (then a
    /// `queue.sync {}` on a client's queue runs what it was given). Must not
    /// be called on the loop's thread.
    package func settle() {
        turnEnded.lock()
        // Two whole turns: the one under way may have read the kernel's queue before this call.
        let target = finishedTurns + 2
        while finishedTurns < target {
            wakeSignal.signal()
            turnEnded.wait()
        }
        turnEnded.unlock()
    }

    // MARK: The thread

    private func run() {
        while true {
            let (descriptors, timeout) = lock.withLock { () -> ([(Int32, ObjectIdentifier)], Double) in
                var waited: [(Int32, ObjectIdentifier)] = []
                var nearest: Double?
                for (id, client) in clients {
                    for (descriptor, armed) in client.descriptors where armed { waited.append((descriptor, id)) }
                    if let deadline = client.deadline { nearest = min(nearest ?? deadline, deadline) }
                    if client.isWoken { nearest = 0 }
                }
                return (waited, nearest.map { max($0 - monotonicNow(), 0) } ?? -1)
            }
            let ready = waitForInput([watcher?.descriptor ?? -1, wakeSignal.descriptor] + descriptors.map(\.0), timeout: timeout)
            wakeSignal.drain()
            holdLock.withLock {}
            let events = ready[0] ? watcher?.events() ?? [] : []
            let now = monotonicNow()
            lock.withLock {
                turns += 1
                var deliveries: [ObjectIdentifier: Delivery] = [:]
                for event in events {
                    let holders = event.change == .overflowed && event.watch < 0 ? Set(clients.keys) : watchHolders[event.watch] ?? []
                    for holder in holders { deliveries[holder, default: Delivery()].events.append(event) }
                }
                for (index, (descriptor, id)) in descriptors.enumerated() where ready[index + 2] {
                    guard let client = clients[id], client.descriptors[descriptor] == true else { continue }
                    client.descriptors[descriptor] = false
                    deliveries[id, default: Delivery()].readable.append(descriptor)
                }
                for (id, client) in clients {
                    if let deadline = client.deadline, deadline <= now {
                        client.deadline = nil
                        deliveries[id, default: Delivery()].isDue = true
                    }
                    if client.isWoken {
                        client.isWoken = false
                        deliveries[id, default: Delivery()].isWoken = true
                    }
                }
                for (id, delivery) in deliveries where !delivery.isEmpty {
                    guard let client = clients[id] else { continue }
                    client.pending.events += delivery.events
                    client.pending.readable += delivery.readable
                    client.pending.isDue = client.pending.isDue || delivery.isDue
                    client.pending.isWoken = client.pending.isWoken || delivery.isWoken
                    guard !client.isScheduled else { continue }
                    client.isScheduled = true
                    client.queue.async { [self] in
                        let taken = lock.withLock { () -> Delivery? in
                            client.isScheduled = false
                            guard client.isActive else { return nil }
                            client.handlingThread = pthread_self()
                            defer { client.pending = Delivery() }
                            return client.pending
                        }
                        guard let taken else { return }
                        if !taken.isEmpty { client.handler(taken) }
                        lock.withLock { client.handlingThread = nil }
                    }
                }
            }
            turnEnded.lock()
            finishedTurns += 1
            turnEnded.broadcast()
            turnEnded.unlock()
        }
    }
}

/// A condition variable with its mutex (pthread's), for `FileEventLoop.settle()`: each at a fixed address, as
/// `ThreadLock`'s mutex (`&` on a stored property promises none).
private final class ConditionVariable: @unchecked Sendable {
    // @unchecked: the pthread mutex and condition are made for threads, allocated in init, destroyed in deinit.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }
    func wait() { pthread_cond_wait(condition, mutex) }

    func broadcast() { pthread_cond_broadcast(condition) }
}
