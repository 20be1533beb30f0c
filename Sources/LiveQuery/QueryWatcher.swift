import Dispatch
import SystemSupport

/// A query's part of the process's file-event loop (`FileEventLoop`): its
/// watches, its serial queue, and what it is told, handed to `handler`.
final class QueryWatcher: @unchecked Sendable {
    // @unchecked: `handler` is touched only under `lock`; the rest is fixed at init.
    let loop: FileEventLoop
    let queue = DispatchQueue(label: "ICTKit query")
    private(set) var client: FileEventLoop.Client!
    private let lock = ThreadLock()
    private var handler: (@Sendable (FileEventLoop.Delivery) -> Void)?

    /// A client of `loop` (nil: the process's loop); told nothing until `handler` is set.
    ///
    /// - Throws: `FileEventLoop.Failure` when the loop cannot be made or its thread started.
    init(loop: FileEventLoop? = nil) throws(FileEventLoop.Failure) {
        if let loop {
            self.loop = loop
        } else {
            self.loop = try FileEventLoop.shared.get()
        }
        client = try self.loop.register(queue: queue) { [weak self] delivery in
            guard let self, let handler = self.lock.withLock({ self.handler }) else { return }
            handler(delivery)
        }
    }

    /// Sets what is told from now on.
    func setHandler(_ handler: @escaping @Sendable (FileEventLoop.Delivery) -> Void) {
        lock.withLock { self.handler = handler }
    }

    /// Watches the folder at `path` (once, however often asked).
    ///
    /// - Throws: `DirectoryWatcher.Failure`.
    func watch(_ path: String, followingLink: Bool = true) throws(DirectoryWatcher.Failure) -> Int32 {
        try loop.watch(path, followingLink: followingLink, for: client)
    }

    /// Lets go of a watch.
    func unwatch(_ watch: Int32) {
        loop.unwatch(watch, for: client)
    }

    /// Ends the client: every watch let go, nothing more told once a handler running now ends.
    func close() {
        loop.unregister(client)
    }

    /// The loop's inotify descriptor.
    var descriptor: Int32? { loop.inotifyDescriptor }
}
