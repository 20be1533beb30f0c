import Dispatch
import Foundation
import TestSupport
import Testing

@testable import SystemSupport

/// The process's one file-event loop (issue 39, item 4), each test on a
/// loop of its own: clients share kernel watches, a descriptor is told
/// once until re-armed, deadlines and wake-ups are told, and nothing is
/// told after a client ends. `settle()` then a `sync` on the client's
/// queue make every check exact, without waiting for time.
struct FileEventLoopTests {
    /// What one client was told, in order.
    final class Told: @unchecked Sendable {
        // @unchecked: `deliveries` is touched only under `lock`.
        private let lock = NSLock()
        private var deliveries: [FileEventLoop.Delivery] = []
        let queue = DispatchQueue(label: "FileEventLoopTests")

        func add(_ delivery: FileEventLoop.Delivery) { lock.withLock { deliveries.append(delivery) } }
        func take() -> [FileEventLoop.Delivery] {
            queue.sync {}
            return lock.withLock {
                defer { deliveries = [] }
                return deliveries
            }
        }
    }

    private func folder() throws -> String {
        let path = try ScratchFolder.make("loop").path
        return path
    }

    /// The loop's kernel watches on `path`'s inode, from /proc/self/fdinfo.
    private func kernelWatches(of path: String, in loop: FileEventLoop) throws -> Int {
        let descriptor = try #require(loop.inotifyDescriptor)
        var status = stat()
        try #require(stat(path, &status) == 0)
        let inode = "ino:" + String(status.st_ino, radix: 16)
        return try String(contentsOfFile: "/proc/self/fdinfo/\(descriptor)", encoding: .utf8).split(separator: "\n").filter {
            $0.hasPrefix("inotify wd:") && $0.split(separator: " ").contains { $0 == inode }
        }.count
    }

    @Test func twoClientsOfOneFolderShareOneWatchAndEachIsTold() throws {
        let loop = try FileEventLoop()
        let path = try folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let first = Told(), second = Told()
        let one = try loop.register(queue: first.queue) { first.add($0) }
        let two = try loop.register(queue: second.queue) { second.add($0) }
        let watchOne = try loop.watch(path, for: one)
        let watchTwo = try loop.watch(path, for: two)
        _ = try loop.watch(path, for: one)  // Again: still one hold.
        #expect(watchOne == watchTwo)
        #expect(try kernelWatches(of: path, in: loop) == 1)

        FileManager.default.createFile(atPath: path + "/a", contents: Data("a".utf8))
        loop.settle()
        #expect(first.take().flatMap(\.events).contains { $0.name == "a" && $0.change == .appeared })
        #expect(second.take().flatMap(\.events).contains { $0.name == "a" && $0.change == .appeared })

        loop.unwatch(watchOne, for: one)
        #expect(try kernelWatches(of: path, in: loop) == 1)  // The other client still holds it.
        FileManager.default.createFile(atPath: path + "/b", contents: Data("b".utf8))
        loop.settle()
        #expect(first.take().isEmpty)
        #expect(second.take().flatMap(\.events).contains { $0.name == "b" })
        loop.unregister(two)
        #expect(try kernelWatches(of: path, in: loop) == 0)
        loop.unregister(one)
    }

    @Test func aDescriptorIsToldOnceUntilRearmedAndADeadlineOnceWhenDue() throws {
        let loop = try FileEventLoop()
        let told = Told()
        let client = try loop.register(queue: told.queue) { told.add($0) }
        defer { loop.unregister(client) }
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer {
            close(ends[0])
            close(ends[1])
        }
        loop.add(ends[0], for: client)
        #expect(write(ends[1], "x", 1) == 1)
        loop.settle()
        #expect(told.take().flatMap(\.readable) == [ends[0]])
        // Still readable (not drained), but disarmed: not told again.
        loop.settle()
        #expect(told.take().isEmpty)
        loop.rearm(ends[0], for: client)
        loop.settle()
        #expect(told.take().flatMap(\.readable) == [ends[0]])

        loop.remove(ends[0], for: client)
        loop.schedule(monotonicNow(), for: client)
        loop.settle()
        let due = told.take()
        #expect(due.count == 1 && due[0].isDue && due[0].readable.isEmpty)
        loop.settle()
        #expect(told.take().isEmpty)  // A deadline is told once.
        loop.wake(client)
        loop.settle()
        #expect(told.take().map(\.isWoken) == [true])
    }

    @Test func nothingIsToldAfterAClientEnds() throws {
        let loop = try FileEventLoop()
        let path = try folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let told = Told()
        let client = try loop.register(queue: told.queue) { told.add($0) }
        _ = try loop.watch(path, for: client)
        loop.unregister(client)
        FileManager.default.createFile(atPath: path + "/late", contents: nil)
        loop.schedule(monotonicNow(), for: client)
        loop.settle()
        #expect(told.take().isEmpty)
        #expect(try kernelWatches(of: path, in: loop) == 0)
    }
}
