import DocumentFormats
import Foundation
import LiveQuery
import SystemPackage
import SystemSupport
import TestSupport
import Testing

/// Issue 23's acceptance 1: a query over real folders, changed by real file
/// operations, each update waited for with a bound (no sleep, no clock).
/// Expected items are written down by hand beside each layout; dates and
/// sizes come from `stat` and Python.
@Suite struct MetadataQueryTests {
    /// scope/Alpha.ict (8 bytes of entries) with a Syncthing conflict copy,
    /// notes.txt (5 bytes), sub/Beta.ict, sub/deeper/readme.txt, four sync
    /// temporaries, and a link to a folder outside holding Delta.ict.
    static func makeNestedLayout(_ scratch: Scratch) throws -> String {
        try scratch.write("12345", to: "scope/Alpha.ict/ctdocument.data")
        try scratch.write("abc", to: "scope/Alpha.ict/ctdocument.metadata")
        try scratch.write("x", to: "scope/Alpha.sync-conflict-20261124-093015-ABCDEFG.ict/ctdocument.data")
        try scratch.write("hello", to: "scope/notes.txt")
        try scratch.write("1", to: "scope/sub/Beta.ict/ctdocument.data")
        try scratch.write("x", to: "scope/sub/deeper/readme.txt")
        for temporary in [".syncthing.Gamma.ict.tmp", ".~lock.notes.txt#", "movie.mkv.part", "~$report.docx"] {
            try scratch.write("t", to: "scope/\(temporary)")
        }
        try scratch.write("d", to: "outside/Delta.ict/ctdocument.data")
        try FileManager.default.createSymbolicLink(atPath: scratch.at("scope/link"), withDestinationPath: scratch.at("outside"))
        return scratch.at("scope")
    }

    @Test func gatheringSearchesNestedFoldersButNotPackagesLinksConflictCopiesOrTemporaries() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let scope = try Self.makeNestedLayout(scratch)
        let query = MetadataQuery(scopes: [scope + "/"])
        let stream = try query.updates()
        var iterator = stream.makeAsyncIterator()
        let gathering = try #require(await iterator.next())
        #expect(gathering.phase == .gatheringFinished)
        // By name, code point order: upper case first.
        #expect(names(gathering.results) == ["Alpha.ict", "Beta.ict", "notes.txt", "readme.txt"])
        #expect(
            gathering.results.map(\.path.string)
                == ["scope/Alpha.ict", "scope/sub/Beta.ict", "scope/notes.txt", "scope/sub/deeper/readme.txt"].map(scratch.at))
        #expect(gathering.added == gathering.results)
        #expect(gathering.changed.isEmpty && gathering.removed.isEmpty && gathering.problems.isEmpty)
        #expect(query.isStarted && !query.isGathering)
        #expect(query.results == gathering.results)

        let alpha = try #require(gathering.results.first)
        #expect(alpha.fsSize == 8)  // "12345" + "abc"
        #expect(alpha.hasUnresolvedConflicts)
        #expect(alpha.contentType == "com.appmosphereinc.icloudtest.doc")  // Schemas/ict-types.plist
        #expect(alpha.url.isFileURL && alpha.url.hasDirectoryPath && alpha.url.lastPathComponent == "Alpha.ict")
        let newest = try output(
            of: "/usr/bin/env",
            [
                "python3", "-c",
                "import os,sys; print(max(os.lstat(os.path.join(d, n)).st_mtime_ns for d, ds, fs in os.walk(sys.argv[1]) for n in ['.'] + ds + fs))",
                alpha.path.string,
            ])
        // Within a microsecond: a Date is a Double, about 0.1 µs apart these years.
        #expect(abs(alpha.contentChangeDate.timeIntervalSince1970 * 1e9 - (Double(newest) ?? 0)) < 1000)
        let notes = gathering.results[2]
        #expect(notes.fsSize == 5 && !notes.hasUnresolvedConflicts && notes.contentType == "public.plain-text")
        // stat's %W: the birth time in seconds, 0 where the file system does not keep it.
        let birth = try output(of: "/usr/bin/stat", ["-c", "%W", notes.path.string])
        #expect(notes.creationDate.map { String(Int($0.timeIntervalSince1970)) } ?? "0" == birth)

        query.stop()
        #expect(await iterator.next() == nil)
        #expect(query.isStopped && !query.isStarted)
    }

    @Test(arguments: [
        (MetadataQueryPredicate(namePattern: "*.ict"), ["Alpha.ict", "Beta.ict"]),
        (MetadataQueryPredicate(namePattern: "?otes.*"), ["notes.txt"]),
        (MetadataQueryPredicate(contentTypes: ["com.apple.package"]), ["Alpha.ict", "Beta.ict"]),
        (MetadataQueryPredicate(contentTypes: ["public.plain-text"]), ["notes.txt", "readme.txt"]),
        (MetadataQueryPredicate(namePattern: "*.ict", contentTypes: ["public.plain-text"]), []),
    ])
    func gatheringKeepsWhatThePredicateMatches(predicate: MetadataQueryPredicate, expected: [String]) throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let (query, _, gathering) = try startedQuery(try Self.makeNestedLayout(scratch), predicate: predicate)
        defer { query.stop() }
        #expect(names(gathering?.results) == expected)
    }

    @Test func aNewFileIsAddedAChangedOneChangedAndARemovedOneRemoved() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try scratch.write("a", to: "scope/a.txt")
        let (query, recorder, gathering) = try startedQuery(scratch.at("scope"))
        defer { query.stop() }
        #expect(names(gathering?.results) == ["a.txt"])

        try scratch.write("bb", to: "scope/b.txt")
        let added = recorder.next()
        #expect(added?.phase == .updated)
        #expect(names(added?.added) == ["b.txt"] && names(added?.changed) == [] && names(added?.removed) == [])
        #expect(names(added?.results) == ["a.txt", "b.txt"])
        #expect(added?.added.first?.fsSize == 2)

        try scratch.write("a longer text", to: "scope/a.txt")
        let changed = recorder.next()
        #expect(names(changed?.changed) == ["a.txt"] && names(changed?.added) == [] && names(changed?.removed) == [])
        #expect(changed?.changed.first?.fsSize == 13)

        try scratch.remove("scope/a.txt")
        let removed = recorder.next()
        #expect(names(removed?.removed) == ["a.txt"] && names(removed?.added) == [] && names(removed?.changed) == [])
        #expect(names(removed?.results) == ["b.txt"])
        #expect(query.results.map(\.fsName) == ["b.txt"])
    }

    @Test func aNewFolderIsWatchedAndItsItemsAdded() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try scratch.makeFolder("scope")
        let (query, recorder, _) = try startedQuery(scratch.at("scope"))
        defer { query.stop() }
        // Made outside, then moved in whole: its items come at once; then a file made inside it later.
        try scratch.write("1", to: "staging/folder/one.txt")
        try FileManager.default.moveItem(atPath: scratch.at("staging/folder"), toPath: scratch.at("scope/folder"))
        #expect(names(recorder.next()?.added) == ["one.txt"])
        try scratch.write("2", to: "scope/folder/two.txt")
        #expect(names(recorder.next()?.added) == ["two.txt"])
        // Moved out whole (one event): both go in one update.
        try FileManager.default.moveItem(atPath: scratch.at("scope/folder"), toPath: scratch.at("staging/gone"))
        #expect(names(recorder.next()?.removed) == ["one.txt", "two.txt"])
    }

    /// The settle interval is an hour: only a rename told at once is told within the wait.
    @Test func aRenameIntoPlaceIsToldAtOnceAsAddedThenAsChanged() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try scratch.makeFolder("scope")
        let (query, recorder, _) = try startedQuery(scratch.at("scope"), settle: .seconds(3600))
        defer { query.stop() }
        try scratch.renameIntoPlace("first", to: "scope/doc.txt", temporaryName: ".syncthing.doc.txt.tmp")
        let added = recorder.next()
        #expect(names(added?.added) == ["doc.txt"] && names(added?.changed) == [] && names(added?.removed) == [])
        #expect(added?.added.first?.fsSize == 5)
        try scratch.renameIntoPlace("second!", to: "scope/doc.txt", temporaryName: ".syncthing.doc.txt.tmp")
        let changed = recorder.next()
        #expect(names(changed?.changed) == ["doc.txt"] && names(changed?.added) == [] && names(changed?.removed) == [])
        #expect(changed?.changed.first?.fsSize == 7)
    }

    @Test func aPackageRewrittenEntryByEntryIsToldOnceAsChanged() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        for entry in ["ctdocument.data", "ctdocument.metadata", "notes"] { try scratch.write("old", to: "scope/Doc.ict/\(entry)") }
        let (query, recorder, gathering) = try startedQuery(scratch.at("scope"), settle: .seconds(1))
        defer { query.stop() }
        #expect(gathering?.results.first?.fsSize == 9)
        // As Syncthing saves a package: each entry to a temporary, renamed over it; then one more entry.
        try scratch.renameIntoPlace("new data", to: "scope/Doc.ict/ctdocument.data", temporaryName: ".syncthing.ctdocument.data.tmp")
        try scratch.renameIntoPlace("new metadata", to: "scope/Doc.ict/ctdocument.metadata", temporaryName: ".syncthing.ctdocument.metadata.tmp")
        try scratch.write("new notes", to: "scope/Doc.ict/notes")
        try scratch.write("!", to: "scope/Doc.ict/extra")
        let changed = recorder.next()
        #expect(names(changed?.changed) == ["Doc.ict"] && names(changed?.added) == [] && names(changed?.removed) == [])
        #expect(changed?.changed.first?.fsSize == 30)  // 8 + 12 + 9 + 1
        // Nothing more of the package: the next update is a file renamed in afterwards.
        try scratch.renameIntoPlace("s", to: "scope/sentinel.txt", temporaryName: ".~sentinel")
        let next = recorder.next()
        #expect(names(next?.added) == ["sentinel.txt"] && names(next?.changed) == [])
    }

    @Test func aConflictCopyMarksItsOriginalAndItsRemovalClearsTheMark() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try scratch.write("mine", to: "scope/doc.txt")
        let (query, recorder, gathering) = try startedQuery(scratch.at("scope"))
        defer { query.stop() }
        #expect(gathering?.results.first?.hasUnresolvedConflicts == false)
        try scratch.write("theirs", to: "scope/doc.sync-conflict-20261124-093015-ABCDEFG.txt")
        let marked = recorder.next()
        #expect(names(marked?.changed) == ["doc.txt"] && names(marked?.added) == [] && names(marked?.results) == ["doc.txt"])
        #expect(marked?.changed.first?.hasUnresolvedConflicts == true)
        #expect(marked?.changed.first?.value(forAttribute: .hasUnresolvedConflicts) as? Bool == true)
        try scratch.remove("scope/doc.sync-conflict-20261124-093015-ABCDEFG.txt")
        let cleared = recorder.next()
        #expect(names(cleared?.changed) == ["doc.txt"] && cleared?.changed.first?.hasUnresolvedConflicts == false)
    }

    /// A package ICTKit saved (with its manifest), then edited in place by
    /// another program as a sync engine applies one device's entry over
    /// another's: the mix of two saves is a conflict, as the document says
    /// on opening it; saved whole again it is not; an entry's conflict copy
    /// inside (Syncthing's name for one) is a conflict too.
    @Test func aPackageMixingTwoSavesOrHoldingAnEntrysConflictCopyHasUnresolvedConflicts() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try scratch.makeFolder("scope")
        let path = scratch.at("scope/Coffee.ict")
        let sample = Repository.root.appendingPathComponent("SampleDocs/Coffee.ict").path
        try ICTDocumentFile(contentsOf: sample).save(to: path)
        try #require(FileManager.default.fileExists(atPath: path + "/.ictkit-manifest.plist"), "the save writes the manifest")
        let (query, recorder, gathering) = try startedQuery(scratch.at("scope"))
        defer { query.stop() }
        #expect(names(gathering?.results) == ["Coffee.ict"] && gathering?.results.first?.hasUnresolvedConflicts == false)

        try scratch.write("another device's metadata, written in place", to: "scope/Coffee.ict/ctdocument.metadata")
        let mixed = recorder.next()
        #expect(names(mixed?.changed) == ["Coffee.ict"] && mixed?.changed.first?.hasUnresolvedConflicts == true)
        #expect(mixed?.changed.first?.value(forAttribute: .hasUnresolvedConflicts) as? Bool == true)

        try ICTDocumentFile(contentsOf: path).save()
        let whole = recorder.next()
        #expect(names(whole?.changed) == ["Coffee.ict"] && whole?.changed.first?.hasUnresolvedConflicts == false)

        try scratch.write("the losing device's data", to: "scope/Coffee.ict/ctdocument.sync-conflict-20261206-101500-ABCDEFG.data")
        let copy = recorder.next()
        #expect(names(copy?.changed) == ["Coffee.ict"] && copy?.changed.first?.hasUnresolvedConflicts == true)
    }

    /// With no settle time, a temporary taken for an item would be told
    /// with or before the sentinel renamed in after it.
    @Test func syncTemporariesAreNeverTold() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try scratch.makeFolder("scope")
        let (query, recorder, _) = try startedQuery(scratch.at("scope"), settle: .zero)
        defer { query.stop() }
        for temporary in [".syncthing.doc.txt.tmp", ".~lock.doc.txt#", "movie.mkv.part", "~$report.docx"] {
            try scratch.write("partial", to: "scope/\(temporary)")
        }
        try scratch.remove("scope/movie.mkv.part")
        // ICTKit's own save temporary of a package (as `ict create` and `ict set` make one), then renamed away.
        let saving = TemporaryItem.name(for: "Doc.ict")
        try scratch.write("data", to: "scope/\(saving)/ctdocument.data")
        try scratch.remove("scope/\(saving)")
        try scratch.renameIntoPlace("s", to: "scope/sentinel.txt", temporaryName: "sentinel.txt.part")
        let next = recorder.next()
        #expect(names(next?.added) == ["sentinel.txt"] && names(next?.changed) == [] && names(next?.removed) == [])
        #expect(names(next?.results) == ["sentinel.txt"])
    }

    /// The kernel's queue (fs.inotify.max_queued_events) is filled while the
    /// query's thread is held; the changes made after are lost as events and
    /// found by the rescan.
    @Test func anOverflowedEventQueueIsRecoveredByARescan() throws {
        let limit = try #require(
            Int(try String(contentsOfFile: "/proc/sys/fs/inotify/max_queued_events", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        try #require(limit <= 1 << 20, "fs.inotify.max_queued_events is \(limit): too many events to make in a test")
        let scratch = try Scratch()
        defer { scratch.remove() }
        try scratch.write("stays", to: "scope/kept.txt")
        try scratch.write("old", to: "scope/sub/edited.txt")
        try scratch.write("bye", to: "scope/gone.txt")
        try scratch.makeFolder("scope/noise")
        // A loop of its own: the process's one is shared with the other tests' queries and presenters, which
        // would all be told of the overflow.
        let query = MetadataQuery(scopes: [scratch.at("scope")])
        query.eventLoop = try FileEventLoop()
        let recorder = Recorder()
        try query.start(on: recorder.queue) { recorder.handle($0) }
        let gathering = recorder.next()
        defer { query.stop() }
        #expect(names(gathering?.results) == ["edited.txt", "gone.txt", "kept.txt"])
        var failures = 0
        query.holdingEvents {
            // Two events (IN_CREATE, IN_DELETE) per folder made and removed: the queue fills, then overflows.
            let noise = scratch.at("scope/noise/n")
            for _ in 0..<(limit / 2 + 64) {
                if mkdir(noise, 0o755) != 0 || rmdir(noise) != 0 { failures += 1 }
            }
            do {
                try scratch.write("new", to: "scope/added.txt")
                try scratch.write("new and longer", to: "scope/sub/edited.txt")
                try scratch.remove("scope/gone.txt")
            } catch {
                failures += 1
            }
        }
        #expect(failures == 0)
        let rescan = recorder.next()
        #expect(rescan?.phase == .updated)
        #expect(names(rescan?.added) == ["added.txt"] && names(rescan?.changed) == ["edited.txt"] && names(rescan?.removed) == ["gone.txt"])
        #expect(names(rescan?.results) == ["added.txt", "edited.txt", "kept.txt"])
        #expect(rescan?.changed.first?.fsSize == 14)
        // The watches still work after the rescan.
        try scratch.write("later", to: "scope/sub/later.txt")
        #expect(names(recorder.next()?.added) == ["later.txt"])
    }

    @Test func disabledUpdatesAreToldAsOneAtTheOutermostEnable() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try scratch.write("a", to: "scope/a.txt")
        let (query, recorder, _) = try startedQuery(scratch.at("scope"), settle: .zero)
        defer { query.stop() }
        query.disableUpdates()
        query.disableUpdates()
        try scratch.renameIntoPlace("b", to: "scope/b.txt", temporaryName: ".~b")
        try scratch.remove("scope/a.txt")
        query.enableUpdates()
        try scratch.renameIntoPlace("c", to: "scope/c.txt", temporaryName: ".~c")
        query.enableUpdates()
        let batch = recorder.next()
        #expect(names(batch?.added) == ["b.txt", "c.txt"] && names(batch?.removed) == ["a.txt"] && names(batch?.changed) == [])
        #expect(names(batch?.results) == ["b.txt", "c.txt"])
        try scratch.renameIntoPlace("d", to: "scope/d.txt", temporaryName: ".~d")
        #expect(names(recorder.next()?.added) == ["d.txt"])
    }

    /// The kernel's own count of the query's watches (/proc/self/fdinfo),
    /// read through a duplicate of its inotify descriptor, which keeps the
    /// inotify instance alive after the query closes its descriptor.
    @Test func stoppingRemovesEveryWatchAndEndsTheUpdates() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try scratch.write("1", to: "scope/One.ict/ctdocument.data")
        try scratch.write("2", to: "scope/sub/Two.ict/ctdocument.data")
        try scratch.write("3", to: "scope/sub/three.txt")
        let (query, recorder, gathering) = try startedQuery(scratch.at("scope"))
        #expect(names(gathering?.results) == ["One.ict", "Two.ict", "three.txt"])
        // The process's one inotify descriptor, shared with every other query and presenter (of other
        // tests too): this query's watches are those of its folders' inodes.
        let descriptor = try #require(query.eventDescriptor)
        let duplicate = dup(descriptor)
        try #require(duplicate >= 0)
        defer { close(duplicate) }
        let inodes = try Set(
            ["scope", "scope/sub", "scope/One.ict", "scope/sub/Two.ict"].map { relative in
                var status = stat()
                try #require(stat(scratch.at(relative), &status) == 0)
                return String(status.st_ino, radix: 16)
            })
        func watchCount() throws -> Int {
            try String(contentsOfFile: "/proc/self/fdinfo/\(duplicate)", encoding: .utf8).split(separator: "\n").filter { line in
                line.hasPrefix("inotify wd:") && line.split(separator: " ").contains { $0.hasPrefix("ino:") && inodes.contains(String($0.dropFirst(4))) }
            }.count
        }
        #expect(try watchCount() == 4)  // scope, sub, One.ict, Two.ict
        query.stop()
        #expect(try watchCount() == 0)
        #expect(query.isStopped && query.eventDescriptor == nil)
        query.stop()  // Again: nothing.
        try scratch.renameIntoPlace("4", to: "scope/four.txt", temporaryName: ".~4")
        #expect(recorder.next(within: 1) == nil)  // A bound on waiting for nothing, not a synchronisation.
    }

    @Test func theUbiquitousScopeIsTheConfiguredFolderAndAnErrorWithoutOne() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try scratch.write("1", to: "docs/One.ict/ctdocument.data")
        let saved = MetadataQuery.ubiquitousDocumentsFolder
        defer { MetadataQuery.ubiquitousDocumentsFolder = saved }
        MetadataQuery.ubiquitousDocumentsFolder = nil
        let error = #expect(throws: MetadataQueryError.self) {
            try MetadataQuery(scopes: [MetadataQuery.ubiquitousDocumentsScope]).start(on: .main) { _ in }
        }
        #expect(error?.path == FilePath(MetadataQuery.ubiquitousDocumentsScope))
        MetadataQuery.ubiquitousDocumentsFolder = FilePath(scratch.at("docs"))
        let (query, _, gathering) = try startedQuery(MetadataQuery.ubiquitousDocumentsScope)
        defer { query.stop() }
        #expect(gathering?.results.map(\.path.string) == [scratch.at("docs/One.ict")])

        // A container with no Documents folder yet gets one when searched, as iCloud makes it; a missing container does not.
        MetadataQuery.ubiquitousDocumentsFolder = FilePath(scratch.at("container/Documents"))
        try scratch.makeFolder("container")
        let (fresh, _, empty) = try startedQuery(MetadataQuery.ubiquitousDocumentsScope)
        defer { fresh.stop() }
        #expect(empty?.results.isEmpty == true)
        #expect(FileManager.default.fileExists(atPath: scratch.at("container/Documents")))
        MetadataQuery.ubiquitousDocumentsFolder = FilePath(scratch.at("nowhere/Documents"))
        #expect(throws: MetadataQueryError.self) {
            try MetadataQuery(scopes: [MetadataQuery.ubiquitousDocumentsScope]).start(on: .main) { _ in }
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.at("nowhere")))
    }

    @Test func aScopeThatIsNotAFolderIsAnErrorNamingIt() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try scratch.write("x", to: "file.txt")
        for scope in [scratch.at("missing"), scratch.at("file.txt")] {
            let error = #expect(throws: MetadataQueryError.self) {
                try MetadataQuery(scopes: [scope]).start(on: .main) { _ in }
            }
            #expect(error?.path == FilePath(scope))
            #expect(error?.description.hasPrefix(scope + ": cannot search it: ") == true, "\(String(describing: error))")
        }
    }
    @Test func resultsAreSortedByTheAttributesGivenThenByPath() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try scratch.write("ccc", to: "scope/a.txt")
        try scratch.write("b", to: "scope/b.txt")
        try scratch.write("aa", to: "scope/c.txt")
        try scratch.write("b", to: "scope/sub/b.txt")
        try scratch.write("x", to: "scope/a.sync-conflict-20261124-093015-ABCDEFG.txt")
        let bySize = MetadataQuery(scopes: [scratch.at("scope")], sortedBy: [.fsSize])
        let recorder = Recorder()
        try bySize.start(on: recorder.queue) { recorder.handle($0) }
        defer { bySize.stop() }
        // Sizes 1, 1, 2, 3; the two of size 1 by path.
        #expect(recorder.next()?.results.map(\.path.string) == ["scope/b.txt", "scope/sub/b.txt", "scope/c.txt", "scope/a.txt"].map(scratch.at))
        let byConflict = MetadataQuery(scopes: [scratch.at("scope")], sortedBy: [.hasUnresolvedConflicts, .fsName])
        let second = Recorder()
        try byConflict.start(on: second.queue) { second.handle($0) }
        defer { byConflict.stop() }
        // a.txt has a conflict copy: last (false before true).
        #expect(names(second.next()?.results) == ["b.txt", "b.txt", "c.txt", "a.txt"])
    }
}
