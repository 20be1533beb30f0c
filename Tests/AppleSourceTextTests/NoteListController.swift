#if canImport(UIKit)
import UIKit
#else
import AppleCompatibility
import Foundation
#endif

// The notes app's list of its notes in iCloud, as written for iOS: only the
// import block above differs.

/// Lists the notes (`*.icfnote`) in the app's ubiquitous documents, sorted
/// by name, and follows the changes other devices make.
class NoteListController {
    /// The notes, as the query's last notification gave them.
    private(set) var noteItems: [NSMetadataItem] = []
    /// Called on the main queue after each change of `noteItems`.
    var notesDidChange: (() -> Void)?

    private let metadataQuery = NSMetadataQuery()
    private var observers: [NSObjectProtocol] = []

    /// Starts the query; false when it cannot run (no iCloud container).
    @discardableResult
    func startQuery() -> Bool {
        metadataQuery.searchScopes = [NSMetadataQueryUbiquitousDocumentsScope]
        metadataQuery.predicate = NSPredicate(format: "%K LIKE %@", NSMetadataItemFSNameKey, "*.icfnote")
        metadataQuery.sortDescriptors = [NSSortDescriptor(key: NSMetadataItemFSNameKey, ascending: true)]

        let center = NotificationCenter.default
        observers.append(
            center.addObserver(forName: .NSMetadataQueryDidFinishGathering, object: metadataQuery, queue: .main) { [weak self] _ in
                self?.queryDidChange()
            })
        observers.append(
            center.addObserver(forName: .NSMetadataQueryDidUpdate, object: metadataQuery, queue: .main) { [weak self] _ in
                self?.queryDidChange()
            })
        return metadataQuery.start()
    }

    func stopQuery() {
        metadataQuery.stop()
        for observer in observers { NotificationCenter.default.removeObserver(observer) }
        observers.removeAll()
    }

    private func queryDidChange() {
        metadataQuery.disableUpdates()
        noteItems = metadataQuery.results.compactMap { $0 as? NSMetadataItem }
        metadataQuery.enableUpdates()
        notesDidChange?()
    }

    /// The note's name as the list shows it, marked when another device's edit conflicts with it.
    func title(of item: NSMetadataItem) -> String {
        let name = item.value(forAttribute: NSMetadataItemFSNameKey) as? String ?? "Untitled"
        let conflicted = (item.value(forAttribute: NSMetadataUbiquitousItemHasUnresolvedConflictsKey) as? NSNumber)?.boolValue ?? false
        return conflicted ? name + " (conflict)" : name
    }

    /// The note's file, to open it as a `Note`.
    func url(of item: NSMetadataItem) -> URL? {
        item.value(forAttribute: NSMetadataItemURLKey) as? URL
    }

    /// Every ubiquitous item attribute the item has, `key=value`, for the sync state column.
    func syncState(of item: NSMetadataItem) -> [String] {
        item.attributes.filter { $0.hasPrefix("NSMetadataUbiquitousItem") }.sorted().map { key in
            "\(key)=\(item.value(forAttribute: key).map { "\($0)" } ?? "nil")"
        }
    }
}
