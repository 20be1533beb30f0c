import ConflictVersions
import FileCoordination
import Foundation
import SystemPackage
import Testing

/// Acceptance 2: a presenter in a child process is told of a coordinated
/// change made by another process, of a file renamed into place by `mv`
/// (which does not coordinate), of deletions, of a Syncthing conflict copy
/// appearing and of a coordinated move; and it saves before another
/// process's merging write proceeds. Every wait has a bound; the child says
/// `ready` once it watches, so nothing races its start.
@Suite(.enabled(if: Child.tool != nil, "CoordinationStress is not built beside the test bundle (swift build --build-tests)"))
struct FilePresenterRegistrationTests {
    /// Whether presenters hear of processes that do not coordinate (inotify: Linux only so far).
    static let watchesFolders: Bool = {
        #if os(Linux)
        true
        #else
        false
        #endif
    }()

    static func presenter(of path: String) throws -> Child {
        let child = try Child(["present", path])
        try #require(child.waitForLine { $0 == "ready" } != nil, "the presenter did not start: \(child.errorText)")
        return child
    }

    @Test func aCoordinatedChangeByAnotherProcessIsTold() throws {
        let folder = try ScratchFolder()
        defer { folder.remove() }
        let path = folder.appending("doc.txt")
        try folder.write("0\n", to: "doc.txt")
        let presenter = try Self.presenter(of: path)
        defer { presenter.finish() }
        let writer = try Child(["increment", path, "1"])
        #expect(writer.waitForExit() == 0)
        #expect(presenter.waitForLine { $0 == "changed" } != nil, "\(presenter.said)")
    }

    @Test func aChangeInsideAPackageIsTold() throws {
        let folder = try ScratchFolder()
        defer { folder.remove() }
        let package = folder.appending("Doc.ict")
        try FileManager.default.createDirectory(atPath: package, withIntermediateDirectories: false)
        try folder.write("0\n", to: "Doc.ict/count")
        let presenter = try Self.presenter(of: package)
        defer { presenter.finish() }
        #expect(try Child(["increment", package, "1"]).waitForExit() == 0)
        #expect(presenter.waitForLine { $0 == "changed" } != nil, "\(presenter.said)")
    }

    @Test(.enabled(if: watchesFolders, "uncoordinated changes are watched on Linux only")) func aFileRenamedIntoPlaceByMvIsTold() throws {
        let folder = try ScratchFolder()
        defer { folder.remove() }
        let path = folder.appending("doc.txt")
        try folder.write("old\n", to: "doc.txt")
        let presenter = try Self.presenter(of: path)
        defer { presenter.finish() }
        try folder.write("new\n", to: ".doc.txt.incoming")
        #expect(try runProgram("/bin/mv", [folder.appending(".doc.txt.incoming"), path]) == 0)
        #expect(presenter.waitForLine { $0 == "changed" } != nil, "\(presenter.said)")
        #expect(!presenter.said.contains("deleted"))
    }

    @Test(.enabled(if: watchesFolders, "uncoordinated changes are watched on Linux only")) func aDeletionByRmIsTold() throws {
        let folder = try ScratchFolder()
        defer { folder.remove() }
        let path = folder.appending("doc.txt")
        try folder.write("old\n", to: "doc.txt")
        let presenter = try Self.presenter(of: path)
        defer { presenter.finish() }
        #expect(try runProgram("/bin/rm", [path]) == 0)
        #expect(presenter.waitForLine { $0 == "deleted" } != nil, "\(presenter.said)")
    }

    @Test func aCoordinatedDeletionIsToldBeforeItHappens() throws {
        let folder = try ScratchFolder()
        defer { folder.remove() }
        let path = folder.appending("doc.txt")
        try folder.write("old\n", to: "doc.txt")
        let presenter = try Self.presenter(of: path)
        defer { presenter.finish() }
        #expect(try Child(["delete", path]).waitForExit() == 0)
        #expect(presenter.waitForLine { $0 == "deleted" } != nil, "\(presenter.said)")
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test(.enabled(if: watchesFolders, "uncoordinated changes are watched on Linux only")) func aSyncthingConflictCopyIsTold() throws {
        let folder = try ScratchFolder()
        defer { folder.remove() }
        let path = folder.appending("doc.plist")
        try folder.write("mine\n", to: "doc.plist")
        let presenter = try Self.presenter(of: path)
        defer { presenter.finish() }
        // Syncthing's form (docs.syncthing.net, "Conflicting Changes"): name.sync-conflict-DATE-TIME-DEVICE.ext.
        let conflict = folder.appending("doc.sync-conflict-20261125-101500-ABCDEF7.plist")
        try folder.write("theirs\n", to: ".incoming")
        #expect(try runProgram("/bin/mv", [folder.appending(".incoming"), conflict]) == 0)
        #expect(presenter.waitForLine { $0 == "gained \(conflict)" } != nil, "\(presenter.said)")
        #expect(!presenter.said.contains("changed"), "a copy beside it is not a change of it")
    }

    @Test func aCoordinatedMoveIsToldWithTheNewPlace() throws {
        let folder = try ScratchFolder()
        defer { folder.remove() }
        try FileManager.default.createDirectory(atPath: folder.appending("elsewhere"), withIntermediateDirectories: false)
        let path = folder.appending("doc.txt")
        let destination = folder.appending("elsewhere/renamed.txt")
        try folder.write("old\n", to: "doc.txt")
        let presenter = try Self.presenter(of: path)
        defer { presenter.finish() }
        #expect(try Child(["move", path, destination]).waitForExit() == 0)
        #expect(presenter.waitForLine { $0 == "moved \(destination)" } != nil, "\(presenter.said)")
        // It presents the new place now: a change there is told.
        #expect(try Child(["append", destination, "more"]).waitForExit() == 0)
        #expect(presenter.waitForLine { $0 == "changed" } != nil, "\(presenter.said)")
    }

    /// A presenter written for 0.12: it implements the `String` form of
    /// `presentedItemDidMove(to:)` only.
    final class StringPathPresenter: FilePresenter, @unchecked Sendable {
        let moved = DispatchSemaphore(value: 0)
        let lock = NSLock()
        var paths: [String] = []
        func presentedItemDidMove(to path: String) {
            lock.withLock { paths.append(path) }
            moved.signal()
        }
    }

    /// A presenter that still implements `presentedItemDidMove(to: String)`,
    /// the form before `FilePath`, is told of a move by another process,
    /// with the new place.
    @Test func aPresenterOfTheStringFormIsStillToldOfAMove() throws {
        let folder = try ScratchFolder()
        defer { folder.remove() }
        try FileManager.default.createDirectory(atPath: folder.appending("elsewhere"), withIntermediateDirectories: false)
        let path = folder.appending("doc.txt")
        let destination = folder.appending("elsewhere/renamed.txt")
        try folder.write("old\n", to: "doc.txt")
        let presenter = StringPathPresenter()
        let registration = try FilePresenterRegistration(presenting: FilePath(path), presenter: presenter)
        defer { registration.remove() }
        #expect(try Child(["move", path, destination]).waitForExit() == 0)
        #expect(presenter.moved.wait(timeout: .now() + 60) == .success, "not told within 60 s")
        #expect(presenter.lock.withLock { presenter.paths } == [destination])
    }

    final class RefusingPresenter: FilePresenter {
        struct Refusal: Error, CustomStringConvertible {
            var description: String { "the disk is full" }
        }

        func savePresentedItemChanges() throws { throw Refusal() }
    }

    /// A presenter that fails to save makes the reader that asked fail,
    /// saying which item and why; a read `.withoutChanges` does not ask.
    @Test func aPresenterThatCannotSaveFailsTheReader() throws {
        let folder = try ScratchFolder()
        defer { folder.remove() }
        let path = folder.appending("doc.txt")
        try folder.write("0\n", to: "doc.txt")
        let registration = try FilePresenterRegistration(presenting: path, presenter: RefusingPresenter())
        defer { registration.remove() }
        #expect {
            try FileCoordinator().coordinate(reading: path) { _ in }
        } throws: { error in
            let error = error as? FileCoordinationError
            return error?.code == .presenterRefused && error?.path == FilePath(path) && error?.message.contains("the disk is full") == true
        }
        var read = false
        try FileCoordinator().coordinate(reading: path, options: .withoutChanges) { _ in read = true }
        #expect(read)
    }

    /// Presenting leaves nothing in the lock directory (here one of the
    /// test's own, `ICTKIT_LOCK_DIRECTORY`): the presenter folder, made by
    /// the first presenter, goes with the last.
    @Test func nothingIsLeftOnceThePresenterGoes() throws {
        let folder = try ScratchFolder()
        defer { folder.remove() }
        let locks = folder.appending("locks")
        try FileManager.default.createDirectory(atPath: locks, withIntermediateDirectories: false)
        let path = folder.appending("doc.txt")
        try folder.write("start\n", to: "doc.txt")
        let environment = ["ICTKIT_LOCK_DIRECTORY": locks]
        let presenter = try Child(["present", path], environment: environment)
        try #require(presenter.waitForLine { $0 == "ready" } != nil, "the presenter did not start: \(presenter.errorText)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: locks).filter { $0.hasSuffix(".presenters") }.count == 1)
        #expect(try Child(["append", path, "writer"], environment: environment).waitForExit() == 0)
        #expect(presenter.waitForLine { $0 == "changed" } != nil, "\(presenter.said)")
        #expect(presenter.finish() == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: locks).filter { $0.hasSuffix(".presenters") } == [])
    }

    /// The presenter saves by appending `presenter`; another process's
    /// merging write appends `writer`. The file's lines show the order; the
    /// presenter's "saved" line is waited for, as its reader thread here may
    /// not have read it yet when the writer has exited (seen under load).
    @Test func aPresenterSavesBeforeAnotherProcessWrites() throws {
        let folder = try ScratchFolder()
        defer { folder.remove() }
        let path = folder.appending("doc.txt")
        try folder.write("start\n", to: "doc.txt")
        let presenter = try Self.presenter(of: path)
        defer { presenter.finish() }
        let writer = try Child(["append", path, "writer"])
        #expect(writer.waitForExit() == 0, "\(writer.errorText)")
        #expect(try folder.read("doc.txt") == "start\npresenter\nwriter\n", "the writer proceeded before the presenter saved")
        #expect(presenter.waitForLine { $0 == "saved" } != nil, "the presenter was not asked to save: \(presenter.said)")
    }

    /// In this process, through `events`: a change by a child is told, the
    /// registration's own coordinated writes are not (the conflict copy made
    /// after the own write is the first news), and the sequence ends when
    /// the registration is removed.
    @Test(.enabled(if: watchesFolders, "uncoordinated changes are watched on Linux only")) func eventsInThisProcessLeaveOutItsOwnWrites() async throws {
        let folder = try ScratchFolder()
        defer { folder.remove() }
        let path = folder.appending("doc.txt")
        try folder.write("0\n", to: "doc.txt")
        let registration = try FilePresenterRegistration(presenting: path)
        var events = registration.events.makeAsyncIterator()
        try FileCoordinator(presenter: registration).coordinate(writing: path) { path in
            try Data("own\n".utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        }
        try folder.write("theirs\n", to: "doc.sync-conflict-20261125-101500-ABCDEF7.txt")
        let copyName = "doc.sync-conflict-20261125-101500-ABCDEF7.txt"
        let conflictName = try #require(ConflictName(parsing: copyName))
        #expect(await events.next() == .gainedVersion(path: FilePath(folder.appending(copyName)), conflictName: conflictName))
        // A merging write: asked to save first, then told of the change.
        #expect(try Child(["increment", path, "1"]).waitForExit() == 0)
        #expect(await events.next() == .saveRequested)
        #expect(await events.next() == .changed)
        registration.remove()
        while let event = await events.next() { #expect(event == .changed, "after the removal only pending news") }
    }
}
