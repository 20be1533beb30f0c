import Foundation
import Testing

@testable import SystemSupport

/// `JoinableThread` runs its closure on a thread of its own and gives back
/// what the closure returned when joined, with a stack as deep as a Linux
/// main thread's.
struct JoinableThreadTests {
    @Test func givesBackWhatItsClosureReturnedOnAThreadOfItsOwn() throws {
        let caller = pthread_self()
        let thread = try #require(
            JoinableThread<(Bool, [Int])>.start {
                (pthread_equal(pthread_self(), caller) != 0, Array(1...5))
            })
        let (ranOnCaller, numbers) = thread.join()
        #expect(!ranOnCaller)
        #expect(numbers == [1, 2, 3, 4, 5])
    }

    @Test func severalRunAtOnceAndEachGivesItsOwnResult() throws {
        let threads = try (0..<16).map { index in
            try #require(JoinableThread<Int>.start { (0..<100_000).reduce(index) { $0 &+ $1 & 1 } })
        }
        #expect(threads.map { $0.join() } == (0..<16).map { $0 + 50_000 })
    }

    /// The stack holds 4 MiB of frames: more than Darwin's 512 KiB or musl's
    /// 128 KiB default for a thread, within the 8 MiB given.
    @Test func itsStackIsAsDeepAsAMainThreads() throws {
        #expect(JoinableThread<Int>.stackSize == 8 << 20)
        let thread = try #require(JoinableThread<Int>.start { deepSum(4 << 10) })
        #expect(thread.join() == 4 << 10 + 1)
    }
}

/// Recurses `depth` times, each frame holding 1 KiB on the stack; the
/// frames counted, depth + 1.
@inline(never)
private func deepSum(_ depth: Int) -> Int {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1024) { frame in
        frame.initialize(repeating: UInt8(truncatingIfNeeded: depth))
        let below = depth == 0 ? 0 : deepSum(depth - 1)
        return below + (frame[1023] == UInt8(truncatingIfNeeded: depth) ? 1 : 0)
    }
}
