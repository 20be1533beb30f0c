import ConflictVersions
import Foundation
import PackageFormat
import Testing

/// The versions of packages a sync engine left mixed, partial or with
/// per-entry conflict copies, built by hand from two real saves
/// (`HandSynced`; `SyncedPackageConflictTests` in DocumentObjectTests makes the
/// same with real Syncthing). Each version opens whole, checked entry by
/// entry against what each side saved; resolving leaves one whole package
/// with a fresh manifest; nothing is lost before.
struct PackageGenerationsTests {
    static let base = ["ctdocument.data": "base data", "ctdocument.metadata": "base meta"]

    /// This device saved `mine` as the data, the other `theirs`: Syncthing
    /// keeps this device's names and makes conflict copies of the other's
    /// data and manifest. Returns the package's path and the other side's generation.
    static func bothEdited(in folder: TemporaryDirectory) throws -> (path: String, theirs: PackageManifest.Generation) {
        let path = folder.appending("Doc.ict")
        let other = folder.appending("Other device/Doc.ict")
        try HandSynced.save(base, at: path)
        try FileManager.default.createDirectory(atPath: folder.appending("Other device"), withIntermediateDirectories: true)
        try HandSynced.copy(path, to: other)
        try HandSynced.saveEdit(path, "ctdocument.data", "mine")
        try HandSynced.saveEdit(other, "ctdocument.data", "theirs")
        let theirs = try #require(try PackageManifest.read(fromPackageAt: other)).generation
        try HandSynced.move(other + "/ctdocument.data", to: path + "/ctdocument.\(HandSynced.copyTag).data")
        try HandSynced.move(other + "/" + PackageManifest.fileName, to: path + "/.ictkit-manifest.\(HandSynced.copyTag).plist")
        return (path, theirs)
    }

    @Test func bothSidesSavesOpenWholeAndKeepingTheirsLeavesOneWholePackage() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let (path, theirs) = try Self.bothEdited(in: folder)
        let mine = try #require(try PackageManifest.read(fromPackageAt: path)).generation

        #expect(try DocumentItemState(ofItemAt: path).contains(.inConflict))
        let versions = try DocumentVersion.otherVersionsOfItem(at: path)
        try #require(versions.count == 1, "\(versions.map(\.localizedName))")
        let other = versions[0]
        #expect(other.generation == theirs)
        #expect(other.isRebuiltPackage)
        #expect(other.conflictName?.device == "ABCDEF7")
        #expect(other.localizedNameOfSavingComputer == ProcessInfo.processInfo.hostName)
        #expect(try HandSynced.texts(of: other.packageWrapper()) == ["ctdocument.data": "theirs", "ctdocument.metadata": "base meta"])
        let current = try DocumentVersion.currentVersionOfItem(at: path)
        #expect(try HandSynced.texts(of: current.packageWrapper()) == ["ctdocument.data": "mine", "ctdocument.metadata": "base meta"])
        #expect(current.generation == nil, "the current version is the document itself")

        try other.replaceItem(at: path, options: .byMoving)
        try DocumentVersion.removeOtherVersionsOfItem(at: path)
        #expect(try folder.names("Doc.ict") == ["ctdocument.data", "ctdocument.metadata"])
        #expect(try folder.read("Doc.ict/ctdocument.data") == "theirs")
        #expect(try folder.read("Doc.ict/ctdocument.metadata") == "base meta")
        let after = try PackageConsistency(ofPackageAt: path, readingEveryFile: true)
        #expect(after.isWholeWithoutConflicts)
        #expect(after.manifest!.generation.counter == max(mine.counter, theirs.counter) + 1)
        #expect(try DocumentVersion.otherVersionsOfItem(at: path).isEmpty)
        #expect(try DocumentItemState(ofItemAt: path) == [])
    }

    @Test func keepingTheCurrentVersionRemovesTheCopiesAndWritesAFreshManifest() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let (path, _) = try Self.bothEdited(in: folder)
        try DocumentVersion.removeOtherVersionsOfItem(at: path)
        #expect(try folder.names("Doc.ict") == ["ctdocument.data", "ctdocument.metadata"])
        #expect(try folder.read("Doc.ict/ctdocument.data") == "mine")
        #expect(try PackageConsistency(ofPackageAt: path, readingEveryFile: true).isWholeWithoutConflicts)
    }

    /// This device's safe save against the other's edit in place: the
    /// package mixes the two, and neither save can be rebuilt (the edit
    /// overwrote the entry this save kept). The package as it is is the one
    /// version, in conflict until kept; nothing of it is dropped.
    @Test func aSafeSaveAgainstAnEditInPlaceIsAConflictOfThePackageAsItIs() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.appending("Doc.ict")
        try HandSynced.save(Self.base, at: path)
        try HandSynced.saveEdit(path, "ctdocument.data", "mine")
        try folder.write("edited in place elsewhere", at: "Doc.ict/ctdocument.metadata")
        #expect(try PackageConsistency(ofPackageAt: path).state == .mixed)
        #expect(try DocumentItemState(ofItemAt: path).contains(.inConflict))
        let versions = try DocumentVersion.otherVersionsOfItem(at: path)
        try #require(versions.count == 1)
        #expect(versions[0].isRebuiltPackage && versions[0].generation == nil, "the package as it is")
        let asItIs = ["ctdocument.data": "mine", "ctdocument.metadata": "edited in place elsewhere"]
        #expect(try HandSynced.texts(of: versions[0].packageWrapper()) == asItIs)
        #expect(try HandSynced.texts(of: DocumentVersion.currentVersionOfItem(at: path).packageWrapper()) == asItIs)

        try DocumentVersion.removeOtherVersionsOfItem(at: path)
        #expect(try PackageConsistency(ofPackageAt: path, readingEveryFile: true).isWholeWithoutConflicts)
        #expect(try folder.read("Doc.ict/ctdocument.metadata") == "edited in place elsewhere")
        #expect(try DocumentItemState(ofItemAt: path) == [])
    }

    /// Deleted on this device, edited and saved on the other: the edited
    /// entry and the manifest come back. Partial, in conflict, listed as it
    /// is (the edit is kept), never taken as whole.
    @Test func aPackageDeletedHereAndEditedThereIsPartialAndInConflict() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.appending("Doc.ict")
        try HandSynced.save(Self.base, at: path)
        try HandSynced.saveEdit(path, "ctdocument.data", "edited there")
        try FileManager.default.removeItem(atPath: path + "/ctdocument.metadata")
        let consistency = try PackageConsistency(ofPackageAt: path)
        #expect(consistency.state == .partial)
        #expect(consistency.missing == ["ctdocument.metadata"])
        let versions = try DocumentVersion.otherVersionsOfItem(at: path)
        #expect(versions.count == 1)
        #expect(try HandSynced.texts(of: versions[0].packageWrapper()) == ["ctdocument.data": "edited there"])
    }

    /// Ten copies of the data (Syncthing's `maxConflicts`), one of them the
    /// other side's save: that save is rebuilt from it; the nine others are
    /// versions of their own, so none is lost unseen.
    @Test func tenCopiesOfOneEntryEachStayAVersion() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let (path, theirs) = try Self.bothEdited(in: folder)
        for minute in 0..<9 {
            try folder.write("stray \(minute)", at: "Doc.ict/ctdocument.sync-conflict-20261205-09\(10 + minute)00-STRAY\(minute)A.data")
        }
        let versions = try DocumentVersion.otherVersionsOfItem(at: path)
        #expect(versions.count == 10)
        #expect(versions.filter { $0.generation == theirs }.count == 1)
        #expect(try HandSynced.texts(of: try #require(versions.first { $0.generation == theirs }).packageWrapper())["ctdocument.data"] == "theirs")
        let strays = try Set(versions.filter { !$0.isRebuiltPackage }.map { try HandSynced.texts(of: $0.packageWrapper())["ctdocument.data"]! })
        #expect(strays == Set((0..<9).map { "stray \($0)" }))
    }

    /// Copies named as the data's conflict copy holding the other side's
    /// bytes, but a link (to them outside the package), a FIFO or a folder:
    /// never followed, opened or used to rebuild a save; nothing outside changes.
    @Test func copiesThatAreLinksFIFOsOrFoldersAreNeverUsed() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let (path, _) = try Self.bothEdited(in: folder)
        let copy = path + "/ctdocument.\(HandSynced.copyTag).data"
        try HandSynced.move(copy, to: folder.appending("outside.data"))
        let outside = try folder.read("outside.data")

        for plant in ["link", "fifo", "folder"] {
            try? FileManager.default.removeItem(atPath: copy)
            switch plant {
            case "link": try FileManager.default.createSymbolicLink(atPath: copy, withDestinationPath: folder.appending("outside.data"))
            case "fifo": #expect(mkfifo(copy, 0o644) == 0)
            default: try FileManager.default.createDirectory(atPath: copy + "/inside", withIntermediateDirectories: true)
            }
            let versions = try DocumentVersion.otherVersionsOfItem(at: path)
            #expect(!versions.contains { $0.generation != nil }, "\(plant): the other save cannot be rebuilt from it")
            for version in versions {
                // The copy's own version is refused, never read through.
                #expect(throws: DocumentVersionError.self, "\(plant)") { try version.replaceItem(at: path, options: .byMoving) }
            }
            #expect(try folder.read("Doc.ict/ctdocument.data") == "mine", "\(plant)")
            #expect(try HandSynced.texts(of: DocumentVersion.currentVersionOfItem(at: path).packageWrapper())["ctdocument.data"] == "mine")
        }
        #expect(try folder.read("outside.data") == outside)
    }
}
