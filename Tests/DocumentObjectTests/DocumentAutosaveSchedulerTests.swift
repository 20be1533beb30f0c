import DocumentObject
import Foundation
import SystemPackage
import Testing

/// A clock that moves only when the test says; a sleeper wakes when the
/// clock passes its deadline. No wall-clock time is involved.
final class ManualClock: Clock, @unchecked Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    // @unchecked: every stored property is touched only under `lock`.
    private let lock = NSLock()
    private var current = Instant(offset: .zero)
    private var sleepers: [(deadline: Instant, wake: CheckedContinuation<Void, any Error>)] = []
    private var arrivals: [CheckedContinuation<Void, Never>] = []

    var now: Instant { lock.withLock { current } }
    var minimumResolution: Duration { .zero }

    /// The deadlines of the sleepers still asleep, from the clock's start.
    var deadlines: [Duration] { lock.withLock { sleepers.map(\.deadline.offset) } }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try await withCheckedThrowingContinuation { (wake: CheckedContinuation<Void, any Error>) in
            lock.lock()
            guard current < deadline else {
                lock.unlock()
                return wake.resume()
            }
            sleepers.append((deadline, wake))
            let waiting = arrivals
            arrivals = []
            lock.unlock()
            for arrival in waiting { arrival.resume() }
        }
    }

    /// Returns once a sleeper sleeps on the clock.
    func sleeperArrived() async {
        await withCheckedContinuation { (arrival: CheckedContinuation<Void, Never>) in
            lock.lock()
            guard sleepers.isEmpty else {
                lock.unlock()
                return arrival.resume()
            }
            arrivals.append(arrival)
            lock.unlock()
        }
    }

    /// Moves the clock on, waking every sleeper whose deadline it passes.
    func advance(by duration: Duration) {
        lock.lock()
        current = current.advanced(by: duration)
        let due = sleepers.filter { !(current < $0.deadline) }
        sleepers.removeAll { !(current < $0.deadline) }
        lock.unlock()
        for sleeper in due { sleeper.wake.resume() }
    }
}

/// A scheduler that says, through `fired`, when an action it scheduled has run.
struct SignallingScheduler: DocumentAutosaveScheduler {
    let base: ClockAutosaveScheduler
    let fired: AsyncStream<Void>.Continuation

    @MainActor func schedule(after delay: Duration, _ action: @escaping @MainActor @Sendable () -> Void) -> DocumentScheduledAction {
        let fired = fired
        return base.schedule(after: delay) {
            action()
            fired.yield()
        }
    }
}

@MainActor
@Suite struct DocumentAutosaveSchedulerTests {
    @Test func theClockSchedulerAutosavesOnceItsClockPassesTheDelay() async throws {
        let folder = try ScratchFolder()
        let clock = ManualClock()
        let (fired, firing) = AsyncStream.makeStream(of: Void.self)
        let scheduler = SignallingScheduler(base: ClockAutosaveScheduler(clock: clock), fired: firing)
        let document = NoteDocument(path: FilePath(try folder.file("Note.icfnote", "before")), autosaveDelay: .seconds(15), scheduler: scheduler)
        try document.open()
        document.text = "after"
        document.updateChangeCount(.done)

        await clock.sleeperArrived()
        #expect(clock.deadlines == [.seconds(15)], "the autosave sleeps for the document's delay on the clock")
        clock.advance(by: .seconds(14))
        #expect(clock.deadlines == [.seconds(15)], "not due a second early")
        #expect(try folder.text("Note.icfnote") == "before")

        clock.advance(by: .seconds(1))
        var runs = fired.makeAsyncIterator()
        await runs.next()
        #expect(try folder.text("Note.icfnote") == "after")
        #expect(!document.hasUnsavedChanges)
        try document.close()
    }
}
