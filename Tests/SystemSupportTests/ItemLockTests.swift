import Foundation
import SystemSupport
import TestSupport
import Testing

/// `ItemLock` within one process: threads exclude each other as processes
/// do, a thread may take a lock it holds again, shared holders share, and
/// the lock names the item's place, so it holds across a save that replaces
/// the file (a new inode) and leaves nothing in the item's folder.
struct ItemLockTests {
    static func folder() throws -> String {
        let folder = try ScratchFolder.make("lock").path
        return folder
    }

    /// Counts how many threads are inside the lock at once.
    final class Occupancy: @unchecked Sendable {
        // @unchecked: every access is under `guardLock`.
        private let guardLock = NSLock()
        private var inside = 0
        private(set) var most = 0
        private(set) var entries = 0

        func enter() {
            guardLock.lock()
            inside += 1
            entries += 1
            most = max(most, inside)
            guardLock.unlock()
        }

        func leave() {
            guardLock.lock()
            inside -= 1
            guardLock.unlock()
        }
    }

    @Test func exclusiveHoldersInOtherThreadsTakeTurns() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/doc.plist"
        let occupancy = Occupancy()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<25 {
                guard let lock = try? ItemLock.acquire(path, .exclusive) else {
                    Issue.record("no lock")
                    return
                }
                occupancy.enter()
                // Replaced by a rename while held, as a save does: the lock does not depend on the inode.
                let temporary = folder + "/.doc.plist.tmp-\(UUID().uuidString)"
                _ = FileManager.default.createFile(atPath: temporary, contents: Data("x".utf8))
                _ = rename(temporary, path)
                occupancy.leave()
                lock.release()
            }
        }
        #expect(occupancy.entries == 200)
        #expect(occupancy.most == 1, "\(occupancy.most) threads held the exclusive lock at once")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["doc.plist"], "nothing but the file is in its folder")
    }

    @Test func aThreadTakesALockItHoldsAgain() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let outer = try ItemLock.acquire(folder + "/Doc.ict", .exclusive)
        let inner = try ItemLock.acquire(folder + "/Doc.ict", .exclusive)
        let shared = try ItemLock.acquire(folder + "/Doc.ict", .shared)
        shared.release()
        inner.release()
        // Still held by `outer`: another thread must wait (here: times out at once).
        let other = Thread.detachNewThreadAndWait { try? ItemLock.acquire(folder + "/Doc.ict", .exclusive, timeout: 0) }
        #expect(other == nil, "another thread took a lock this thread holds")
        outer.release()
        let after = Thread.detachNewThreadAndWait { try? ItemLock.acquire(folder + "/Doc.ict", .exclusive, timeout: 0) }
        #expect(after != nil, "the lock was not released")
    }

    /// A lock taken on one thread and released on another is given up (a
    /// leaked lock would keep every later writer of the item waiting).
    @Test func aLockReleasedOnAnotherThreadIsReleased() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/Doc.ict"
        let taken = Thread.detachNewThreadAndWait { try? ItemLock.acquire(path, .exclusive, timeout: 0) }
        #expect(taken != nil)
        #expect(throws: ItemLock.Failure.self) { try ItemLock.acquire(path, .exclusive, timeout: 0) }
        taken?.release()
        #expect(throws: Never.self) { try ItemLock.acquire(path, .exclusive, timeout: 0).release() }
    }

    @Test func sharedHoldersShareAndKeepWritersOut() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/Doc.ict"
        let reader = try ItemLock.acquire(path, .shared)
        let secondReader = Thread.detachNewThreadAndWait { try? ItemLock.acquire(path, .shared, timeout: 0) }
        #expect(secondReader != nil, "two readers must share")
        let writer = Thread.detachNewThreadAndWait { () -> Bool? in
            do throws(ItemLock.Failure) {
                _ = try ItemLock.acquire(path, .exclusive, timeout: 0)
                return nil
            } catch { return error.timedOut }
        }
        #expect(writer == true, "a writer must wait for the readers")
        reader.release()
    }

    @Test func aPathThroughALinkedFolderIsTheSameLock() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/real", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: folder + "/alias", withDestinationPath: folder + "/real")
        try FileManager.default.createSymbolicLink(atPath: folder + "/real/link.plist", withDestinationPath: "doc.plist")
        _ = FileManager.default.createFile(atPath: folder + "/real/doc.plist", contents: Data())
        let held = try ItemLock.acquire(folder + "/real/doc.plist", .exclusive)
        for other in [folder + "/alias/doc.plist", folder + "/real/link.plist", folder + "/real/./doc.plist"] {
            let taken = Thread.detachNewThreadAndWait { try? ItemLock.acquire(other, .exclusive, timeout: 0) }
            #expect(taken == nil, "\(other) is the same item but not the same lock")
        }
        let unrelated = Thread.detachNewThreadAndWait { try? ItemLock.acquire(folder + "/real/other.plist", .exclusive, timeout: 0) }
        #expect(unrelated != nil, "another item's lock must be free")
        held.release()
    }

    @Test func aMissingFolderIsAnErrorNamingIt() {
        #expect(throws: ItemLock.Failure.self) { try ItemLock.acquire("/nonexistent-\(UUID().uuidString)/x.plist", .exclusive) }
    }
}

extension Thread {
    /// Runs `body` on a new thread (not this one, whose locks it must not share) and returns its result.
    static func detachNewThreadAndWait<T>(_ body: @escaping () -> T) -> T {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: T?
        nonisolated(unsafe) let work = body
        Thread.detachNewThread {
            result = work()
            done.signal()
        }
        done.wait()
        // Taken out of the box the thread's closure shares, so the caller holds the only reference.
        let value = result!
        result = nil
        return value
    }
}
