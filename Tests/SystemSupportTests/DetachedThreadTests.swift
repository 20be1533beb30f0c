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

    /// A thread that asks at once whether it is the `DetachedThread` is told yes, however soon it runs after
    /// `pthread_create` (it ran before `start` had recorded it, on a busy machine, and was told no): 200 threads,
    /// each asking first thing.
    @Test func aThreadKnowsItselfFromItsFirstInstruction() throws {
        final class Answers: @unchecked Sendable {
            // @unchecked: each slot written by its own thread before it signals `done`, read after all the waits.
            let values = UnsafeMutableBufferPointer<Bool>.allocate(capacity: 200)
            init() { values.initialize(repeating: false) }
            deinit { values.deallocate() }
        }
        let answers = Answers()
        let done = DispatchSemaphore(value: 0)
        var threads: [DetachedThread] = []
        for index in 0..<200 {
            final class Box: @unchecked Sendable { var thread: DetachedThread? }
            let box = Box()
            let thread = DetachedThread(name: "knows itself") {
                answers.values[index] = box.thread?.isCurrent ?? false
                done.signal()
            }
            box.thread = thread
            #expect(thread.start())
            threads.append(thread)
        }
        for _ in 0..<200 { #expect(done.wait(timeout: .now() + 30) == .success) }
        #expect(answers.values.allSatisfy { $0 })
    }
}
