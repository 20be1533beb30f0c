import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Several processes editing one file at once (issue 20, class 1): every
/// `ict` run that says "saved" has its change in the file, every other run
/// exits 1 saying why, and a writer that takes no lock (a sync tool renaming
/// its copy into place) never has its version overwritten by an `ict` run
/// that did not read it. The file's contents are read back by Python's
/// plistlib, not by ICTKit.
@Suite(.serialized)
struct ConcurrentEditTests {
    static func folder() throws -> String {
        let folder = try ScratchFolder.make("concurrent").path
        return folder
    }

    /// The keys of the top dictionary of a property list, as plistlib reads it.
    static func plistlibKeys(_ path: String) throws -> Set<String> {
        let run = try ProgramRunner.run(
            "python3", ["-c", "import plistlib, sys, json; print(json.dumps(sorted(plistlib.load(open(sys.argv[1], 'rb')).keys())))", path])
        try #require(run.status == 0, "plistlib cannot read \(path): \(run.stderr)")
        return Set(try JSONDecoder().decode([String].self, from: Data(run.stdout.utf8)))
    }

    /// Starts every command at once, then waits for all (at most `limit` seconds each, then the child is killed and the test fails).
    static func runAtOnce(_ commands: [[String]], limit: Double = 300) throws -> [ProgramRun] {
        let scratch = try folder()
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        var children: [(Process, URL, URL)] = []
        for (index, arguments) in commands.enumerated() {
            let out = URL(fileURLWithPath: "\(scratch)/\(index).out")
            let err = URL(fileURLWithPath: "\(scratch)/\(index).err")
            _ = FileManager.default.createFile(atPath: out.path, contents: nil)
            _ = FileManager.default.createFile(atPath: err.path, contents: nil)
            let process = Process()
            process.executableURL = ICTRunner.executable
            process.arguments = arguments
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = try FileHandle(forWritingTo: out)
            process.standardError = try FileHandle(forWritingTo: err)
            try process.run()
            children.append((process, out, err))
        }
        return try children.map { process, out, err in
            let deadline = Date().addingTimeInterval(limit)
            while process.isRunning, Date() < deadline { usleep(2_000) }
            if process.isRunning {
                process.terminate()
                Issue.record("\(process.arguments ?? []) did not end within \(Int(limit)) s")
            }
            process.waitUntilExit()
            return ProgramRun(
                status: process.terminationStatus, output: try Data(contentsOf: out),
                stderr: try String(contentsOf: err, encoding: .utf8))
        }
    }

    /// Each run either saved (exit 0, "saved") and its key is in the file,
    /// or failed (exit 1) saying the file changed or the lock was not had.
    static func checkOutcomes(_ runs: [ProgramRun], keys: [String], in present: Set<String>) {
        for (run, key) in zip(runs, keys) {
            #expect(run.status < 128, "\(key): the run crashed: \(run.stderr)")
            if run.status == 0 {
                #expect(run.stdout.hasSuffix(": saved\n"), "\(key): \(run.stdout)")
                #expect(present.contains(key), "\(key): the run said saved, but the key is not in the file")
            } else {
                #expect(run.status == 1, "\(key): exit \(run.status): \(run.stderr)")
                #expect(
                    run.stderr.contains("changed since it was read") || run.stderr.contains("lock"),
                    "\(key): a failure must say why: \(run.stderr)")
            }
        }
    }

    @Test func twentyConcurrentSetsOfOnePlainFileAllLand() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/c.plist"
        try Data(#"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict/></plist>"#.utf8).write(to: URL(fileURLWithPath: path))
        let keys = (1...20).map { "key\($0)" }
        let runs = try Self.runAtOnce(keys.enumerated().map { ["set", path, $1, "-integer", "\($0 + 1)"] })
        let present = try Self.plistlibKeys(path)
        Self.checkOutcomes(runs, keys: keys, in: present)
        // Writers on one machine take turns through the lock: none is refused.
        #expect(runs.allSatisfy { $0.status == 0 }, "\(runs.filter { $0.status != 0 }.map(\.stderr))")
        #expect(present == Set(keys))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["c.plist"], "nothing is left beside the file")
    }

    @Test func twentyConcurrentPlutilReplacesOfOnePlainFileAllLand() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/p.plist"
        try Data(#"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict/></plist>"#.utf8).write(to: URL(fileURLWithPath: path))
        let keys = (1...20).map { "k\($0)" }
        let runs = try Self.runAtOnce(keys.map { ["plutil", "-replace", $0, "-bool", "YES", path] })
        #expect(runs.allSatisfy { $0.status == 0 }, "\(runs.map(\.stderr))")
        #expect(try Self.plistlibKeys(path) == Set(keys))
    }

    @Test func twentyConcurrentSetsOfOnePackageEntryAllLand() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let document = folder + "/Doc.ict"
        try FileManager.default.copyItem(atPath: Repository.root.path + "/SampleDocs/Coffee.ict", toPath: document)
        let metadataBefore = try Data(contentsOf: URL(fileURLWithPath: document + "/ctdocument.metadata"))
        let keys = (1...20).map { "K\($0)" }
        let runs = try Self.runAtOnce(keys.enumerated().map { ["set", document, "ctdocument.data:\($1)", "-integer", "\($0 + 1)"] })
        #expect(runs.allSatisfy { $0.status == 0 }, "\(runs.map(\.stderr))")
        // The entry is a keyed archive: the root object's keys, found through plistlib.
        let script = """
            import plistlib, sys, json
            a = plistlib.load(open(sys.argv[1], 'rb'))
            data = a['$objects'][a['$top']['DATA'].data]
            print(json.dumps(sorted(data.keys())))
            """
        let run = try ProgramRunner.run("python3", ["-c", script, document + "/ctdocument.data"])
        try #require(run.status == 0, "\(run.stderr)")
        let present = Set(try JSONDecoder().decode([String].self, from: Data(run.stdout.utf8)))
        Self.checkOutcomes(runs, keys: keys, in: present)
        #expect(present.isSuperset(of: keys))
        #expect(try Data(contentsOf: URL(fileURLWithPath: document + "/ctdocument.metadata")) == metadataBefore, "the other entry is untouched")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["Doc.ict"], "nothing is left beside the document")
        #expect(try Set(FileManager.default.contentsOfDirectory(atPath: document)) == ["ctdocument.data", "ctdocument.metadata"])
    }

    @Test func concurrentDisplayNameSetsOfOneDocumentEachLandOrSayWhy() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let document = folder + "/Doc.ict"
        try FileManager.default.copyItem(atPath: Repository.root.path + "/SampleDocs/Coffee.ict", toPath: document)
        let names = (1...10).map { "Name \($0)" }
        let runs = try Self.runAtOnce(names.map { ["set", document, "--display-name", $0] })
        #expect(runs.allSatisfy { $0.status == 0 }, "\(runs.map(\.stderr))")
        let script = """
            import plistlib, sys
            a = plistlib.load(open(sys.argv[1], 'rb'))
            o = a['$objects']
            print(o[o[a['$top']['DATA'].data]['DISPLAY NAME'].data])
            """
        let shown = try ProgramRunner.run("python3", ["-c", script, document + "/ctdocument.metadata"])
        #expect(names.contains(shown.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), "\(shown.stdout) \(shown.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["Doc.ict"], "nothing is left beside the document")
    }

    /// A process that dies holding the lock (SIGKILL: no clean-up of its
    /// own) releases it: an `ict set` waiting for it then saves.
    @Test func aLockHeldByAKilledProcessIsReleased() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/held.plist"
        try Data(#"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict/></plist>"#.utf8).write(to: URL(fileURLWithPath: path))
        let holder = Process()
        holder.executableURL = ICTRunner.executable.deletingLastPathComponent().appendingPathComponent("LockHolder")
        holder.arguments = [path]
        let holderInput = Pipe()
        let holderOutput = Pipe()
        holder.standardInput = holderInput
        holder.standardOutput = holderOutput
        try holder.run()
        let said = String(decoding: holderOutput.fileHandleForReading.readData(ofLength: 7), as: UTF8.self)
        try #require(said == "locked\n", "the holder did not take the lock: \(said)")

        let editor = Process()
        editor.executableURL = ICTRunner.executable
        editor.arguments = ["set", path, "after", "-integer", "1"]
        let editorOutput = Pipe()
        editor.standardOutput = editorOutput
        editor.standardError = FileHandle.nullDevice
        try editor.run()
        // While the lock is held the edit waits (for up to a second here: it must not have saved by then).
        let deadline = Date().addingTimeInterval(1)
        while editor.isRunning, Date() < deadline { usleep(5_000) }
        #expect(editor.isRunning, "ict set did not wait for the lock")
        #expect(try Self.plistlibKeys(path).isEmpty, "the file changed while another process held the lock")

        kill(holder.processIdentifier, SIGKILL)
        holder.waitUntilExit()
        let limit = Date().addingTimeInterval(60)
        while editor.isRunning, Date() < limit { usleep(5_000) }
        try #require(!editor.isRunning, "ict set still waits a minute after the holder died")
        #expect(editor.terminationStatus == 0)
        #expect(String(decoding: editorOutput.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).hasSuffix(": saved\n"))
        #expect(try Self.plistlibKeys(path) == ["after"])
    }

    /// A writer that takes no lock renames a new version of the file into
    /// place again and again (as a sync tool does) while `ict set` edits it
    /// 200 times. Each version carries its generation; before each rename
    /// the writer looks at what is in place. Were an `ict` run to save over
    /// a version it had not read, the writer would find an older generation
    /// in place than the one it last wrote. No run may report "saved" for
    /// such a save, and every other run must say the file changed.
    @Test func aWriterThatTakesNoLockIsNeverOverwrittenUnread() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/synced.plist"
        let stop = folder + "/stop"
        let writer = """
            import plistlib, os, sys, time
            path, stop = sys.argv[1], sys.argv[2]
            plistlib.dump({'gen': 0}, open(path, 'wb'), fmt=plistlib.FMT_BINARY)
            print('ready', flush=True)
            last, violations, writes = 0, 0, 0
            deadline = time.monotonic() + 600
            while not os.path.exists(stop) and time.monotonic() < deadline:
                seen = plistlib.load(open(path, 'rb'))
                if seen['gen'] < last:
                    violations += 1
                    sys.stderr.write('generation %d was overwritten by a save based on generation %d\\n' % (last, seen['gen']))
                last += 1
                temporary = path + '.sync-tmp'
                plistlib.dump({'gen': last}, open(temporary, 'wb'), fmt=plistlib.FMT_BINARY)
                os.rename(temporary, path)
                writes += 1
                time.sleep(0.002)  # pacing, as a sync tool brings versions from time to time; not synchronisation
            print('writes %d violations %d' % (writes, violations), flush=True)
            """
        let script = folder + "/writer.py"
        try Data(writer.utf8).write(to: URL(fileURLWithPath: script))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, path, stop]
        let output = Pipe()
        process.standardOutput = output
        let errorFile = URL(fileURLWithPath: folder + "/writer.err")
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: errorFile)
        try process.run()
        let reader = output.fileHandleForReading
        // The writer says "ready" once the first version is in place (a bounded read: it exits if it fails).
        let ready = String(decoding: reader.readData(ofLength: 6), as: UTF8.self)
        try #require(ready == "ready\n", "the writer did not start: \(ready)")

        var saved = 0
        var refused = 0
        for round in 0..<200 {
            let run = try ICTRunner.run(["set", path, "ict", "-integer", "\(round)"])
            #expect(run.status < 128, "round \(round) crashed: \(run.stderr)")
            if run.status == 0 {
                #expect(run.stdout.hasSuffix(": saved\n"))
                saved += 1
            } else {
                #expect(run.status == 1)
                #expect(run.stderr.contains("changed since it was read"), "round \(round): \(run.stderr)")
                refused += 1
            }
        }
        _ = FileManager.default.createFile(atPath: stop, contents: nil)
        let summary = String(decoding: reader.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let complaints = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
        #expect(process.terminationStatus == 0, "the writer failed: \(complaints)")
        #expect(summary.contains("violations 0"), "\(summary) \(complaints)")
        #expect(saved > 0, "no run could save at all (\(refused) refused)")
        print("ConcurrentEditTests: 200 ict set runs against a writer that takes no lock: \(saved) saved, \(refused) refused; writer: \(summary)")
        #expect(try Self.plistlibKeys(path).contains("gen"), "the file reads")
    }
}
