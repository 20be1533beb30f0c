import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Issue 39, acceptance 3, on two real Syncthing devices: the faults a sync
/// engine brings — ten conflict copies of one note (Syncthing's
/// `maxConflicts`), a name that is not UTF-8, a device whose clock is an
/// hour ahead. No crash, no hang, nothing lost: every version is listed and
/// opens, resolving leaves one note on both devices.
@Suite(.serialized, .enabled(if: SyncthingDevices.isInstalled, "syncthing is not installed (scripts/install-deps.sh test installs it)"))
struct SyncedConflictFaultTests {
    /// Device `index` stops talking to the other (`pause`) or talks again.
    static func connect(_ sync: SyncthingDevices, _ index: Int, _ on: Bool) throws {
        let other = sync.devices[1 - index].id
        try sync.rest(index, "/rest/system/\(on ? "resume" : "pause")?device=\(other)", method: "POST")
    }

    /// The conflict copies of `name` in `folder`.
    static func copies(of name: String, in folder: String) -> [String] {
        let stem = (name as NSString).deletingPathExtension
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasPrefix(stem + ".sync-conflict-") }.sorted()
    }

    static func write(_ text: String, to path: String, modified: Date? = nil) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        if let modified { try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: path) }
    }

    /// Edits the note on both devices while they are apart, then lets them meet; returns once the text that
    /// lost this round is in a conflict copy on both devices, both have the same copies, and both are idle.
    /// (Waiting for a copy's text, not a new copy name: two conflicts resolved within one second get one name,
    /// the later copy replacing the earlier, as Syncthing names them by the second.)
    static func conflict(_ sync: SyncthingDevices, _ name: String, round: Int, deviceOneModified: Date? = nil) throws {
        try connect(sync, 1, false)
        try sync.waitUntil("the devices apart") { try sync.connectedPeers(of: 1) == 0 && sync.connectedPeers(of: 0) == 0 }
        let texts = ["zero \(round)\n", "one \(round)\n"]
        try write(texts[0], to: sync.devices[0].folder + "/" + name)
        try write(texts[1], to: sync.devices[1].folder + "/" + name, modified: deviceOneModified)
        try sync.scan(0, name)
        try sync.scan(1, name)
        try connect(sync, 1, true)
        func copyTexts(_ device: Int) -> Set<String> {
            Set(
                copies(of: name, in: sync.devices[device].folder).compactMap {
                    try? String(contentsOfFile: sync.devices[device].folder + "/" + $0, encoding: .utf8)
                })
        }
        try sync.waitUntil("this round's losing text in a conflict copy on both devices, round \(round)") {
            let here = copyTexts(0)
            guard !here.isDisjoint(with: texts), here == copyTexts(1),
                Set(copies(of: name, in: sync.devices[0].folder)) == Set(copies(of: name, in: sync.devices[1].folder))
            else { return false }
            return try sync.isIdleAndComplete(0) && sync.isIdleAndComplete(1)
        }
    }

    private func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// Eleven rounds apart and together (about 50 s): tagged slow.
    @Test(.tags(.slow), .enabled(if: SlowTests.enabled, SlowTests.skipped))
    func tenConflictCopiesOfOneNoteAreListedOpenedAndResolvedOnBothDevices() throws {
        let sync = try SyncthingDevices(count: 2)
        defer { sync.stop() }
        let name = "Plan.icfnote"
        try Self.write("start\n", to: sync.devices[0].folder + "/" + name)
        try sync.scan(0)
        try sync.waitUntil("the note on device 1") { FileManager.default.fileExists(atPath: sync.devices[1].folder + "/" + name) }
        for round in 1...11 { try Self.conflict(sync, name, round: round) }
        for device in sync.devices {
            let copies = Self.copies(of: name, in: device.folder)
            // Syncthing keeps at most maxConflicts (10) copies; fewer when two rounds were resolved within one second.
            #expect((2...10).contains(copies.count), "Syncthing keeps at most maxConflicts (10) copies: \(copies)")
            let run = try ICTRunner.run(["versions", "--json", device.folder + "/" + name], killedAfter: 60)
            #expect(run.status == 0, "\(run.stderr)")
            let versions = try #require(try json(run.stdout)["versions"] as? [[String: Any]])
            #expect(versions.count == copies.count + 1, "the current version and every copy")
            // Every version opens as a note: its text is one of the texts the devices wrote.
            for path in [device.folder + "/" + name] + copies.map({ device.folder + "/" + $0 }) {
                let text = try String(contentsOfFile: path, encoding: .utf8)
                #expect(text.hasPrefix("zero ") || text.hasPrefix("one "), "\(path): \(text)")
            }
            let listed = try ICTRunner.run(["list", "--json", device.folder], killedAfter: 60)
            let documents = try #require(try json(listed.stdout)["documents"] as? [[String: Any]])
            #expect(documents.count == 1 && documents.first?["conflicts"] as? Int == copies.count, "\(listed.stdout)")
        }

        // Resolving on device 0 keeps one copy's text; once synced, device 1 has that note and no copy.
        let kept = try String(contentsOfFile: sync.devices[0].folder + "/" + Self.copies(of: name, in: sync.devices[0].folder)[0], encoding: .utf8)
        let resolve = try ICTRunner.run(["resolve", sync.devices[0].folder + "/" + name, "--keep", "1"], killedAfter: 60)
        #expect(resolve.status == 0, "\(resolve.stderr)")
        try sync.scan(0)
        try sync.waitUntil("device 1 resolved too") {
            Self.copies(of: name, in: sync.devices[1].folder).isEmpty
                && (try? String(contentsOfFile: sync.devices[1].folder + "/" + name, encoding: .utf8)) == kept
        }
        #expect(Self.copies(of: name, in: sync.devices[0].folder).isEmpty)
        #expect(try String(contentsOfFile: sync.devices[0].folder + "/" + name, encoding: .utf8) == kept)
    }

    @Test func aDeviceWhoseClockIsAnHourAheadWinsTheNameButNothingIsLost() throws {
        let sync = try SyncthingDevices(count: 2)
        defer { sync.stop() }
        let name = "Clock.icfnote"
        try Self.write("start\n", to: sync.devices[0].folder + "/" + name)
        try sync.scan(0)
        try sync.waitUntil("the note on device 1") { FileManager.default.fileExists(atPath: sync.devices[1].folder + "/" + name) }
        // Device 1 writes first, with a clock an hour ahead; device 0 writes later in real time.
        try Self.conflict(sync, name, round: 1, deviceOneModified: Date().addingTimeInterval(3600))
        for device in sync.devices {
            let current = try String(contentsOfFile: device.folder + "/" + name, encoding: .utf8)
            #expect(current == "one 1\n", "the newer modification time keeps the name, as Syncthing resolves")
            let copies = Self.copies(of: name, in: device.folder)
            let texts = try copies.map { try String(contentsOfFile: device.folder + "/" + $0, encoding: .utf8) }
            #expect(texts.contains("zero 1\n"), "the later edit of the device whose clock is right is kept as a version: \(texts)")
            let run = try ICTRunner.run(["versions", "--json", device.folder + "/" + name], killedAfter: 60)
            #expect(run.status == 0, "\(run.stderr)")
            #expect((try json(run.stdout)["state"] as? [String]) == ["inConflict"])
        }
    }

    @Test func aNameThatIsNotUTF8StaysOnItsDeviceListedAsLocalAndNothingHangs() throws {
        let sync = try SyncthingDevices(count: 2)
        defer { sync.stop() }
        let place = sync.root + "/config"
        try FileManager.default.createDirectory(atPath: place + "/ictkit", withIntermediateDirectories: true)
        _ = try PythonScript.run(
            """
            import plistlib, sys
            entries = {'iCloud.test.device%d' % i: {'Path': p, 'Engine': 'syncthing', 'EngineHome': h}
                       for i, (p, h) in enumerate(zip(sys.argv[2::2], sys.argv[3::2]))}
            open(sys.argv[1], 'wb').write(plistlib.dumps({'Containers': entries}))
            """, arguments: [place + "/ictkit/containers.plist"] + sync.devices.flatMap { [$0.folder, $0.home] })
        let environment = ["XDG_CONFIG_HOME": place]
        // Caf\xe9.icfnote: Latin-1, not UTF-8, as an old tool names it.
        let rawName: [UInt8] = Array("Caf".utf8) + [0xE9] + Array(".icfnote".utf8)
        let rawPath = Array(sync.devices[0].folder.utf8) + [UInt8(ascii: "/")] + rawName
        _ = try PythonScript.run(
            "import sys, os; open(os.fsencode(sys.argv[1]) + b'/Caf\\xe9.icfnote', 'wb').write(b'latin\\n')", arguments: [sync.devices[0].folder])
        try Self.write("plain\n", to: sync.devices[0].folder + "/Plain.icfnote")
        try sync.scan(0)
        try sync.waitUntil("Plain.icfnote on device 1, both idle") {
            guard FileManager.default.fileExists(atPath: sync.devices[1].folder + "/Plain.icfnote") else { return false }
            return try sync.isIdleAndComplete(0) && sync.isIdleAndComplete(1)
        }
        // Syncthing skips a name that is not UTF-8: it stays on its device, whole.
        let there = try FileManager.default.contentsOfDirectory(atPath: sync.devices[1].folder).filter { !$0.hasPrefix(".") }
        #expect(there == ["Plain.icfnote"])
        let status = try ICTRunner.run(rawArguments: [Array("status".utf8), rawPath], killedAfter: 60, environment: environment)
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stdout.hasSuffix("\tlocal\n"), "the engine never took it: it is only here: \(status.stdout)")
        let listed = try ICTRunner.run(["list", "--json", sync.devices[0].folder], killedAfter: 60, environment: environment)
        #expect(listed.status == 0, "\(listed.stderr)")
        let documents = try #require(try json(listed.stdout)["documents"] as? [[String: Any]])
        #expect(documents.count == 2)
        #expect(Set(documents.compactMap { $0["sync"] as? String }) == ["local", "current"], "\(documents)")
    }
}
