import SystemSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Coordinated reading and writing of files and package directories, with
/// the meaning of Apple's `NSFileCoordinator`: readers share an item,
/// a writer has it alone, across threads and across processes on this
/// machine; and the item's presenters (`FilePresenterRegistration`) are
/// asked to save first or told of the change, as the options say.
///
/// The exclusion is ICTKit's item lock: an `flock(2)` on a file named after
/// the item's folder and name in a machine-wide directory
/// (`/dev/shm/ictkit-locks` on Linux, or `ICTKIT_LOCK_DIRECTORY`). Nothing
/// is written in the item's folder; the kernel releases the lock of a
/// process that dies; it holds across saves that replace the item by a
/// rename. Every `ict` command that edits and every ICTKit writer's package
/// save (`PackageWrapper.coordinatedSave(to:options:)`) takes the same lock.
///
/// A thread may coordinate an item it already coordinates (a save inside a
/// read-modify-write), but a read cannot become a write: coordinate the
/// write from the start. Coordinate in synchronous code only: the lock
/// belongs to the thread, so a body must not suspend (`await`) while it runs.
public final class FileCoordinator: Sendable {
    /// How long a coordination waits for other readers and writers, and for
    /// presenters' answers, unless told otherwise.
    public static let defaultTimeout: Duration = .seconds(120)

    private struct State {
        var cancelled = false
        var moves: [(from: String, to: String)] = []
    }

    private let presenter: FilePresenterRegistration?
    private let state = Protected(State())

    /// Makes a coordinator; `presenter`, when given, is the registration of
    /// the caller's own presenter, which is not asked or told about the
    /// caller's own accesses.
    public init(presenter: FilePresenterRegistration? = nil) {
        self.presenter = presenter
    }

    /// Ends every wait of this coordinator with `.cancelled`, now and later.
    public func cancel() {
        state.withLock { $0.cancelled = true }
    }

    /// Says, inside a `.forMoving` write of `from`, that the item is now at
    /// `to`: when the write ends, `from`'s presenters are told
    /// `presentedItemDidMove(to:)` instead of a change. (The move is noted on
    /// the coordinator: give each thread that moves things its own.)
    public func itemMoved(from: String, to: String) {
        state.withLock { $0.moves.append((from, to)) }
    }

    // MARK: Coordinating with closures

    /// Runs `body` with `path` while no writer changes the item (readers
    /// may read at once). Unless `options` has `.withoutChanges`, the item's
    /// presenters are first asked to save.
    ///
    /// - Throws: `FileCoordinationError` when the coordination failed
    ///   (`body` did not run), or what `body` throws. Waits up to `timeout`.
    package func coordinate<Result>(
        reading path: String, options: FileReadingOptions = [], timeout: Duration = defaultTimeout,
        _ body: (String) throws -> Result
    ) throws -> Result {
        let access = try access(reading: path, options: options, timeout: timeout)
        defer { access.release() }
        return try body(path)
    }

    /// Runs `body` with `path` while no other reader or writer uses the item.
    /// Presenters are asked first as `options` say (`.forMerging`: to save;
    /// `.forDeleting`: to accommodate the deletion), and told when it ends
    /// (that it changed, or moved: see `itemMoved(from:to:)`), even when
    /// `body` throws.
    ///
    /// - Throws: `FileCoordinationError` when the coordination failed
    ///   (`body` did not run), or what `body` throws. Waits up to `timeout`.
    package func coordinate<Result>(
        writing path: String, options: FileWritingOptions = [], timeout: Duration = defaultTimeout,
        _ body: (String) throws -> Result
    ) throws -> Result {
        let access = try access(writing: path, options: options, timeout: timeout)
        defer { access.release() }
        return try body(path)
    }

    /// Runs `body` reading one item and writing another (a copy, or a move
    /// read from `readPath` to `writePath`). Both are taken in one order
    /// every process uses, so two such coordinations never deadlock; the
    /// same item named twice is written.
    ///
    /// - Throws: `FileCoordinationError` (with the path it is about) when
    ///   the coordination failed, or what `body` throws.
    package func coordinate<Result>(
        reading readPath: String, options readOptions: FileReadingOptions = [],
        writing writePath: String, options writeOptions: FileWritingOptions = [],
        timeout: Duration = defaultTimeout, _ body: (String, String) throws -> Result
    ) throws -> Result {
        let access = try begin(
            [Claim(reading: readPath, readOptions), Claim(writing: writePath, writeOptions)], timeout: timeout)
        defer { access.release() }
        return try body(readPath, writePath)
    }

    /// Runs `body` writing two items at once (a move: the source with
    /// `.forMoving`, the destination with `.forReplacing`), taken in one
    /// order every process uses.
    ///
    /// - Throws: `FileCoordinationError` when the coordination failed, or
    ///   what `body` throws.
    package func coordinate<Result>(
        writing firstPath: String, options firstOptions: FileWritingOptions = [],
        writing secondPath: String, options secondOptions: FileWritingOptions = [],
        timeout: Duration = defaultTimeout, _ body: (String, String) throws -> Result
    ) throws -> Result {
        let access = try begin(
            [Claim(writing: firstPath, firstOptions), Claim(writing: secondPath, secondOptions)], timeout: timeout)
        defer { access.release() }
        return try body(firstPath, secondPath)
    }

    // MARK: Coordinating in steps

    /// Starts a coordinated read of `path` (as `coordinate(reading:)`), held until the access is released.
    ///
    /// - Throws: `FileCoordinationError`. Waits up to `timeout`.
    package func access(
        reading path: String, options: FileReadingOptions = [], timeout: Duration = defaultTimeout
    ) throws(FileCoordinationError) -> CoordinatedAccess {
        try begin([Claim(reading: path, options)], timeout: timeout)
    }

    /// Starts a coordinated write of `path` (as `coordinate(writing:)`),
    /// held until the access is released; presenters are told then.
    ///
    /// - Throws: `FileCoordinationError`. Waits up to `timeout`.
    package func access(
        writing path: String, options: FileWritingOptions = [], timeout: Duration = defaultTimeout
    ) throws(FileCoordinationError) -> CoordinatedAccess {
        try begin([Claim(writing: path, options)], timeout: timeout)
    }

    // MARK: Implementation

    /// One item of a coordination and what it asks.
    struct Claim {
        var path: String
        var writing: Bool
        var ask: PresenterChannel.Kind?
        var tellsChange: Bool

        init(reading path: String, _ options: FileReadingOptions) {
            self.path = path
            writing = false
            ask = options.contains(.withoutChanges) ? nil : .save
            tellsChange = false
        }

        init(writing path: String, _ options: FileWritingOptions) {
            self.path = path
            writing = true
            ask = options.contains(.forDeleting) ? .accommodateDeletion : options.contains(.forMerging) ? .save : nil
            tellsChange = !options.contains(.forDeleting)
        }
    }

    private var isCancelled: Bool { state.withLock { $0.cancelled } }

    func begin(_ claims: [Claim], timeout: Duration) throws(FileCoordinationError) -> CoordinatedAccess {
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        let deadline = monotonicNow() + max(0, seconds)
        var held: [(claim: Claim, folder: String, lockName: String)] = []
        for claim in claims {
            do throws(PresenterChannel.Failure) {
                let folder = try PresenterChannel.folder(of: claim.path, create: false)
                let lockName = try Self.lockName(claim.path)
                held.append((claim, folder, lockName))
            } catch {
                throw FileCoordinationError(.unavailable, pathText: claim.path, "cannot coordinate it: \(error.description)")
            }
        }
        let excluded = presenter?.presenterID ?? ""
        for (claim, folder, _) in held {
            guard let kind = claim.ask else { continue }
            try askPresenters(kind, of: claim.path, in: folder, excluding: excluded, deadline: deadline)
        }
        // One lock per item, exclusive when any claim writes it, taken in lock-name order.
        var modes: [String: (path: String, writing: Bool)] = [:]
        for (claim, _, lockName) in held {
            let writing = (modes[lockName]?.writing ?? false) || claim.writing
            modes[lockName] = (modes[lockName]?.path ?? claim.path, writing)
        }
        var locks: [ItemLock] = []
        for lockName in modes.keys.sorted() {
            guard let (path, writing) = modes[lockName] else { continue }
            do throws(FileCoordinationError) {
                locks.append(try lock(path, writing ? .exclusive : .shared, deadline: deadline))
            } catch {
                for lock in locks.reversed() { lock.release() }
                throw error
            }
        }
        return CoordinatedAccess(coordinator: self, items: held.map { ($0.claim, $0.folder) }, locks: locks)
    }

    private static func lockName(_ path: String) throws(PresenterChannel.Failure) -> String {
        do throws(ItemLock.Failure) {
            return try ItemLock.lockName(of: path)
        } catch {
            throw PresenterChannel.Failure(description: error.description)
        }
    }

    private func askPresenters(
        _ kind: PresenterChannel.Kind, of path: String, in folder: String, excluding: String, deadline: Double
    ) throws(FileCoordinationError) {
        let answers: (refusals: [String], unanswered: Int)
        do throws(PresenterChannel.Failure) {
            answers = try PresenterChannel.ask(
                kind, presentersIn: folder, excluding: excluding, deadline: deadline, isCancelled: { isCancelled })
        } catch {
            throw FileCoordinationError(.unavailable, pathText: path, "cannot ask its presenters: \(error.description)")
        }
        if isCancelled { throw FileCoordinationError(.cancelled, pathText: path, "the coordination was cancelled") }
        let what = kind == .save ? "save" : "let go of it"
        if let refusal = answers.refusals.first {
            throw FileCoordinationError(.presenterRefused, pathText: path, "a presenter failed to \(what): \(refusal)")
        }
        if answers.unanswered > 0 {
            throw FileCoordinationError(.timedOut, pathText: path, "\(answers.unanswered) presenter(s) did not \(what) in time")
        }
    }

    /// Takes the lock in short waits, so a cancel ends the wait.
    private func lock(_ path: String, _ mode: ItemLock.Mode, deadline: Double) throws(FileCoordinationError) -> ItemLock {
        while true {
            if isCancelled { throw FileCoordinationError(.cancelled, pathText: path, "the coordination was cancelled") }
            let remaining = deadline - monotonicNow()
            do throws(ItemLock.Failure) {
                return try ItemLock.acquire(path, mode, timeout: max(0, min(remaining, 0.05)))
            } catch {
                guard error.timedOut else {
                    throw FileCoordinationError(.unavailable, pathText: path, error.description)
                }
                guard remaining > 0 else {
                    throw FileCoordinationError(
                        .timedOut, pathText: path, "another reader or writer kept it past the timeout; nothing was done")
                }
            }
        }
    }

    /// Tells the presenters of the items written that the write ended, before the locks go.
    fileprivate func finish(_ items: [(claim: Claim, folder: String)]) {
        let excluded = presenter?.presenterID ?? ""
        let moves = state.withLock { state in
            defer { state.moves.removeAll() }
            return state.moves
        }
        for (claim, folder) in items where claim.writing {
            let message: PresenterChannel.Message
            if let move = moves.last(where: { $0.from == claim.path }) {
                message = .init(.moved, sender: excluded, argument: move.to)
            } else if claim.tellsChange {
                message = .init(.changed, sender: excluded)
            } else {
                continue
            }
            // The caller's own presenter first records what its write left, so that the folder's events of
            // this write are not news to it whenever they arrive.
            if let presenter, message.kind == .changed, presenter.presentedItemText == claim.path {
                presenter.recordOwnWrite(of: claim.path)
            }
            PresenterChannel.post(message, toPresentersIn: folder, excluding: excluded)
            // The caller's own presenter hears it too, marked as its own: it then ignores
            // the folder events of this write, and follows a move.
            if let presenter, presenter.presenterFolder == folder {
                PresenterChannel.send(message, toPresenter: excluded, in: folder)
            }
        }
    }
}

/// A coordinated read or write in progress: the items are held until
/// `release()` (or until the value is dropped).
public final class CoordinatedAccess {
    private let coordinator: FileCoordinator
    private let items: [(claim: FileCoordinator.Claim, folder: String)]
    private var locks: [ItemLock]
    private var released = false

    init(coordinator: FileCoordinator, items: [(claim: FileCoordinator.Claim, folder: String)], locks: [ItemLock]) {
        self.coordinator = coordinator
        self.items = items
        self.locks = locks
    }

    deinit { release() }

    /// Ends the access: presenters of written items are told, then the items are let go. Once only.
    public func release() {
        guard !released else { return }
        released = true
        coordinator.finish(items)
        for lock in locks.reversed() { lock.release() }
        locks.removeAll()
    }
}
