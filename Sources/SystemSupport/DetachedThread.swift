import CFileSystem

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A thread of this process that runs one closure and ends, for the
/// library's long-lived loops (a metadata query's, a file presenter's): a
/// POSIX thread, detached, so nothing joins it — its owner learns that it
/// ended from the closure itself. It stands in for Foundation's `Thread`,
/// which on Linux would bring all of Foundation and CoreFoundation into
/// every program (`ict` among them) for this alone.
// @unchecked Sendable: `thread` is written once, by `start`, while it holds
// `Work.started`, which the new thread takes before it runs its closure: so
// the thread can compare itself with it, and others read it after `start`.
package final class DetachedThread: @unchecked Sendable {
    private let work: Work
    private var thread: pthread_t?

    /// A thread named `name` (the first 15 bytes: Linux's limit) that will
    /// run `body` once started.
    package init(name: String, _ body: @escaping @Sendable () -> Void) {
        work = Work(name: name, body: body)
    }

    /// Starts the thread; once only. False when the system cannot start
    /// another thread (`pthread_create` fails: EAGAIN at the process's limit).
    /// The corresponding C functions are `pthread_create`, `pthread_detach` and `prctl(PR_SET_NAME)`
    /// (`pthread_setname_np` on Darwin).
    package func start() -> Bool {
        precondition(thread == nil, "a DetachedThread is started once")
        // Held until `thread` is set: the new thread waits for it before running the closure, which may ask
        // `isCurrent` (it ran before `thread` was set when the machine was busy, and answered false).
        let work = self.work
        return work.started.withLock {
            guard let created = startPOSIXThread(stackSize: nil, { runDetachedWork(work) }) else { return false }
            pthread_detach(created)
            thread = created
            return true
        }
    }

    /// Whether the thread was started.
    package var hasStarted: Bool { thread != nil }

    /// Whether the calling thread is this one. The corresponding C functions are `pthread_self` and `pthread_equal`.
    package var isCurrent: Bool {
        guard let thread else { return false }
        return pthread_equal(pthread_self(), thread) != 0
    }

    fileprivate final class Work: @unchecked Sendable {
        // @unchecked: name and body are set in init and only read after; `started` is a lock.
        let name: String
        let body: @Sendable () -> Void
        /// Held by `start` until it has set `thread`; taken and given back by the new thread before `body`.
        let started = ThreadLock()
        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }
}

private func runDetachedWork(_ work: DetachedThread.Work) {
    let name = String(decoding: work.name.utf8.prefix(15), as: UTF8.self)
    #if canImport(Darwin)
    _ = pthread_setname_np(name)
    #else
    _ = ictkit_name_this_thread(name)
    #endif
    // Until `start` has recorded this thread.
    work.started.withLock {}
    work.body()
}
