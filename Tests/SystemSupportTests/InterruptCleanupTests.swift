import Testing

@testable import SystemSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SIGINT and SIGTERM held for `waitForTermination()` (what `ict list --watch`
/// waits on): sent to a thread that holds them, each is taken by the wait, not
/// delivered. Signals are sent to this test's own thread (`pthread_kill`), so
/// the test runner's other threads never see them; the thread's mask is
/// restored afterwards. (`ListWatchCommandTests` sends them to a real `ict`.)
struct InterruptCleanupTests {
    @Test(arguments: [SIGINT, SIGTERM])
    func aHeldSignalIsTakenByTheWait(signal: Int32) throws {
        var before = sigset_t()
        pthread_sigmask(SIG_SETMASK, nil, &before)
        defer { pthread_sigmask(SIG_SETMASK, &before, nil) }
        InterruptCleanup.holdTermination()
        var held = sigset_t()
        pthread_sigmask(SIG_SETMASK, nil, &held)
        // Not held, the signal would end the test run: checked first.
        try #require(sigismember(&held, SIGINT) == 1 && sigismember(&held, SIGTERM) == 1)
        // Pending on this thread (it is blocked here), so the wait returns at once with it.
        #expect(pthread_kill(pthread_self(), signal) == 0)
        #expect(InterruptCleanup.waitForTermination() == signal)
        var pending = sigset_t()
        sigpending(&pending)
        #expect(sigismember(&pending, signal) == 0, "the wait took the signal")
    }
}
