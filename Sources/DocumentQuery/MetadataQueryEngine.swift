import Dispatch
import DocumentVersions
import SystemSupport
import UbiquityContainers
import UniformTypes

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A query's state and its thread: the items found, the folders and
/// packages watched, the conflict copies seen, the items waiting to
/// settle and the changes not yet told.
///
/// Everything but `status` is touched under `lock`, which the thread holds
/// for each round of events (and `enableUpdates` for its flush).
final class MetadataQueryEngine: @unchecked Sendable {
    // @unchecked: the mutable state is touched only under `lock` (`status`
    // under its own lock, `stopping` under `stopLock`).

    /// What a watch watches: a folder searched for items, or a package
    /// (its top folder or a folder in it) whose item changes with it.
    enum Watched: Equatable {
        case folder(String)
        case package(String)
    }

    /// An item waiting for its events to stop: when, and where it is.
    struct Settling {
        var deadline: Double
        var folder: String
        var name: String
    }

    /// What a poll waits at most, so that `stop` is seen soon.

    let lock = ThreadLock()
    let roots: [String]
    let predicate: MetadataQueryPredicate
    let registry: TypeRegistry
    let sortedBy: [MetadataAttribute]
    let settleSeconds: Double
    let watcher: QueryWatcher
    let deliver: @Sendable (MetadataQueryUpdate) -> Void
    /// The containers whose engines give the items' sync state.
    let containers: UbiquityContainers

    var watched: [Int32: Watched] = [:]
    var folderWatches: [String: Int32] = [:]
    var packageWatches: [String: Set<Int32>] = [:]
    var items: [String: MetadataItem] = [:]
    /// The conflict copies' names beside each original's path.
    var conflicts: [String: Set<String>] = [:]
    var settling: [String: Settling] = [:]
    var held = HeldChanges()
    var problems: [MetadataQueryError] = []
    /// The type identified for a name's last two extensions, by whether it is a directory (the registry is fixed once started).
    var contentTypes: [Bool: [String: String]] = [:]
    var disabledDepth: Int

    /// The results as last told, and whether the gathering was told.
    let status = Status()
    /// The sync engines of the containers the roots are in, each with the
    /// state it last told (nil before the first read).
    var engines: [EngineStatus] = []
    private let stopLock = ThreadLock()
    private var stopping = false

    final class Status: @unchecked Sendable {
        // @unchecked: `results` and `gathered` are touched only under `lock`.
        private let lock = ThreadLock()
        private var results: [MetadataItem] = []
        private var gathered = false

        func told(_ update: MetadataQueryUpdate) {
            lock.withLock {
                results = update.results
                gathered = true
            }
        }
        var toldResults: [MetadataItem] { lock.withLock { results } }
        var hasGathered: Bool { lock.withLock { gathered } }
    }

    init(
        roots: [String], predicate: MetadataQueryPredicate, registry: TypeRegistry, sortedBy: [MetadataAttribute], settleInterval: Duration,
        watcher: QueryWatcher, disabledDepth: Int, containers: UbiquityContainers = .current,
        deliver: @escaping @Sendable (MetadataQueryUpdate) -> Void
    ) {
        self.containers = containers
        self.roots = roots
        self.predicate = predicate
        self.registry = registry
        self.sortedBy = sortedBy
        let (seconds, attoseconds) = settleInterval.components
        settleSeconds = max(0, Double(seconds) + Double(attoseconds) / 1e18)
        self.watcher = watcher
        self.disabledDepth = disabledDepth
        self.deliver = deliver
    }

    /// A container's engine as the query follows it.
    final class EngineStatus: @unchecked Sendable {
        // @unchecked: `state` and `dirty` are touched only under the engine's `lock`.
        let endpoint: SyncthingEndpoint
        /// What the engine last told; nil before the first read.
        var state: Result<SyncthingFolderStatus, UbiquityContainerError>?
        /// Whether the engine told of a change not yet read.
        var dirty = true
        var watcher: SyncthingEventWatcher?

        init(endpoint: SyncthingEndpoint) { self.endpoint = endpoint }

        /// The sync state of the item at `path` as last read.
        func syncState(of path: String) -> UbiquitousItemSyncState {
            switch state {
            case .success(let folder)?: .known(folder.status(ofItemAt: path))
            case .failure(let error)?: .unknown(reason: error.description)
            case nil: .unknown(reason: "the engine's state is being read")
            }
        }
    }

    /// The sync state of the item at `path`: from the engine of the
    /// container it is in, `.notTracked` when none tells one.
    func syncState(of path: String) -> UbiquitousItemSyncState {
        for engine in engines where engine.endpoint.folderPath == path || path.hasPrefix(engine.endpoint.folderPath + "/") {
            return engine.syncState(of: path)
        }
        return .notTracked
    }

    /// Finds the engines of the roots' containers and starts following them.
    private func startEngines() {
        var found: [String: EngineStatus] = [:]
        var unfollowed: [MetadataQueryError] = []
        for root in roots {
            guard let container = (try? containers.container(containing: root)) ?? nil else { continue }
            let endpoint: SyncthingEndpoint
            do throws(UbiquityContainerError) {
                // The state is read off the query's updates (after the gathering, after the file events): a
                // large folder's may take the engine seconds to give.
                guard let made = try UbiquityContainers.syncthingEndpoint(of: container, timeout: 10) else { continue }
                endpoint = made
            } catch {
                unfollowed.append(MetadataQueryError(path: root, "no sync status: \(error)"))
                continue
            }
            let key = endpoint.folderPath
            guard found[key] == nil else { continue }
            let engine = EngineStatus(endpoint: endpoint)
            found[key] = engine
            engine.watcher = try? SyncthingEventWatcher(endpoint: endpoint) { [weak self, weak engine] failure in
                guard let self, let engine else { return }
                self.lock.withLock {
                    if let failure { engine.state = .failure(failure) }
                    engine.dirty = failure == nil
                    if failure != nil { self.restate() }
                }
                self.watcher.loop.wake(self.watcher.client)
            }
        }
        lock.withLock {
            engines = Array(found.values)
            problems += unfollowed
        }
    }

    /// Reads again the state of each engine that told of a change (outside
    /// the lock: the calls take a few milliseconds), then gives each item its state.
    private func refreshEngines() {
        let due = dueEngines()
        guard !due.isEmpty else { return }
        let itemPaths = lock.withLock { Array(items.keys) }
        let read = due.map { engine in
            Result { () throws(UbiquityContainerError) in
                var folder = try engine.endpoint.folderStatus()
                try Self.browseFolders(of: itemPaths, in: &folder)
                return folder
            }
        }
        lock.withLock {
            for (engine, state) in zip(due, read) { engine.state = state }
            restate()
        }
    }

    /// The engines that told of a change not yet read, each marked read.
    private func dueEngines() -> [EngineStatus] {
        lock.withLock {
            engines.filter(\.dirty).map { engine in
                engine.dirty = false
                return engine
            }
        }
    }

    /// Browses the folders the items at `itemPaths` are in that `folder` has
    /// not browsed: each one level deep, or the whole tree when there are many.
    private static func browseFolders(of itemPaths: [String], in folder: inout SyncthingFolderStatus) throws(UbiquityContainerError) {
        let folders = Set(itemPaths.compactMap { folder.relativeFolder(of: $0) }).filter { !folder.hasBrowsed($0) }
        if folders.count <= 16 {
            for relative in folders.sorted() { try folder.browse(relative) }
        } else {
            try folder.browse("", levels: nil)
        }
    }

    /// The engines asked before the gathering scan: each one's browse of
    /// the roots in its folder sent, which the engine makes while the
    /// roots are scanned (the answers are read after, on the query's
    /// thread), or why it could not be sent.
    private func askEngines() -> [(EngineStatus, Result<[(String, SyncthingClient.PendingRequest)], UbiquityContainerError>)] {
        dueEngines().map { engine in
            let asked = Result { () throws(UbiquityContainerError) in
                var requests: [(String, SyncthingClient.PendingRequest)] = []
                for root in roots {
                    guard let relative = SyncthingFolderStatus.relativePath(of: root, in: engine.endpoint.folderPath),
                        !requests.contains(where: { $0.0 == relative })
                    else { continue }
                    requests.append((relative, try SyncthingFolderStatus.beginBrowse(relative, of: engine.endpoint)))
                }
                return requests
            }
            return (engine, asked)
        }
    }

    /// Reads what the engines asked by `askEngines()` answered, with each
    /// one's folder state and the folders of the items found that the
    /// roots' browses did not cover, then gives each item its state.
    private func finish(_ asked: [(EngineStatus, Result<[(String, SyncthingClient.PendingRequest)], UbiquityContainerError>)]) {
        guard !asked.isEmpty else { return }
        let itemPaths = lock.withLock { Array(items.keys) }
        let read = asked.map { engine, requests in
            Result { () throws(UbiquityContainerError) in
                let requests = try requests.get()
                var folder = try engine.endpoint.folderStatus()
                for (relative, request) in requests { try folder.browse(relative, answering: request) }
                try Self.browseFolders(of: itemPaths, in: &folder)
                return folder
            }
        }
        lock.withLock {
            for ((engine, _), state) in zip(asked, read) { engine.state = state }
            restate()
        }
    }

    /// Gives every item the sync state its engine last told, holding the changed ones to tell.
    func restate() {
        guard !engines.isEmpty else { return }
        for (path, item) in items {
            let state = syncState(of: path)
            guard state != item.syncState else { continue }
            var changed = item
            changed.syncState = state
            items[path] = changed
            held.change(changed)
        }
    }

    // MARK: Running on the file-event loop

    /// Starts the query on the process's file-event loop: on its queue it
    /// gathers, tells the gathering, then handles each delivery of events
    /// until `stop`. Always true (the loop's thread runs already).
    func start() -> Bool {
        watcher.setHandler { [self] delivery in handle(delivery) }
        watcher.queue.async { [self] in
            guard !isStopping else { return }
            startEngines()
            // The engines are asked before the roots are scanned and answer while they are; their states come in
            // the update after the gathering, which does not wait for them.
            let asked = askEngines()
            lock.withLock { gather() }
            for engine in lock.withLock({ engines }) { engine.watcher?.start() }
            scheduleSettling()
            finish(asked)
            refreshEngines()
            lock.withLock { flush() }
        }
        return true
    }

    /// What the loop told: file events, a settling deadline passed, or an engine's news.
    private func handle(_ delivery: FileEventLoop.Delivery) {
        guard !isStopping, status.hasGathered else { return }
        // The file events first, told at once; then what the engines said, which takes REST calls.
        lock.withLock {
            process(delivery.events)
            settleDue(now: monotonicNow())
            flush()
        }
        scheduleSettling()
        if delivery.isWoken {
            refreshEngines()
            lock.withLock { flush() }
        }
    }

    /// Asks the loop to tell the query when the next settling item is due (none: never).
    private func scheduleSettling() {
        let next = lock.withLock { settling.values.map(\.deadline).min() }
        watcher.loop.schedule(next, for: watcher.client)
    }

    private var isStopping: Bool { stopLock.withLock { stopping } }

    /// Ends the query and waits for a delivery being handled: every watch let go.
    func stop() {
        let wasStopping = stopLock.withLock {
            defer { stopping = true }
            return stopping
        }
        guard !wasStopping else { return }
        watcher.close()
        watcher.queue.sync {}
        let engineWatchers = lock.withLock {
            watched = [:]
            return engines.compactMap(\.watcher)
        }
        for engineWatcher in engineWatchers { engineWatcher.stop() }
    }

    /// Handles every file event the kernel holds now with updates still
    /// disabled, then ends the outermost `disableUpdates()`, settles what is
    /// due and tells what is held as one update (for `enableUpdates()`).
    /// Not on the query's queue. Updates stay disabled until then, so a
    /// delivery handled meanwhile cannot tell part of what was held.
    func enableCatchingUp() {
        watcher.loop.settle()
        watcher.queue.sync {
            lock.withLock {
                disabledDepth -= 1
                settleDue(now: monotonicNow())
                flush()
            }
        }
    }

    // MARK: Gathering and telling

    /// Searches every scope and tells what it found.
    private func gather() {
        for root in roots { scanFolder(root) }
        held = HeldChanges()
        let results = sorted(items.values)
        let update = MetadataQueryUpdate(phase: .gatheringFinished, results: results, added: results, problems: problems)
        problems = []
        status.told(update)
        deliver(update)
    }

    /// Tells what changed since the last update, unless updates are disabled or nothing did.
    func flush() {
        guard disabledDepth == 0, !held.isEmpty || !problems.isEmpty else { return }
        let update = MetadataQueryUpdate(
            phase: .updated, results: sorted(items.values), added: sorted(held.added.values), changed: sorted(held.changed.values),
            removed: sorted(held.removed.values), problems: problems)
        held = HeldChanges()
        problems = []
        status.told(update)
        deliver(update)
    }

    /// `items` in the query's order: by each attribute of `sortedBy`, then by path.
    func sorted(_ items: some Sequence<MetadataItem>) -> [MetadataItem] {
        let keyed = items.map { item in (item: item, keys: sortedBy.map { MetadataSortKey(item, $0) }) }
        return keyed.sorted { left, right in
            for (leftKey, rightKey) in zip(left.keys, right.keys) where leftKey != rightKey { return leftKey < rightKey }
            return left.item.path < right.item.path
        }.map(\.item)
    }
}

/// One attribute's value as results are sorted by it: a missing value first.
enum MetadataSortKey: Comparable {
    case missing
    case number(Int64)
    case date(Date)
    case text(String)

    init(_ item: MetadataItem, _ attribute: MetadataAttribute) {
        switch attribute {
        case .fsName: self = .text(item.fsName)
        case .displayName: self = .text(item.displayName)
        case .url, .path: self = .text(item.path)
        case .fsSize: self = .number(item.fsSize)
        case .fsCreationDate: self = item.creationDate.map(Self.date) ?? .missing
        case .fsContentChangeDate: self = .date(item.contentChangeDate)
        case .contentType: self = item.contentType.map(Self.text) ?? .missing
        case .hasUnresolvedConflicts: self = .number(item.hasUnresolvedConflicts ? 1 : 0)
        default:
            switch item.value(forAttribute: attribute) {
            case let flag as Bool: self = .number(flag ? 1 : 0)
            case let number as Double: self = .number(Int64(number * 1000))
            case let text as String: self = .text(text)
            default: self = .missing
            }
        }
    }
}

/// The changes seen and not yet told, merged per path: an item added then
/// changed is added (as it is now); added then removed is nothing; removed
/// then added back is changed (or nothing when it is as it was).
struct HeldChanges {
    var added: [String: MetadataItem] = [:]
    var changed: [String: MetadataItem] = [:]
    var removed: [String: MetadataItem] = [:]

    var isEmpty: Bool { added.isEmpty && changed.isEmpty && removed.isEmpty }

    mutating func add(_ item: MetadataItem) {
        if let was = removed.removeValue(forKey: item.path) {
            if was != item { changed[item.path] = item }
        } else {
            added[item.path] = item
        }
    }

    mutating func change(_ item: MetadataItem) {
        if added[item.path] != nil {
            added[item.path] = item
        } else {
            changed[item.path] = item
        }
    }

    mutating func remove(_ item: MetadataItem) {
        changed.removeValue(forKey: item.path)
        if added.removeValue(forKey: item.path) == nil { removed[item.path] = item }
    }
}
