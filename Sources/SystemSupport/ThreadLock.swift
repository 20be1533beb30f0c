#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A lock between the threads of this process, for state a type shares
/// between them: one `pthread_mutex_t` at a fixed address (a Swift stored
/// property has none).
// @unchecked Sendable: the mutex is the only state, allocated in init,
// destroyed in deinit, and only ever used through the pthread calls.
package final class ThreadLock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    package init() { pthread_mutex_init(mutex, nil) }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` holding the lock; another thread calling it waits.
    /// Not reentrant: `body` must not take the same lock.
    /// The corresponding C functions are `pthread_mutex_lock` and `pthread_mutex_unlock`.
    package func withLock<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}
