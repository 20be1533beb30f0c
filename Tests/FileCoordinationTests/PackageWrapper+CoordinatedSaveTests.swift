import FileCoordination
import Foundation
import PackageFormat
import SystemPackage
import Testing

/// `PackageWrapper.coordinatedSave`: the package writer's save with ICTKit's
/// coordination around it. It takes turns with another process's
/// coordinated write of the package (which the writer's own `save`, knowing
/// no lock, does not), and tells the package's presenters in other
/// processes, also of a change three folders deep, which their watch of the
/// package's top level does not see (issue 22).
@Suite(.enabled(if: Child.tool != nil, "CoordinationStress is not built beside the test bundle (swift build --build-tests)"))
struct PackageWrapperCoordinatedSaveTests {
    @Test func aPresenterIsToldOfASaveOfANestedEntry() throws {
        let folder = try ScratchFolder()
        defer { folder.remove() }
        let package = folder.appending("Doc.ict")
        try FileManager.default.createDirectory(atPath: package + "/d1/d2/d3", withIntermediateDirectories: true)
        try folder.write("old\n", to: "Doc.ict/d1/d2/d3/x")
        try folder.write("top\n", to: "Doc.ict/top")
        let presenter = try Child(["present", package])
        try #require(presenter.waitForLine { $0 == "ready" } != nil, "the presenter did not start: \(presenter.errorText)")
        defer { presenter.finish() }

        let wrapper = try PackageWrapper(readingFrom: package)
        let entry = try #require(wrapper.descendant(atPath: "d1/d2/d3/x"))
        entry.setContents(Data("new\n".utf8))
        try wrapper.coordinatedSave(to: package)

        #expect(try folder.read("Doc.ict/d1/d2/d3/x") == "new\n")
        #expect(try folder.read("Doc.ict/top") == "top\n")
        #expect(presenter.waitForLine { $0 == "changed" } != nil, "\(presenter.said) \(presenter.errorText)")
    }

    /// While a child holds a coordinated write of the package, the
    /// coordinated save waits (the package on disk stays the old one); when
    /// the child lets go, the save happens. The writer's own `save` in the
    /// same place does not wait: the coordination is the wrapper's alone.
    @Test func theSaveWaitsForAnotherProcesssWriteAndThePlainSaveDoesNot() throws {
        let folder = try ScratchFolder()
        defer { folder.remove() }
        let package = folder.appending("Doc.ict")
        try FileManager.default.createDirectory(atPath: package, withIntermediateDirectories: false)
        try folder.write("0\n", to: "Doc.ict/count")
        let holder = try Child(["hold", package])
        try #require(holder.waitForLine { $0 == "locked" } != nil, "the holder did not take the package: \(holder.errorText)")

        let plain = try PackageWrapper(readingFrom: package)
        try #require(plain.descendant(atPath: "count")).setContents(Data("plain\n".utf8))
        try plain.save(to: package)
        #expect(try folder.read("Doc.ict/count") == "plain\n", "the writer's save waited for a lock it should not know")

        let saved = DispatchSemaphore(value: 0)
        let failure = Protected<(any Error)?>(nil)
        Thread {
            do {
                let coordinated = try PackageWrapper(readingFrom: package)
                coordinated.descendant(atPath: "count")?.setContents(Data("coordinated\n".utf8))
                try coordinated.coordinatedSave(to: package)
            } catch {
                failure.withLock { $0 = error }
            }
            saved.signal()
        }.start()
        // Not a synchronisation: a bound on how long a save that failed to wait would take to show.
        #expect(saved.wait(timeout: .now() + 1) == .timedOut, "the coordinated save did not wait for the holder")
        #expect(try folder.read("Doc.ict/count") == "plain\n")
        #expect(holder.finish() == 0, "\(holder.errorText)")
        try #require(saved.wait(timeout: .now() + 60) == .success, "the save did not end once the holder let go")
        #expect(failure.withLock { $0 } == nil)
        #expect(try folder.read("Doc.ict/count") == "coordinated\n")
    }

    /// A save into a folder that is not there fails as the writer's own
    /// save fails, naming the folder, before any lock is asked for.
    @Test func aMissingFolderIsTheWritersErrorNotALockError() throws {
        let folder = try ScratchFolder()
        defer { folder.remove() }
        let target = folder.appending("missing/Doc.ict")
        let wrapper = try PackageWrapper(directoryWithChildren: ["a": PackageWrapper(regularFileWithContents: Data("a".utf8))])
        let plain = #expect(throws: DocumentPackageError.self) { try wrapper.save(to: target) }
        let coordinated = #expect(throws: DocumentPackageError.self) { try wrapper.coordinatedSave(to: target) }
        #expect(coordinated?.code.description == plain?.code.description && coordinated?.message == plain?.message)
        #expect(coordinated?.fileSystemPath == FilePath(folder.appending("missing")))
        #expect(coordinated?.message.contains("lock") == false)
        #expect(!FileManager.default.fileExists(atPath: folder.appending("missing")))
    }
}
