#if !canImport(Darwin)
import LiveQuery
import Foundation
import Synchronization

// swift-corelibs-foundation declares `NSPredicate(format:)` and
// `NSSortDescriptor(key:ascending:)` but marks them unavailable (it has no
// predicate strings and no key-value coding). The initializers below, with
// the same signatures, are the ones Swift picks over those (it prefers an
// available declaration), so `query.predicate = NSPredicate(format: "%K LIKE
// %@", NSMetadataItemFSNameKey, pattern)` and `NSSortDescriptor(key:
// NSMetadataItemFSNameKey, ascending: true)` compile and mean what they mean
// to an `NSMetadataQuery`.

extension NSPredicate {
    /// The predicate `predicateFormat` says, for an `NSMetadataQuery`, `%K`
    /// and `%@` taking `args` in order (each a `String`): the formats
    /// `NSMetadataQuery.Predicate` reads (the file name `LIKE` a glob or `==`
    /// a name, the content type `==` a type, joined by `AND`), read once, here.
    ///
    /// A format the query cannot take does not raise an exception, as Apple's
    /// `NSPredicate(format:)` does for a format it cannot parse: the predicate
    /// is made, `metadataQueryPredicateError` says at which character of the
    /// format the trouble is and what it is, and a query given it refuses
    /// to start (`start()` returns false).
    ///
    /// The predicate is made with `NSPredicate(block:)`, and what its format
    /// says is kept for the query beside it (by the object's identity, while
    /// it lives): it is for `NSMetadataQuery` alone. `evaluate(with:)` is false for every object (the query matches
    /// names and types itself), and `predicateFormat` shows a block, not the
    /// format (`metadataQueryPredicate` shows it).
    public convenience init(format predicateFormat: String, _ args: any CVarArg...) {
        self.init(format: predicateFormat, argumentArray: args)
    }

    /// The predicate `predicateFormat` says, `%K` and `%@` taking the strings
    /// of `arguments` in order, as `init(format:_:)`.
    public convenience init(format predicateFormat: String, argumentArray arguments: [Any]?) {
        let parsed: Result<NSMetadataQuery.Predicate, NSMetadataQuery.PredicateError>
        do throws(NSMetadataQuery.PredicateError) {
            parsed = .success(try NSMetadataQuery.Predicate(format: predicateFormat, argumentArray: arguments))
        } catch {
            parsed = .failure(error)
        }
        self.init { _, _ in false }
        FormatPredicates.record(self, parsed)
    }

    /// What the format of a predicate made by `init(format:_:)` says to a
    /// metadata query: the comparisons, or why it cannot be searched for;
    /// nil for a predicate made otherwise. Takes a lock; never calls the predicate.
    var metadataQueryFormat: Result<NSMetadataQuery.Predicate, NSMetadataQuery.PredicateError>? {
        FormatPredicates.parsed(of: self)
    }

    /// The format of a predicate made by `init(format:_:)` as the query reads
    /// it, with its arguments in place (`kMDItemFSName LIKE '*.icfnote'`);
    /// nil for a predicate made otherwise, or one the query cannot take.
    public var metadataQueryPredicate: NSMetadataQuery.Predicate? {
        guard case .success(let predicate)? = metadataQueryFormat else { return nil }
        return predicate
    }

    /// Why a query cannot take this predicate made by `init(format:_:)` — the
    /// format, the character where the trouble is, and what it is; nil when
    /// it can, or for a predicate made otherwise (which no query takes).
    public var metadataQueryPredicateError: NSMetadataQuery.PredicateError? {
        guard case .failure(let error)? = metadataQueryFormat else { return nil }
        return error
    }
}

/// What each living predicate made by `NSPredicate(format:)` says, by the
/// predicate's identity: an entry whose predicate is gone is never read (its
/// weak reference no longer matches, even where a new object takes its
/// address) and is dropped when the next one is recorded.
private enum FormatPredicates {
    // @unchecked: the predicate is only compared by identity here, never called or changed.
    private struct Entry: @unchecked Sendable {
        weak var predicate: NSPredicate?
        var parsed: Result<NSMetadataQuery.Predicate, NSMetadataQuery.PredicateError>
    }

    private static let entries = Mutex<[ObjectIdentifier: Entry]>([:])

    static func record(_ predicate: NSPredicate, _ parsed: Result<NSMetadataQuery.Predicate, NSMetadataQuery.PredicateError>) {
        entries.withLock { entries in
            entries = entries.filter { $0.value.predicate != nil }
            entries[ObjectIdentifier(predicate)] = Entry(predicate: predicate, parsed: parsed)
        }
    }

    static func parsed(of predicate: NSPredicate) -> Result<NSMetadataQuery.Predicate, NSMetadataQuery.PredicateError>? {
        entries.withLock { entries in
            guard let entry = entries[ObjectIdentifier(predicate)], entry.predicate === predicate else { return nil }
            return entry.parsed
        }
    }
}

extension NSSortDescriptor {
    /// Sorts an `NSMetadataQuery`'s results by the attribute `key`
    /// (`NSMetadataItemFSNameKey`, …), smaller first when `ascending`. The
    /// query sorts ascending only: a descending descriptor, a nil key or one
    /// naming no attribute makes its `start()` return false.
    ///
    /// Made over a key path the query recognises (`keyPath`); `key` stays
    /// unavailable, and `compare(_:to:)` finds every two objects the same:
    /// the query sorts its results itself.
    public convenience init(key: String?, ascending: Bool) {
        self.init(keyPath: \NSMetadataItem.[sortKey: key ?? ""], ascending: ascending)
    }

    /// The attribute an `NSSortDescriptor(key:ascending:)` names; nil for a
    /// descriptor made otherwise or naming none. Compares key paths, one per attribute.
    var metadataAttributeKey: String? {
        NSMetadataItem.sortableKeys.first { \NSMetadataItem.[sortKey: $0] == keyPath }
    }
}

extension NSMetadataItem {
    /// The key `NSSortDescriptor(key:ascending:)` sorts by, as its key path's last component.
    subscript(sortKey key: String) -> String { key }

    /// The keys of the attributes a query can sort by.
    static let sortableKeys = MetadataAttribute.allCases.map(\.rawValue)
}
#endif
