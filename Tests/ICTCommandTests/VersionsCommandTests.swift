import Foundation
import TestSupport
import Testing

/// A flag one thread sets and another reads.
final class ManagedAtomicFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return value }
    func set() { lock.lock(); value = true; lock.unlock() }
}

/// `ict versions`, `ict resolve`, the conflicts column of `ict list` and
/// `ict validate --kvs`, end to end. Acceptance 3: a document changed since
/// (or while) it was listed, an unreadable version and a version that is not
/// a document of the same kind each give a clear error and change nothing.
struct VersionsCommandTests {
    static let samples = Repository.root.path + "/SampleDocs"
    static let syncthingCopy = "Friend.sync-conflict-20261123-101500-ABCDEF7.ict"
    static let dropboxCopy = "Friend (Ada's MacBook's conflicted copy 2026-11-20).ict"

    /// A folder holding `Friend.ict` (Coffee), a Syncthing copy (Rocket), a
    /// Dropbox copy (Astronaut) and an unrelated file.
    private func conflictFolder() throws -> String {
        let folder = try ScratchFolder.make("versions").path
        try FileManager.default.copyItem(atPath: Self.samples + "/Coffee.ict", toPath: folder + "/Friend.ict")
        try FileManager.default.copyItem(atPath: Self.samples + "/Rocket.ict", toPath: folder + "/" + Self.syncthingCopy)
        try FileManager.default.copyItem(atPath: Self.samples + "/Astronaut.ict", toPath: folder + "/" + Self.dropboxCopy)
        try Data("keep".utf8).write(to: URL(fileURLWithPath: folder + "/notes.txt"))
        return folder
    }

    /// Every file under `folder` with its bytes: to show that nothing changed.
    private func snapshot(_ folder: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(atPath: folder)!
        while let relative = enumerator.nextObject() as? String {
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: folder + "/" + relative, isDirectory: &isDirectory)
            files[relative] = isDirectory.boolValue ? Data() : FileManager.default.contents(atPath: folder + "/" + relative)
        }
        return files
    }

    private func fingerprint(_ output: String) -> String? {
        output.split(separator: "\n").first { $0.hasPrefix("fingerprint: ") }.map { String($0.dropFirst("fingerprint: ".count)) }
    }

    @Test func listsVersionsWithTheirFieldsAndDifferences() throws {
        let folder = try conflictFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let run = try ICTRunner.run(["versions", folder + "/Friend.ict"])
        #expect(run.status == 0, "\(run.stderr)")
        let expected = """
            0  current
                \(folder)/Friend.ict
                display name: Coffee; names: Coffee Cup; favourite number: 3.5; photo: 320×320
            1  Dropbox copy, 2026-11-20, device Ada's MacBook
                \(folder)/\(Self.dropboxCopy)
                display name: Astronaut; names: Eileen Collins; favourite number: 1999; photo: 320×320
                differs in: displayName, names, favoriteNumber, photo
            2  Syncthing copy, 2026-11-23 10:15:00, device ABCDEF7
                \(folder)/\(Self.syncthingCopy)
                display name: Rocket; names: Falcon Heavy; favourite number: 2018; photo: 320×320
                differs in: displayName, names, favoriteNumber, photo

            """
        #expect(run.stdout.hasPrefix(expected), "\(run.stdout)")
        #expect(fingerprint(run.stdout)?.count == 16)
    }

    @Test func resolveKeepsTheChosenVersionAndRemovesTheOthers() throws {
        let folder = try conflictFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let rocket = try snapshot(Self.samples + "/Rocket.ict")
        let listed = try ICTRunner.run(["versions", folder + "/Friend.ict"])
        let run = try ICTRunner.run(["resolve", folder + "/Friend.ict", "--keep", "2", "--expect", fingerprint(listed.stdout) ?? ""])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "\(folder)/Friend.ict: kept version 2 (Syncthing copy); removed 1 other version(s)\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["Friend.ict", "notes.txt"])
        // The kept version, saved whole: with the manifest every package save writes.
        #expect(try snapshot(folder + "/Friend.ict").filter { $0.key != ".ictkit-manifest.plist" } == rocket)
    }

    @Test func resolveWithKeepOthersLeavesThem() throws {
        let folder = try conflictFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let run = try ICTRunner.run(["resolve", folder + "/Friend.ict", "--keep", folder + "/./" + Self.dropboxCopy + "/", "--keep-others"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["Friend.ict", Self.syncthingCopy, "notes.txt"])
        #expect(try snapshot(folder + "/Friend.ict").filter { $0.key != ".ictkit-manifest.plist" } == (try snapshot(Self.samples + "/Astronaut.ict")))
    }

    @Test func resolveRefusesADocumentChangedSinceItWasListed() throws {
        let folder = try conflictFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let listed = try ICTRunner.run(["versions", folder + "/Friend.ict"])
        // Another device's change arrives: the Syncthing copy is rewritten.
        try Data("changed".utf8).write(to: URL(fileURLWithPath: folder + "/" + Self.syncthingCopy + "/extra"))
        let before = try snapshot(folder)
        let old = fingerprint(listed.stdout) ?? ""
        let run = try ICTRunner.run(["resolve", folder + "/Friend.ict", "--keep", "2", "--expect", old])
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("\(folder)/Friend.ict: error: the document or a version changed since it was listed (fingerprint "))
        #expect(run.stderr.hasSuffix("expected \(old)); nothing was changed; run 'ict versions' again\n"))
        #expect(try snapshot(folder) == before)
    }

    @Test func versionsRefusesADocumentChangedWhileItIsListed() throws {
        let folder = try conflictFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Another device keeps writing into a version while ict reads them all.
        let stop = ManagedAtomicFlag()
        let writer = Thread {
            var n = 0
            while !stop.isSet {
                n += 1
                try? Data("\(n)".utf8).write(to: URL(fileURLWithPath: folder + "/" + Self.syncthingCopy + "/extra"))
                usleep(500)
            }
        }
        writer.start()
        defer { stop.set() }
        var refusals = 0
        for _ in 0..<10 {
            let run = try ICTRunner.run(["versions", "--json", folder + "/Friend.ict"])
            if run.status == 1 {
                refusals += 1
                #expect(run.stderr == "\(folder)/Friend.ict: error: the document or a version changed while it was listed; list it again\n")
                let report = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
                #expect(report?["versions"] is NSNull, "a listing that may be torn is not printed")
            } else {
                #expect(run.status == 0, "\(run.stderr)")
            }
        }
        #expect(refusals > 0, "no run saw the change")
    }

    @Test func anUnreadableVersionIsAClearErrorAndNothingChanges() throws {
        let folder = try conflictFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data("not an archive".utf8).write(to: URL(fileURLWithPath: folder + "/" + Self.syncthingCopy + "/ctdocument.data"))
        let before = try snapshot(folder)
        let listed = try ICTRunner.run(["versions", folder + "/Friend.ict"])
        #expect(listed.status == 1)
        #expect(listed.stderr.hasPrefix("\(folder)/\(Self.syncthingCopy):ctdocument.data: error: version 2 cannot be read: "), "\(listed.stderr)")
        let run = try ICTRunner.run(["resolve", folder + "/Friend.ict", "--keep", "2"])
        #expect(run.status == 1)
        #expect(
            run.stderr.hasPrefix("\(folder)/\(Self.syncthingCopy):ctdocument.data: error: refusing to keep it: version 2 cannot be read: "), "\(run.stderr)")
        #expect(try snapshot(folder) == before)
    }

    @Test func aVersionOfAnotherKindIsAClearErrorAndNothingChanges() throws {
        let folder = try conflictFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let fileCopy = "Friend (conflicted copy 2026-11-24 120000).ict"
        try Data("a file".utf8).write(to: URL(fileURLWithPath: folder + "/" + fileCopy))
        let before = try snapshot(folder)
        let listed = try ICTRunner.run(["versions", folder + "/Friend.ict"])
        #expect(listed.status == 1)
        #expect(listed.stderr == "\(folder)/\(fileCopy): error: version 3 is a file, but the document is a package (a folder); it cannot replace it\n")
        let run = try ICTRunner.run(["resolve", folder + "/Friend.ict", "--keep", "3"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("\(folder)/\(fileCopy): error: refusing to keep it: version 3 is a file, but the document is a package"))
        #expect(try snapshot(folder) == before)
    }

    @Test func versionsMadeOfEntryCopiesInsideAPackage() throws {
        let folder = try conflictFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.removeItem(atPath: folder + "/" + Self.syncthingCopy)
        try FileManager.default.removeItem(atPath: folder + "/" + Self.dropboxCopy)
        let copy = "ctdocument.sync-conflict-20261123-101500-ABCDEF7.data"
        try FileManager.default.copyItem(atPath: Self.samples + "/Rocket.ict/ctdocument.data", toPath: folder + "/Friend.ict/" + copy)
        let run = try ICTRunner.run(["versions", folder + "/Friend.ict"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            run.stdout.contains(
                """
                1  Syncthing entry copies (ctdocument.data), 2026-11-23 10:15:00, device ABCDEF7
                    \(folder)/Friend.ict
                    display name: Rocket; names: Falcon Heavy; favourite number: 2018; photo: 320×320
                """), "\(run.stdout)")
        let resolved = try ICTRunner.run(["resolve", folder + "/Friend.ict", "--keep", "1"])
        #expect(resolved.status == 0, "\(resolved.stderr)")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder + "/Friend.ict").sorted() == [
                ".ictkit-manifest.plist", "ctdocument.data", "ctdocument.metadata",
            ])
        #expect(
            FileManager.default.contents(atPath: folder + "/Friend.ict/ctdocument.data")
                == FileManager.default.contents(atPath: Self.samples + "/Rocket.ict/ctdocument.data"))
    }

    /// `Friend.ict` saved by `ict` on two "devices" while apart, left as
    /// Syncthing leaves it (built by hand: this side's names, the other's
    /// differing entries and manifest as conflict copies, moved with their times).
    private func packageSavedOnBothSides() throws -> (folder: String, path: String) {
        let folder = try ScratchFolder.make("ict-versions").path
        let other = folder + "/other device"
        try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
        let path = folder + "/Friend.ict"
        try FileManager.default.copyItem(atPath: Self.samples + "/Coffee.ict", toPath: path)
        #expect(try ICTRunner.run(["set", path, "--first-name", "Base"]).status == 0)
        #expect(try ProgramRunner.run("/bin/cp", ["-a", path, other + "/Friend.ict"]).status == 0)
        #expect(try ICTRunner.run(["set", path, "--first-name", "Mine"]).status == 0)
        #expect(try ICTRunner.run(["set", other + "/Friend.ict", "--first-name", "Theirs"]).status == 0)
        for name in try FileManager.default.contentsOfDirectory(atPath: other + "/Friend.ict")
        where FileManager.default.contents(atPath: other + "/Friend.ict/" + name) != FileManager.default.contents(atPath: path + "/" + name) {
            let dot = name.lastIndex(of: ".")!
            let copy = name[..<dot] + ".sync-conflict-20261206-101500-ABCDEF7" + name[dot...]
            #expect(rename(other + "/Friend.ict/" + name, path + "/" + copy) == 0)
        }
        return (folder, path)
    }

    /// Issue 39: the two saves are the versions, each read whole; resolving
    /// keeps one and leaves a whole package with no copies; `ict list`
    /// marks it in conflict first.
    @Test func aPackageSavedOnTwoDevicesListsBothSavesAndResolvesToOne() throws {
        let (folder, path) = try packageSavedOnBothSides()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let list = try ICTRunner.run(["list", "--data", "--json", folder])
        let documents = (try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String: Any])?["documents"] as? [[String: Any]]
        #expect(documents?.first { $0["path"] as? String == path }?["state"] as? [String] == ["inConflict"], "\(list.stdout)")
        let run = try ICTRunner.run(["versions", path])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.filter { $0.first?.isNumber == true }.count == 2, "the current version and one other: \(run.stdout)")
        #expect(lines.first == "0  current")
        #expect(lines.contains("state: inConflict"))
        #expect(
            lines.contains { $0.hasPrefix("1  save ") && $0.hasSuffix(" rebuilt from its entries and copies, 2026-12-06 10:15:00, device ABCDEF7") },
            "\(run.stdout)")
        #expect(lines.filter { $0.contains("names: Mine") }.count == 1 && lines.filter { $0.contains("names: Theirs") }.count == 1, "\(run.stdout)")
        #expect(lines[2].contains("names: Mine"), "the current version is this side's save")

        let resolved = try ICTRunner.run(["resolve", path, "--keep", "1"])
        #expect(resolved.status == 0, "\(resolved.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: path).sorted() == [".ictkit-manifest.plist", "ctdocument.data", "ctdocument.metadata"])
        let after = try ICTRunner.run(["versions", path])
        #expect(after.stdout.split(separator: "\n").filter { $0.first?.isNumber == true } == ["0  current"], "\(after.stdout)")
        #expect(after.stdout.contains("state: normal"))
        #expect(after.stdout.contains("names: Theirs"))
        #expect(try ICTRunner.run(["validate", path]).status == 0)
    }

    @Test func listMarksDocumentsWithConflicts() throws {
        let folder = try conflictFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.copyItem(atPath: Self.samples + "/Chelsea.ict", toPath: folder + "/Chelsea.ict")
        let run = try ICTRunner.run(["list", folder])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            run.stdout == """
                NAME     THUMBNAIL  CONFLICTS  STATE       PATH
                Chelsea  280×280                           \(folder)/Chelsea.ict
                Coffee   280×280    2          inConflict  \(folder)/Friend.ict

                """)
        let json = try ICTRunner.run(["list", "--json", folder])
        let documents = (try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])?["documents"] as? [[String: Any]]
        #expect(documents?.map { $0["conflicts"] as? Int } == [0, 2])
        #expect(documents?.map { $0["state"] as? [String] } == [[], ["inConflict"]])
    }

    /// `ict list` says each document's state as `ict versions` does: a
    /// Syncthing copy beside one makes it `inConflict`, a package no one may
    /// write (mode 555, which root too sees as read-only) `editingDisabled`;
    /// from the folder's listing, and for documents named in a list.
    @Test func listReportsEachDocumentsState() throws {
        let folder = try ScratchFolder.make("list-state").path
        try FileManager.default.copyItem(atPath: Self.samples + "/Coffee.ict", toPath: folder + "/Friend.ict")
        try FileManager.default.copyItem(atPath: Self.samples + "/Rocket.ict", toPath: folder + "/" + Self.syncthingCopy)
        try FileManager.default.copyItem(atPath: Self.samples + "/Chelsea.ict", toPath: folder + "/Chelsea.ict")
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder + "/Chelsea.ict")
        defer {
            try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder + "/Chelsea.ict")
            try? FileManager.default.removeItem(atPath: folder)
        }
        let run = try ICTRunner.run(["list", folder])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            run.stdout == """
                NAME     THUMBNAIL  CONFLICTS  STATE            PATH
                Chelsea  280×280               editingDisabled  \(folder)/Chelsea.ict
                Coffee   280×280    1          inConflict       \(folder)/Friend.ict

                """)
        let json = try ICTRunner.run(["list", "--json", folder])
        #expect(json.status == 0, "\(json.stderr)")
        let documents = (try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])?["documents"] as? [[String: Any]]
        #expect(documents?.map { $0["state"] as? [String] } == [["editingDisabled"], ["inConflict"]])
        // Named in a list, their folder not listed: the same states.
        let list = folder + "/list.txt"
        try Data("\(folder)/Friend.ict\n\(folder)/Chelsea.ict\n".utf8).write(to: URL(fileURLWithPath: list))
        let listed = try ICTRunner.run(["list", "--json", "--files-from", list])
        #expect(listed.status == 0, "\(listed.stderr)")
        let named = (try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any])?["documents"] as? [[String: Any]]
        #expect(named?.map { $0["path"] as? String } == [folder + "/Chelsea.ict", folder + "/Friend.ict"])
        #expect(named?.map { $0["state"] as? [String] } == [["editingDisabled"], ["inConflict"]])
    }

    @Test func validateKVSReportsEachFindingWithItsKey() throws {
        let folder = try ScratchFolder.make("kvs").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let longKey = String(repeating: "k", count: 65)
        let plist = "<plist><dict><key>\(longKey)</key><string>x</string><key>fine</key><integer>1</integer></dict></plist>"
        try Data(plist.utf8).write(to: URL(fileURLWithPath: folder + "/store.plist"))
        let run = try ICTRunner.run(["validate", "--kvs", folder + "/store.plist"])
        #expect(run.status == 1)
        #expect(run.stderr.contains(": error: key of 65 bytes in UTF-8; keys are at most 64 (at \(longKey))"), "\(run.stderr)")
        let plain = try ICTRunner.run(["validate", folder + "/store.plist"])
        #expect(plain.status == 0)
    }
}
