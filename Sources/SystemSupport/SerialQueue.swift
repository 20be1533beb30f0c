import Dispatch

/// Each queue made by `DispatchQueue.serial(label:)` carries its own identity under this key.
nonisolated(unsafe) private let queueIdentityKey = DispatchSpecificKey<ObjectIdentifier>()

extension DispatchQueue {
    /// A serial queue that can tell whether the calling thread runs one of
    /// its blocks (`isCurrent`): what a watcher's `stop()` needs, as its
    /// last reference may be let go in one of its own blocks, where a
    /// `sync` on it would deadlock (libdispatch stops the process).
    package static func serial(label: String) -> DispatchQueue {
        let queue = DispatchQueue(label: label)
        queue.setSpecific(key: queueIdentityKey, value: ObjectIdentifier(queue))
        return queue
    }

    /// Whether the calling thread runs a block of this queue (made by `serial(label:)`).
    package var isCurrent: Bool { DispatchQueue.getSpecific(key: queueIdentityKey) == ObjectIdentifier(self) }

    /// `body` on this queue, waiting for the blocks before it, or at once
    /// when called from one of its blocks (made by `serial(label:)`).
    package func syncUnlessCurrent<Result>(_ body: () throws -> Result) rethrows -> Result {
        isCurrent ? try body() : try sync(execute: body)
    }
}
