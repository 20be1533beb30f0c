import Dispatch
import SystemPackage
import SystemSupport
import UbiquityContainers
import UniformTypes

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A live search of folders for documents, with `NSMetadataQuery`'s
/// meaning: it gathers the items under its scopes that match its predicate,
/// tells them sorted (`MetadataQueryUpdate.Phase.gatheringFinished`), then
/// tells each change — items added, changed or removed by any process, a
/// sync tool's conflict copy appearing or going — as an update, until
/// stopped.
///
/// Scopes are searched through nested folders; packages (the package kinds
/// of `documentKinds`, and any type the registry says conforms to
/// `com.apple.package`: `.ict` and `.ptk` by default) are items and
/// never searched as folders; links to folders are not followed (as `ict
/// list -r`). A sync tool's conflict copy is not an item: it sets its
/// original's `hasUnresolvedConflicts`. Sync tools' temporary files
/// (`.syncthing.*.tmp`, `.~*`, `~$*`, `*.part`) are never items.
///
/// Changes come from Linux's inotify, read by one thread per started query.
/// A name renamed into place is told at once; writes to a file, or to a
/// package's entries one by one, are told once, as a change, when the item
/// has had no event for `settleInterval`. When the kernel's event queue
/// overflows, the scopes are searched again and the difference told.
public final class MetadataQuery: @unchecked Sendable {
    // @unchecked: the mutable state is `state`, touched only under `lock`.

    /// The scope that stands for the app's ubiquitous documents folder
    /// (`NSMetadataQueryUbiquitousDocumentsScope`): `ubiquitousDocumentsFolder`.
    public static let ubiquitousDocumentsScope = "NSMetadataQueryUbiquitousDocumentsScope"

    /// The folder `ubiquitousDocumentsScope` stands for — the `Documents`
    /// folder of the default ubiquity container (`UbiquityContainers.current`:
    /// `ICT_UBIQUITY_CONTAINER`'s folder, else the configured default), a
    /// folder a sync engine keeps in step with other devices; nil when there
    /// is none (a query of that scope then fails to start). Setting it puts
    /// another folder in its place for this process; setting nil goes back
    /// to the container's. Read when a query starts; reads the containers'
    /// configuration when not set.
    public static var ubiquitousDocumentsFolder: FilePath? {
        get { (try? ubiquitousDocumentsFolderInEffect())?.map { RawFileName.withPath($0) { FilePath(platformString: $0) } } }
        set {
            let folder = newValue.map(RawFileName.text)
            ubiquitousLock.withLock { ubiquitousFolder = folder }
        }
    }
    private static let ubiquitousLock = ThreadLock()
    // Touched only under `ubiquitousLock`.
    nonisolated(unsafe) private static var ubiquitousFolder: String?

    /// The folder set, else the default container's `Documents` folder; nil for none.
    ///
    /// - Throws: `MetadataQueryError` naming the configuration file and where in it, when it cannot be read.
    private static func ubiquitousDocumentsFolderInEffect() throws(MetadataQueryError) -> String? {
        if let set = ubiquitousLock.withLock({ ubiquitousFolder }) { return set }
        do throws(UbiquityContainerError) {
            return try UbiquityContainers.current.container(identifier: nil)?.documentsFolderText
        } catch {
            throw MetadataQueryError(pathText: error.pathText, error.place.isEmpty ? error.message : "at \(error.place): \(error.message)")
        }
    }

    /// The scopes, as given.
    public let scopes: [String]
    /// Which items are results.
    public let predicate: MetadataQueryPredicate
    /// The attributes results are sorted by, the first first; ties by path.
    public let sortedBy: [MetadataAttribute]
    /// How long an item must have no event before a write to it is told.
    public let settleInterval: Duration
    /// The registry that gives items' content types and says which are
    /// packages; by default ICTKit's built-in types and `.ict`'s. Set it before starting.
    public var typeRegistry: TypeRegistry {
        get { lock.withLock { registry } }
        set { lock.withLock { registry = newValue } }
    }

    /// The document kinds that say which directories are packages and read
    /// items' display names and thumbnails (`MetadataItem.displayName`,
    /// `thumbnailPNG()`): `defaultDocumentKinds` as it was when the query was
    /// made. Set it before starting.
    public var documentKinds: MetadataDocumentKinds {
        get { lock.withLock { kinds } }
        set { lock.withLock { kinds = newValue } }
    }

    /// The document kinds each query made from now on starts with
    /// (`documentKinds`): empty until set, as an app sets it where it starts
    /// (`MetadataQuery.defaultDocumentKinds = DocumentKind.metadataDocumentKinds`
    /// for `DocumentFormats`'s kinds). Queries already made keep theirs. Takes a lock.
    public static var defaultDocumentKinds: MetadataDocumentKinds {
        get { defaultKindsLock.withLock { defaultKinds } }
        set { defaultKindsLock.withLock { defaultKinds = newValue } }
    }
    private static let defaultKindsLock = ThreadLock()
    // Touched only under `defaultKindsLock`.
    nonisolated(unsafe) private static var defaultKinds = MetadataDocumentKinds()

    /// The ubiquity containers whose engines give the results' sync state
    /// (`MetadataItem.syncState`): by default this process's
    /// (`UbiquityContainers.current`). Set it before starting.
    public var ubiquityContainers: UbiquityContainers {
        get { lock.withLock { containers } }
        set { lock.withLock { containers = newValue } }
    }

    private let lock = ThreadLock()
    private var registry = MetadataQuery.defaultTypeRegistry
    private var kinds = MetadataQuery.defaultDocumentKinds
    private var containers = UbiquityContainers.current
    private var privateLoop: FileEventLoop?
    private var phase = LifePhase.new
    private var engine: MetadataQueryEngine?
    private var gate: DeliveryGate?
    private var finishStream: (@Sendable () -> Void)?
    /// `disableUpdates` calls made before the query started.
    private var disabledDepth = 0

    /// ICTKit's built-in types and the `.ict` document type.
    static let defaultTypeRegistry: TypeRegistry = {
        var registry = TypeRegistry.builtIn
        registry.add(TypeDeclarationSet.ict)
        return registry
    }()

    private enum LifePhase { case new, started, stopped }

    /// A query of `scopes` (folders, or `ubiquitousDocumentsScope`) for the
    /// items matching `predicate`, sorted by `sortedBy`, telling writes
    /// once an item has had no event for `settleInterval`. Reads nothing
    /// until started.
    public init(
        scopes: [String], predicate: MetadataQueryPredicate = .init(), sortedBy: [MetadataAttribute] = [.fsName],
        settleInterval: Duration = .milliseconds(200)
    ) {
        self.scopes = scopes
        self.predicate = predicate
        self.sortedBy = sortedBy
        self.settleInterval = settleInterval
    }

    deinit { stop() }

    /// Starts the query: gathers, then watches, on a thread of its own;
    /// `handler` is called on `queue` with each update, in order (through a
    /// serial queue targeting `queue`), the gathering's first.
    ///
    /// Starting twice, or after `stop`, is a programmer's error (a precondition).
    ///
    /// - Throws: `MetadataQueryError` naming a scope that is not a folder
    ///   (or `ubiquitousDocumentsScope` when no folder is set), or when
    ///   the system cannot watch (inotify's limits).
    public func start(on queue: DispatchQueue, handler: @escaping @Sendable (MetadataQueryUpdate) -> Void) throws(MetadataQueryError) {
        let serial = DispatchQueue(label: "ICTKit.MetadataQuery.delivery", target: queue)
        let gate = DeliveryGate()
        try begin(gate: gate, finish: nil) { update in
            serial.async { if gate.isOpen { handler(update) } }
        }
    }

    /// Starts the query and gives its updates as a stream: the gathering
    /// first, then each change; the stream ends when the query stops, and
    /// the query stops when the stream's consumer is cancelled or the stream dropped.
    ///
    /// - Throws: as `start(on:handler:)`.
    public func updates() throws(MetadataQueryError) -> AsyncStream<MetadataQueryUpdate> {
        let (stream, continuation) = AsyncStream<MetadataQueryUpdate>.makeStream()
        continuation.onTermination = { [weak self] termination in
            if case .cancelled = termination { self?.stop() }
        }
        let gate = DeliveryGate()
        do throws(MetadataQueryError) {
            try begin(gate: gate, finish: { continuation.finish() }) { update in
                if gate.isOpen { continuation.yield(update) }
            }
        } catch {
            continuation.finish()
            throw error
        }
        return stream
    }

    private func begin(
        gate: DeliveryGate, finish: (@Sendable () -> Void)?, deliver: @escaping @Sendable (MetadataQueryUpdate) -> Void
    ) throws(MetadataQueryError) {
        precondition(lock.withLock { phase } == .new, "a MetadataQuery is started once")
        let roots = try Self.resolve(scopes)
        let watcher: QueryWatcher
        do throws(FileEventLoop.Failure) {
            watcher = try QueryWatcher(loop: lock.withLock { privateLoop })
        } catch {
            throw MetadataQueryError(pathText: roots.first ?? "", error.description)
        }
        do throws(DirectoryWatcher.Failure) {
            for root in roots { _ = try watcher.watch(root) }
        } catch {
            watcher.close()
            throw MetadataQueryError(pathText: roots.first ?? "", error.description)
        }
        let engine: MetadataQueryEngine = lock.withLock {
            let engine = MetadataQueryEngine(
                roots: roots, predicate: predicate, registry: registry, documentKinds: kinds, sortedBy: sortedBy,
                settleInterval: settleInterval, watcher: watcher, disabledDepth: disabledDepth, containers: containers, deliver: deliver)
            self.engine = engine
            self.gate = gate
            finishStream = finish
            phase = .started
            return engine
        }
        guard engine.start() else {
            lock.withLock {
                self.engine = nil
                self.gate = nil
                finishStream = nil
                phase = .new
            }
            watcher.close()
            throw MetadataQueryError(pathText: roots.first ?? "", "cannot start the query")
        }
    }

    /// Each scope as a folder path (trailing slashes trimmed, duplicates dropped), checked to be a folder.
    private static func resolve(_ scopes: [String]) throws(MetadataQueryError) -> [String] {
        var roots: [String] = []
        for scope in scopes {
            var path = scope
            if scope == ubiquitousDocumentsScope {
                guard let folder = try ubiquitousDocumentsFolderInEffect() else {
                    throw MetadataQueryError(
                        pathText: scope,
                        "no ubiquity container is set up (ICT_UBIQUITY_CONTAINER, or a default in \(UbiquityContainerConfiguration.defaultPathText ?? "containers.plist")), and no folder is set (MetadataQuery.ubiquitousDocumentsFolder)"
                    )
                }
                path = folder
                // The container's Documents folder is made when first searched, as iCloud makes it: a
                // container whose devices have no document yet has none.
                if (try? FileInfo.of(path: path)) == nil, (try? FileInfo.of(path: PathName.folder(of: path)))?.kind == .directory {
                    try? Directory.make(atPath: path, permissions: 0o755)
                }
            }
            path = PathName.trimmingTrailingSlashes(path)
            let info: FileInfo
            do throws(SystemCallError) {
                info = try FileInfo.of(path: path)
            } catch {
                throw MetadataQueryError(pathText: path, "cannot search it: \(error.reason)")
            }
            guard info.kind == .directory else { throw MetadataQueryError(pathText: path, "cannot search it: not a folder") }
            if !roots.contains(path) { roots.append(path) }
        }
        return roots
    }

    /// Stops the query: removes every watch, closes the inotify descriptor
    /// and ends its thread, waiting for it (at most a poll interval, 0.1 s,
    /// and the round of events it is in). No handler call starts after it
    /// returns; the stream of `updates()` ends. Stopping again does nothing.
    public func stop() {
        let running: (engine: MetadataQueryEngine?, gate: DeliveryGate?, finish: (@Sendable () -> Void)?)? = lock.withLock {
            guard phase != .stopped else { return nil }
            phase = .stopped
            defer {
                engine = nil
                gate = nil
                finishStream = nil
            }
            return (engine, gate, finishStream)
        }
        guard let running else { return }
        running.gate?.close()
        running.engine?.stop()
        running.finish?()
    }

    /// Holds the changes seen from now on; they are told as one update at
    /// the `enableUpdates()` that balances this call (calls nest).
    public func disableUpdates() {
        let running = lock.withLock { () -> MetadataQueryEngine? in
            if engine == nil { disabledDepth += 1 }
            return engine
        }
        if let running { running.lock.withLock { running.disabledDepth += 1 } }
    }

    /// Ends one `disableUpdates()`; the outermost tells what was held as one
    /// update, with every change made before this call (the events waiting
    /// are read first). Calling it more often than `disableUpdates()` is a
    /// programmer's error (a precondition).
    public func enableUpdates() {
        let running = lock.withLock { () -> MetadataQueryEngine? in
            if engine == nil {
                precondition(disabledDepth > 0, "enableUpdates() without disableUpdates()")
                disabledDepth -= 1
            }
            return engine
        }
        guard let running else { return }
        let outermost = running.lock.withLock {
            precondition(running.disabledDepth > 0, "enableUpdates() without disableUpdates()")
            guard running.disabledDepth == 1, running.status.hasGathered else {
                running.disabledDepth -= 1
                return false
            }
            return true
        }
        if outermost { running.enableCatchingUp() }
    }

    /// The results as of the last update told (empty before the gathering).
    public var results: [MetadataItem] { lock.withLock { engine }?.status.toldResults ?? [] }

    /// Whether the query was started (and is not stopped).
    public var isStarted: Bool { lock.withLock { phase == .started } }
    /// Whether the query is gathering: started, with the gathering not yet told.
    public var isGathering: Bool { lock.withLock { engine }.map { !$0.status.hasGathered } ?? false }
    /// Whether the query was stopped.
    public var isStopped: Bool { lock.withLock { phase == .stopped } }

    // MARK: For tests

    /// Runs `body` while the query's thread cannot read events (it waits
    /// for the engine's lock): what `body` does to the files is seen after,
    /// in one round — or lost, if it overflows the kernel's queue.
    package func holdingEvents(_ body: () -> Void) {
        guard let engine = lock.withLock({ engine }) else { return body() }
        engine.watcher.loop.holdingTurns { engine.lock.withLock { body() } }
    }

    /// The file-event loop the query runs on: nil for the process's
    /// (`FileEventLoop.shared`). A test that overflows the kernel's queue
    /// gives the query a loop of its own. Set it before starting.
    package var eventLoop: FileEventLoop? {
        get { lock.withLock { privateLoop } }
        set { lock.withLock { privateLoop = newValue } }
    }

    /// The inotify descriptor while the query runs.
    package var eventDescriptor: Int32? { lock.withLock { engine }?.watcher.descriptor }
}

/// Whether updates may still be handed over: closed by `stop`.
final class DeliveryGate: @unchecked Sendable {
    // @unchecked: `open` is touched only under `lock`.
    private let lock = ThreadLock()
    private var open = true

    var isOpen: Bool { lock.withLock { open } }
    func close() { lock.withLock { open = false } }
}
