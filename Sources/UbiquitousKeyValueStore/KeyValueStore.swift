import Dispatch
import OrderedCollections
import PropertyList
import SystemPackage
import SystemSupport
import UbiquityContainers

/// The iCloud key-value store's meaning (`NSUbiquitousKeyValueStore`) over a
/// ubiquity container that any folder sync keeps on several devices.
///
/// Each device writes only a file of its own in the container's
/// `.ictkit-kvstore` folder (`DEVICE.plist`, DEVICE its identity token,
/// written whole by one rename), so the sync engine never has two devices'
/// edits of one file to reconcile; every device reads all the files and
/// merges them: for each key the latest change wins, a removal being a
/// change, times given by a `HybridLogicalClock` and ties broken the same way
/// everywhere (`KeyValueStoreEntry.wins(over:)`). `docs/kvstore-format.md`
/// describes the files.
///
/// Changes made here are kept in memory and written by `synchronize()`, or
/// soon after on the store's queue when it watches. Several processes of one
/// device each read, merge and write the device's file under one lock
/// (`ItemLock`), so none loses another's keys. Another device's file that is
/// truncated, corrupt or not a file is skipped with a warning and read again
/// when it changes; what it held when last read whole still counts.
///
/// While watching (`init(…, watching: true)`), the process's one file-event
/// loop watches the store's folder (no thread of its own, no periodic
/// wake-up), and the store tells each change of the
/// merged values that did not come from this store — another device's,
/// another process's, the first sight of other devices — to the observers
/// (`observe(on:_:)`, `changes()`), with the keys whose value changed; it
/// also watches the folder the container's identity comes from (the
/// Syncthing home holding the keys, or the folder holding a plain
/// container's folder), and tells a change of the identity — the keys
/// replaced, the folder replaced — as `accountChange` when it happens.
public final class KeyValueStore: Sendable {
    /// The folder of the store inside a container: `.ictkit-kvstore`.
    public static let folderName = ".ictkit-kvstore"

    let core: KeyValueStoreCore

    /// Opens the store kept in `container`: reads every device's file and
    /// merges them; with `watching`, watches the folder on the process's
    /// file-event loop and writes changes made here soon after they are made.
    ///
    /// `deviceToken` stands for this device in place of the container's
    /// identity token (`UbiquityContainers.identityToken(of:)`), and
    /// `wallClock` for the system's clock, in milliseconds since 1970
    /// (tests give a clock that runs behind). `warnings` is called, on the
    /// thread that read it, for each file skipped (once per version of it).
    ///
    /// Reads the store's folder; makes no file until a change is written.
    public init(
        container: UbiquityContainer, limits: UbiquitousKeyValueStoreLimits = .apple, deviceToken: String? = nil,
        wallClock: @escaping @Sendable () -> Int64 = HybridLogicalClock.systemMilliseconds, watching: Bool = true,
        warnings: (@Sendable (KeyValueStoreWarning) -> Void)? = nil
    ) {
        let state = KeyValueStoreState(
            container: container, limits: limits, deviceToken: deviceToken, clock: HybridLogicalClock(wallClock: wallClock))
        core = KeyValueStoreCore(state: state, warnings: warnings)
        core.readInitially()
        if watching { core.startWatching() }
    }

    deinit { core.stop() }

    /// Stops watching and writes what is left to write; ends the sequences
    /// `changes()` gave. Later changes are written by `synchronize()` only.
    public func close() { core.stop() }

    /// The container the store is kept in.
    public var container: UbiquityContainer { core.lock.withLock { core.state.container } }

    /// The container's store folder, `CONTAINER/.ictkit-kvstore`.
    public var folder: FilePath { RawFileName.filePath(folderText) }

    /// `folder` as the kit's text for a path (each byte that is not UTF-8 as U+10FF00 + byte).
    package var folderText: String { core.lock.withLock { core.state.folder } }

    /// This device's identity token, naming its file; nil when the
    /// container's engine has no identity here (the store then keeps its
    /// values in memory only, as Apple's does without an iCloud account).
    public var deviceToken: String? { core.lock.withLock { core.state.token } }

    /// The files skipped now, with why (a device's file truncated, corrupt, not a file).
    public var warnings: [KeyValueStoreWarning] {
        core.lock.withLock { core.state.skipped.values.map(\.warning).sorted { $0.pathText < $1.pathText } }
    }

    // MARK: Values

    /// The value of `key`; nil when it has none (never set, or removed).
    public func value(forKey key: String) -> PropertyListValue? {
        core.lock.withLock { core.state.value(forKey: key) }
    }

    /// Every key's value, sorted by key (Apple's `dictionaryRepresentation`).
    public var dictionaryRepresentation: OrderedDictionary<String, PropertyListValue> {
        core.lock.withLock {
            var result = OrderedDictionary<String, PropertyListValue>()
            for key in core.state.merged.keys.sorted() {
                if let value = core.state.merged[key]?.value { result[key] = value }
            }
            return result
        }
    }

    /// Every key's winning change, removals too, sorted by key: the value,
    /// when it was made and by which device.
    public var entries: [(key: String, entry: KeyValueStoreEntry)] {
        core.lock.withLock { core.state.merged.sorted { $0.key < $1.key }.map { (key: $0.key, entry: $0.value) } }
    }

    /// Sets `key` to `value` here, to be written by `synchronize()` (or, when
    /// watching, soon after on the store's queue). A change that would pass one of the
    /// limits (a key over 64 bytes of UTF-8, a 1,025th key, more than 1 MB
    /// in all, a UID) is refused, and observers are told
    /// `quotaViolationChange` naming the key, as Apple's store tells it.
    ///
    /// - Throws: `KeyValueStoreError` `.quotaViolation` naming the key and
    ///   the limit; no value changed.
    public func set(_ value: PropertyListValue, forKey key: String) throws(KeyValueStoreError) {
        try change(value, forKey: key)
    }

    /// Removes `key` here (a removal is a change, which wins over older
    /// values on every device), to be written as `set(_:forKey:)`'s changes.
    /// Nothing is done for a key without a value.
    public func removeValue(forKey key: String) {
        try? change(nil, forKey: key)
    }

    private func change(_ value: PropertyListValue?, forKey key: String) throws(KeyValueStoreError) {
        do throws(KeyValueStoreError) {
            try core.lock.withLock { () throws(KeyValueStoreError) in try core.state.set(value, forKey: key) }
        } catch {
            core.tell(KeyValueStoreChange(reason: .quotaViolationChange, changedKeys: [key]))
            throw error
        }
        core.scheduleWrite()
    }

    /// Apple's `synchronize()`: this device's changes written now, other
    /// devices' read now (and their changes told). The first call also tells
    /// what other devices changed since this device last wrote, as found when
    /// the store was opened (an app observes, then synchronizes at launch,
    /// and hears of what arrived while it was not running). False when the store
    /// cannot be written — no container identity here, the folder or the
    /// file not writable — as Apple's is false without an iCloud account;
    /// the changes are then kept to write again.
    ///
    /// Takes the lock of this device's file, reads the store's folder.
    @discardableResult
    public func synchronize() -> Bool {
        core.synchronize()
    }

    // MARK: Observing

    /// Calls `handler` on `queue` with each change told (through a serial
    /// queue targeting `queue`, so in order), until the returned
    /// observation is cancelled or dropped.
    public func observe(on queue: DispatchQueue, _ handler: @escaping @Sendable (KeyValueStoreChange) -> Void) -> KeyValueStoreObservation {
        let serial = DispatchQueue(label: "ICTKit.KeyValueStore.delivery", target: queue)
        let id = core.addObserver { change in serial.async { handler(change) } }
        return KeyValueStoreObservation(core: core, id: id)
    }

    /// The changes told from now on, as an asynchronous sequence that ends
    /// when the store is closed.
    public func changes() -> AsyncStream<KeyValueStoreChange> {
        let (stream, continuation) = AsyncStream.makeStream(of: KeyValueStoreChange.self, bufferingPolicy: .bufferingNewest(1024))
        let id = core.addObserver(finish: { continuation.finish() }) { continuation.yield($0) }
        let core = self.core
        continuation.onTermination = { _ in core.removeObserver(id) }
        return stream
    }
}

/// An observer of a `KeyValueStore`, told until cancelled or dropped.
public final class KeyValueStoreObservation: Sendable {
    private let core: KeyValueStoreCore
    private let id: Int

    init(core: KeyValueStoreCore, id: Int) {
        self.core = core
        self.id = id
    }

    deinit { cancel() }

    /// Stops telling this observer.
    public func cancel() { core.removeObserver(id) }
}

/// The store's state under its lock, its observers, and its client of the
/// process's file-event loop, which watches its folder and writes its changes.
final class KeyValueStoreCore: @unchecked Sendable {
    // @unchecked: `state`, `observers`, `nextObserver`, `pendingAtLaunch`, `client`, `identityWatch` and `stopping`
    // are touched only under `lock`.
    let lock = ThreadLock()
    var state: KeyValueStoreState
    private var observers: [Int: (tell: @Sendable (KeyValueStoreChange) -> Void, finish: (@Sendable () -> Void)?)] = [:]
    private var nextObserver = 0
    private var stopping = false
    private let warningHandler: (@Sendable (KeyValueStoreWarning) -> Void)?
    /// The loop and this store's client of it, while watching.
    private var client: (loop: FileEventLoop, client: FileEventLoop.Client)?
    /// The watch of the folder holding the entry the identity depends on, and the entry's name: only its
    /// events there count.
    private var identityWatch: (watch: Int32, name: String)?
    /// The queue the loop hands this store's events to: one at a time, in order.
    private let queue = DispatchQueue(label: "ICTKit.KeyValueStore")

    init(state: KeyValueStoreState, warnings: (@Sendable (KeyValueStoreWarning) -> Void)?) {
        self.state = state
        warningHandler = warnings
    }

    /// What other devices changed since this device last wrote, found by the first read and told at the
    /// first `synchronize()` (an app observes, then synchronizes at launch).
    private var pendingAtLaunch: KeyValueStoreChange?

    /// The first read: this device's file, then every other, warning of files skipped; the change between the
    /// two is held for the first `synchronize()`.
    func readInitially() {
        let warnings = lock.withLock {
            let own = state.refresh(othersToo: false).warnings
            let (change, others) = state.refresh()
            pendingAtLaunch = change
            return own + others
        }
        for warning in warnings { warningHandler?(warning) }
    }

    /// Watches the store's folder on the process's file-event loop (no thread or inotify descriptor of its
    /// own, no periodic wake-up), and the folder the container's identity comes from (`identityEntry`), so
    /// an identity change is told as `accountChange` when it happens; without a loop, changes are seen at
    /// `synchronize()` only.
    func startWatching() {
        guard case .success(let loop) = FileEventLoop.shared else { return }
        _ = try? lock.withLock { () throws(KeyValueStoreError) in try state.makeFolder() }
        let registered: FileEventLoop.Client
        do throws(FileEventLoop.Failure) {
            registered = try loop.register(queue: queue) { [weak self] delivery in self?.handle(delivery) }
        } catch {
            return
        }
        guard (try? loop.watch(lock.withLock { state.folder }, for: registered)) != nil else {
            loop.unregister(registered)
            return
        }
        // Without it an identity change is still seen, at the next change of the store or `synchronize()`.
        let identity = lock.withLock { state.identityEntry }.flatMap { entry in
            (try? loop.watch(entry.folder, for: registered)).map { (watch: $0, name: entry.name) }
        }
        lock.withLock {
            client = (loop, registered)
            identityWatch = identity
        }
    }

    /// What the loop told: the folder's events (read what changed, and tell it), or a wake (write).
    private func handle(_ delivery: FileEventLoop.Delivery) {
        guard let (loop, client) = lock.withLock({ stopping ? nil : self.client }) else { return }
        let identity = lock.withLock { identityWatch }
        // The identity's folder (a Syncthing home, a container's parent) has other entries: only the identity's
        // entry counts there, and the folder itself going.
        let events = delivery.events.filter { event in
            guard let identity, event.watch == identity.watch else { return true }
            return event.name == identity.name || event.change == .folderGone
        }
        if events.contains(where: { $0.watch == identity?.watch || $0.change == .folderGone }) {
            // The folder was removed or replaced (a sync engine's doing), or the container's folder holding it
            // (its identity): watch the new one.
            _ = try? lock.withLock { () throws(KeyValueStoreError) in try state.makeFolder() }
            _ = try? loop.watch(lock.withLock { state.folder }, for: client)
        }
        if !events.isEmpty { refresh() }
        write()
    }

    /// Asks the loop to have this store's changes written soon (by `handle`).
    func scheduleWrite() {
        guard let (loop, client) = lock.withLock({ self.client }) else { return }
        loop.wake(client)
    }

    /// Reads what changed and tells it.
    private func refresh() {
        let (change, warnings) = lock.withLock { state.refresh() }
        for warning in warnings { warningHandler?(warning) }
        if let change { tell(change) }
    }

    /// Writes the changes made here, telling what other processes of this device had changed.
    @discardableResult
    private func write() -> Bool {
        let result = lock.withLock { () -> Result<Set<String>, KeyValueStoreError> in
            do throws(KeyValueStoreError) { return .success(try state.flush()) } catch { return .failure(error) }
        }
        guard case .success(let changed) = result else { return false }
        if !changed.isEmpty { tell(KeyValueStoreChange(reason: .serverChange, changedKeys: changed.sorted())) }
        return true
    }

    func synchronize() -> Bool {
        if let change = lock.withLock({ () -> KeyValueStoreChange? in
            defer { pendingAtLaunch = nil }
            return pendingAtLaunch
        }) {
            tell(change)
        }
        refresh()
        guard write() else { return false }
        return lock.withLock { state.token != nil }
    }

    /// Tells every observer `change`, in the order changes are told.
    func tell(_ change: KeyValueStoreChange) {
        lock.withLock { for observer in observers.values { observer.tell(change) } }
    }

    func addObserver(finish: (@Sendable () -> Void)? = nil, _ tell: @escaping @Sendable (KeyValueStoreChange) -> Void) -> Int {
        lock.withLock {
            nextObserver += 1
            observers[nextObserver] = (tell, finish)
            return nextObserver
        }
    }

    func removeObserver(_ id: Int) {
        _ = lock.withLock { observers.removeValue(forKey: id) }
    }

    /// Stops watching (waiting for a handler running), writes what is left, and ends the observers'
    /// sequences; once only.
    func stop() {
        let wasStopping = lock.withLock {
            defer { stopping = true }
            return stopping
        }
        guard !wasStopping else { return }
        if let (loop, client) = lock.withLock({ self.client }) {
            // No handler starts after this; one running ends before the queue's next block.
            loop.unregister(client)
            if !loop.isHandling(client) { queue.sync {} }
        }
        write()
        let finishing = lock.withLock {
            defer { observers = [:] }
            return observers.values.compactMap(\.finish)
        }
        for finish in finishing { finish() }
    }
}
