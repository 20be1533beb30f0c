import ConflictVersions
import Dispatch
import SystemPackage
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
/// Every registration of the process shares one file-event thread (the
/// process's `FileEventLoop`: one inotify descriptor, no periodic wake-up);
/// each registration's presenter methods are called one at a time on a
/// serial queue of its own, which gives the same news as `events`. Nothing
/// is written in the item's folder: the registration is a FIFO in the lock
/// directory.
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
    /// The registration's part of the file-event loop, and a signal that it ended.
    private let loop: PresenterLoop
    private let loopEnded: DispatchSemaphore

    /// Registers `presenter` (or only `events`, when nil) for the item at
    /// `path`, which may be a file or a package directory and need not exist
    /// yet (its folder must).
    ///
    /// - Throws: `FileCoordinationError` `.unavailable` when the item's folder
    ///   or the lock directory cannot be used, `.watchFailed` when the folder
    ///   cannot be watched; `.unavailable` when the process's file-event
    ///   thread cannot be started.
    package init(presenting path: String, presenter: (any FilePresenter)? = nil) throws(FileCoordinationError) {
        let (stream, continuation) = AsyncStream.makeStream(of: FilePresenterEvent.self, bufferingPolicy: .bufferingNewest(256))
        events = stream
        let ended = DispatchSemaphore(value: 0)
        loopEnded = ended
        let loop = try PresenterLoop(path: path, presenter: presenter, continuation: continuation, ended: ended)
        self.loop = loop
        place = Protected(Place(path: path, folder: loop.inbox.folder, name: loop.inbox.name))
        loop.registration = Weak(self)
        loop.start()
    }

    deinit { remove() }

    /// Registers `presenter` (or only `events`, when nil) for the item at
    /// `filePath` (byte for byte, valid UTF-8 or not), which may be a file
    /// or a package directory and need not exist yet (its folder must).
    ///
    /// - Throws: `FileCoordinationError` `.unavailable` when the item's folder
    ///   or the lock directory cannot be used, `.watchFailed` when the folder
    ///   cannot be watched; `.unavailable` when the process's file-event
    ///   thread cannot be started.
    public convenience init(presenting filePath: FilePath, presenter: (any FilePresenter)? = nil) throws(FileCoordinationError) {
        try self.init(presenting: RawFileName.text(filePath), presenter: presenter)
    }

    /// The item presented now (it changes when the item moves).
    public var presentedItemPath: FilePath { RawFileName.filePath(presentedItemText) }

    /// `presentedItemPath` as the kit's text for a path (each byte that is not UTF-8 as U+10FF00 + byte).
    package var presentedItemText: String { place.withLock { $0.path } }

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
        // Waits (up to 10 s: a presenter method may be running) for the registration to let go of its FIFO,
        // unless called from a presenter method (which runs on the registration's queue).
        if !loop.isHandlingNow { _ = loopEnded.wait(timeout: .now() + 10) }
    }

    /// The file as this registration's own coordinated write left it: the
    /// folder's events of that write are not news, even when the loop reads
    /// them after the write's own note (two descriptors, read in either order).
    private let ownWrite = Protected<(path: String, stamp: FileStamp)?>(nil)

    /// Called by the coordinator as a write made with this registration
    /// ends, before it tells anyone: what `path` is now, when it is a regular
    /// file (a package's folder does not change when an entry does).
    func recordOwnWrite(of path: String) {
        let info = try? FileInfo.of(path: path, followingLink: false)
        ownWrite.withLock { $0 = info.flatMap { $0.kind == .regular ? (path, FileStamp($0)) : nil } }
    }

    /// Whether the file at `path` is still as this registration's own last write left it.
    func isAsOwnWriteLeft(_ path: String) -> Bool {
        guard let recorded = ownWrite.withLock({ $0 }), recorded.path == path else { return false }
        return FileStamp(itemAt: path) == recorded.stamp
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

/// A registration's part of the process's file-event loop: told of its
/// FIFO and its folder's events on its own serial queue.
private final class PresenterLoop: @unchecked Sendable {
    // @unchecked: after `init`, only the registration's queue touches it
    // (`client` is set by `init`, before anything is told).
    let presenter: (any FilePresenter)?
    let continuation: AsyncStream<FilePresenterEvent>.Continuation
    var registration: Weak<FilePresenterRegistration>?
    var inbox: PresenterChannel.Inbox
    let loop: FileEventLoop
    private(set) var client: FileEventLoop.Client!
    let queue = DispatchQueue(label: "ICTKit presenter")
    let ended: DispatchSemaphore
    var path: String
    var folderPath: String
    var itemName: String
    var folderWatch: Int32 = -1
    var packageWatch: Int32 = -1
    var knownConflicts: Set<String> = []
    var gone = false
    var stopping = false

    init(
        path: String, presenter: (any FilePresenter)?, continuation: AsyncStream<FilePresenterEvent>.Continuation, ended: DispatchSemaphore
    ) throws(FileCoordinationError) {
        self.presenter = presenter
        self.continuation = continuation
        self.ended = ended
        self.path = path
        (folderPath, itemName) = PathName.split(path)
        switch FileEventLoop.shared {
        case .success(let loop): self.loop = loop
        case .failure(let error): throw FileCoordinationError(.unavailable, pathText: path, "cannot present it: \(error.description)")
        }
        inbox = try Self.inbox(for: path)
        let queue = self.queue
        do throws(FileEventLoop.Failure) {
            client = try loop.register(queue: queue) { [weak self] delivery in self?.handle(delivery) }
        } catch {
            inbox.close()
            throw FileCoordinationError(.unavailable, pathText: path, "cannot present it: \(error.description)")
        }
        #if os(Linux)
        do throws(FileCoordinationError) {
            try watchPlace()
        } catch {
            loop.unregister(client)
            inbox.close()
            throw error
        }
        #endif
        gone = !FileManager.default.fileExists(atPath: path)
        knownConflicts = Set(conflictNames())
    }

    /// Starts waiting on the FIFO (the folder's events come from `init` on).
    func start() {
        loop.add(inbox.descriptor, for: client)
    }

    /// Whether the calling thread runs one of this registration's presenter methods now.
    var isHandlingNow: Bool { loop.isHandling(client) }

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
                    throw FileCoordinationError(.unavailable, pathText: path, "cannot present it: \(error.description)")
                }
            }
        }
    }

    /// Watches the item's folder, and the item when it is a package directory.
    func watchPlace() throws(FileCoordinationError) {
        do throws(DirectoryWatcher.Failure) {
            folderWatch = try loop.watch(folderPath, for: client)
        } catch {
            throw FileCoordinationError(.watchFailed, pathText: path, error.description)
        }
        watchPackage()
    }

    /// Watches the item when it is a package directory (again: it may be another folder now).
    func watchPackage() {
        #if os(Linux)
        if packageWatch >= 0 { loop.unwatch(packageWatch, for: client) }
        if (try? FileInfo.of(path: path))?.kind == .directory {
            packageWatch = (try? loop.watch(path, for: client)) ?? -1
        } else {
            packageWatch = -1
        }
        #endif
    }

    func conflictNames() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folderPath)) ?? []
        return names.filter { ConflictName(parsing: $0)?.originalName == itemName }
    }

    /// What the loop told: the FIFO's messages and the folder's events.
    func handle(_ delivery: FileEventLoop.Delivery) {
        guard !stopping else { return }
        var notes = drain()
        var events = delivery.events
        if !stopping, events.contains(where: touchesItem) {
            // Wait for a coordinated writer to finish (it tells its presenters before it lets go),
            // then take what it said and the rest of its folder events.
            (try? ItemLock.acquire(path, .shared, timeout: 10))?.release()
            notes += drain()
            events += loop.takePending(for: client, settling: true).events
        }
        guard !stopping else {
            finish()
            return
        }
        process(notes, events)
        loop.rearm(inbox.descriptor, for: client)
    }

    /// Lets go of the FIFO and the watches and ends `events`; once only.
    func finish() {
        loop.unregister(client)
        inbox.close()
        continuation.finish()
        ended.signal()
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
            // An own write's events may come before its note, in an earlier delivery: the file as that write
            // left it is not news either.
            let touched =
                !ownWrite && events.contains(where: touchesItem) && registration?.object?.isAsOwnWriteLeft(path) != true
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
            continuation.yield(.gainedVersion(path: RawFileName.filePath(versionPath), conflictName: conflict))
            if let presenter, let version = try? DocumentVersion.otherVersionsOfItem(at: path).first(where: { $0.pathText == versionPath }) {
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
        (folderPath, itemName) = PathName.split(newPath)
        gone = false
        if let fresh = try? Self.inbox(for: newPath) {
            loop.remove(inbox.descriptor, for: client)
            inbox.close()
            inbox = fresh
            loop.add(inbox.descriptor, for: client)
        }
        if folderPath != oldFolder {
            if folderWatch >= 0 { loop.unwatch(folderWatch, for: client) }
            folderWatch = (try? loop.watch(folderPath, for: client)) ?? -1
        }
        watchPackage()
        knownConflicts = Set(conflictNames())
        registration?.object?.moved(to: newPath, folder: inbox.folder, name: inbox.name)
        let movedTo = RawFileName.filePath(newPath)
        continuation.yield(.moved(to: movedTo))
        presenter?.presentedItemDidMove(to: movedTo)
    }
}
