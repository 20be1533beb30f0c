#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A thread of this process that computes one result, which its starter
/// takes with `join()`: for work split across processors (a large binary
/// property list's top-level values). A POSIX thread with an 8 MiB stack, the
/// size of a Linux main thread's, so recursion that the main thread allows
/// (a reader's depth limit) is allowed here too; Darwin's and musl's
/// defaults for other threads are 512 KiB and 128 KiB.
// @unchecked Sendable: `result` is written by the thread before it ends and
// read by `join` after `pthread_join` returned, which orders the two.
package final class JoinableThread<Result: Sendable>: @unchecked Sendable {
    package static var stackSize: Int { 8 << 20 }

    private let body: @Sendable () -> Result
    private var result: Result?
    private var thread: pthread_t?

    private init(_ body: @escaping @Sendable () -> Result) {
        self.body = body
    }

    /// A started thread running `body`, or nil when the system cannot start
    /// another (`pthread_create` fails: EAGAIN at the process's limit); the
    /// caller then does the work itself. Join it: a thread never joined
    /// keeps its stack until the process ends.
    /// The corresponding C functions are `pthread_attr_setstacksize` and `pthread_create`.
    package static func start(_ body: @escaping @Sendable () -> Result) -> JoinableThread? {
        let work = JoinableThread(body)
        guard let made = startPOSIXThread(stackSize: stackSize, { work.result = work.body() }) else { return nil }
        work.thread = made
        return work
    }

    /// Waits for the thread to end and gives its result; once only.
    /// The corresponding C function is `pthread_join`.
    package func join() -> Result {
        guard let thread else { preconditionFailure("a JoinableThread is joined once") }
        self.thread = nil
        let status = pthread_join(thread, nil)
        precondition(status == 0, "pthread_join failed: \(status)")
        guard let result else { preconditionFailure("a joined thread left no result") }
        self.result = nil
        return result
    }
}
