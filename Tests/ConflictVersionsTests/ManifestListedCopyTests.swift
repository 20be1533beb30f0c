import ConflictVersions
import Foundation
import PackageFormat
import Testing

/// A package saved while an entry's conflict copy was inside it (a save of the folder as it stood, copy and
/// all): its manifest lists the copy. The copy is still a conflict of its entry, and the save is whole.
struct ManifestListedCopyTests {
    static let copy = "ctdocument.\(HandSynced.copyTag).data"

    static func savedWithItsCopy(in folder: TemporaryDirectory) throws -> String {
        let path = folder.appending("Doc.ict")
        var entries = PackageGenerationsTests.base
        entries[copy] = "their data"
        try HandSynced.save(entries, at: path)
        return path
    }

    @Test func theCopyIsOneVersionAndTheSaveIsWhole() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let path = try Self.savedWithItsCopy(in: folder)
        let consistency = try PackageConsistency(ofPackageAt: path)
        #expect(consistency.state == .whole && consistency.missing.isEmpty, "\(consistency.problem ?? "")")
        #expect(consistency.conflictCopies == [Self.copy])
        #expect(try DocumentItemState(ofItemAt: path).contains(.inConflict))

        let versions = try DocumentVersion.otherVersionsOfItem(at: path)
        try #require(versions.count == 1, "\(versions.map { "\($0.conflictName.map { "\($0)" } ?? "-")" })")
        #expect(!versions[0].isRebuiltPackage)
        #expect(versions[0].conflictName?.device == "ABCDEF7")
        #expect(try HandSynced.texts(of: versions[0].packageWrapper())["ctdocument.data"] == "their data")
        #expect(try HandSynced.texts(of: DocumentVersion.currentVersionOfItem(at: path).packageWrapper())["ctdocument.data"] == "base data")
    }

    @Test func takingTheCopyLeavesOneWholePackageWithItsText() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let path = try Self.savedWithItsCopy(in: folder)
        let other = try #require(try DocumentVersion.otherVersionsOfItem(at: path).first)
        try other.replaceItem(at: path, options: .byMoving)
        try DocumentVersion.removeOtherVersionsOfItem(at: path)
        #expect(try folder.names("Doc.ict") == ["ctdocument.data", "ctdocument.metadata"])
        #expect(try folder.read("Doc.ict/ctdocument.data") == "their data")
        #expect(try PackageConsistency(ofPackageAt: path, readingEveryFile: true).isWholeWithoutConflicts)
        #expect(try DocumentVersion.otherVersionsOfItem(at: path).isEmpty)
    }

    @Test func keepingTheCurrentVersionRemovesTheCopy() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let path = try Self.savedWithItsCopy(in: folder)
        try DocumentVersion.removeOtherVersionsOfItem(at: path)
        #expect(try folder.names("Doc.ict") == ["ctdocument.data", "ctdocument.metadata"])
        #expect(try folder.read("Doc.ict/ctdocument.data") == "base data")
        #expect(try PackageConsistency(ofPackageAt: path, readingEveryFile: true).isWholeWithoutConflicts)
    }

    /// The copy listed, then changed on disk: the package is no longer that save.
    @Test func aListedCopyChangedSinceTheSaveMakesThePackageMixed() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let path = try Self.savedWithItsCopy(in: folder)
        try Data("changed since".utf8).write(to: URL(fileURLWithPath: path + "/" + Self.copy))
        let consistency = try PackageConsistency(ofPackageAt: path, readingEveryFile: true)
        #expect(consistency.state == .mixed && consistency.differing == [Self.copy], "\(consistency.problem ?? "")")
    }
}

extension ManifestListedCopyTests {
    /// The listed copy replaced by a link (to its bytes outside the package) or a FIFO: the package is no longer
    /// that save, the copy is never followed or opened, and no version takes it in.
    @Test(.timeLimit(.minutes(1)), arguments: ["link", "fifo"])
    func aListedCopyThatIsALinkOrAFIFOIsNeverFollowedOrOpened(plant: String) throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let path = try Self.savedWithItsCopy(in: folder)
        let copy = path + "/" + Self.copy
        try HandSynced.move(copy, to: folder.appending("outside.data"))
        if plant == "link" {
            try FileManager.default.createSymbolicLink(atPath: copy, withDestinationPath: folder.appending("outside.data"))
        } else {
            #expect(mkfifo(copy, 0o644) == 0)
        }
        let consistency = try PackageConsistency(ofPackageAt: path, readingEveryFile: true)
        #expect(consistency.state == .mixed && consistency.differing == [Self.copy], "\(plant): \(consistency.problem ?? "")")
        for version in try DocumentVersion.otherVersionsOfItem(at: path) where !version.entrySwaps.isEmpty {
            #expect(throws: DocumentVersionError.self, "\(plant)") { try version.replaceItem(at: path, options: .byMoving) }
        }
        #expect(try folder.read("Doc.ict/ctdocument.data") == "base data", "\(plant)")
        #expect(try folder.read("outside.data") == "their data")
    }
}
