#if !canImport(Darwin)
import AppleCompatibility
import LiveQuery
import Foundation
import DocumentFormats
import Testing

/// Foundation's NSMetadataQuery and NSMetadataItem off Apple platforms, used
/// as the original apps use them: a predicate on the file name over a folder,
/// `NSMetadataQueryDidFinishGathering`, then `NSMetadataQueryDidUpdate` with
/// the added, changed and removed items in `userInfo`, as another process
/// would change the folder.
@Suite(.serialized)
struct NSMetadataQueryTests {
    /// The notifications a query posted, in order, each waited for with a deadline.
    final class NotificationLog: @unchecked Sendable {
        // @unchecked: `entries` is touched under `lock`; `arrived` counts them.
        struct Entry {
            var name: Notification.Name
            var userInfo: [AnyHashable: Any]?
            /// The query's results' names when it was posted.
            var resultNames: [String]
        }

        private let lock = NSLock()
        private var entries: [Entry] = []
        private let arrived = DispatchSemaphore(value: 0)
        private var observers: [NSObjectProtocol] = []

        init(_ query: NSMetadataQuery) {
            for name in [Notification.Name.NSMetadataQueryDidStartGathering, .NSMetadataQueryDidFinishGathering, .NSMetadataQueryDidUpdate] {
                observers.append(
                    NotificationCenter.default.addObserver(forName: name, object: query, queue: nil) { [weak self] notification in
                        guard let self else { return }
                        let query = notification.object as? NSMetadataQuery
                        let names = (query?.results ?? []).map { ($0 as? NSMetadataItem)?.value(forAttribute: NSMetadataItemFSNameKey) as? String ?? "?" }
                        lock.withLock { entries.append(Entry(name: notification.name, userInfo: notification.userInfo, resultNames: names)) }
                        arrived.signal()
                    })
            }
        }

        deinit {
            for observer in observers { NotificationCenter.default.removeObserver(observer) }
        }

        /// The first `count` notifications, waiting at most 30 seconds in all for them to be posted; nil if they were not.
        func first(_ count: Int) -> [Entry]? {
            let deadline = DispatchTime.now() + .seconds(30)
            while lock.withLock({ entries.count }) < count {
                guard arrived.wait(timeout: deadline) == .success else { return nil }
            }
            return lock.withLock { Array(entries.prefix(count)) }
        }

        var count: Int { lock.withLock { entries.count } }
    }

    /// The names of the items under `key` of `userInfo`.
    private func names(_ userInfo: [AnyHashable: Any]?, _ key: String) -> [String]? {
        (userInfo?[key] as? [NSMetadataItem])?.map { $0.value(forAttribute: NSMetadataItemFSNameKey) as? String ?? "?" }
    }

    /// The total size of the regular files in a package, as FileManager lists them.
    private func packageSize(_ url: URL) throws -> Int64 {
        var total: Int64 = 0
        for case let file as URL in FileManager.default.enumerator(at: url, includingPropertiesForKeys: [.fileSizeKey, .isRegularFileKey])! {
            let values = try file.resourceValues(forKeys: [.fileSizeKey, .isRegularFileKey])
            if values.isRegularFile == true { total += Int64(values.fileSize ?? 0) }
        }
        return total
    }

    @Test func gatheringThenADocumentRenamedIntoPlaceIsPostedInOrder() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let folder = directory.url.appendingPathComponent("Documents")
        let staging = directory.url.appendingPathComponent("staging")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: false)
        try FileManager.default.copyItem(at: sampleDocs.appendingPathComponent("Coffee.ict"), to: folder.appendingPathComponent("A.ict"))
        try Data("not a document".utf8).write(to: folder.appendingPathComponent("notes.txt"))

        // What an app of .ict documents does where it starts: the query reads their display names through them.
        MetadataQuery.defaultDocumentKinds = DocumentKind.metadataDocumentKinds
        let query = NSMetadataQuery()
        query.searchScopes = [folder]
        query.predicate = NSPredicate(format: "%K LIKE '*.ict'", NSMetadataItemFSNameKey)
        query.sortDescriptors = [NSSortDescriptor(key: NSMetadataItemFSNameKey, ascending: true)]
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        query.operationQueue = queue
        let log = NotificationLog(query)
        #expect(query.start())
        defer { query.stop() }
        #expect(query.isStarted)

        let gathered = try #require(log.first(2), "the gathering was not posted")
        #expect(gathered.map(\.name) == [.NSMetadataQueryDidStartGathering, .NSMetadataQueryDidFinishGathering])
        #expect(gathered[1].resultNames == ["A.ict"])
        #expect(!query.isGathering)
        #expect(query.resultCount == 1)
        let first = try #require(query.result(at: 0) as? NSMetadataItem)
        // Coffee.ict's display name, as `ict list SampleDocs` shows it (README).
        #expect(first.value(forAttribute: NSMetadataItemDisplayNameKey) as? String == "Coffee")
        #expect(first.value(forAttribute: NSMetadataItemPathKey) as? String == folder.path + "/A.ict")
        #expect((first.value(forAttribute: NSMetadataItemURLKey) as? URL)?.standardizedFileURL.path == folder.appendingPathComponent("A.ict").path)
        #expect((first.value(forAttribute: NSMetadataItemFSSizeKey) as? NSNumber)?.int64Value == (try packageSize(folder.appendingPathComponent("A.ict"))))
        #expect((first.value(forAttribute: NSMetadataUbiquitousItemHasUnresolvedConflictsKey) as? NSNumber)?.boolValue == false)
        #expect(first.value(forAttribute: NSMetadataItemFSContentChangeDateKey) is Date)
        #expect(first.value(forAttribute: "kMDItemNoSuchKey") == nil)
        // A folder no engine keeps has no sync state: no value, as Apple gives none outside iCloud.
        #expect(first.value(forAttribute: NSMetadataUbiquitousItemIsUploadedKey) == nil)
        #expect(first.value(forAttribute: NSMetadataUbiquitousItemDownloadingStatusKey) == nil)
        #expect(!first.attributes.contains(NSMetadataUbiquitousItemPercentDownloadedKey))
        #expect(first.attributes.contains(NSMetadataItemFSNameKey) && first.attributes.contains(NSMetadataItemDisplayNameKey))

        // Another process's document, copied beside the folder and renamed into it.
        try FileManager.default.copyItem(at: sampleDocs.appendingPathComponent("Rocket.ict"), to: staging.appendingPathComponent("B.ict"))
        #expect(rename(staging.appendingPathComponent("B.ict").path, folder.appendingPathComponent("B.ict").path) == 0)
        let added = try #require(log.first(3), "the added document was not posted")
        #expect(added[2].name == .NSMetadataQueryDidUpdate)
        #expect(names(added[2].userInfo, NSMetadataQueryUpdateAddedItemsKey) == ["B.ict"])
        #expect(names(added[2].userInfo, NSMetadataQueryUpdateChangedItemsKey) == [])
        #expect(names(added[2].userInfo, NSMetadataQueryUpdateRemovedItemsKey) == [])
        #expect(added[2].resultNames == ["A.ict", "B.ict"])

        // Removed by renaming it away: the same object as in the results is told removed.
        let b = try #require(query.results.last as? NSMetadataItem)
        #expect(rename(folder.appendingPathComponent("B.ict").path, staging.appendingPathComponent("B.ict").path) == 0)
        let removed = try #require(log.first(4), "the removed document was not posted")
        #expect(names(removed[3].userInfo, NSMetadataQueryUpdateRemovedItemsKey) == ["B.ict"])
        #expect((removed[3].userInfo?[NSMetadataQueryUpdateRemovedItemsKey] as? [NSMetadataItem])?.first === b)
        #expect(removed[3].resultNames == ["A.ict"])

        query.stop()
        #expect(query.isStopped && !query.isStarted)
        #expect(query.resultCount == 1, "the results stay after stop")
        #expect(!query.start(), "a stopped query does not start again")
    }

    @Test func aQueryThatCannotStartSaysSo() {
        let missing = NSMetadataQuery()
        missing.searchScopes = ["/nonexistent-\(UUID().uuidString)"]
        #expect(!missing.start())
        #expect(!missing.isStarted)

        let descending = NSMetadataQuery()
        descending.searchScopes = [FileManager.default.temporaryDirectory]
        descending.sortDescriptors = [NSSortDescriptor(key: NSMetadataItemFSNameKey, ascending: false)]
        #expect(!descending.start())

        let noSuchKey = NSMetadataQuery()
        noSuchKey.searchScopes = [FileManager.default.temporaryDirectory]
        noSuchKey.sortDescriptors = [NSSortDescriptor(key: "kMDItemNoSuchKey", ascending: true)]
        #expect(!noSuchKey.start())

        let notAScope = NSMetadataQuery()
        notAScope.searchScopes = [42]
        #expect(!notAScope.start())
    }

    /// A predicate the query cannot search by is refused when the query
    /// starts (Apple's `NSPredicate(format:)` would raise for the bad
    /// format; a block predicate Spotlight would refuse the same way).
    @Test func aQueryRefusesAPredicateItCannotSearchBy() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let orQuery = NSMetadataQuery()
        orQuery.searchScopes = [directory.url]
        orQuery.predicate = NSPredicate(format: "%K LIKE '*.ict' OR %K LIKE '*.ptk'", NSMetadataItemFSNameKey, NSMetadataItemFSNameKey)
        #expect(!orQuery.start())
        #expect(!orQuery.isStarted)
        #expect(orQuery.predicate?.metadataQueryPredicateError?.offset == 16)

        let blockQuery = NSMetadataQuery()
        blockQuery.searchScopes = [directory.url]
        // Refused without being called: a block written for NSMetadataItems is never handed anything else.
        blockQuery.predicate = NSPredicate { _, _ in
            Issue.record("the query called a block predicate")
            return true
        }
        #expect(!blockQuery.start())

        let good = NSMetadataQuery()
        good.searchScopes = [directory.url]
        good.predicate = NSPredicate(format: "%K LIKE %@", NSMetadataItemFSNameKey, "*.ict")
        #expect(good.start())
        good.stop()
    }

    @Test func predicatesOfTheSourcesForms() throws {
        let sources = try NSMetadataQuery.Predicate(format: "%K LIKE '*.ict'", NSMetadataItemFSNameKey)
        #expect(sources.predicateFormat == "kMDItemFSName LIKE '*.ict'")
        let arguments = try NSMetadataQuery.Predicate(format: "%K LIKE %@", NSMetadataItemFSNameKey, "*.ict")
        #expect(arguments == sources)
        let both = try NSMetadataQuery.Predicate(
            format: "kMDItemFSName == \"Friend.ict\" AND %K == 'com.apple.package'", NSMetadataItemContentTypeTreeKey)
        #expect(both.description == "kMDItemFSName == 'Friend.ict' AND kMDItemContentTypeTree == 'com.apple.package'")
        let ampersands = try NSMetadataQuery.Predicate(format: "%K = %@ && %K LIKE 'A*'", NSMetadataItemContentTypeKey, "public.data", NSMetadataItemFSNameKey)
        #expect(ampersands.predicateFormat == "kMDItemContentType == 'public.data' AND kMDItemFSName LIKE 'A*'")
    }

    /// What the predicate cannot hold is an error at its character (counted from 0).
    @Test(arguments: [
        (
            "%K LIKE '*.ict' OR %K LIKE '*.ptk'", [NSMetadataItemFSNameKey, NSMetadataItemFSNameKey], 16,
            "expected AND between comparisons (OR and NOT are not supported)"
        ),
        ("%K LIKE[c] '*.ict'", [NSMetadataItemFSNameKey], 7, "LIKE's options ([c], [d]) are not supported: names are compared case-sensitively"),
        ("%K LIKE '*.ict", [NSMetadataItemFSNameKey], 8, "the quoted string is not closed"),
        ("%K LIKE %@", [NSMetadataItemFSNameKey], 8, "%@ has no argument left to take"),
        ("%K BEGINSWITH 'A'", [NSMetadataItemFSNameKey], 3, "expected LIKE or == (other operators are not supported)"),
        ("%K == 'A*'", [NSMetadataItemFSNameKey], 0, "'A*' holds * or ?, which only LIKE can compare"),
        ("kMDItemFSSize == '3'", [], 0, "'kMDItemFSSize' cannot be searched for: only kMDItemFSName, kMDItemContentType and kMDItemContentTypeTree"),
        ("%K LIKE '*.ict' AND %K LIKE 'A*'", [NSMetadataItemFSNameKey, NSMetadataItemFSNameKey], 20, "a second comparison of the file name; one is supported"),
        (
            "%K == 'a' AND %K == 'b'", [NSMetadataItemContentTypeTreeKey, NSMetadataItemContentTypeKey], 14,
            "a second comparison of the content type; one is supported"
        ),
        ("%K LIKE 'public.*'", [NSMetadataItemContentTypeTreeKey], 0, "a content type is compared with ==, not LIKE"),
        ("'*.ict' LIKE %K", [NSMetadataItemFSNameKey], 0, "expected a key (%K or a name such as kMDItemFSName)"),
        ("", [], 0, "expected a comparison, such as %K LIKE '*.ict'"),
    ])
    func predicateErrorsSayWhere(format: String, arguments: [String], offset: Int, reason: String) {
        let error = #expect(throws: NSMetadataQuery.PredicateError.self) {
            try NSMetadataQuery.Predicate(format: format, argumentArray: arguments)
        }
        #expect(error?.format == format)
        #expect(error?.offset == offset)
        #expect(error?.reason == reason)
        #expect(error?.description == "predicate format '\(format)' at character \(offset): \(reason)")
    }
}
#endif
