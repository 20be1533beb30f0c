#if !canImport(Darwin)
import ConflictVersions
import FileCoordination
import Foundation
import Synchronization
import SystemPackage

/// Foundation's out-parameter for errors, which swift-corelibs-foundation
/// lacks: callers pass `&error` as on Apple platforms.
public typealias NSErrorPointer = UnsafeMutablePointer<NSError?>?

/// Foundation's `NSFileCoordinator`, which swift-corelibs-foundation lacks,
/// built on FileCoordination's `FileCoordinator` (see it for how the
/// coordination works: across threads and processes on this machine).
///
/// A failed coordination sets `error` to an `NSError` in
/// `NSCocoaErrorDomain` (`NSFileLockingError`, or `NSUserCancelledError`
/// after `cancel()`) whose `NSFilePathErrorKey` is the item's path, and the
/// accessor does not run.
open class NSFileCoordinator: NSObject {
    /// Options for coordinated reading (Foundation's `NSFileCoordinator.ReadingOptions`).
    public struct ReadingOptions: OptionSet, Sendable {
        /// The options' bits, as Foundation's.
        public let rawValue: UInt

        /// Makes a set of options from its bits.
        public init(rawValue: UInt) { self.rawValue = rawValue }

        /// Presenters are not asked to save first.
        public static let withoutChanges = ReadingOptions(rawValue: 1 << 0)
        /// A final symbolic link is resolved (always so here).
        public static let resolvesSymbolicLink = ReadingOptions(rawValue: 1 << 1)
        /// Accepted for source compatibility; has no effect here.
        public static let immediatelyAvailableMetadataOnly = ReadingOptions(rawValue: 1 << 2)
        /// Accepted for source compatibility; has no effect here.
        public static let forUploading = ReadingOptions(rawValue: 1 << 3)
    }

    /// Options for coordinated writing (Foundation's `NSFileCoordinator.WritingOptions`).
    public struct WritingOptions: OptionSet, Sendable {
        /// The options' bits, as Foundation's.
        public let rawValue: UInt

        /// Makes a set of options from its bits.
        public init(rawValue: UInt) { self.rawValue = rawValue }

        /// The write deletes the item: presenters accommodate the deletion first.
        public static let forDeleting = WritingOptions(rawValue: 1 << 0)
        /// The write moves the item (report it with `item(at:didMoveTo:)`).
        public static let forMoving = WritingOptions(rawValue: 1 << 1)
        /// The write merges: presenters save first.
        public static let forMerging = WritingOptions(rawValue: 1 << 2)
        /// The write replaces the item's contents.
        public static let forReplacing = WritingOptions(rawValue: 1 << 3)
        /// Accepted for source compatibility; has no effect here.
        public static let contentIndependentMetadataOnly = WritingOptions(rawValue: 1 << 4)
    }

    private let coordinator: FileCoordinator

    /// Makes a coordinator; `filePresenter`'s own registration (if it was
    /// added with `addFilePresenter`) is not asked or told about its accesses.
    public init(filePresenter: NSFilePresenter?) {
        coordinator = FileCoordinator(presenter: filePresenter.flatMap { PresenterTable.shared.registration(of: $0) })
    }

    /// Registers `filePresenter` for its `presentedItemURL`: it is told of
    /// coordinated and uncoordinated changes on its `presentedItemOperationQueue`.
    /// A presenter whose item cannot be watched is not added.
    open class func addFilePresenter(_ filePresenter: NSFilePresenter) {
        PresenterTable.shared.add(filePresenter)
    }

    /// Unregisters `filePresenter`.
    open class func removeFilePresenter(_ filePresenter: NSFilePresenter) {
        PresenterTable.shared.remove(filePresenter)
    }

    /// The presenters this process added.
    open class var filePresenters: [NSFilePresenter] { PresenterTable.shared.all }

    /// Runs `reader` while no writer changes the item at `url`.
    open func coordinate(
        readingItemAt url: URL, options: ReadingOptions = [], error outError: NSErrorPointer, byAccessor reader: (URL) -> Void
    ) {
        perform(url, outError) { try coordinator.coordinate(reading: url.path, options: Self.reading(options)) { _ in reader(url) } }
    }

    /// Runs `writer` while no other reader or writer uses the item at `url`.
    open func coordinate(
        writingItemAt url: URL, options: WritingOptions = [], error outError: NSErrorPointer, byAccessor writer: (URL) -> Void
    ) {
        perform(url, outError) { try coordinator.coordinate(writing: url.path, options: Self.writing(options)) { _ in writer(url) } }
    }

    /// Runs `readerWriter` reading one item and writing another.
    open func coordinate(
        readingItemAt readingURL: URL, options readingOptions: ReadingOptions = [], writingItemAt writingURL: URL,
        options writingOptions: WritingOptions = [], error outError: NSErrorPointer, byAccessor readerWriter: (URL, URL) -> Void
    ) {
        perform(readingURL, outError) {
            try coordinator.coordinate(
                reading: readingURL.path, options: Self.reading(readingOptions), writing: writingURL.path,
                options: Self.writing(writingOptions)
            ) { _, _ in readerWriter(readingURL, writingURL) }
        }
    }

    /// Runs `writer` writing two items (a move: `.forMoving`, then `.forReplacing`).
    open func coordinate(
        writingItemAt url1: URL, options options1: WritingOptions = [], writingItemAt url2: URL,
        options options2: WritingOptions = [], error outError: NSErrorPointer, byAccessor writer: (URL, URL) -> Void
    ) {
        perform(url1, outError) {
            try coordinator.coordinate(
                writing: url1.path, options: Self.writing(options1), writing: url2.path, options: Self.writing(options2)
            ) { _, _ in writer(url1, url2) }
        }
    }

    /// Says, inside a `.forMoving` write, that the item at `oldURL` is now at `newURL`.
    open func item(at oldURL: URL, didMoveTo newURL: URL) {
        coordinator.itemMoved(from: oldURL.path, to: newURL.path)
    }

    /// Ends this coordinator's waits with `NSUserCancelledError`.
    open func cancel() {
        coordinator.cancel()
    }

    private func perform(_ url: URL, _ outError: NSErrorPointer, _ body: () throws -> Void) {
        do {
            try body()
        } catch let error as FileCoordinationError {
            let code = error.code == .cancelled ? CocoaError.userCancelled.rawValue : CocoaError.fileLocking.rawValue
            outError?.pointee = NSError(
                domain: NSCocoaErrorDomain, code: code,
                userInfo: [NSFilePathErrorKey: error.pathText, NSLocalizedDescriptionKey: error.description])
        } catch {
            outError?.pointee = error as NSError
        }
    }

    private static func reading(_ options: ReadingOptions) -> FileReadingOptions {
        options.contains(.withoutChanges) ? .withoutChanges : []
    }

    private static func writing(_ options: WritingOptions) -> FileWritingOptions {
        var result: FileWritingOptions = []
        if options.contains(.forDeleting) { result.insert(.forDeleting) }
        if options.contains(.forMoving) { result.insert(.forMoving) }
        if options.contains(.forMerging) { result.insert(.forMerging) }
        if options.contains(.forReplacing) { result.insert(.forReplacing) }
        return result
    }
}

/// Foundation's `NSFilePresenter`, which swift-corelibs-foundation lacks.
/// Every method but the two properties is optional (a default does nothing;
/// the completion handlers are called with nil).
public protocol NSFilePresenter: NSObjectProtocol {
    /// The item presented.
    var presentedItemURL: URL? { get }
    /// The queue the presenter's methods are called on.
    var presentedItemOperationQueue: OperationQueue { get }

    /// Another writer changed the item.
    func presentedItemDidChange()
    /// The item moved to `newURL`.
    func presentedItemDidMove(to newURL: URL)
    /// A writer is about to delete the item (or did, without coordinating): let go, then call `completionHandler`.
    func accommodatePresentedItemDeletion(completionHandler: @escaping (Error?) -> Void)
    /// A conflict version appeared beside the item.
    func presentedItemDidGain(_ version: NSFileVersion)
    /// A reader or merging writer waits: save, then call `completionHandler`.
    func savePresentedItemChanges(completionHandler: @escaping (Error?) -> Void)
}

extension NSFilePresenter {
    /// Does nothing.
    public func presentedItemDidChange() {}
    /// Does nothing.
    public func presentedItemDidMove(to newURL: URL) {}
    /// Calls `completionHandler(nil)`.
    public func accommodatePresentedItemDeletion(completionHandler: @escaping (Error?) -> Void) { completionHandler(nil) }
    /// Does nothing.
    public func presentedItemDidGain(_ version: NSFileVersion) {}
    /// Calls `completionHandler(nil)`.
    public func savePresentedItemChanges(completionHandler: @escaping (Error?) -> Void) { completionHandler(nil) }
}

/// The presenters added with `NSFileCoordinator.addFilePresenter`, each with its registration.
private final class PresenterTable: Sendable {
    static let shared = PresenterTable()

    private struct Entry: @unchecked Sendable {
        // @unchecked: the presenter is only handed to its own operation queue and back to callers.
        var presenter: NSFilePresenter
        var registration: FilePresenterRegistration
    }

    private let entries = Mutex<[ObjectIdentifier: Entry]>([:])

    func add(_ presenter: NSFilePresenter) {
        guard let url = presenter.presentedItemURL,
            let registration = try? FilePresenterRegistration(presenting: url.path, presenter: PresenterAdapter(presenter))
        else { return }
        let replaced = entries.withLock { $0.updateValue(Entry(presenter: presenter, registration: registration), forKey: ObjectIdentifier(presenter)) }
        replaced?.registration.remove()
    }

    func remove(_ presenter: NSFilePresenter) {
        let removed = entries.withLock { $0.removeValue(forKey: ObjectIdentifier(presenter)) }
        removed?.registration.remove()
    }

    func registration(of presenter: NSFilePresenter) -> FilePresenterRegistration? {
        entries.withLock { $0[ObjectIdentifier(presenter)]?.registration }
    }

    var all: [NSFilePresenter] { entries.withLock { $0.values.map(\.presenter) } }
}

/// Calls an `NSFilePresenter` on its operation queue; waits for the completion handlers of requests.
private final class PresenterAdapter: FilePresenter, @unchecked Sendable {
    // @unchecked: the presenter is only called through its own operation queue.
    private let presenter: NSFilePresenter

    init(_ presenter: NSFilePresenter) { self.presenter = presenter }

    func presentedItemDidChange() {
        presenter.presentedItemOperationQueue.addOperation { self.presenter.presentedItemDidChange() }
    }

    func presentedItemDidMove(to path: FilePath) {
        presenter.presentedItemOperationQueue.addOperation { self.presenter.presentedItemDidMove(to: URL(fileURLWithPath: path.string)) }
    }

    func presentedItemDidGain(_ version: DocumentVersion) {
        nonisolated(unsafe) let version = NSFileVersion(version)
        presenter.presentedItemOperationQueue.addOperation { self.presenter.presentedItemDidGain(version) }
    }

    func accommodatePresentedItemDeletion() throws {
        try request { self.presenter.accommodatePresentedItemDeletion(completionHandler: $0) }
    }

    func savePresentedItemChanges() throws {
        try request { self.presenter.savePresentedItemChanges(completionHandler: $0) }
    }

    /// Runs `call` on the presenter's queue and waits for its completion handler.
    private func request(_ call: @escaping @Sendable (@escaping (Error?) -> Void) -> Void) throws {
        let answer = Mutex<Error?>(nil)
        let done = DispatchSemaphore(value: 0)
        presenter.presentedItemOperationQueue.addOperation {
            call { error in
                answer.withLock { $0 = error }
                done.signal()
            }
        }
        done.wait()
        if let error = answer.withLock({ $0 }) { throw error }
    }
}
#endif
