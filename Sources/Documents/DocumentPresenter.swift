import Dispatch
import DocumentVersions
import FileCoordination
import Synchronization

/// What an open document hears from its presenter registration.
enum DocumentPresenterNews: Sendable {
    /// Another writer changed the item, or put a new one in its place.
    case changed
    /// The item moved to this path.
    case moved(String)
    /// A conflict version appeared beside the item.
    case gainedVersion
}

/// A document as its presenter sees it.
@MainActor
protocol PresentedDocument: AnyObject, Sendable {
    /// Takes in news of the item, on the main actor.
    func presenterSaw(_ news: DocumentPresenterNews)
    /// Saves unsaved changes, because another reader or writer asks first.
    func saveForPresenter() throws
}

/// The `FilePresenter` of an open document: passes what the registration's
/// thread is told on to the document, on the main actor.
final class DocumentPresenter: FilePresenter, @unchecked Sendable {
    // @unchecked: `document` is set once, in `init`, before the presenter is registered.
    private weak var document: (any PresentedDocument)?
    /// The document's `hasUnsavedChanges`, mirrored for the registration's thread.
    let hasUnsavedChanges = Mutex(false)

    init(_ document: any PresentedDocument) {
        self.document = document
    }

    func presentedItemDidChange() { tell(.changed) }

    func presentedItemDidMove(to path: String) { tell(.moved(path)) }

    func presentedItemDidGain(_ version: DocumentVersion) { tell(.gainedVersion) }

    /// Saves on the main actor while the asking reader or writer waits
    /// (up to its timeout); nothing when no change is unsaved.
    func savePresentedItemChanges() throws {
        guard hasUnsavedChanges.withLock({ $0 }) else { return }
        try DispatchQueue.main.sync {
            try MainActor.assumeIsolated { try document?.saveForPresenter() }
        }
    }

    private func tell(_ news: DocumentPresenterNews) {
        Task { @MainActor [weak document] in document?.presenterSaw(news) }
    }
}
