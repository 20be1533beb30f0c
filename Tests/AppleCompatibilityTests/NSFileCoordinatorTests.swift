#if !canImport(Darwin)
import AppleCompatibility
import Foundation
import Testing

/// Foundation's NSFileCoordinator and NSFilePresenter off Apple platforms,
/// used as Apple's documentation shows: the accessor runs, a failure comes
/// back through `error:` in NSCocoaErrorDomain with the path, and a
/// presenter added with `addFilePresenter` saves before a merging write and
/// is told of the change on its operation queue.
@Suite(.serialized)
struct NSFileCoordinatorTests {
    final class NotePresenter: NSObject, NSFilePresenter, @unchecked Sendable {
        // @unchecked: `changed` and `saved` are semaphores; the URL is set once.
        let presentedItemURL: URL?
        let presentedItemOperationQueue = OperationQueue()
        let changed = DispatchSemaphore(value: 0)

        init(_ url: URL) {
            presentedItemURL = url
            presentedItemOperationQueue.maxConcurrentOperationCount = 1
        }

        func presentedItemDidChange() { changed.signal() }

        /// Saves as Apple's presenters do, through a coordinator made with itself (so it is not told of its own save).
        func savePresentedItemChanges(completionHandler: @escaping (Error?) -> Void) {
            guard let url = presentedItemURL else { return completionHandler(CocoaError(.fileWriteUnknown)) }
            var error: NSError?
            NSFileCoordinator(filePresenter: self).coordinate(writingItemAt: url, options: [], error: &error) { url in
                guard let handle = try? FileHandle(forWritingTo: url) else { return }
                _ = try? handle.seekToEnd()
                try? handle.write(contentsOf: Data("saved by the presenter\n".utf8))
                try? handle.close()
            }
            completionHandler(error)
        }
    }

    @Test func aWriteRunsItsAccessor() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.url.appendingPathComponent("note.txt")
        var error: NSError?
        var wrote = false
        NSFileCoordinator(filePresenter: nil).coordinate(writingItemAt: url, options: .forReplacing, error: &error) { url in
            wrote = (try? Data("hello\n".utf8).write(to: url)) != nil
        }
        #expect(error == nil)
        #expect(wrote)
        #expect(try String(contentsOf: url, encoding: .utf8) == "hello\n")
    }

    @Test func aFailureComesBackThroughErrorWithThePath() {
        let url = URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)/note.txt")
        var error: NSError?
        var ran = false
        NSFileCoordinator(filePresenter: nil).coordinate(readingItemAt: url, options: [], error: &error) { _ in ran = true }
        #expect(!ran)
        #expect(error?.domain == NSCocoaErrorDomain)
        #expect(error?.code == CocoaError.fileLocking.rawValue)
        #expect(error?.userInfo[NSFilePathErrorKey] as? String == url.path)
    }

    @Test func aPresenterSavesFirstAndIsToldOfTheChange() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.url.appendingPathComponent("note.txt")
        try Data("start\n".utf8).write(to: url)
        let presenter = NotePresenter(url)
        NSFileCoordinator.addFilePresenter(presenter)
        defer { NSFileCoordinator.removeFilePresenter(presenter) }
        #expect(NSFileCoordinator.filePresenters.contains { $0 === presenter })
        var error: NSError?
        NSFileCoordinator(filePresenter: nil).coordinate(writingItemAt: url, options: .forMerging, error: &error) { url in
            guard let handle = try? FileHandle(forWritingTo: url) else { return }
            _ = try? handle.seekToEnd()
            try? handle.write(contentsOf: Data("written by the writer\n".utf8))
            try? handle.close()
        }
        #expect(error == nil)
        #expect(try String(contentsOf: url, encoding: .utf8) == "start\nsaved by the presenter\nwritten by the writer\n")
        #expect(presenter.changed.wait(timeout: .now() + 60) == .success, "the presenter was not told of the change")
    }
}
#endif
