#if canImport(UIKit)
import UIKit
#else
import AppleCompatibility
import Foundation
#endif

/// The notes in the app's iCloud container, as the notes app keeps them on
/// iOS (only the import block differs): the container asked for once, notes
/// moved in and out with `setUbiquitous`, and a live query of the ubiquitous
/// documents for `*.icfnote`.
final class CloudNoteLibrary {
    /// The app's default container; the library is nil when iCloud is off.
    let containerURL: URL
    /// Called on the main queue with the notes, sorted by name, after the gathering and each update.
    var notesDidChange: (([NSMetadataItem]) -> Void)?

    private let query = NSMetadataQuery()
    private var observers: [NSObjectProtocol] = []

    init?() {
        guard let url = FileManager.default.url(forUbiquityContainerIdentifier: nil) else { return nil }
        containerURL = url
    }

    /// Where the notes live: the container's `Documents` folder, which the user sees in iCloud Drive.
    var documentsURL: URL { containerURL.appendingPathComponent("Documents") }

    /// Moves the note at `localURL` into iCloud; returns its URL there.
    func moveToCloud(_ localURL: URL) throws -> URL {
        try FileManager.default.createDirectory(at: documentsURL, withIntermediateDirectories: true)
        let cloudURL = documentsURL.appendingPathComponent(localURL.lastPathComponent)
        try FileManager.default.setUbiquitous(true, itemAt: localURL, destinationURL: cloudURL)
        return cloudURL
    }

    /// Moves the note at `cloudURL` out of iCloud into `folder`; returns its URL there.
    func moveToDevice(_ cloudURL: URL, folder: URL) throws -> URL {
        let localURL = folder.appendingPathComponent(cloudURL.lastPathComponent)
        try FileManager.default.setUbiquitous(false, itemAt: cloudURL, destinationURL: localURL)
        return localURL
    }

    func isInCloud(_ url: URL) -> Bool {
        FileManager.default.isUbiquitousItem(at: url)
    }

    /// Starts the query of the notes; false when it cannot run.
    func startQuery() -> Bool {
        query.searchScopes = [NSMetadataQueryUbiquitousDocumentsScope]
        query.predicate = NSPredicate(format: "%K LIKE %@", NSMetadataItemFSNameKey, "*.icfnote")
        query.sortDescriptors = [NSSortDescriptor(key: NSMetadataItemFSNameKey, ascending: true)]
        let center = NotificationCenter.default
        for name in [NSNotification.Name.NSMetadataQueryDidFinishGathering, .NSMetadataQueryDidUpdate] {
            observers.append(
                center.addObserver(forName: name, object: query, queue: .main) { [weak self] _ in
                    self?.queryDidChange()
                })
        }
        return query.start()
    }

    func stopQuery() {
        query.stop()
        for observer in observers { NotificationCenter.default.removeObserver(observer) }
        observers.removeAll()
    }

    private func queryDidChange() {
        query.disableUpdates()
        let notes = query.results.compactMap { $0 as? NSMetadataItem }
        query.enableUpdates()
        notesDidChange?(notes)
    }
}
