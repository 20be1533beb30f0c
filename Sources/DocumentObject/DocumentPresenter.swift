import ConflictVersions
import Dispatch
import FileCoordination
import SystemPackage
import SystemSupport

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
    let hasUnsavedChanges = Protected(false)

    init(_ document: any PresentedDocument) {
        self.document = document
    }

    func presentedItemDidChange() { tell(.changed) }

    func presentedItemDidMove(to path: FilePath) { tell(.moved(RawFileName.text(path))) }

    func presentedItemDidGain(_ version: DocumentVersion) { tell(.gainedVersion) }

    /// Saves on the main actor while the asking reader or writer waits;
    /// nothing when no change is unsaved. When the main actor does not
    /// answer within `mainActorWait` — it may itself be waiting for this
    /// answer, in a read by another document of this process — the reader
    /// goes on without the save, which runs once the main actor is free.
    func savePresentedItemChanges() throws {
        guard hasUnsavedChanges.withLock({ $0 }) else { return }
        let outcome = SaveOutcome()
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.main.async { [weak document] in
            let result = MainActor.assumeIsolated { Result { if let document { try document.saveForPresenter() } } }
            outcome.result.withLock { $0 = result }
            done.signal()
        }
        guard done.wait(timeout: .now() + Self.mainActorWait) == .success else { return }
        try outcome.result.withLock { $0 }?.get()
    }

    /// How long a request to save waits for the main actor.
    static let mainActorWait: DispatchTimeInterval = .seconds(10)

    private func tell(_ news: DocumentPresenterNews) {
        Task { @MainActor [weak document] in document?.presenterSaw(news) }
    }
}

/// The result of a save made on the main actor for the presenter's thread.
private final class SaveOutcome: Sendable {
    let result = Protected<Result<Void, any Error>?>(nil)
}
