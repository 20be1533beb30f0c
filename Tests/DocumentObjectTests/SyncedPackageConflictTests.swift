import ConflictVersions
import DocumentFormats
import DocumentObject
import Foundation
import PackageFormat
import SystemPackage
import TestSupport
import Testing

/// Issue 39, item 3, with real Syncthing (two devices on loopback, kept
/// apart by stopping them): a package saved on both devices while apart,
/// a safe save on one against an edit in place on the other, and a package
/// deleted on one and edited on the other. On every device the package is
/// a conflict whose versions open whole — checked entry by entry against
/// what each side saved — the document is `inConflict`, and resolving on
/// one device returns both to one whole package and `normal`.
@Suite(.serialized, .enabled(if: SyncthingDevices.isInstalled, "syncthing is not installed (scripts/install-deps.sh test installs it)"))
@MainActor
struct SyncedPackageConflictTests {
    static let name = "Friend.ict"
    static let base = ["ctdocument.data": "base data", "ctdocument.metadata": "base meta"]

    /// Each regular file of a package wrapper as text, by name.
    static func texts(_ package: PackageWrapper) throws -> [String: String] {
        var texts: [String: String] = [:]
        for child in package.children where child.kind == .regularFile {
            texts[child.fileName!] = String(decoding: try child.contents(), as: UTF8.self)
        }
        return texts
    }

    /// The package's names and sizes on disk, manifest and copies included.
    static func listing(_ path: String) -> [String: Int] {
        var listing: [String: Int] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] {
            listing[name] = ((try? FileManager.default.attributesOfItem(atPath: path + "/" + name))?[.size] as? Int) ?? -1
        }
        return listing
    }

    /// Saves `texts` over the package at `path` with ICTKit (a safe save), or makes it.
    static func save(_ texts: [String: String], at path: String) throws {
        let package = FileManager.default.fileExists(atPath: path) ? try PackageWrapper(readingFrom: path) : try PackageWrapper(directoryWithChildren: [:])
        for (name, text) in texts {
            if let file = package.child(named: name) {
                file.setContents(Data(text.utf8))
            } else {
                try package.addChild(PackageWrapper(regularFileWithContents: Data(text.utf8)), named: name)
            }
        }
        try package.save(to: path)
    }

    /// Two devices sharing `Friend.ict`, saved on device 0 and synced whole to device 1.
    static func devicesSharingAPackage() throws -> (SyncthingDevices, [String]) {
        let sync = try SyncthingDevices(count: 2)
        let paths = sync.devices.map { $0.folder + "/" + name }
        try save(base, at: paths[0])
        try sync.scan(0)
        try sync.waitUntil("the package whole on device 1") {
            (try? PackageConsistency(ofPackageAt: paths[1]).isWholeWithoutConflicts) == true && listing(paths[1]) == listing(paths[0])
        }
        return (sync, paths)
    }

    /// Starts both devices again and waits until they agree on the package
    /// (same names and sizes) and have nothing left to do.
    static func reconnect(_ sync: SyncthingDevices, _ paths: [String], until what: String, _ condition: () throws -> Bool) throws {
        try sync.start(0)
        try sync.start(1)
        try sync.waitUntil(what, deadline: 120) {
            try condition() && listing(paths[0]) == listing(paths[1]) && sync.isIdleAndComplete(0) && sync.isIdleAndComplete(1)
        }
    }

    @Test func aPackageSavedOnBothDevicesWhileApartIsAConflictOfBothSavesEverywhere() throws {
        let (sync, paths) = try Self.devicesSharingAPackage()
        defer { sync.stop() }
        sync.stop(0)
        sync.stop(1)
        let saved = [
            ["ctdocument.data": "device 0's data", "ctdocument.metadata": "base meta"],
            ["ctdocument.data": "device 1's data, longer", "ctdocument.metadata": "base meta"],
        ]
        for device in 0..<2 { try Self.save(["ctdocument.data": saved[device]["ctdocument.data"]!], at: paths[device]) }
        let generations = try paths.map { try #require(try PackageManifest.read(fromPackageAt: $0)).generation }

        try Self.reconnect(sync, paths, until: "the entry and manifest conflict copies on both devices") {
            paths.allSatisfy { path in Self.listing(path).keys.filter { $0.contains(".sync-conflict-") }.count == 2 }
        }

        var documents: [PackageDocument] = []
        for device in 0..<2 {
            let path = paths[device]
            let versions = try DocumentVersion.otherVersionsOfItem(at: path)
            try #require(versions.count == 1, "device \(device): \(Self.listing(path))")
            let current = try DocumentVersion.currentVersionOfItem(at: path)
            let currentGeneration = try #require(try PackageManifest.read(fromPackageAt: path)).generation
            let otherGeneration = try #require(versions[0].generation)
            #expect(Set([currentGeneration, otherGeneration]) == Set(generations), "device \(device): one version per save")
            // Entry by entry, each version is what the side that made its generation saved.
            let currentSide = generations.firstIndex(of: currentGeneration)!
            #expect(try Self.texts(current.packageWrapper()) == saved[currentSide], "device \(device)")
            #expect(try Self.texts(versions[0].packageWrapper()) == saved[1 - currentSide], "device \(device)")
            #expect(try DocumentItemState(ofItemAt: path).contains(.inConflict))

            let document = PackageDocument(path: FilePath(path), scheduler: ManualScheduler())
            try document.open()
            #expect(document.documentState == .inConflict, "device \(device)")
            documents.append(document)
        }

        // Resolved on device 0 by keeping device 0's save: the current version, or the other.
        if try PackageManifest.read(fromPackageAt: paths[0])?.generation == generations[0] {
            try documents[0].resolveConflict()
        } else {
            try documents[0].resolveConflict(keeping: try #require(documents[0].conflictVersions.first { $0.generation == generations[0] }))
        }
        #expect(documents[0].documentState == .normal)
        try sync.scan(0)
        try sync.waitUntil("device 1 whole with device 0's save", deadline: 120) {
            try (try? PackageConsistency(ofPackageAt: paths[1], readingEveryFile: true).isWholeWithoutConflicts) == true
                && (try? String(contentsOfFile: paths[1] + "/ctdocument.data", encoding: .utf8)) == saved[0]["ctdocument.data"]
                && Self.listing(paths[1]) == Self.listing(paths[0]) && sync.isIdleAndComplete(1)
        }
        for device in 0..<2 {
            try documents[device].updateConflictState()
            try documents[device].revert()
            #expect(documents[device].documentState == .normal, "device \(device)")
            #expect(try Self.texts(documents[device].package!) == saved[0], "device \(device)")
            #expect(try DocumentVersion.otherVersionsOfItem(at: paths[device]).isEmpty)
            try documents[device].close()
        }
    }

    /// Device 0 saves safely (a new folder renamed into place), device 1
    /// edits the metadata in place: no conflict copy, but a package mixing
    /// both — listed as the one version it is, never taken as whole.
    @Test func aSafeSaveAgainstAnEditInPlaceLeavesAMixedPackageInConflictEverywhere() throws {
        let (sync, paths) = try Self.devicesSharingAPackage()
        defer { sync.stop() }
        sync.stop(0)
        sync.stop(1)
        try Self.save(["ctdocument.data": "device 0's data"], at: paths[0])
        try Data("device 1's metadata, in place".utf8).write(to: URL(fileURLWithPath: paths[1] + "/ctdocument.metadata"))
        let mixed = ["ctdocument.data": "device 0's data", "ctdocument.metadata": "device 1's metadata, in place"]

        try Self.reconnect(sync, paths, until: "both devices holding both edits") {
            paths.allSatisfy { path in
                (try? String(contentsOfFile: path + "/ctdocument.data", encoding: .utf8)) == mixed["ctdocument.data"]
                    && (try? String(contentsOfFile: path + "/ctdocument.metadata", encoding: .utf8)) == mixed["ctdocument.metadata"]
                    && (try? PackageManifest.read(fromPackageAt: path)) == (try? PackageManifest.read(fromPackageAt: paths[0]))
            }
        }
        for device in 0..<2 {
            let consistency = try PackageConsistency(ofPackageAt: paths[device])
            #expect(consistency.state == .mixed, "device \(device)")
            #expect(consistency.differing == ["ctdocument.metadata"])
            let versions = try DocumentVersion.otherVersionsOfItem(at: paths[device])
            try #require(versions.count == 1)
            #expect(try Self.texts(versions[0].packageWrapper()) == mixed)
            let document = PackageDocument(path: FilePath(paths[device]), scheduler: ManualScheduler())
            try document.open()
            #expect(document.documentState == .inConflict, "device \(device)")
            try document.close()
        }
        try DocumentVersion.removeOtherVersionsOfItem(at: paths[1])
        try sync.scan(1)
        try sync.waitUntil("device 0 whole again", deadline: 120) {
            try (try? PackageConsistency(ofPackageAt: paths[0], readingEveryFile: true).isWholeWithoutConflicts) == true
                && Self.listing(paths[0]) == Self.listing(paths[1]) && sync.isIdleAndComplete(0)
        }
        #expect(try Self.texts(PackageWrapper(readingFrom: paths[0])) == mixed)
    }

    /// Deleted on device 0, saved with an edit on device 1: only the edited
    /// entry and the manifest come back. Partial, never listed valid.
    @Test func aPackageDeletedOnOneDeviceAndEditedOnTheOtherIsReportedNotValid() throws {
        let (sync, paths) = try Self.devicesSharingAPackage()
        defer { sync.stop() }
        sync.stop(0)
        sync.stop(1)
        try FileManager.default.removeItem(atPath: paths[0])
        try Self.save(["ctdocument.data": "device 1's data"], at: paths[1])

        try Self.reconnect(sync, paths, until: "the edited entry back on device 0") {
            FileManager.default.fileExists(atPath: paths[0] + "/ctdocument.data")
        }
        for device in 0..<2 {
            let consistency = try PackageConsistency(ofPackageAt: paths[device])
            #expect(consistency.state == .partial, "device \(device): \(Self.listing(paths[device]))")
            #expect(consistency.missing == ["ctdocument.metadata"])
            let findings = DocumentValidator().validate(packageAt: paths[device])
            #expect(findings.contains { $0.entry == "ctdocument.metadata" && $0.severity == .error && $0.message.contains("missing") })
            #expect(try DocumentItemState(ofItemAt: paths[device]).contains(.inConflict))
            let versions = try DocumentVersion.otherVersionsOfItem(at: paths[device])
            #expect(try versions.map { try Self.texts($0.packageWrapper()) } == [["ctdocument.data": "device 1's data"]])
        }
    }

    /// The same for a one-file note (`.icfnote`): edited on both devices
    /// while apart, each device's document opens `inConflict` with both
    /// texts among its versions; resolving on device 0 by keeping the other
    /// device's text (the conflict copy, moved into place) leaves that text
    /// and no copy on both devices, and both documents `normal`.
    @Test func aNoteEditedOnBothDevicesWhileApartIsAConflictEverywhereAndResolvesEverywhere() throws {
        let sync = try SyncthingDevices(count: 2)
        defer { sync.stop() }
        let paths = sync.devices.map { $0.folder + "/Plan.icfnote" }
        try Data("base\n".utf8).write(to: URL(fileURLWithPath: paths[0]))
        try sync.scan(0)
        try sync.waitUntil("the note on device 1") { (try? String(contentsOfFile: paths[1], encoding: .utf8)) == "base\n" }
        try sync.waitUntil("both idle") { try sync.isIdleAndComplete(0) && sync.isIdleAndComplete(1) }
        sync.stop(0)
        sync.stop(1)
        let texts = ["device 0 wrote this\n", "device 1 wrote this, later and longer\n"]
        for device in 0..<2 {
            let document = NoteDocument(path: FilePath(paths[device]), scheduler: ManualScheduler())
            try document.open()
            document.text = texts[device]
            document.updateChangeCount(.done)
            try document.close()
        }
        func copies(_ device: Int) -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: sync.devices[device].folder)) ?? []).filter { $0.contains(".sync-conflict-") }
        }
        try sync.start(0)
        try sync.start(1)
        try sync.waitUntil("a conflict copy on both devices", deadline: 120) {
            guard copies(0).count == 1, copies(1) == copies(0) else { return false }
            return try sync.isIdleAndComplete(0) && sync.isIdleAndComplete(1)
        }
        var documents: [NoteDocument] = []
        for device in 0..<2 {
            let document = NoteDocument(path: FilePath(paths[device]), scheduler: ManualScheduler())
            try document.open()
            #expect(document.documentState.contains(.inConflict), "device \(device): \(document.documentState)")
            let versions = try DocumentVersion.otherVersionsOfItem(at: paths[device])
            let versionTexts = try versions.map { try String(contentsOfFile: $0.pathText, encoding: .utf8) }
            #expect(Set(versionTexts + [document.text]) == Set(texts), "device \(device): every side's text is a version that opens")
            documents.append(document)
        }
        // Device 0 keeps the other side's text: the version that is not its current one.
        let kept = try #require(try DocumentVersion.otherVersionsOfItem(at: paths[0]).first)
        let keptText = try String(contentsOfFile: kept.pathText, encoding: .utf8)
        try documents[0].resolveConflict(keeping: kept)
        #expect(documents[0].documentState == .normal && documents[0].text == keptText)
        try sync.scan(0)
        try sync.waitUntil("device 1 resolved too, with the kept text", deadline: 120) {
            copies(1).isEmpty && (try? String(contentsOfFile: paths[1], encoding: .utf8)) == keptText
        }
        try documents[1].updateConflictState()
        #expect(documents[1].documentState == .normal)
        #expect(copies(0).isEmpty)
        #expect(try String(contentsOfFile: paths[0], encoding: .utf8) == keptText)
        for document in documents { try document.close() }
    }
}
