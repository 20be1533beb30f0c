import Foundation
import TestSupport
import Testing

/// `ict kvstore`: a container's key-value store from the shell, run as the
/// built `ict` on a container folder (`--folder`). What the store's files
/// hold is read back by Python's plistlib, and the files other devices
/// "wrote" are made by plistlib, not by ICTKit.
@Suite(.serialized)
struct KeyValueStoreCommandTests {
    private static func container() throws -> String {
        let folder = try ScratchFolder.make("kvstore").path
        // Resolved, as the store names its files by the container's real folder (`/tmp` may be a link).
        return URL(fileURLWithPath: folder).resolvingSymlinksInPath().path
    }

    /// Each store file's entries as plistlib reads them: file name → key → value (nil for a removal).
    private static func plistlibEntries(_ container: String) throws -> [String: [String: String?]] {
        let script = """
            import json, os, plistlib, sys
            folder = os.path.join(sys.argv[1], ".ictkit-kvstore")
            out = {}
            for name in sorted(os.listdir(folder)):
                with open(os.path.join(folder, name), "rb") as f:
                    top = plistlib.load(f)
                out[name] = {k: (None if e.get("Removed") else str(e["Value"])) for k, e in top["Entries"].items()}
            print(json.dumps(out))
            """
        let run = try ProgramRunner.run("python3", ["-c", script, container])
        try #require(run.status == 0, "plistlib: \(run.stderr)")
        return try JSONDecoder().decode([String: [String: String?]].self, from: Data(run.stdout.utf8))
    }

    /// Writes another device's file as plistlib writes it: `entries` key → value, at `time`.
    private static func writeDeviceFile(_ container: String, device: String, entries: [String: String], time: Int = 1_700_000_000_000) throws {
        let script = """
            import json, os, plistlib, sys
            folder = os.path.join(sys.argv[1], ".ictkit-kvstore")
            os.makedirs(folder, exist_ok=True)
            entries = {k: {"Time": int(sys.argv[4]), "Value": v} for k, v in json.loads(sys.argv[3]).items()}
            top = {"Format": 1, "Device": sys.argv[2], "InitialSyncDone": True, "Entries": entries}
            with open(os.path.join(folder, sys.argv[2] + ".plist"), "wb") as f:
                plistlib.dump(top, f, fmt=plistlib.FMT_BINARY)
            """
        let json = String(decoding: try JSONEncoder().encode(entries), as: UTF8.self)
        let run = try ProgramRunner.run("python3", ["-c", script, container, device, json, String(time)])
        try #require(run.status == 0, "plistlib: \(run.stderr)")
    }

    @Test func twentyProcessesSettingDifferentKeysAtOnceKeepEveryKey() throws {
        let folder = try Self.container()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let keys = (1...20).map { "key\($0)" }
        let runs = try ConcurrentEditTests.runAtOnce(keys.map { ["kvstore", "set", "--folder", folder, $0, "value of \($0)"] })
        for (run, key) in zip(runs, keys) { #expect(run.status == 0, "\(key): \(run.stderr)") }
        let files = try Self.plistlibEntries(folder)
        #expect(files.count == 1, "one device, one file (no temporary left): \(files.keys.sorted())")
        let entries = try #require(files.values.first)
        #expect(entries == Dictionary(uniqueKeysWithValues: keys.map { ($0, "value of \($0)") }))
        let list = try ICTRunner.run(["kvstore", "list", "--folder", folder])
        #expect(list.status == 0)
        #expect(list.stdout == keys.sorted().map { "\($0)\tvalue of \($0)\n" }.joined())
    }

    /// The same on a Syncthing device: the one file the processes wrote reaches the other device with every
    /// key, and no conflict copy is made on either.
    @Test(.enabled(if: SyncthingDevices.isInstalled, "syncthing is not installed (scripts/install-deps.sh test installs it)"))
    func twentyProcessesOnOneSyncthingDeviceKeepEveryKeyOnTheOther() throws {
        let devices = try SyncthingDevices(count: 2)
        defer { devices.stop() }
        let folder = URL(fileURLWithPath: devices.devices[0].folder).resolvingSymlinksInPath().path
        let keys = (1...20).map { "key\($0)" }
        let runs = try ConcurrentEditTests.runAtOnce(keys.map { ["kvstore", "set", "--folder", folder, $0, "value of \($0)"] })
        for (run, key) in zip(runs, keys) { #expect(run.status == 0, "\(key): \(run.stderr)") }
        try? devices.scan(0, ".ictkit-kvstore")
        let expected = Dictionary(uniqueKeysWithValues: keys.map { ($0, "value of \($0)" as String?) })
        try devices.waitUntil("every key in the file on device 2") {
            (try? Self.plistlibEntries(devices.devices[1].folder))?.values.first == expected
        }
        let conflicts = devices.devices.flatMap { device in
            (FileManager.default.enumerator(atPath: device.folder)?.allObjects as? [String] ?? []).filter { $0.contains(".sync-conflict-") }
        }
        #expect(conflicts == [])
    }

    @Test func setGetRemoveAndList() throws {
        let folder = try Self.container()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(try ICTRunner.run(["kvstore", "set", "--folder", folder, "count", "7", "--type", "integer"]).status == 0)
        #expect(try ICTRunner.run(["kvstore", "set", "--folder", folder, "name", "Ann"]).status == 0)
        let get = try ICTRunner.run(["kvstore", "get", "--folder", folder, "count"])
        #expect(get.status == 0)
        #expect(get.stdout == "7\n")
        #expect(try ICTRunner.run(["kvstore", "remove", "--folder", folder, "name"]).status == 0)
        let missing = try ICTRunner.run(["kvstore", "get", "--folder", folder, "name"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("no value for key name"), "\(missing.stderr)")
        let file = try #require(try Self.plistlibEntries(folder).values.first)
        #expect(file == ["count": "7", "name": nil], "the removal is kept, to win over older values elsewhere")
        #expect(try ICTRunner.run(["kvstore", "list", "--folder", folder]).stdout == "count\t7\n")
        #expect(try ICTRunner.run(["kvstore", "list", "--removed", "--folder", folder]).stdout == "count\t7\nname\t(removed)\n")
    }

    /// A key too long, and a value that would take the store past 1 MB in all (an argument cannot be 1 MB
    /// long: Linux holds one to 128 KB; `KeyValueStoreSyncthingTests` sets a value of 1 MB and a byte).
    @Test(arguments: [
        (String(repeating: "k", count: 65), "short value", "key of 65 bytes in UTF-8; keys are at most 64"),
        // By hand: 8 keys of 2 bytes with values of 120,000 bytes, "kept" and "yes" (7), and "v9" (2) with 120,000:
        // 8 × 120,002 + 7 + 120,002 = 1,080,025.
        ("v9", String(repeating: "x", count: 120_000), "would make 1080025 bytes of keys and values; the store holds at most 1048576"),
    ])
    func aChangePastTheLimitsIsRefusedAndNothingOnDiskChanges(_ key: String, _ value: String, _ message: String) throws {
        let folder = try Self.container()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(try ICTRunner.run(["kvstore", "set", "--folder", folder, "kept", "yes"]).status == 0)
        if key == "v9" {
            for index in 1...8 {
                #expect(try ICTRunner.run(["kvstore", "set", "--folder", folder, "v\(index)", String(repeating: "x", count: 120_000)]).status == 0)
            }
        }
        let before = try FolderSnapshot.take(folder)
        let run = try ICTRunner.run(["kvstore", "set", "--folder", folder, key, value])
        #expect(run.status == 1)
        #expect(run.stderr.contains("refused: \(message)"), "\(run.stderr)")
        #expect(run.stderr.contains(key.prefix(20)), "the key is named: \(run.stderr)")
        #expect(try FolderSnapshot.take(folder) == before)
    }

    @Test func aThousandAndTwentyFifthKeyIsRefusedAndValidateNamesAStorePastItsLimits() throws {
        let folder = try Self.container()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Two devices' files of 600 keys each (plistlib's): merged, 1,200 keys, past the 1,024 a store holds.
        try Self.writeDeviceFile(folder, device: "device-a", entries: Dictionary(uniqueKeysWithValues: (0..<600).map { ("a\($0)", "1") }))
        try Self.writeDeviceFile(folder, device: "device-b", entries: Dictionary(uniqueKeysWithValues: (0..<600).map { ("b\($0)", "1") }))
        let set = try ICTRunner.run(["kvstore", "set", "--folder", folder, "one-more", "x"])
        #expect(set.status == 1)
        #expect(set.stderr.contains("would be key 1201; the iCloud key-value store holds at most 1024"), "\(set.stderr)")
        let validate = try ICTRunner.run(["kvstore", "validate", "--folder", folder])
        #expect(validate.status == 1)
        #expect(validate.stderr.contains("error: 1200 keys; the iCloud key-value store holds at most 1024"), "\(validate.stderr)")
    }

    @Test(arguments: ["garbage", "truncated"])
    func anotherDevicesBrokenFileIsAWarningAndTheOthersValuesStay(_ damage: String) throws {
        let folder = try Self.container()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Self.writeDeviceFile(folder, device: "device-a", entries: ["colour": "blue"])
        try Self.writeDeviceFile(folder, device: "device-b", entries: ["size": "large"])
        let broken = folder + "/.ictkit-kvstore/device-b.plist"
        let bytes = try Data(contentsOf: URL(fileURLWithPath: broken))
        try (damage == "garbage" ? Data("garbage, not a property list".utf8) : bytes.prefix(bytes.count - 9)).write(to: URL(fileURLWithPath: broken))
        let run = try ICTRunner.run(["kvstore", "list", "--folder", folder])
        #expect(run.status == 0, "a warning, not an error: \(run.stderr)")
        #expect(run.stdout == "colour\tblue\n")
        #expect(run.stderr.contains("\(broken): warning: skipped: not a store file"), "\(run.stderr)")
    }
}
