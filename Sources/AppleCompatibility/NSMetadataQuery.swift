#if !canImport(Darwin)
import Foundation
import LiveQuery
import Synchronization
import SystemSupport

// MARK: Attribute keys, scopes and notifications, as Foundation names them

/// The file name (`kMDItemFSName`): a `String`.
public let NSMetadataItemFSNameKey = MetadataAttribute.fsName.rawValue
/// The name to show (`kMDItemDisplayName`): a `String`; an `.ict` document's display name from its metadata entry.
public let NSMetadataItemDisplayNameKey = MetadataAttribute.displayName.rawValue
/// The file URL (`kMDItemURL`): a `URL`.
public let NSMetadataItemURLKey = MetadataAttribute.url.rawValue
/// The path (`kMDItemPath`): a `String`.
public let NSMetadataItemPathKey = MetadataAttribute.path.rawValue
/// The size in bytes (`kMDItemFSSize`): an `NSNumber`; a package's is the sum of its entries'.
public let NSMetadataItemFSSizeKey = MetadataAttribute.fsSize.rawValue
/// When the file was made (`kMDItemFSCreationDate`): a `Date`, where the file system keeps it.
public let NSMetadataItemFSCreationDateKey = MetadataAttribute.fsCreationDate.rawValue
/// When the content last changed (`kMDItemFSContentChangeDate`): a `Date`.
public let NSMetadataItemFSContentChangeDateKey = MetadataAttribute.fsContentChangeDate.rawValue
/// The uniform type identifier (`kMDItemContentType`): a `String`.
public let NSMetadataItemContentTypeKey = MetadataAttribute.contentType.rawValue
/// The content type and the types it conforms to (`kMDItemContentTypeTree`):
/// a key for `NSPredicate(format:)` (`%K == 'public.package'`), not an item's value.
public let NSMetadataItemContentTypeTreeKey = "kMDItemContentTypeTree"
/// Whether a sync tool left a conflict copy beside the item: an `NSNumber` holding a `Bool`.
public let NSMetadataUbiquitousItemHasUnresolvedConflictsKey = MetadataAttribute.hasUnresolvedConflicts.rawValue
/// Whether this device's version is on another device too: an `NSNumber` holding a `Bool`, where the engine tells it.
public let NSMetadataUbiquitousItemIsUploadedKey = MetadataAttribute.isUploaded.rawValue
/// Whether a connected device is fetching this device's version: an `NSNumber` holding a `Bool`, where the engine tells it.
public let NSMetadataUbiquitousItemIsUploadingKey = MetadataAttribute.isUploading.rawValue
/// Whether a newer version is being fetched: an `NSNumber` holding a `Bool`, where the engine tells it.
public let NSMetadataUbiquitousItemIsDownloadingKey = MetadataAttribute.isDownloading.rawValue
/// How much of the version being fetched is here: an `NSNumber` holding a `Double`, 0 to 100.
public let NSMetadataUbiquitousItemPercentDownloadedKey = MetadataAttribute.percentDownloaded.rawValue
/// How much of this version the fetching device has: an `NSNumber` holding a `Double`, where the engine tells it.
public let NSMetadataUbiquitousItemPercentUploadedKey = MetadataAttribute.percentUploaded.rawValue
/// Whether the item is here and current: a `String`, one of the `NSMetadataUbiquitousItemDownloadingStatus…` values.
public let NSMetadataUbiquitousItemDownloadingStatusKey = MetadataAttribute.downloadingStatus.rawValue
/// Why the engine could not fetch the item: an `NSError` (`CocoaError.ubiquitousFileUnavailable`, the engine's words as its reason).
public let NSMetadataUbiquitousItemDownloadingErrorKey = MetadataAttribute.downloadingError.rawValue
/// Why the engine could not send the item: an `NSError` (`CocoaError.ubiquitousFileUbiquityServerNotAvailable`, the engine's words as its reason).
public let NSMetadataUbiquitousItemUploadingErrorKey = MetadataAttribute.uploadingError.rawValue
/// The item is here in its latest version.
public let NSMetadataUbiquitousItemDownloadingStatusCurrent = MetadataItem.downloadingStatusValue(.current)
/// The item is here, but a newer version is on another device.
public let NSMetadataUbiquitousItemDownloadingStatusDownloaded = MetadataItem.downloadingStatusValue(.downloaded)
/// The item is not here yet.
public let NSMetadataUbiquitousItemDownloadingStatusNotDownloaded = MetadataItem.downloadingStatusValue(.notDownloaded)
/// The scope standing for the app's ubiquitous documents folder:
/// `MetadataQuery.ubiquitousDocumentsFolder` (by default the `Documents`
/// folder of the default ubiquity container, `UbiquityContainers.current`).
public let NSMetadataQueryUbiquitousDocumentsScope = MetadataQuery.ubiquitousDocumentsScope
/// The `userInfo` key of an update's added items, an `[NSMetadataItem]` (Foundation's value).
public let NSMetadataQueryUpdateAddedItemsKey = "kMDQueryUpdateAddedItems"
/// The `userInfo` key of an update's changed items, an `[NSMetadataItem]` (Foundation's value).
public let NSMetadataQueryUpdateChangedItemsKey = "kMDQueryUpdateChangedItems"
/// The `userInfo` key of an update's removed items, an `[NSMetadataItem]` (Foundation's value).
public let NSMetadataQueryUpdateRemovedItemsKey = "kMDQueryUpdateRemovedItems"

extension NSNotification.Name {
    /// Posted (with the query as object) when a query starts gathering.
    public static let NSMetadataQueryDidStartGathering = NSNotification.Name("NSMetadataQueryDidStartGatheringNotification")
    /// Posted (with the query as object) when a query has gathered its first results.
    public static let NSMetadataQueryDidFinishGathering = NSNotification.Name("NSMetadataQueryDidFinishGatheringNotification")
    /// Posted (with the query as object) for each change to its results after the
    /// gathering, `userInfo` holding the added, changed and removed items.
    public static let NSMetadataQueryDidUpdate = NSNotification.Name("NSMetadataQueryDidUpdateNotification")
}

// MARK: NSMetadataItem

/// Foundation's `NSMetadataItem`, which swift-corelibs-foundation lacks: one
/// result of an `NSMetadataQuery`, over MetadataQuery's `MetadataItem`. The
/// same object stands for the same file in every update, its attributes
/// those of the latest update.
open class NSMetadataItem: NSObject, @unchecked Sendable {
    // @unchecked: the item is read and replaced under its mutex.
    private let current: Mutex<MetadataItem>

    init(_ item: MetadataItem) {
        current = Mutex(item)
    }

    /// The item as the latest update told it.
    var item: MetadataItem {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }

    /// The value of the attribute named `key` (one of the `NSMetadataItem…Key`
    /// and `NSMetadataUbiquitousItem…Key` constants), of Apple's type: a
    /// `String`, a `URL`, a `Date`, an `NSNumber` (the size, whether there are
    /// conflicts, the sync flags and percentages) or an `NSError` (the engine's
    /// errors); nil for an attribute the item does not have (the sync state of
    /// an item no engine reports on, or whose engine gave no answer) or a key
    /// that names none. The display name of an `.ict` document is read from
    /// its metadata entry on each call.
    open func value(forAttribute key: String) -> Any? {
        guard let attribute = MetadataAttribute(rawValue: key) else { return nil }
        let item = self.item
        switch attribute {
        case .fsSize: return NSNumber(value: item.fsSize)
        case .downloadingError, .uploadingError:
            guard let reason = item.value(forAttribute: attribute).map({ "\($0)" }) else { return nil }
            let code: CocoaError.Code = attribute == .downloadingError ? .ubiquitousFileUnavailable : .ubiquitousFileUbiquityServerNotAvailable
            return NSError(
                domain: NSCocoaErrorDomain, code: code.rawValue, userInfo: [NSLocalizedFailureReasonErrorKey: reason, NSFilePathErrorKey: item.pathString])
        default:
            switch item.value(forAttribute: attribute) {
            case let flag as Bool: return NSNumber(value: flag)
            case let number as Double: return NSNumber(value: number)
            case let value: return value
            }
        }
    }

    /// The keys of the attributes the item has a value for.
    open var attributes: [String] {
        let item = self.item
        return MetadataAttribute.allCases.filter { $0 == .displayName || item.value(forAttribute: $0) != nil }.map(\.rawValue)
    }
}

// MARK: NSMetadataQuery

/// Foundation's `NSMetadataQuery`, which swift-corelibs-foundation lacks,
/// built on MetadataQuery's `MetadataQuery` (see it for what is searched and
/// how changes are seen): a live search of folders, posting
/// `NSMetadataQueryDidStartGathering`, `NSMetadataQueryDidFinishGathering`
/// and then an `NSMetadataQueryDidUpdate` for each change to
/// `NotificationCenter.default`, with the query as object.
///
/// Notifications are posted on `operationQueue`, or without one on the main
/// queue (as Apple posts them on the main thread); `results` changes only
/// as they are posted, so an observer sees the results the notification
/// speaks of. `predicate` is an `NSPredicate` made by `NSPredicate(format:)`
/// (which swift-corelibs-foundation lacks and this module gives for the
/// formats a query takes: `NSMetadataQuery.Predicate`), and `sortDescriptors`
/// are made by `NSSortDescriptor(key:ascending:)` (the same).
open class NSMetadataQuery: NSObject, @unchecked Sendable {
    // @unchecked: the mutable state is in `state`, under its mutex; the
    // properties set before `start()` are read by it on the caller's thread.

    /// The folders to search, as paths (`String`) or file `URL`s, and
    /// `NSMetadataQueryUbiquitousDocumentsScope`. Read by `start()`.
    open var searchScopes: [Any] = []
    /// Which items are results, as `NSPredicate(format:)` made it; nil for
    /// every item. Read by `start()`, which refuses a predicate made
    /// otherwise or a format the query cannot take (`NSPredicate.metadataQueryPredicateError` says why).
    open var predicate: NSPredicate?
    /// The order of the results, as `NSSortDescriptor(key:ascending:)` made
    /// them, by attribute keys (`NSMetadataItemFSNameKey`, …), ascending only;
    /// none sorts by name. Read by `start()`.
    open var sortDescriptors: [NSSortDescriptor] = []
    /// The queue notifications are posted on; nil for the main operation queue (`OperationQueue.main`, on the main queue).
    open var operationQueue: OperationQueue?

    private struct State {
        var query: MetadataQuery?
        var isGathering = false
        var isStopped = false
        var results: [NSMetadataItem] = []
        /// Every item told so far and not removed, by path, so a file keeps its object.
        /// (By bytes: two names that differ only by Unicode normalization are two files.)
        var items = PathDictionary<NSMetadataItem>()
    }

    private let state = Mutex(State())
    /// The serial queue the query's updates come on, in order, before they are posted.
    private let deliveries = DispatchQueue(label: "NSMetadataQuery.deliveries")

    /// Starts the query: gathering, then updates, posted as notifications.
    /// Returns false when it was started before, a scope is neither a path
    /// nor a URL, the predicate was not made by `NSPredicate(format:)` or its
    /// format cannot be searched for (`NSPredicate.metadataQueryPredicateError`),
    /// a sort descriptor is descending or names no attribute, or the query
    /// cannot start (a scope that is not a folder, the ubiquitous documents
    /// scope with no folder set, the system's limit of watches).
    @discardableResult
    open func start() -> Bool {
        guard state.withLock({ $0.query == nil && !$0.isStopped }) else { return false }
        var scopes: [String] = []
        for scope in searchScopes {
            if let url = scope as? URL, url.isFileURL {
                scopes.append(url.path)
            } else if let path = scope as? String {
                scopes.append(path)
            } else {
                return false
            }
        }
        var order: [MetadataAttribute] = []
        for descriptor in sortDescriptors {
            guard descriptor.ascending, let attribute = descriptor.metadataAttributeKey.flatMap(MetadataAttribute.init(rawValue:)) else { return false }
            order.append(attribute)
        }
        var filter = MetadataQueryPredicate()
        if let predicate {
            guard case .success(let format)? = predicate.metadataQueryFormat else { return false }
            filter = format.metadataQueryPredicate
        }
        let query = MetadataQuery(scopes: scopes, predicate: filter, sortedBy: order.isEmpty ? [.fsName] : order)
        state.withLock {
            $0.query = query
            $0.isGathering = true
        }
        // Queued before the query can queue its gathering, so posted first.
        deliveries.async { self.post(.NSMetadataQueryDidStartGathering, userInfo: nil) { _ in } }
        do {
            try query.start(on: deliveries) { self.deliver($0) }
        } catch {
            state.withLock {
                $0.query = nil
                $0.isGathering = false
            }
            return false
        }
        return true
    }

    /// Stops the query: nothing more is posted, and the results stay as they are.
    open func stop() {
        let query = state.withLock {
            $0.isStopped = true
            $0.isGathering = false
            return $0.query
        }
        query?.stop()
    }

    /// Holds the changes seen from now on until the balancing `enableUpdates()` (calls nest).
    open func disableUpdates() {
        state.withLock { $0.query }?.disableUpdates()
    }

    /// Ends one `disableUpdates()`; the outermost posts what was held, as one update.
    open func enableUpdates() {
        state.withLock { $0.query }?.enableUpdates()
    }

    /// Whether the query was started and not stopped.
    open var isStarted: Bool { state.withLock { $0.query != nil && !$0.isStopped } }
    /// Whether the query is gathering: started, `NSMetadataQueryDidFinishGathering` not yet posted.
    open var isGathering: Bool { state.withLock { $0.isGathering } }
    /// Whether the query was stopped.
    open var isStopped: Bool { state.withLock { $0.isStopped } }

    /// How many results there are, as of the last notification posted.
    open var resultCount: Int { state.withLock { $0.results.count } }

    /// The result at `index` (an `NSMetadataItem`), which must be below `resultCount`.
    open func result(at index: Int) -> Any {
        state.withLock { $0.results[index] }
    }

    /// The results (`NSMetadataItem`s), sorted, as of the last notification posted.
    open var results: [Any] { state.withLock { $0.results } }

    /// Takes one update of the query (on `deliveries`): its items as
    /// `NSMetadataItem`s, then the results and the notification together.
    private func deliver(_ update: MetadataQueryUpdate) {
        let (results, added, changed, removed) = state.withLock { state in
            // The removed are told as they were last seen, by the objects told before.
            let removed = update.removed.map { item in
                let known = state.items.removeValue(forKey: item.pathString) ?? NSMetadataItem(item)
                known.item = item
                return known
            }
            func object(_ item: MetadataItem) -> NSMetadataItem {
                if let known = state.items[item.pathString] {
                    known.item = item
                    return known
                }
                let made = NSMetadataItem(item)
                state.items[item.pathString] = made
                return made
            }
            let results = update.results.map(object)
            return (results, update.added.map(object), update.changed.map(object), removed)
        }
        switch update.phase {
        case .gatheringFinished:
            post(.NSMetadataQueryDidFinishGathering, userInfo: nil) {
                $0.results = results
                $0.isGathering = false
            }
        case .updated:
            let userInfo: [AnyHashable: Any] = [
                NSMetadataQueryUpdateAddedItemsKey: added, NSMetadataQueryUpdateChangedItemsKey: changed,
                NSMetadataQueryUpdateRemovedItemsKey: removed,
            ]
            post(.NSMetadataQueryDidUpdate, userInfo: userInfo) { $0.results = results }
        }
    }

    /// Posts `name` on `operationQueue` (waiting for it, so notifications keep
    /// their order on a concurrent queue) or the main queue, first applying
    /// `change` to the state; nothing once the query is stopped.
    private func post(_ name: NSNotification.Name, userInfo: [AnyHashable: Any]?, change: @escaping @Sendable (inout State) -> Void) {
        nonisolated(unsafe) let userInfo = userInfo
        let posting: @Sendable () -> Void = {
            guard
                self.state.withLock({ state in
                    guard !state.isStopped else { return false }
                    change(&state)
                    return true
                })
            else { return }
            NotificationCenter.default.post(name: name, object: self, userInfo: userInfo)
        }
        if let operationQueue {
            operationQueue.addOperations([BlockOperation(block: posting)], waitUntilFinished: true)
        } else {
            // As an operation of the main operation queue, not a block of the main dispatch queue: an observer
            // added with `queue: .main` is then called at once. From a plain main-queue block, swift-corelibs-
            // foundation's `post` would add the observer's block to `OperationQueue.main` and wait for it on
            // the main queue itself, forever.
            OperationQueue.main.addOperation(posting)
        }
    }
}

// MARK: The predicate

extension NSMetadataQuery {
    /// Which items an `NSMetadataQuery` keeps, as `NSPredicate(format:)`
    /// reads its format for the query: `%K LIKE '*.ict'` with
    /// `NSMetadataItemFSNameKey`. Comparisons joined by `AND` (or `&&`), each
    /// a key — `%K` or the name itself — then `LIKE`, `==` or `=`, then a
    /// value — `%@` or a quoted string:
    ///
    /// - `kMDItemFSName LIKE 'glob'`: the file name matches (`*` any run of
    ///   characters, `?` one, case-sensitive); `==` an exact name.
    /// - `kMDItemContentTypeTree == 'type'`, or `kMDItemContentType ==
    ///   'type'`: the item's type conforms to `type` (both keys mean
    ///   conformance here).
    ///
    /// At most one comparison of each kind. Anything else (`OR`, `NOT`,
    /// `LIKE[c]`, other keys and operators) is a `PredicateError`, where
    /// `NSPredicate` would accept it: MetadataQuery's predicate cannot hold it.
    public struct Predicate: Sendable, Equatable, CustomStringConvertible {
        /// The format with its arguments in place, as `NSPredicate.predicateFormat` shows it.
        public let predicateFormat: String
        let namePattern: String?
        let contentType: String?

        /// The predicate `format` says, `%K` and `%@` taking `arguments` in
        /// order (each a `String`).
        ///
        /// - Throws: `PredicateError` at the first character of the format
        ///   that is not understood, or names what cannot be searched for.
        public init(format: String, _ arguments: Any...) throws(PredicateError) {
            try self.init(format: format, argumentArray: arguments)
        }

        /// The predicate `format` says, `%K` and `%@` taking the strings of `argumentArray` in order.
        ///
        /// - Throws: `PredicateError`, as `init(format:_:)`.
        public init(format: String, argumentArray: [Any]?) throws(PredicateError) {
            var parser = PredicateParser(format: format, arguments: argumentArray ?? [])
            let comparisons = try parser.comparisons()
            var name: String?
            var type: String?
            var shown: [String] = []
            for comparison in comparisons {
                shown.append(comparison.text)
                switch comparison.key {
                case NSMetadataItemFSNameKey:
                    guard name == nil else { throw parser.error(at: comparison.offset, "a second comparison of the file name; one is supported") }
                    if comparison.isLike {
                        name = comparison.value
                    } else if comparison.value.contains(where: { $0 == "*" || $0 == "?" }) {
                        throw parser.error(at: comparison.offset, "'\(comparison.value)' holds * or ?, which only LIKE can compare")
                    } else {
                        name = comparison.value
                    }
                case NSMetadataItemContentTypeTreeKey, NSMetadataItemContentTypeKey:
                    guard !comparison.isLike else { throw parser.error(at: comparison.offset, "a content type is compared with ==, not LIKE") }
                    guard type == nil else { throw parser.error(at: comparison.offset, "a second comparison of the content type; one is supported") }
                    type = comparison.value
                default:
                    throw parser.error(
                        at: comparison.offset,
                        "'\(comparison.key)' cannot be searched for: only \(NSMetadataItemFSNameKey), \(NSMetadataItemContentTypeKey) and \(NSMetadataItemContentTypeTreeKey)"
                    )
                }
            }
            predicateFormat = shown.joined(separator: " AND ")
            namePattern = name
            contentType = type
        }

        /// `predicateFormat`.
        public var description: String { predicateFormat }

        /// The predicate as MetadataQuery takes it.
        var metadataQueryPredicate: MetadataQueryPredicate {
            MetadataQueryPredicate(namePattern: namePattern, contentTypes: contentType.map { [$0] } ?? [])
        }
    }

    /// Why a predicate format cannot be used: the format, the offset (in
    /// characters, from 0) where the trouble is, and what it is.
    public struct PredicateError: Error, Sendable, Equatable, CustomStringConvertible {
        /// The format as given.
        public let format: String
        /// Where in `format` the trouble is, in characters from 0 (the format's length when it ended too soon).
        public let offset: Int
        /// What is wrong there.
        public let reason: String

        /// `predicate format 'FORMAT' at character N: reason`.
        public var description: String { "predicate format '\(format)' at character \(offset): \(reason)" }
    }
}

/// Reads a predicate format into comparisons (see `NSMetadataQuery.Predicate`).
private struct PredicateParser {
    struct Comparison {
        var key: String
        var isLike: Bool
        var value: String
        /// Where the comparison starts in the format.
        var offset: Int
        /// The comparison with its arguments in place, for `predicateFormat`.
        var text: String
    }

    private enum Token: Equatable {
        case word(String)
        case key(String)
        case value(String)
        case equals
        case and
    }

    let format: String
    private let characters: [Character]
    private var arguments: [Any]
    private var index = 0

    init(format: String, arguments: [Any]) {
        self.format = format
        self.characters = Array(format)
        self.arguments = arguments
    }

    func error(at offset: Int, _ reason: String) -> NSMetadataQuery.PredicateError {
        NSMetadataQuery.PredicateError(format: format, offset: offset, reason: reason)
    }

    /// Every comparison, in order.
    mutating func comparisons() throws(NSMetadataQuery.PredicateError) -> [Comparison] {
        var comparisons: [Comparison] = []
        repeat {
            comparisons.append(try comparison())
            guard let (token, offset) = try next() else { return comparisons }
            guard token == .and else { throw error(at: offset, "expected AND between comparisons (OR and NOT are not supported)") }
        } while true
    }

    private mutating func comparison() throws(NSMetadataQuery.PredicateError) -> Comparison {
        guard let (keyToken, start) = try next() else { throw error(at: characters.count, "expected a comparison, such as %K LIKE '*.ict'") }
        let key: String
        switch keyToken {
        case .key(let name): key = name
        case .word(let name) where name.uppercased() != "LIKE": key = name
        default: throw error(at: start, "expected a key (%K or a name such as kMDItemFSName)")
        }
        guard let (operatorToken, operatorOffset) = try next() else { throw error(at: characters.count, "expected LIKE or == after \(key)") }
        let isLike: Bool
        switch operatorToken {
        case .equals: isLike = false
        case .word(let word) where word.uppercased() == "LIKE":
            isLike = true
            if index < characters.count, characters[index] == "[" {
                throw error(at: index, "LIKE's options ([c], [d]) are not supported: names are compared case-sensitively")
            }
        default: throw error(at: operatorOffset, "expected LIKE or == (other operators are not supported)")
        }
        guard let (valueToken, valueOffset) = try next() else { throw error(at: characters.count, "expected a value: %@ or a quoted string") }
        guard case .value(let value) = valueToken else { throw error(at: valueOffset, "expected a value: %@ or a quoted string") }
        let quoted = "'" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
        return Comparison(key: key, isLike: isLike, value: value, offset: start, text: "\(key) \(isLike ? "LIKE" : "==") \(quoted)")
    }

    /// The next token and its offset; nil at the end.
    private mutating func next() throws(NSMetadataQuery.PredicateError) -> (Token, Int)? {
        while index < characters.count, characters[index].isWhitespace { index += 1 }
        guard index < characters.count else { return nil }
        let start = index
        let character = characters[index]
        switch character {
        case "%":
            guard index + 1 < characters.count, characters[index + 1] == "K" || characters[index + 1] == "@" else {
                throw error(at: start, "expected %K (a key) or %@ (a value)")
            }
            let isKey = characters[index + 1] == "K"
            index += 2
            guard !arguments.isEmpty else { throw error(at: start, "\(isKey ? "%K" : "%@") has no argument left to take") }
            let argument = arguments.removeFirst()
            guard let text = (argument as? String) ?? (argument as? NSString).map({ String(describing: $0) }) else {
                throw error(at: start, "the argument of \(isKey ? "%K" : "%@") is a \(type(of: argument)), not a string")
            }
            return (isKey ? .key(text) : .value(text), start)
        case "'", "\"":
            index += 1
            var text = ""
            while index < characters.count, characters[index] != character {
                if characters[index] == "\\", index + 1 < characters.count { index += 1 }
                text.append(characters[index])
                index += 1
            }
            guard index < characters.count else { throw error(at: start, "the quoted string is not closed") }
            index += 1
            return (.value(text), start)
        case "=":
            index += 1
            if index < characters.count, characters[index] == "=" { index += 1 }
            return (.equals, start)
        case "&":
            guard index + 1 < characters.count, characters[index + 1] == "&" else { throw error(at: start, "expected && (AND)") }
            index += 2
            return (.and, start)
        default:
            guard character.isLetter || character == "_" else { throw error(at: start, "'\(character)' is not understood here") }
            while index < characters.count, characters[index].isLetter || characters[index].isNumber || characters[index] == "_" { index += 1 }
            let word = String(characters[start..<index])
            return (word.uppercased() == "AND" ? .and : .word(word), start)
        }
    }
}
#endif
