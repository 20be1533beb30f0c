import Dispatch
import Foundation
import SystemSupport
import UniformTypes

/// A live search of folders for documents, with `NSMetadataQuery`'s
/// meaning: it gathers the items under its scopes that match its predicate,
/// tells them sorted (`MetadataQueryUpdate.Phase.gatheringFinished`), then
/// tells each change — items added, changed or removed by any process, a
/// sync tool's conflict copy appearing or going — as an update, until
/// stopped.
///
/// Scopes are searched through nested folders; packages (`.ict`, `.ptk` and
/// any type the registry says conforms to `com.apple.package`) are items and
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

    /// The folder `ubiquitousDocumentsScope` stands for — a folder a sync
    /// tool keeps in step with other devices; by default the environment's
    /// `ICT_UBIQUITOUS_DOCUMENTS`, else nil (and a query of that scope then
    /// fails to start). Read when a query starts.
    public static var ubiquitousDocumentsFolder: String? {
        get { ubiquitousLock.withLock { ubiquitousFolder } }
        set { ubiquitousLock.withLock { ubiquitousFolder = newValue } }
    }
    private static let ubiquitousLock = ThreadLock()
    // Touched only under `ubiquitousLock`.
    nonisolated(unsafe) private static var ubiquitousFolder = ProcessInfo.processInfo.environment["ICT_UBIQUITOUS_DOCUMENTS"]

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

    private let lock = ThreadLock()
    private var registry = MetadataQuery.defaultTypeRegistry
    private var phase = LifePhase.new
    private var currentResults: [MetadataItem] = []

    /// ICTKit's built-in types and the `.ict` document type.
    static let defaultTypeRegistry: TypeRegistry = {
        var registry = TypeRegistry.builtIn
        registry.add(TypeDeclarationSet.ict)
        return registry
    }()

    private enum LifePhase { case new, gathering, live, stopped }

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
    /// Starting twice is a programmer's error (a precondition).
    ///
    /// - Throws: `MetadataQueryError` naming a scope that is not a folder
    ///   (or `ubiquitousDocumentsScope` when no folder is set), or when
    ///   the system cannot watch (inotify's limits).
    public func start(on queue: DispatchQueue, handler: @escaping @Sendable (MetadataQueryUpdate) -> Void) throws(MetadataQueryError) {
    }

    /// Starts the query and gives its updates as a stream: the gathering
    /// first, then each change; the stream ends when the query stops, and
    /// the query stops when the stream is dropped or cancelled.
    ///
    /// - Throws: as `start(on:handler:)`.
    public func updates() throws(MetadataQueryError) -> AsyncStream<MetadataQueryUpdate> {
        AsyncStream { $0.finish() }
    }

    /// Stops the query: removes every watch, closes the inotify descriptor
    /// and ends its thread (waiting for it, at most one poll interval).
    /// Nothing is told after it returns. Stopping again does nothing.
    public func stop() {
    }

    /// Holds the changes seen from now on; they are told as one update at
    /// the `enableUpdates()` that balances this call (calls nest).
    public func disableUpdates() {
    }

    /// Ends one `disableUpdates()`; the outermost tells what was held, as one update.
    public func enableUpdates() {
    }

    /// The results as of the last update told (empty before the gathering).
    public var results: [MetadataItem] { lock.withLock { currentResults } }

    /// Whether the query was started (and is not stopped).
    public var isStarted: Bool { lock.withLock { phase == .gathering || phase == .live } }
    /// Whether the query is gathering: started, with the gathering not yet told.
    public var isGathering: Bool { lock.withLock { phase == .gathering } }
    /// Whether the query was stopped.
    public var isStopped: Bool { lock.withLock { phase == .stopped } }
}
