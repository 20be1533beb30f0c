import Foundation
import TestSupport
import Testing

@testable import ICTKitTooling

/// `OutputPlacement` in process, on folders, files and links made here.
struct OutputPlacementTests {
    /// `enclosingPackage(ofPath:)`: the package a path is or lies in, by its
    /// parts as written or through a link; nil outside any (a folder named
    /// `.ict` that is a file is no package).
    @Test func theEnclosingPackageIsFoundByNameAndThroughALink() throws {
        let folder = try ScratchFolder.make("ict-enclosing").path
        try FileManager.default.createDirectory(atPath: folder + "/Doc.ict/sub", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data().write(to: URL(fileURLWithPath: folder + "/File.ict"))
        try FileManager.default.createSymbolicLink(atPath: folder + "/Link", withDestinationPath: "Doc.ict/sub")
        let real = URL(fileURLWithPath: folder + "/Doc.ict").resolvingSymlinksInPath().path
        #expect(OutputPlacement.enclosingPackage(ofPath: folder + "/Doc.ict") == folder + "/Doc.ict")
        #expect(OutputPlacement.enclosingPackage(ofPath: folder + "/Doc.ict/") == folder + "/Doc.ict")
        #expect(OutputPlacement.enclosingPackage(ofPath: folder + "/Doc.ict/sub/new/page.html") == folder + "/Doc.ict")
        #expect(OutputPlacement.enclosingPackage(ofPath: folder + "/Link/page.html") == real)
        #expect(OutputPlacement.enclosingPackage(ofPath: folder + "/page.html") == nil)
        #expect(OutputPlacement.enclosingPackage(ofPath: folder + "/File.ict") == nil)
        #expect(OutputPlacement.enclosingPackage(ofPath: folder + "/New.ict/page.html") == nil)
        #expect(OutputPlacement.enclosingPackage(ofPath: "page.html") == nil)
    }
}
