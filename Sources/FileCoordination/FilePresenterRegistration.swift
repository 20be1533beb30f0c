import Dispatch
import DocumentVersions
import SystemSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A presenter registered for an item: while it lives, the item's
/// coordinated readers and writers (in this process and in others that use
/// ICTKit) ask it to save or let go, and it is told when the item changes,
/// moves, is deleted or gains a conflict version — also when that is done by
/// a process that does not coordinate (a sync tool renaming a file into
/// place), which it learns from the folder's file events (inotify on Linux;
/// elsewhere only coordinated changes are told).
///
/// Each registration runs one thread, which calls the presenter's methods
/// one at a time and gives the same news as `events`. Nothing is written in
/// the item's folder: the registration is a FIFO in the lock directory.
public final class FilePresenterRegistration: Sendable {
    /// What the presenter is told, in order, as an asynchronous sequence
    /// (one consumer); it ends when the registration is removed. It keeps
    /// the newest 256 events not yet consumed (older ones are dropped, so a
    /// registration whose events nobody reads holds little).
    public let events: AsyncStream<FilePresenterEvent>

    private struct Place: Sendable {
        var path: String
        var folder: String
        var name: String
        var removed = false
    }

    private let place: Protected<Place>
    /// The presenter's thread, and a signal that it ended.
    private let loopThread: DetachedThread
    private let loopEnded: DispatchSemaphore

    /// Registers `presenter` (or only `events`, when nil) for the item at
    /// `path`, which may be a file or a package directory and need not exist
    /// yet (its folder must).
    ///
    /// - Throws: `FileCoordinationError` `.unavailable` when the item's folder
    ///   or the lock directory cannot be used, `.watchFailed` when the folder
    ///   cannot be watched. Starts a thread.
    public init(presenting path: String, presenter: (any FilePresenter)? = nil) throws(FileCoordinationError) {
        let (stream, continuation) = AsyncStream.makeStream(of: FilePresenterEvent.self, bufferingPolicy: .bufferingNewest(256))
        events = stream
        let loop = try PresenterLoop(path: path, presenter: presenter, continuation: continuation)
        place = Protected(Place(path: path, folder: loop.inbox.folder, name: loop.inbox.name))
        let ended = DispatchSemaphore(value: 0)
        loopEnded = ended
        let thread = DetachedThread(name: "ICTKit presenter") {
            loop.run()
            ended.signal()
        }
        loopThread = thread
        loop.registration = Weak(self)
        guard thread.start() else {
            place.withLock { $0.removed = true }
            loop.closeWithoutRunning()
            throw FileCoordinationError(.unavailable, path: path, "cannot start the presenter's thread (the process is at its thread limit)")
        }
    }

    deinit { remove() }

    /// The item presented now (it changes when the item moves).
    public var presentedItemPath: String { place.withLock { $0.path } }

    /// Stops presenting: no more questions or news; `events` ends. Once only;
    /// returns when the registration's thread has ended (or after 10 s, when
    /// a presenter method is still running).
    public func remove() {
        let (folder, name, removed) = place.withLock { place in
            defer { place.removed = true }
            return (place.folder, place.name, place.removed)
        }
        guard !removed else { return }
        PresenterChannel.send(.init(.stop), toPresenter: name, in: folder)
        // Waits (up to 10 s: a presenter method may be running) for the thread to let go of its FIFO,
        // unless called from that thread (from a presenter method).
        if !loopThread.isCurrent { _ = loopEnded.wait(timeout: .now() + 10) }
    }

    /// The registration's FIFO name: what a coordinator made with it leaves out.
    var presenterID: String { place.withLock { $0.name } }
    /// The presenter folder it is in.
    var presenterFolder: String { place.withLock { $0.folder } }

    fileprivate func moved(to path: String, folder: String, name: String) {
        place.withLock { place in
            place.path = path
            place.folder = folder
            place.name = name
        }
    }
}

/// A weak reference that may cross to the presenter's thread.
final class Weak<Object: AnyObject & Sendable>: @unchecked Sendable {
    // @unchecked: `object` is set once, before the thread starts.
    weak var object: Object?
    init(_ object: Object) { self.object = object }
}

/// The presenter's thread: waits on its FIFO and the folder's events.
private final class PresenterLoop: @unchecked Sendable {
    // @unchecked: after `init`, only the presenter's thread touches it.
    let presenter: (any FilePresenter)?
    let continuation: AsyncStream<FilePresenterEvent>.Continuation
    var registration: Weak<FilePresenterRegistration>?
    var inbox: PresenterChannel.Inbox
    let watcher: DirectoryWatcher?
    var path: String
    var folderPath: String
    var itemName: String
    var folderWatch: Int32 = -1
    var packageWatch: Int32 = -1
    var knownConflicts: Set<String> = []
    var gone = false
    var stopping = false

    init(
        path: String, presenter: (any FilePresenter)?, continuation: AsyncStream<FilePresenterEvent>.Continuation
    ) throws(FileCoordinationError) {
        self.presenter = presenter
        self.continuation = continuation
        self.path = path
        (folderPath, itemName) = Self.split(path)
        inbox = try Self.inbox(for: path)
        #if os(Linux)
        do throws(DirectoryWatcher.Failure) {
            watcher = try DirectoryWatcher()
        } catch {
            inbox.close()
            throw FileCoordinationError(.watchFailed, path: path, error.description)
        }
        #else
        watcher = nil
        #endif
        do throws(FileCoordinationError) {
            try watchPlace()
        } catch {
            inbox.close()
            throw error
        }
        gone = !FileManager.default.fileExists(atPath: path)
        knownConflicts = Set(conflictNames())
    }

    /// Gives back what `init` took (the FIFO, the watch) when the thread that would run the loop could not start.
    func closeWithoutRunning() {
        inbox.close()
        watcher?.close()
        continuation.finish()
    }

    static func split(_ path: String) -> (folder: String, name: String) {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return (".", String(trimmed)) }
        let folder = slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
        return (folder, String(trimmed[trimmed.index(after: slash)...]))
    }

    static func inbox(for path: String) throws(FileCoordinationError) -> PresenterChannel.Inbox {
        var attempts = 0
        while true {
            do throws(PresenterChannel.Failure) {
                let folder = try PresenterChannel.folder(of: path, create: true)
                return try PresenterChannel.Inbox(folder: folder, name: PresenterChannel.uniqueName("p"))
            } catch {
                // The folder may go with the item's last other presenter between making it and using it: make it again.
                attempts += 1
                guard attempts < 5 else {
                    throw FileCoordinationError(.unavailable, path: path, "cannot present it: \(error.description)")
                }
            }
        }
    }

    /// Watches the item's folder, and the item when it is a package directory.
    func watchPlace() throws(FileCoordinationError) {
        guard let watcher else { return }
        do throws(DirectoryWatcher.Failure) {
            folderWatch = try watcher.watch(folderPath)
        } catch {
            throw FileCoordinationError(.watchFailed, path: path, error.description)
        }
        watchPackage()
    }

    func watchPackage() {
        if let watcher, (try? FileInfo.of(path: path))?.kind == .directory {
            packageWatch = (try? watcher.watch(path)) ?? -1
        } else {
            packageWatch = -1
        }
    }

    func conflictNames() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folderPath)) ?? []
        return names.filter { ConflictName(parsing: $0)?.originalName == itemName }
    }

    func run() {
        defer {
            inbox.close()
            watcher?.close()
            continuation.finish()
        }
        while !stopping {
            _ = waitForInput([inbox.descriptor] + (watcher.map { [$0.descriptor] } ?? []), timeout: -1)
            var notes = drain()
            var events = watcher?.events() ?? []
            if !stopping, events.contains(where: touchesItem) {
                // Wait for a coordinated writer to finish (it tells its presenters before it lets go),
                // then take what it said and the rest of its folder events.
                (try? ItemLock.acquire(path, .shared, timeout: 10))?.release()
                notes += drain()
                events += watcher?.events() ?? []
            }
            guard !stopping else { return }
            process(notes, events)
        }
    }

    func touchesItem(_ event: DirectoryWatcher.Event) -> Bool {
        (event.watch == folderWatch && event.name == itemName) || (event.watch == packageWatch && packageWatch >= 0)
            || event.change == .overflowed
    }

    /// Answers the requests waiting; returns the news.
    func drain() -> [PresenterChannel.Message] {
        var notes: [PresenterChannel.Message] = []
        for message in inbox.receive() {
            switch message.kind {
            case .stop: stopping = true
            case .save:
                let refusal = attempt { try presenter?.savePresentedItemChanges() }
                PresenterChannel.answer(message, inFolder: inbox.folder, refusal: refusal)
                continuation.yield(.saveRequested)
            case .accommodateDeletion:
                let refusal = attempt { try presenter?.accommodatePresentedItemDeletion() }
                PresenterChannel.answer(message, inFolder: inbox.folder, refusal: refusal)
                if !gone {
                    gone = true
                    continuation.yield(.deleted)
                }
            case .changed, .moved: notes.append(message)
            case .reply: break
            }
        }
        return notes
    }

    func attempt(_ body: () throws -> Void) -> String {
        do {
            try body()
            return ""
        } catch {
            return "\(error)"
        }
    }

    func process(_ notes: [PresenterChannel.Message], _ events: [DirectoryWatcher.Event]) {
        let own = inbox.name
        if let moved = notes.last(where: { $0.kind == .moved }) {
            move(to: moved.argument)
        } else {
            let ownWrite = notes.contains { $0.sender == own }
            let othersWrote = notes.contains { $0.kind == .changed && $0.sender != own }
            let touched = !ownWrite && events.contains(where: touchesItem)
            if othersWrote || touched {
                if FileManager.default.fileExists(atPath: path) {
                    gone = false
                    tell(.changed)
                    watchPackage()
                } else if let renamed = renamedName(events) {
                    move(to: folderPath == "." ? renamed : folderPath + "/" + renamed)
                } else if !gone {
                    gone = true
                    tell(.deleted)
                }
            }
        }
        for event in events where event.watch == folderWatch && event.change == .appeared {
            guard let conflict = ConflictName(parsing: event.name), conflict.originalName == itemName,
                !knownConflicts.contains(event.name)
            else { continue }
            knownConflicts.insert(event.name)
            let versionPath = folderPath == "." ? event.name : folderPath + "/" + event.name
            continuation.yield(.gainedVersion(path: versionPath, conflictName: conflict))
            if let presenter, let version = try? DocumentVersion.otherVersionsOfItem(at: path).first(where: { $0.path == versionPath }) {
                presenter.presentedItemDidGain(version)
            }
        }
    }

    /// The name the item was renamed to within its folder, from the pair of events sharing a cookie.
    func renamedName(_ events: [DirectoryWatcher.Event]) -> String? {
        guard let from = events.last(where: { $0.watch == folderWatch && $0.name == itemName && $0.change == .went && $0.cookie != 0 })
        else { return nil }
        return events.last { $0.watch == folderWatch && $0.change == .appeared && $0.cookie == from.cookie }?.name
    }

    func tell(_ event: FilePresenterEvent) {
        continuation.yield(event)
        switch event {
        case .changed: presenter?.presentedItemDidChange()
        case .deleted: try? presenter?.accommodatePresentedItemDeletion()
        default: break
        }
    }

    /// Follows the item to `newPath`: a new FIFO and new watches.
    func move(to newPath: String) {
        let oldFolder = folderPath
        path = newPath
        (folderPath, itemName) = Self.split(newPath)
        gone = false
        if let fresh = try? Self.inbox(for: newPath) {
            inbox.close()
            inbox = fresh
        }
        if folderPath != oldFolder, let watcher {
            folderWatch = (try? watcher.watch(folderPath)) ?? -1
        }
        watchPackage()
        knownConflicts = Set(conflictNames())
        registration?.object?.moved(to: newPath, folder: inbox.folder, name: inbox.name)
        continuation.yield(.moved(to: newPath))
        presenter?.presentedItemDidMove(to: newPath)
    }
}
