import DocumentPackage
import Foundation
import Testing

/// A library package save (`PackageWrapper.save`, which holds the package's
/// `ItemLock` but no coordinated write) tells the package's presenters in
/// other processes, also of a change three folders deep, which their watch
/// of the package's top level does not see (issue 22).
@Suite(.enabled(if: Child.tool != nil, "CoordinationStress is not built beside the test bundle (swift build --build-tests)"))
struct PackageSaveNotificationTests {
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
        try wrapper.save(to: package)

        #expect(try folder.read("Doc.ict/d1/d2/d3/x") == "new\n")
        #expect(try folder.read("Doc.ict/top") == "top\n")
        #expect(presenter.waitForLine { $0 == "changed" } != nil, "\(presenter.said) \(presenter.errorText)")
    }
}
