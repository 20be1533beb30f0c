import Foundation
import TestSupport
import Testing

/// Issue 39, item 6: `ict containers`, `ict status` and `ict move` from the
/// shell, with the user's configuration (`XDG_CONFIG_HOME`) and one
/// process's container (`ICT_UBIQUITY_CONTAINER`) given to each run, and a
/// real Syncthing pair for the states it tells.
struct ContainerCommandTests {
    /// A scratch folder with a configuration folder and containers in it.
    struct Place {
        let root: String
        init() throws {
            root = try ScratchFolder.make("containers").resolvingSymlinksInPath().path
            try FileManager.default.createDirectory(atPath: root + "/config/ictkit", withIntermediateDirectories: true)
        }
        func folder(_ name: String) throws -> String {
            try FileManager.default.createDirectory(atPath: root + "/" + name, withIntermediateDirectories: true)
            return root + "/" + name
        }
        /// Writes containers.plist with plistlib: `entries` is a Python literal of the Containers dictionary.
        func configure(_ entries: String, default identifier: String? = nil) throws {
            let defaultLine = identifier.map { ", 'DefaultContainer': '\($0)'" } ?? ""
            _ = try PythonScript.run(
                "import plistlib, sys; open(sys.argv[1], 'wb').write(plistlib.dumps({'Containers': \(entries)\(defaultLine)}))",
                arguments: [root + "/config/ictkit/containers.plist"])
        }
        var environment: [String: String] { ["XDG_CONFIG_HOME": root + "/config"] }
        func remove() { try? FileManager.default.removeItem(atPath: root) }
    }

    private func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func containersListsTheProcesssOneFirstThenTheConfiguredOnesWithTheirEnginesState() throws {
        let place = try Place()
        defer { place.remove() }
        let notes = try place.folder("Notes"), photos = try place.folder("Photos"), mine = try place.folder("Mine")
        // Nothing listens on port 9 of 127.0.0.1 (discard is not served here): the engine cannot be asked.
        try place.configure(
            "{'iCloud.test.Notes': {'Path': '\(notes)'}, 'iCloud.test.Photos': {'Path': '\(photos)', 'Engine': 'syncthing', "
                + "'EngineAddress': '127.0.0.1:9', 'EngineAPIKey': 'key', 'EngineFolderID': 'photos'}}", default: "iCloud.test.Photos")
        var environment = place.environment
        environment["ICT_UBIQUITY_CONTAINER"] = mine
        let run = try ICTRunner.run(["containers", "--json", "--timeout", "0.5"], environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        let containers = try #require(try json(run.stdout)["containers"] as? [[String: Any]])
        #expect(containers.map { $0["identifier"] as? String } == [mine, "iCloud.test.Notes", "iCloud.test.Photos"])
        #expect(containers.map { $0["isDefault"] as? Bool } == [true, false, false], "ICT_UBIQUITY_CONTAINER's folder is the default")
        #expect(containers.map { $0["state"] as? String } == ["-", "-", "unknown"])
        #expect((containers[2]["reason"] as? String)?.contains("127.0.0.1:9") == true)

        let text = try ICTRunner.run(["containers", "--timeout", "0.5"], environment: place.environment)
        #expect(text.status == 0)
        #expect(text.stdout.contains("iCloud.test.Photos (default)\tsyncthing\tunknown\t\(photos)"), "\(text.stdout)")
        #expect(text.stderr.contains("warning") && text.stderr.contains("iCloud.test.Photos"), "\(text.stderr)")
    }

    @Test func aMalformedConfigurationIsAnErrorNamingTheFileAndLine() throws {
        let place = try Place()
        defer { place.remove() }
        let file = place.root + "/config/ictkit/containers.plist"
        try Data("<?xml version=\"1.0\"?>\n<plist version=\"1.0\">\n<dict>\n<key>Containers</key>\n<string>oops</dict>\n</plist>\n".utf8)
            .write(to: URL(fileURLWithPath: file))
        for arguments in [["containers"], ["status", place.root], ["move", place.root + "/a", place.root + "/b"]] {
            let run = try ICTRunner.run(arguments, environment: place.environment)
            #expect(run.status == 1, "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains(file) && run.stderr.contains("5:"), "\(arguments): the error names the file and line: \(run.stderr)")
        }
    }

    @Test func moveTakesANoteIntoTheContainerAndOutAgainAndRefusesWhatItCannotDo() throws {
        let place = try Place()
        defer { place.remove() }
        let container = try place.folder("Container")
        let local = try place.folder("Local")
        try FileManager.default.createDirectory(atPath: container + "/Documents", withIntermediateDirectories: true)
        try Data("milk\n".utf8).write(to: URL(fileURLWithPath: local + "/List.icfnote"))
        let environment = ["ICT_UBIQUITY_CONTAINER": container]

        let into = try ICTRunner.run(["move", "--json", local + "/List.icfnote", container + "/Documents/List.icfnote"], environment: environment)
        #expect(into.status == 0, "\(into.stderr)")
        #expect(try json(into.stdout)["ubiquitous"] as? Bool == true)
        #expect(!FileManager.default.fileExists(atPath: local + "/List.icfnote"))
        #expect(try String(contentsOfFile: container + "/Documents/List.icfnote", encoding: .utf8) == "milk\n")

        let status = try ICTRunner.run(["status", "--json", container + "/Documents/List.icfnote"], environment: environment)
        #expect(status.status == 0, "\(status.stderr)")
        let items = try #require(try json(status.stdout)["items"] as? [[String: Any]])
        #expect(items.first?["state"] as? String == "-" && items.first?["engine"] as? String == "folder")

        // Something already at the destination: nothing moves, nothing is replaced.
        try Data("other\n".utf8).write(to: URL(fileURLWithPath: local + "/List.icfnote"))
        let taken = try ICTRunner.run(["move", container + "/Documents/List.icfnote", local + "/List.icfnote"], environment: environment)
        #expect(taken.status == 1 && taken.stderr.contains("already exists"), "\(taken.stderr)")
        #expect(try String(contentsOfFile: local + "/List.icfnote", encoding: .utf8) == "other\n")
        #expect(try String(contentsOfFile: container + "/Documents/List.icfnote", encoding: .utf8) == "milk\n")

        let out = try ICTRunner.run(["move", container + "/Documents/List.icfnote", local + "/Back.icfnote"], environment: environment)
        #expect(out.status == 0, "\(out.stderr)")
        #expect(out.stdout.contains("moved out of its container"))
        #expect(try String(contentsOfFile: local + "/Back.icfnote", encoding: .utf8) == "milk\n")

        let sideways = try ICTRunner.run(["move", local + "/Back.icfnote", local + "/Again.icfnote"], environment: environment)
        #expect(sideways.status == 1 && sideways.stderr.contains("use mv"), "\(sideways.stderr)")
        let outside = try ICTRunner.run(["status", local + "/Back.icfnote"], environment: environment)
        #expect(outside.status == 1 && outside.stderr.contains("is in no ubiquity container"), "\(outside.stderr)")
    }

    @Test(.enabled(if: SyncthingDevices.isInstalled, "syncthing is not installed (scripts/install-deps.sh test installs it)"))
    func statusOnRealDevicesSaysCurrentAndUploadedAndUnknownOnceTheEngineIsGone() throws {
        let sync = try SyncthingDevices(count: 2)
        defer { sync.stop() }
        let place = try Place()
        defer { place.remove() }
        let entries = sync.devices.enumerated().map { index, device in
            "'iCloud.test.device\(index)': {'Path': '\(device.folder)', 'Engine': 'syncthing', 'EngineHome': '\(device.home)'}"
        }
        try place.configure("{" + entries.joined(separator: ", ") + "}")
        try Data("eggs\n".utf8).write(to: URL(fileURLWithPath: sync.devices[0].folder + "/Eggs.icfnote"))
        try sync.scan(0)
        try sync.waitUntil("Eggs.icfnote on device 1") { FileManager.default.fileExists(atPath: sync.devices[1].folder + "/Eggs.icfnote") }
        try sync.waitUntil("both devices idle") { try sync.isIdleAndComplete(0) && sync.isIdleAndComplete(1) }

        var uploaded = false
        try sync.waitUntil("device 0 says Eggs.icfnote is uploaded") {
            let run = try ICTRunner.run(["status", "--json", sync.devices[0].folder + "/Eggs.icfnote"], environment: place.environment)
            let item = (try? self.json(run.stdout)["items"] as? [[String: Any]])?.first
            uploaded = item?["isUploaded"] as? Bool == true && item?["state"] as? String == "current"
            return uploaded
        }
        let there = try ICTRunner.run(["status", sync.devices[1].folder + "/Eggs.icfnote"], environment: place.environment)
        #expect(there.status == 0 && there.stdout.hasSuffix("\tcurrent\n"), "\(there.stdout)\(there.stderr)")

        // ict list shows the SYNC column, and --json the state, from one asking of the engine for the folder.
        let listed = try ICTRunner.run(["list", "--json", sync.devices[1].folder], environment: place.environment)
        #expect(listed.status == 0, "\(listed.stderr)")
        let documents = try #require(try json(listed.stdout)["documents"] as? [[String: Any]])
        #expect(documents.map { $0["sync"] as? String } == ["current"], "\(listed.stderr)")
        let table = try ICTRunner.run(["list", sync.devices[1].folder], environment: place.environment)
        #expect(table.stdout.hasPrefix("NAME ") && table.stdout.contains("SYNC") && table.stdout.contains("current"), "\(table.stdout)")
        let plain = try ICTRunner.run(["list", sync.devices[1].folder])
        #expect(!plain.stdout.contains("SYNC"), "no column outside a configured container: \(plain.stdout)")

        sync.crash(1)
        let gone = try ICTRunner.run(["status", "--json", sync.devices[1].folder + "/Eggs.icfnote"], environment: place.environment)
        #expect(gone.status == 0)
        let item = try #require((try json(gone.stdout)["items"] as? [[String: Any]])?.first)
        #expect(item["state"] as? String == "unknown" && (item["reason"] as? String)?.contains("not answering") == true, "\(item)")
    }
}
