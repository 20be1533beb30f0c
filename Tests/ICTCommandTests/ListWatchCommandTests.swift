import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `ict list --watch`: the list, then one line per change to the folder's
/// documents, made by other processes while it runs, until SIGINT or SIGTERM
/// ends it with exit status 0.
@Suite struct ListWatchCommandTests {
    /// A running `ict list --watch`, its standard output a pipe read line by
    /// line, each line waited for at most a bound (the changes are seen from
    /// inotify, so a line comes as soon as the child sees the change).
    final class Watch {
        let pid: pid_t
        private let output: Int32
        private let errorPath: String
        private var pending: [UInt8] = []
        private var outputEnded = false
        private var reaped = false

        init(_ arguments: [String], scratch: String) throws {
            var ends: [Int32] = [0, 0]
            guard pipe(&ends) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            // Only the child's dup of the write end may outlive the spawn, or the read end would never see the end.
            for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            errorPath = scratch + "/watch-stderr"
            let errorDescriptor = open(errorPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            defer {
                close(ends[1])
                close(errorDescriptor)
            }
            output = ends[0]
            pid = try ICTRunner.spawn(["list", "--watch"] + arguments, standardOutput: ends[1], standardError: errorDescriptor)
        }

        deinit {
            if !reaped {
                kill(pid, SIGKILL)
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            }
            close(output)
        }

        /// The next line of standard output, waiting at most `seconds` for
        /// it; nil when none came by then or the output ended.
        func nextLine(within seconds: Int64 = 30) -> String? {
            let deadline = ContinuousClock.now + .seconds(seconds)
            while true {
                if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: pending[..<newline], as: UTF8.self)
                    pending.removeSubrange(...newline)
                    return line
                }
                let left = ContinuousClock.now.duration(to: deadline)
                guard !outputEnded, left > .zero else { return nil }
                var ready = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
                let milliseconds = left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000
                // Interrupted or timed out: the loop looks at the deadline again.
                guard poll(&ready, 1, Int32(max(1, milliseconds))) > 0 else { continue }
                var buffer = [UInt8](repeating: 0, count: 4096)
                let count = read(output, &buffer, buffer.count)
                if count > 0 { pending += buffer[..<count] } else if count == 0 || errno != EINTR { outputEnded = true }
            }
        }

        /// Sends `signal`, reads standard output to its end and waits for the
        /// process: its exit status (128 + N when a signal ended it) and the
        /// lines it printed after those already read.
        func end(with signal: Int32) -> (status: Int32, rest: [String]) {
            kill(pid, signal)
            var rest: [String] = []
            while let line = nextLine() { rest.append(line) }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            reaped = true
            return ((status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F), rest)
        }

        /// What it printed on standard error so far.
        var standardError: String { (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "" }
    }

    /// A new scratch folder holding `Docs` (watched) and `staging` (beside
    /// it on the same file system, for renames into and out of `Docs`).
    private func scratch() throws -> String {
        let path = try ScratchFolder.make("ict-watch").path
        try FileManager.default.createDirectory(atPath: path + "/Docs", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: path + "/staging", withIntermediateDirectories: true)
        return path
    }

    private func object(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
    }

    /// Issue 23's acceptance 2: a document created, edited, given a conflict
    /// copy, resolved and removed while `--watch --jsonl` runs gives exactly
    /// those five updates, in order, each line valid against the schema;
    /// SIGTERM then ends it with exit status 0 and nothing more printed.
    @Test(.enabled(if: ContractTests.pythonHasJSONSchema, "python3's jsonschema is missing: scripts/install-deps.sh test installs it"))
    func aDocumentsLifeGivesFiveUpdatesInOrder() throws {
        let scratch = try scratch()
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let folder = scratch + "/Docs", document = scratch + "/Docs/Doc.ict"
        let watch = try Watch(["--jsonl", folder], scratch: scratch)
        // The folder is empty: the first line says the list is complete, and changes are watched from then on.
        var lines = [try #require(watch.nextLine(), "no listed line; standard error: \(watch.standardError)")]

        func expectLine(after action: String, _ change: () throws -> Void) throws {
            try change()
            lines.append(try #require(watch.nextLine(), "no line after \(action); standard error: \(watch.standardError)"))
        }
        try expectLine(after: "create") {
            let run = try ICTRunner.run(["create", "--name", "Doc", "--display-name", "Ada", "-o", folder])
            #expect(run.status == 0, "\(run.stderr)")
        }
        try expectLine(after: "set") {
            let run = try ICTRunner.run(["set", document, "--display-name", "Grace"])
            #expect(run.status == 0, "\(run.stderr)")
        }
        try expectLine(after: "a conflict copy") {
            // Copied whole beside the folder, then renamed in: a sync tool's copy appears at once.
            try FileManager.default.copyItem(atPath: Repository.path("SampleDocs/Rocket.ict"), toPath: scratch + "/staging/copy.ict")
            #expect(rename(scratch + "/staging/copy.ict", folder + "/Doc.sync-conflict-20261125-101010-ABCDEFG.ict") == 0)
        }
        try expectLine(after: "resolve") {
            let run = try ICTRunner.run(["resolve", document, "--keep", "current"])
            #expect(run.status == 0, "\(run.stderr)")
        }
        try expectLine(after: "removal") {
            #expect(rename(document, scratch + "/staging/gone.ict") == 0)
            try FileManager.default.removeItem(atPath: scratch + "/staging/gone.ict")
        }
        let (status, rest) = watch.end(with: SIGTERM)
        #expect(status == 0, "\(watch.standardError)")
        #expect(rest == [], "more lines than the five updates")
        #expect(!watch.standardError.contains(": error: "), "\(watch.standardError)")
        // ICTKit's own save temporaries (.Doc.ict.ict-new-…) are never searched or told, and a folder
        // gone before it could be watched is not a problem: standard error stays empty.
        #expect(watch.standardError == "")

        let objects = try lines.map(object)
        #expect(objects.map { $0["update"] as? String } == ["listed", "added", "changed", "conflict", "resolved", "removed"])
        #expect(objects.map { $0["path"] as? String } == [folder] + Array(repeating: document, count: 5))
        // The display names given to create and set; the copy (Rocket) never shows as a document.
        #expect(objects.dropFirst().map { $0["displayName"] as? String } == ["Ada", "Grace", "Grace", "Grace", "Grace"])
        #expect(objects.dropFirst().map { $0["inConflict"] as? Bool } == [false, false, true, false, false])
        #expect(objects.allSatisfy { $0["command"] as? String == "list" && $0["ok"] as? Bool == true })
        let schema = Repository.path("Schemas/cli/list-watch.jsonl.schema.json")
        let problem = try ContractTests.lineSchemaProblem(lines.map { $0 + "\n" }.joined(), schema: schema)
        #expect(problem == nil, "\(problem ?? "")")
    }

    /// Without `--jsonl` and off a terminal: the table as `ict list` prints
    /// it, then `KIND<TAB>PATH` for each change; SIGINT ends it with exit status 0.
    @Test func theTableThenALinePerChangeUntilSIGINT() throws {
        let scratch = try scratch()
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let folder = scratch + "/Docs"
        try FileManager.default.copyItem(atPath: Repository.path("SampleDocs/Coffee.ict"), toPath: folder + "/Coffee.ict")
        // A document in a subfolder, which only -r watches.
        try FileManager.default.createDirectory(atPath: folder + "/Nested", withIntermediateDirectories: false)
        let once = try ICTRunner.run(["list", folder])
        #expect(once.status == 0, "\(once.stderr)")
        let watch = try Watch([folder], scratch: scratch)
        var table: [String] = []
        for _ in once.stdout.split(separator: "\n") {
            table.append(try #require(watch.nextLine(), "the table was not printed whole; standard error: \(watch.standardError)"))
        }
        #expect(table.joined(separator: "\n") + "\n" == once.stdout)

        try FileManager.default.copyItem(atPath: Repository.path("SampleDocs/Rocket.ict"), toPath: scratch + "/staging/Nested.ict")
        #expect(rename(scratch + "/staging/Nested.ict", folder + "/Nested/Nested.ict") == 0)
        try FileManager.default.copyItem(atPath: Repository.path("SampleDocs/Rocket.ict"), toPath: scratch + "/staging/New.ict")
        #expect(rename(scratch + "/staging/New.ict", folder + "/New.ict") == 0)
        #expect(watch.nextLine() == "added\t\(folder)/New.ict", "\(watch.standardError)")
        let (status, rest) = watch.end(with: SIGINT)
        #expect(status == 0, "\(watch.standardError)")
        // The nested document is not the folder's own: never told without -r.
        #expect(rest == [])
    }

    /// With `-r`, a document in a subfolder is watched too, and its line names it under the folder.
    /// With `--html`, the contact sheet is written after the list and
    /// rewritten after each change (page, then its stamp): a note renamed in
    /// is told as added and is then on the page, and the stamp's generation
    /// has grown. Every kind `ict list` lists is watched, not only `.ict`.
    @Test func withHTMLTheSheetIsRewrittenAfterEachChange() throws {
        let scratch = try scratch()
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let folder = scratch + "/Docs"
        let page = scratch + "/sheet.html"
        try FileManager.default.copyItem(atPath: Repository.path("SampleDocs/Coffee.ict"), toPath: folder + "/Coffee.ict")
        let watch = try Watch(["--html", page, folder], scratch: scratch)
        let once = try ICTRunner.run(["list", folder])
        for _ in once.stdout.split(separator: "\n") {
            _ = try #require(watch.nextLine(), "the table was not printed whole; standard error: \(watch.standardError)")
        }
        let first = try String(contentsOfFile: page, encoding: .utf8)
        #expect(first.contains("Coffee"), "the sheet after the list does not show Coffee.ict")
        #expect(!first.contains("Milk and bread"))
        let firstStamp = try String(contentsOfFile: page + ".stamp.js", encoding: .utf8)

        try Data("Milk and bread\n".utf8).write(to: URL(fileURLWithPath: scratch + "/staging/Shopping.icfnote"))
        #expect(rename(scratch + "/staging/Shopping.icfnote", folder + "/Shopping.icfnote") == 0)
        #expect(watch.nextLine() == "added\t\(folder)/Shopping.icfnote", "\(watch.standardError)")
        // The sheet is written before the change's line is printed.
        let second = try String(contentsOfFile: page, encoding: .utf8)
        #expect(second.contains("Shopping"), "the rewritten sheet does not show the note")
        #expect(second.contains("Coffee"))
        let secondStamp = try String(contentsOfFile: page + ".stamp.js", encoding: .utf8)
        #expect(secondStamp != firstStamp, "the stamp was not rewritten: \(secondStamp)")
        let (status, _) = watch.end(with: SIGTERM)
        #expect(status == 0, "\(watch.standardError)")
    }

    @Test func recursivelyANestedDocumentIsTold() throws {
        let scratch = try scratch()
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let folder = scratch + "/Docs"
        try FileManager.default.createDirectory(atPath: folder + "/Nested", withIntermediateDirectories: false)
        let watch = try Watch(["-r", "--jsonl", folder], scratch: scratch)
        let listed = try object(try #require(watch.nextLine(), "no listed line; standard error: \(watch.standardError)"))
        #expect(listed["update"] as? String == "listed")
        try FileManager.default.copyItem(atPath: Repository.path("SampleDocs/Rocket.ict"), toPath: scratch + "/staging/N.ict")
        #expect(rename(scratch + "/staging/N.ict", folder + "/Nested/N.ict") == 0)
        let added = try object(try #require(watch.nextLine(), "no line for the nested document; standard error: \(watch.standardError)"))
        #expect(added["update"] as? String == "added")
        #expect(added["path"] as? String == folder + "/Nested/N.ict")
        // Rocket.ict's display name, as `ict list SampleDocs` shows it (README).
        #expect(added["displayName"] as? String == "Rocket")
        let (status, rest) = watch.end(with: SIGTERM)
        #expect(status == 0)
        #expect(rest == [])
    }

    /// `--watch` takes a folder and prints lines: with `--files-from` or
    /// `--json` it is a usage error; a folder that is not there fails the run at once.
    @Test func usageErrorsAndAMissingFolder() throws {
        for arguments in [["list", "--watch", "--json", "."], ["list", "--watch", "--files-from", "-"], ["list", "--watch"]] {
            let run = try ICTRunner.run(arguments, stdin: Data())
            #expect(run.status == 64, "\(arguments): \(run.stderr)")
            #expect(run.stderr.hasPrefix("ict: error: "), "\(run.stderr)")
        }
        let missing = try ICTRunner.run(["list", "--watch", "/nonexistent-ict-watch"])
        #expect(missing.status == 1)
        #expect(missing.stdout == "")
        #expect(missing.stderr.hasPrefix("/nonexistent-ict-watch: error: "), "\(missing.stderr)")
    }

    // MARK: Deaf or mute (issue 38 item 9)

    /// A note whose name is not UTF-8 (`caf\xE9.icfnote`, Latin-1), renamed
    /// into the folder, is told as added under the path `ict list` gives it.
    @Test func aNoteWhoseNameIsNotUTF8IsTold() throws {
        let scratch = try scratch()
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let folder = scratch + "/Docs"
        let watch = try Watch(["--jsonl", folder], scratch: scratch)
        _ = try #require(watch.nextLine(), "no listed line; standard error: \(watch.standardError)")
        let name = Array("caf".utf8) + [0xE9] + Array(".icfnote".utf8)
        let staged = Array((scratch + "/staging/").utf8) + name, placed = Array((folder + "/").utf8) + name
        let written = (staged + [0]).withUnsafeBufferPointer { path in
            path.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_WRONLY | O_CREAT | O_EXCL, 0o644) }
        }
        #expect(written >= 0)
        #expect(write(written, "Milk\n", 5) == 5)
        close(written)
        let renamed = (staged + [0]).withUnsafeBufferPointer { from in
            (placed + [0]).withUnsafeBufferPointer { to in
                from.withMemoryRebound(to: CChar.self) { from in to.withMemoryRebound(to: CChar.self) { rename(from.baseAddress!, $0.baseAddress!) } }
            }
        }
        #expect(renamed == 0)
        let line = try object(try #require(watch.nextLine(), "the note was never told; standard error: \(watch.standardError)"))
        #expect(line["update"] as? String == "added")
        let listed = try ICTRunner.run(["list", "--jsonl", folder])
        #expect(listed.status == 0, "\(listed.stderr)")
        let listedPath = try object(try #require(listed.stdout.split(separator: "\n").first.map(String.init)))["path"] as? String
        #expect(line["path"] as? String == listedPath)
        #expect(listedPath?.hasSuffix(".icfnote") == true)
        let (status, rest) = watch.end(with: SIGTERM)
        #expect(status == 0)
        #expect(rest == [])
        #expect(watch.standardError == "")
    }

    /// A document whose name starts with a combining mark (`/` + U+0301 is one Swift `Character`),
    /// renamed into the folder, is told as added under the path `ict list` gives it, in its folder.
    /// (The watch cut the name off the item's path by characters and took one too many, since the slash
    /// and the mark are one: the line named `…/Doc/\u{301}Accent.ict`, a folder that is not there.)
    @Test func aDocumentWhoseNameStartsWithACombiningMarkIsTold() throws {
        let scratch = try scratch()
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let folder = scratch + "/Docs"
        let watch = try Watch(["--jsonl", folder], scratch: scratch)
        _ = try #require(watch.nextLine(), "no listed line; standard error: \(watch.standardError)")
        let name = "\u{301}Accent.ict"
        try FileManager.default.copyItem(atPath: Repository.path("SampleDocs/Coffee.ict"), toPath: scratch + "/staging/" + name)
        #expect(rename(scratch + "/staging/" + name, folder + "/" + name) == 0)
        let line = try object(try #require(watch.nextLine(), "the document was never told; standard error: \(watch.standardError)"))
        #expect(line["update"] as? String == "added")
        let listed = try ICTRunner.run(["list", "--jsonl", folder])
        #expect(listed.status == 0, "\(listed.stderr)")
        let listedPath = try object(try #require(listed.stdout.split(separator: "\n").first.map(String.init)))["path"] as? String
        #expect((line["path"] as? String).map { Array($0.utf8) } == listedPath.map { Array($0.utf8) })
        #expect(listedPath.map { Array($0.utf8) } == Array((folder + "/" + name).utf8))
        let (status, rest) = watch.end(with: SIGTERM)
        #expect(status == 0)
        #expect(rest == [])
        #expect(watch.standardError == "")
    }

    /// Two documents whose names differ only by Unicode normalization (`café.ict` with U+00E9, and with
    /// `e` + U+0301) are two files to a Linux file system, and two documents to the watch: each told as
    /// added, with its own display name and its own path, byte for byte. (The query keyed its items by
    /// `String`, whose `==` takes the two names for one: the second was told as a change of the first.)
    @Test func twoNamesThatDifferOnlyByNormalizationAreTwoDocuments() throws {
        let scratch = try scratch()
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let folder = scratch + "/Docs"
        let watch = try Watch(["--jsonl", folder], scratch: scratch)
        _ = try #require(watch.nextLine(), "no listed line; standard error: \(watch.standardError)")
        let composed = "caf\u{e9}.ict", decomposed = "cafe\u{301}.ict"
        for (name, sample) in [(composed, "Coffee"), (decomposed, "Rocket")] {
            try FileManager.default.copyItem(atPath: Repository.path("SampleDocs/\(sample).ict"), toPath: scratch + "/staging/" + name)
            #expect(rename(scratch + "/staging/" + name, folder + "/" + name) == 0)
        }
        var lines: [[String: Any]] = []
        for _ in 0..<2 {
            lines.append(try object(try #require(watch.nextLine(), "a document was not told; standard error: \(watch.standardError)")))
        }
        #expect(lines.map { $0["update"] as? String } == ["added", "added"])
        // Each path with its own document, whichever the watch told first.
        let told = Set(lines.map { "\($0["displayName"] as? String ?? "?") \((($0["path"] as? String) ?? "").utf8.map { String($0, radix: 16) })" })
        let expected = Set([("Coffee", composed), ("Rocket", decomposed)].map { "\($0.0) \(Array((folder + "/" + $0.1).utf8).map { String($0, radix: 16) })" })
        #expect(told == expected)
        let (status, rest) = watch.end(with: SIGTERM)
        #expect(status == 0)
        #expect(rest == [])
        #expect(watch.standardError == "")
    }

    /// The watched folder removed, then made again: its document is told as
    /// removed, then the watch stops with an error naming the folder and exit
    /// status 1, rather than going on deaf to the new folder.
    @Test func theFolderRemovedAndMadeAgainStopsTheWatchWithAnError() throws {
        let scratch = try scratch()
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let folder = scratch + "/Docs"
        try FileManager.default.copyItem(atPath: Repository.path("SampleDocs/Coffee.ict"), toPath: folder + "/Coffee.ict")
        let watch = try Watch([folder], scratch: scratch)
        let once = try ICTRunner.run(["list", folder])
        for _ in once.stdout.split(separator: "\n") {
            _ = try #require(watch.nextLine(), "the table was not printed; standard error: \(watch.standardError)")
        }
        try FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        #expect(watch.nextLine() == "removed\t\(folder)/Coffee.ict", "\(watch.standardError)")
        // The output ends when the process does (or after the bound, and the status below is then SIGTERM's 0).
        #expect(watch.nextLine() == nil)
        let (status, rest) = watch.end(with: SIGTERM)
        #expect(status == 1, "\(watch.standardError)")
        #expect(rest == [])
        #expect(watch.standardError == "\(folder): error: the folder was removed or renamed away; nothing in it is watched any more\n")
    }

    /// Standard output a pipe nobody reads any more: the watch stops cleanly
    /// at its first line (exit status 0, nothing said), within the bound.
    @Test func aClosedPipeStopsTheWatchCleanly() throws {
        let scratch = try scratch()
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let before = try FolderSnapshot.take(scratch)
        for arguments in [["--jsonl"], []] {
            let (status, stderr) = try StandardOutputTests.runWithClosedPipe(["list", "--watch"] + arguments + [scratch + "/Docs"])
            #expect(status == 0 || status == 128 + SIGPIPE, "\(stderr)")
            #expect(stderr == "")
        }
        #expect(try FolderSnapshot.take(scratch) == before)
    }

    /// Standard output on a full disk: the watch stops at its first line with
    /// the message naming standard output and exit status 1, within the bound.
    @Test func aFullDiskStopsTheWatchWithAnError() throws {
        let scratch = try scratch()
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let full = open("/dev/full", O_WRONLY | O_CLOEXEC)
        try #require(full >= 0)
        defer { close(full) }
        for arguments in [["--jsonl"], []] {
            let (status, stderr) = try StandardOutputTests.runBounded(["list", "--watch"] + arguments + [scratch + "/Docs"], standardOutput: full)
            #expect(status == 1, "\(stderr)")
            #expect(stderr == "ict: error: cannot write to standard output: \(String(cString: strerror(ENOSPC)))\n")
        }
    }
}
