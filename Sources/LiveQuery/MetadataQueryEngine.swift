import ConflictVersions
import Dispatch
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
    /// Each root with its links and `.`/`..` steps resolved, once: the
    /// items found below a root are in folders the search never followed
    /// a link into, so an item's resolved path is its root's and the rest.
    private let resolvedRoots: [(root: String, resolved: String)]
    let predicate: MetadataQueryPredicate
    let registry: TypeRegistry
    /// The document kinds that name packages and read items' display names and thumbnails.
    let documentKinds: MetadataDocumentKinds
    let sortedBy: [MetadataAttribute]
    let settleSeconds: Double
    let watcher: QueryWatcher
    let deliver: @Sendable (MetadataQueryUpdate) -> Void
    /// The containers whose engines give the items' sync state.
    let containers: UbiquityContainers

    var watched: [Int32: Watched] = [:]
    // Keyed by paths compared byte for byte (PathDictionary): two names that differ only by Unicode
    // normalization are two items, as the file system keeps them.
    var folderWatches = PathDictionary<Int32>()
    var packageWatches = PathDictionary<Set<Int32>>()
    var items = PathDictionary<MetadataItem>()
    /// The conflict copies' names beside each original's path.
    var conflicts = PathDictionary<Set<String>>()
    var settling = PathDictionary<Settling>()
    var held = HeldChanges()
    var problems: [MetadataQueryError] = []
    /// The type identified for a name's last two extensions, by whether it is a directory (the registry is fixed once started).
    var contentTypes: [Bool: [String: String]] = [:]
    var disabledDepth: Int
    /// The paths of the results last told, in their order.
    private var resultOrder: [String] = []

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
        roots: [String], predicate: MetadataQueryPredicate, registry: TypeRegistry, documentKinds: MetadataDocumentKinds,
        sortedBy: [MetadataAttribute], settleInterval: Duration, watcher: QueryWatcher, disabledDepth: Int, containers: UbiquityContainers = .current,
        deliver: @escaping @Sendable (MetadataQueryUpdate) -> Void
    ) {
        self.containers = containers
        self.roots = roots
        resolvedRoots = roots.map { ($0, UbiquityContainers.resolvedFolder($0)) }
        self.predicate = predicate
        self.registry = registry
        self.documentKinds = documentKinds
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

        /// The sync state of the item at `path` (resolved) as last read.
        func syncState(ofResolved path: String) -> UbiquitousItemSyncState {
            switch state {
            case .success(let folder)?: .known(folder.status(ofResolvedItemAt: path))
            case .failure(let error)?: .unknown(reason: error.description)
            case nil: .unknown(reason: "the engine's state is being read")
            }
        }
    }

    /// The sync state of the item at `path`: from the engine of the
    /// container it is in, `.notTracked` when none tells one.
    func syncState(of path: String) -> UbiquitousItemSyncState {
        let resolved = resolvedPath(of: path)
        for engine in engines where PathName.isInside(resolved, folder: engine.endpoint.folderPathText) {
            return engine.syncState(ofResolved: resolved)
        }
        return .notTracked
    }

    /// `path` with the links and `.`/`..` steps above it resolved: from its
    /// root's resolved path when it is below a root (no system call).
    func resolvedPath(of path: String) -> String {
        for (root, resolved) in resolvedRoots {
            guard let relative = PathName.relative(path, to: root) else { continue }
            return relative.isEmpty ? resolved : PathName.join(resolved, String(relative))
        }
        return UbiquityContainers.canonical(path)
    }

    /// Finds the engines of the roots' containers and starts following them.
    private func startEngines() {
        var found: [String: EngineStatus] = [:]
        var unfollowed: [MetadataQueryError] = []
        for (root, resolved) in resolvedRoots {
            guard let container = (try? containers.container(containing: resolved)) ?? nil else { continue }
            let endpoint: SyncthingEndpoint
            do throws(UbiquityContainerError) {
                // The state is read off the query's updates (after the gathering, after the file events): a
                // large folder's may take the engine seconds to give.
                guard let made = try UbiquityContainers.syncthingEndpoint(of: container, timeout: 10) else { continue }
                endpoint = made
            } catch {
                unfollowed.append(MetadataQueryError(pathText: root, "no sync status: \(error)"))
                continue
            }
            let key = endpoint.folderPathText
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
                try self.browseFolders(of: itemPaths, in: &folder)
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
    private func browseFolders(of itemPaths: [String], in folder: inout SyncthingFolderStatus) throws(UbiquityContainerError) {
        let folders = Set(itemPaths.compactMap { folder.relativeFolder(ofResolved: resolvedPath(of: $0)) }).filter { !folder.hasBrowsed($0) }
        if folders.count <= 16 {
            for relative in folders.sorted() { try folder.browse(relative) }
        } else {
            try folder.browse("", levels: nil)
        }
    }

    /// What an engine was asked before the gathering scan: where its
    /// events stood, its folder's state and the browse of each root in
    /// it, sent for the engine to make while the roots are scanned.
    struct EngineQuestions {
        var eventID: Int?
        var read: Result<(SyncthingFolderStatus.PendingRead, [(String, SyncthingClient.PendingRequest)]), UbiquityContainerError>
    }

    /// The engines asked before the gathering scan (the answers are read
    /// after, on the query's thread, by `finish`), each with its questions.
    private func askEngines() -> [(EngineStatus, EngineQuestions)] {
        dueEngines().map { engine in
            // Where the events stand before the state is asked: whatever happens after is told by the engine's watcher.
            let eventID = try? engine.endpoint.latestEventID()
            let read = Result { () throws(UbiquityContainerError) in
                let status = try engine.endpoint.beginFolderStatus()
                var browses: [(String, SyncthingClient.PendingRequest)] = []
                for (_, resolved) in resolvedRoots {
                    guard let relative = SyncthingFolderStatus.relativePath(of: resolved, in: engine.endpoint.folderPathText),
                        !browses.contains(where: { $0.0 == relative })
                    else { continue }
                    browses.append((relative, try SyncthingFolderStatus.beginBrowse(relative, of: engine.endpoint)))
                }
                return (status, browses)
            }
            return (engine, EngineQuestions(eventID: eventID, read: read))
        }
    }

    /// Reads what the engines asked by `askEngines()` answered, and the
    /// folders of the items found that the roots' browses did not cover,
    /// then gives each item its state.
    private func finish(_ asked: [(EngineStatus, EngineQuestions)]) {
        guard !asked.isEmpty else { return }
        let itemPaths = lock.withLock { Array(items.keys) }
        let read = asked.map { engine, questions in
            Result { () throws(UbiquityContainerError) in
                let (pending, browses) = try questions.read.get()
                var folder = try engine.endpoint.folderStatus(answering: pending)
                for (relative, request) in browses { try folder.browse(relative, answering: request) }
                try self.browseFolders(of: itemPaths, in: &folder)
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
            let positions = Dictionary(asked.map { (ObjectIdentifier($0.0), $0.1.eventID) }, uniquingKeysWith: { first, _ in first })
            for engine in lock.withLock({ engines }) { engine.watcher?.start(after: positions[ObjectIdentifier(engine)] ?? nil) }
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
        resultOrder = results.map(\.pathString)
        let update = MetadataQueryUpdate(phase: .gatheringFinished, results: results, added: results, problems: problems)
        problems = []
        status.told(update)
        deliver(update)
    }

    /// Tells what changed since the last update, unless updates are disabled or nothing did.
    func flush() {
        guard disabledDepth == 0, !held.isEmpty || !problems.isEmpty else { return }
        let results = currentResults()
        resultOrder = results.map(\.pathString)
        let update = MetadataQueryUpdate(
            phase: .updated, results: results, added: inOrder(held.added, of: results), changed: inOrder(held.changed, of: results),
            removed: sorted(held.removed.values), problems: problems)
        held = HeldChanges()
        problems = []
        status.told(update)
        deliver(update)
    }

    /// Every item in the query's order: the order last told when no item
    /// came or went and it still holds (as when only sync states changed), else sorted anew.
    private func currentResults() -> [MetadataItem] {
        if held.added.isEmpty, held.removed.isEmpty, resultOrder.count == items.count {
            var results: [MetadataItem] = []
            results.reserveCapacity(resultOrder.count)
            for path in resultOrder {
                guard let item = items[path] else { return sorted(items.values) }
                if let last = results.last, !precedes(last, item) { return sorted(items.values) }
                results.append(item)
            }
            return results
        }
        return sorted(items.values)
    }

    /// The items of `held` (each one in `results`) in `results`' order; sorted on their own when they are few.
    private func inOrder(_ held: PathDictionary<MetadataItem>, of results: [MetadataItem]) -> [MetadataItem] {
        if held.count * 16 < results.count { return sorted(held.values) }
        let ordered = results.compactMap { held[$0.pathString] }
        return ordered.count == held.count ? ordered : sorted(held.values)
    }

    /// Whether `left` comes before `right` in the query's order.
    private func precedes(_ left: MetadataItem, _ right: MetadataItem) -> Bool {
        for attribute in sortedBy {
            let leftKey = MetadataSortKey(left, attribute), rightKey = MetadataSortKey(right, attribute)
            if leftKey != rightKey { return leftKey < rightKey }
        }
        return Self.pathPrecedes(left.pathString, right.pathString)
    }

    /// Whether the path `left` comes before `right`: as Swift orders text, and two paths that text
    /// takes for one (`é`, and `e` + U+0301) by their bytes, so that two such files keep one order.
    static func pathPrecedes(_ left: String, _ right: String) -> Bool {
        if left < right { return true }
        if right < left { return false }
        return left.utf8.lexicographicallyPrecedes(right.utf8)
    }

    /// `items` in the query's order: by each attribute of `sortedBy`, then by path.
    /// The keys are made once per item and indices sorted, not the items.
    func sorted(_ items: some Collection<MetadataItem>) -> [MetadataItem] {
        let list = Array(items)
        let width = sortedBy.count
        var keys: [MetadataSortKey] = []
        keys.reserveCapacity(list.count * width)
        for item in list {
            for attribute in sortedBy { keys.append(MetadataSortKey(item, attribute)) }
        }
        var order = Array(list.indices)
        order.sort { left, right in
            for offset in 0..<width {
                let leftKey = keys[left * width + offset], rightKey = keys[right * width + offset]
                if leftKey != rightKey { return leftKey < rightKey }
            }
            return Self.pathPrecedes(list[left].pathString, list[right].pathString)
        }
        return order.map { list[$0] }
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
        case .url, .path: self = .text(item.pathString)
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
    var added = PathDictionary<MetadataItem>()
    var changed = PathDictionary<MetadataItem>()
    var removed = PathDictionary<MetadataItem>()

    var isEmpty: Bool { added.isEmpty && changed.isEmpty && removed.isEmpty }

    mutating func add(_ item: MetadataItem) {
        if let was = removed.removeValue(forKey: item.pathString) {
            if was != item { changed[item.pathString] = item }
        } else {
            added[item.pathString] = item
        }
    }

    mutating func change(_ item: MetadataItem) {
        if added[item.pathString] != nil {
            added[item.pathString] = item
        } else {
            changed[item.pathString] = item
        }
    }

    mutating func remove(_ item: MetadataItem) {
        changed.removeValue(forKey: item.pathString)
        if added.removeValue(forKey: item.pathString) == nil { removed[item.pathString] = item }
    }
}
