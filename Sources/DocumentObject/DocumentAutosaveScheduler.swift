/// What runs a document's autosave after a delay: a clock in use, a
/// scheduler the tests fire by hand.
public protocol DocumentAutosaveScheduler: Sendable {
    /// Runs `action` on the main actor once `delay` has passed, unless the
    /// returned task is cancelled first.
    @MainActor func schedule(after delay: Duration, _ action: @escaping @MainActor @Sendable () -> Void) -> DocumentScheduledAction
}

/// An action a `DocumentAutosaveScheduler` will run; cancelling it means it
/// never runs.
public struct DocumentScheduledAction: Sendable {
    private let cancelling: @MainActor @Sendable () -> Void

    /// Makes a scheduled action cancelled by `cancel`.
    public init(cancel: @escaping @MainActor @Sendable () -> Void) { cancelling = cancel }

    /// Cancels the action; nothing happens once it has run.
    @MainActor public func cancel() { cancelling() }
}

/// Schedules autosaves on a `Clock` (the continuous clock by default) with a
/// task that sleeps for the delay.
public struct ClockAutosaveScheduler: DocumentAutosaveScheduler {
    private let clock: any Clock<Duration> & Sendable

    /// Makes a scheduler on `clock`.
    public init(clock: any Clock<Duration> & Sendable = ContinuousClock()) { self.clock = clock }

    /// Runs `action` after `delay` on `clock`, from a task.
    @MainActor public func schedule(after delay: Duration, _ action: @escaping @MainActor @Sendable () -> Void) -> DocumentScheduledAction {
        let clock = clock
        let task = Task { @MainActor in
            do { try await clock.sleep(for: delay) } catch { return }
            action()
        }
        return DocumentScheduledAction { task.cancel() }
    }
}
