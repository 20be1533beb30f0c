import Dispatch
import Foundation
import Testing

@testable import SystemSupport

/// `DetachedThread` runs its closure on another thread, which knows itself
/// (and the caller does not), under the name given, as the kernel reports
/// it in `/proc/thread-self/comm` (cut to Linux's 15 bytes).
struct DetachedThreadTests {
    final class Seen: @unchecked Sendable {
        // @unchecked: written by the thread before it signals `done`, read after the wait.
        var isCurrentInside = false
        var name = ""
        var ranOnCaller = true
    }

    @Test func runsItsClosureOnAThreadOfItsOwnUnderItsName() throws {
        let seen = Seen()
        let done = DispatchSemaphore(value: 0)
        let caller = pthread_self()
        nonisolated(unsafe) var thread: DetachedThread?
        let started = DetachedThread(name: "ICTKit test thread name") {
            seen.ranOnCaller = pthread_equal(pthread_self(), caller) != 0
            seen.isCurrentInside = thread?.isCurrent ?? false
            #if os(Linux)
            seen.name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
            #endif
            done.signal()
        }
        thread = started
        #expect(!started.hasStarted)
        #expect(started.start())
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(started.hasStarted)
        #expect(!seen.ranOnCaller)
        #expect(seen.isCurrentInside)
        #expect(!started.isCurrent)
        #if os(Linux)
        #expect(seen.name == "ICTKit test thr\n")
        #endif
    }
}
