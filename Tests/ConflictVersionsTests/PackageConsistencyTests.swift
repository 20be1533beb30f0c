import ConflictVersions
import Foundation
import PackageFormat
import SystemPackage
import Testing

/// Each branch of the reader, on packages built by hand from real saves
/// (`HandSynced`): whole, mixed (an entry edited in place, an entry not
/// listed), partial (an entry missing, a transfer temporary), conflict
/// copies, no manifest, a manifest that is garbage, and a FIFO inside.
struct PackageConsistencyTests {
    @Test func aSavedPackageIsWhole() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.appending("Doc.ict")
        try HandSynced.save(["ctdocument.data": "data", "ctdocument.metadata": "meta"], at: path)
        let consistency = try PackageConsistency(ofPackageAt: path, readingEveryFile: true)
        #expect(consistency.state == .whole)
        #expect(consistency.isWholeWithoutConflicts)
        #expect(consistency.problem == nil)
        #expect(consistency.manifest?.entries.keys.sorted() == ["ctdocument.data", "ctdocument.metadata"])
    }

    @Test func aPackageNoSaveOfICTKitWroteHasNoManifestToTellBy() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try folder.write("data", at: "Doc.ict/ctdocument.data")
        let consistency = try PackageConsistency(ofPackageAt: folder.appending("Doc.ict"))
        #expect(consistency.state == .unmanifested)
        #expect(consistency.problem == nil)
    }

    /// The other device's in-place edit arrives beside this device's save: mixed.
    @Test func anEntryEditedInPlaceOrAddedMakesItMixed() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.appending("Doc.ict")
        try HandSynced.save(["ctdocument.data": "data", "ctdocument.metadata": "meta"], at: path)
        try folder.write("edited elsewhere", at: "Doc.ict/ctdocument.metadata")
        var consistency = try PackageConsistency(ofPackageAt: path)
        #expect(consistency.state == .mixed)
        #expect(consistency.differing == ["ctdocument.metadata"])
        #expect(consistency.problem?.contains("\"ctdocument.metadata\"") == true)

        try HandSynced.save(["ctdocument.data": "data"], at: path)
        try folder.write("new", at: "Doc.ict/Extra/added.txt")
        consistency = try PackageConsistency(ofPackageAt: path)
        #expect(consistency.state == .mixed)
        #expect(consistency.unlisted == ["Extra", "Extra/added.txt"])
        #expect(consistency.differing.isEmpty)
    }

    /// Same size, same time, other bytes (only a writer that sets times does
    /// this): taken as the entry listed unless every file is read.
    @Test func sizeAndTimeAreTrustedUnlessEveryFileIsRead() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.appending("Doc.ict")
        try HandSynced.save(["ctdocument.data": "aaaa"], at: path)
        let entry = path + "/ctdocument.data"
        let listed = try #require(try PackageManifest.read(fromPackageAt: path)?.entries["ctdocument.data"])
        try Data("bbbb".utf8).write(to: URL(fileURLWithPath: entry))
        // Back to the nanosecond the manifest lists (access time too).
        let time = timespec(tv_sec: Int(listed.modificationSeconds), tv_nsec: Int(listed.modificationNanoseconds))
        #expect(utimensat(AT_FDCWD, entry, [time, time], 0) == 0)
        let onDisk = try #require(try PackageManifest.entryOnDisk(entry, pathInPackage: "ctdocument.data", digesting: false))
        try #require(onDisk.sameStatus(as: listed), "the time was set back to the nanosecond")
        #expect(try PackageConsistency(ofPackageAt: path).state == .whole)
        #expect(try PackageConsistency(ofPackageAt: path, readingEveryFile: true).differing == ["ctdocument.data"])
    }

    /// Deleted on one device, edited on the other: the edited entry and its
    /// manifest come back, the rest is gone. Partial; so is a transfer under way.
    @Test func anEntryMissingOrATransferUnderWayMakesItPartial() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.appending("Doc.ict")
        try HandSynced.save(["ctdocument.data": "data", "ctdocument.metadata": "meta"], at: path)
        try FileManager.default.removeItem(atPath: path + "/ctdocument.metadata")
        var consistency = try PackageConsistency(ofPackageAt: path)
        #expect(consistency.state == .partial)
        #expect(consistency.missing == ["ctdocument.metadata"])
        #expect(consistency.problem?.contains("missing: \"ctdocument.metadata\"") == true)

        try HandSynced.save(["ctdocument.data": "data"], at: path)
        try folder.write("half", at: "Doc.ict/.syncthing.ctdocument.data.tmp")
        consistency = try PackageConsistency(ofPackageAt: path)
        #expect(consistency.state == .partial)
        #expect(consistency.transfers == [".syncthing.ctdocument.data.tmp"])
        #expect(consistency.unlisted.isEmpty, "a transfer temporary is not an entry")
    }

    @Test func conflictCopiesAreListedApartFromTheEntries() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.appending("Doc.ict")
        try HandSynced.save(["ctdocument.data": "data"], at: path)
        try folder.write("theirs", at: "Doc.ict/ctdocument.\(HandSynced.copyTag).data")
        let consistency = try PackageConsistency(ofPackageAt: path)
        #expect(consistency.state == .whole)
        #expect(!consistency.isWholeWithoutConflicts)
        #expect(consistency.conflictCopies == ["ctdocument.\(HandSynced.copyTag).data"])
    }

    @Test func aGarbageManifestIsSaidSoWithTheReason() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.appending("Doc.ict")
        try HandSynced.save(["ctdocument.data": "data"], at: path)
        try folder.write("not a plist", at: "Doc.ict/" + PackageManifest.fileName)
        let consistency = try PackageConsistency(ofPackageAt: path)
        #expect(consistency.state == .manifestUnreadable)
        #expect(consistency.manifestError?.code == .invalidManifest)
        #expect(consistency.problem?.contains(PackageManifest.fileName) == true)
    }

    /// A FIFO where an entry was: an entry that differs, never opened (a
    /// read would wait for a writer forever).
    @Test func aFIFOInsideIsAnEntryThatDiffersAndIsNeverOpened() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.appending("Doc.ict")
        try HandSynced.save(["ctdocument.data": "data", "ctdocument.metadata": "meta"], at: path)
        try FileManager.default.removeItem(atPath: path + "/ctdocument.metadata")
        #expect(mkfifo(path + "/ctdocument.metadata", 0o644) == 0)
        #expect(mkfifo(path + "/ctdocument.\(HandSynced.copyTag).data", 0o644) == 0)
        let consistency = try PackageConsistency(ofPackageAt: path, readingEveryFile: true)
        #expect(consistency.state == .mixed)
        #expect(consistency.differing == ["ctdocument.metadata"])
        #expect(consistency.conflictCopies == ["ctdocument.\(HandSynced.copyTag).data"])
    }

    @Test func aPackageOverTheEntryLimitIsRefusedByName() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.appending("Doc.ict")
        try HandSynced.save(["a": "1", "b": "2", "c": "3"], at: path)
        var limits = DocumentPackageLimits.default
        limits.maximumEntryCount = 2
        let error = try #require(throws: DocumentVersionError.self) { try PackageConsistency(ofPackageAt: path, limits: limits) }
        #expect(error.code == .package)
        #expect(error.path == FilePath(path))
    }
}
