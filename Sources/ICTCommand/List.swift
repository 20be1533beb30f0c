import ArgumentParser
import ConflictVersions
import DocumentFormats
import ICTKitTooling
import OrderedCollections
import PropertyList
import SystemSupport
import UbiquityContainers

extension Ict {
    /// `ict list`: the `.ict` documents in a folder, by display name.
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the documents in a folder (.ict, .ptk, .icfnote, .dox), sorted by display name.",
            discussion: """
                Reads only each document's metadata entry, and of it only the display \
                name and the thumbnail's PNG header; the data entry only with --data. \
                The photo app's .ptk packages show their thumbnail, named by their file \
                name; the notes (.icfnote, .dox: one file of UTF-8 text) by their file \
                name, without a thumbnail; a KIND column shows when the folder holds \
                other kinds than .ict, and a .dox cut inside a character is a warning. \
                -r looks into subfolders (not into documents, nor through links to \
                folders, as find without -L: a link can lead back up into a loop). A document with \
                conflict copies beside it (Syncthing, Nextcloud/ownCloud, Dropbox; see \
                'ict versions') is marked in the CONFLICTS column, found from the folder's \
                one listing; the copies are not listed as documents of their own. A document \
                in conflict or read-only is marked in the STATE column (inConflict, editingDisabled, \
                as 'ict versions' says; copies of a package's entries count with --data, which \
                looks inside each package). On a \
                terminal, progress shows on standard error when a run takes over a second. A document \
                whose metadata cannot be read is reported on standard error and the exit \
                status is 1. --files-from names documents in a list instead of (or after) \
                a folder, their conflicts not looked for; --jsonl prints one JSON line per \
                document as it is read, in the folder's name order and then the list's, \
                not sorted (Schemas/cli/list.jsonl.schema.json). --html writes a contact sheet \
                instead of the table (see its help). In a ubiquity container whose engine \
                tells each item's state (Syncthing), a SYNC column shows it (current, local, \
                uploading, downloading N%, waiting, error, unknown; 'ict status' says more); \
                --json and --jsonl carry it as sync.

                --watch prints the list, then watches the folder (with -r its subfolders \
                too) and reports each change to its documents until SIGINT (Ctrl-C) or \
                SIGTERM ends it, with exit status 0 (problems are reported as they are \
                found): added, changed, conflict (a conflict copy appeared beside it), \
                resolved (its conflict copies went), removed. A document saved entry by \
                entry, as sync tools save packages, is reported once, when it settles. On \
                a terminal the table is redrawn in place after each change, its UPDATE \
                column saying what changed (a removed document is shown once more, marked \
                removed); otherwise the table is followed by one line per change, the \
                kind and the path separated by a tab (added<TAB>Notes/Friend.ict). With \
                --jsonl the list's lines are followed by one whose update is "listed" (the \
                list is complete; its path is the folder), then one line per change: \
                {command, path, ok, update, displayName, inConflict, problems} \
                (Schemas/cli/list-watch.jsonl.schema.json). Every line is written as soon \
                as the change is seen. If the folder itself is removed or renamed away, \
                its documents are reported removed, then an error says so and the watch \
                ends with exit status 1; when the reader of standard output goes (| head) \
                it ends with exit status 0. --watch takes a folder, not --files-from, and \
                prints lines, not --json.
                """
        )

        @Argument(help: "The folder to list (none when --files-from names the documents).")
        var directory: String?

        @Flag(name: [.short, .customLong("recursive")], help: "Also list the documents in subfolders.")
        var recursive = false

        @Flag(help: "Also read each document's data entry and show its fields and photo size (much slower: the data holds the photo).")
        var data = false

        @Flag(
            help: "Print one JSON document for programs (Schemas/cli/list.schema.json): {documents: [{path, displayName, thumbnail, data, conflicts, state}]}."
        )
        var json = false

        @Flag(help: "After the list, print each change to the folder's documents until SIGINT or SIGTERM (exit status 0).")
        var watch = false

        @Option(name: .customLong("html"), help: htmlHelp)
        var htmlPage: String?

        @OptionGroup var batch: BatchOptions

        func validate() throws {
            try BatchOptions.checkOneJSONForm(json: json, jsonl: batch.jsonl)
            if watch, batch.filesFrom != nil { throw ValidationError("--watch watches a folder; it cannot take --files-from") }
            if watch, json { throw ValidationError("--watch prints a line per change, never one document; use --jsonl, not --json") }
            guard directory != nil || batch.filesFrom != nil else { throw ValidationError("name a folder to list, or the documents with --files-from") }
            try Self.checkHTMLOptions(htmlPage: htmlPage, json: json, jsonl: batch.jsonl, data: data)
        }

        typealias Row = DocumentListing.Row
        typealias OpenFolder = DocumentListing.OpenFolder
        typealias FolderStates = DocumentListing.FolderStates

        func run() throws {
            if let htmlPage, let problem = OutputPlacement.insidePackageProblem(htmlPage) {
                throw Self.report(json: json, jsonLines: batch.jsonl).fail(problem)
            }
            if watch {
                try watchFolder()
                return
            }
            let report = Self.report(json: json, jsonLines: batch.jsonl)
            // With --html, the cards of the documents that could not be read (the others' are in their rows).
            var unreadableCards: [ContactSheet.Card] = []
            let rows = try listDocuments(into: report, unreadable: { unreadableCards.append($0) })
            if let htmlPage {
                try Self.writeContactSheet(
                    rows.compactMap(\.card) + unreadableCards, title: directory.map(DocumentSupport.trimmingTrailingSlashes), to: htmlPage,
                    report: report)
            } else if json {
                report.fields.documents = rows.map { PathEntry(path: $0.path, fields: DocumentListing.lineFields($0, kind: $0.kind)) }
            } else if !batch.jsonl {
                var output = StandardOutput()
                output.write(DocumentListing.table(rows, showingData: data))
                output.flush()
            }
            try report.finish()
        }

        /// Reads the documents of the folder and then of the `--files-from`
        /// list, reporting their problems and with `--jsonl` printing a line
        /// for each as it is read; returns their rows sorted by display name
        /// (none with `--jsonl`), each first given to `read` as it is read.
        ///
        /// - Throws: what `report.fail` throws when the folder cannot be listed
        ///   or the list cannot be opened; `PropertyListError` when a line cannot be written.
        func listDocuments(
            into report: TypedReport<Fields>, read: (Row) -> Void = { _ in }, unreadable: (ContactSheet.Card) -> Void = { _ in }
        ) throws -> [Row] {
            let folderPath = directory.map(DocumentSupport.trimmingTrailingSlashes)
            report.fields.directory = folderPath
            var locations: [DocumentLocation] = []
            if let folderPath {
                do throws(ICTDocumentError) {
                    locations = try DocumentDiscovery.documents(in: folderPath, recursive: recursive) { error in
                        report.add(DocumentListing.problem(folderPath, error))
                    }
                } catch {
                    throw report.fail(DocumentListing.problem(folderPath, error))
                }
            }
            var listed: InputNames
            do throws(CommandFailure) {
                listed = try batch.names(after: [])
            } catch {
                throw report.fail(error.problem)
            }
            var progress = ProgressReporter("list", total: listed.hasList ? nil : locations.count, unit: "documents")
            // Kept for the sorted table or --json document; with --jsonl each row is printed as it is read.
            var rows: [Row] = []
            var folder = OpenFolder()
            var states = FolderStates()
            // Each container's engine is asked once for the whole listing.
            var syncStates: SyncStateReader?
            do throws(UbiquityContainerError) {
                syncStates = try SyncStateReader(timeout: 5)
            } catch {
                report.add(Problem(path: error.pathText, severity: .warning, "no sync states: \(error.message)"))
            }
            var pending = locations.makeIterator()
            while let location = pending.next() ?? listed.next(reportingTo: report, clearing: &progress).map(DocumentListing.listedLocation) {
                if let row = try readRow(
                    location, folder: &folder, states: &states, syncStates: &syncStates, report: report, clearing: &progress,
                    unreadable: unreadable)
                {
                    read(row)
                    if !batch.jsonl { rows.append(row) }
                }
                progress.advance()
            }
            folder.close()
            progress.clear()
            return DocumentListing.sorted(rows)
        }

        /// The row of the document at `location`, nil when its metadata cannot
        /// be read; its problems go to `report`, and with `--jsonl` its line is printed.
        ///
        /// - Throws: `PropertyListError` when its line cannot be written.
        func readRow(
            _ location: DocumentLocation, folder: inout OpenFolder, states: inout FolderStates, syncStates: inout SyncStateReader?,
            report: Report, clearing progress: inout ProgressReporter, unreadable: (ContactSheet.Card) -> Void = { _ in }
        ) throws -> Row? {
            do {
                let descriptor = folder.descriptor(for: location.folder)
                // Reading the data too reads the document whole: coordinated, so a save by
                // another process is never seen half done (the summary alone is one entry).
                let row =
                    data
                    ? try ItemLockSupport.reading(location.path) { try DocumentListing.row(location, in: descriptor, readingData: true) }
                    : try DocumentListing.row(location, in: descriptor, readingData: false, readingCard: htmlPage != nil)
                if let truncation = row.truncation { report.add(truncation) }
                // A package a sync engine left mixed or partial is never listed as valid.
                if location.kind == .ict || location.kind == .ptk,
                    let consistency = try? PackageConsistency(ofPackageAt: location.path), !consistency.isWholeWithoutConflicts,
                    let problem = consistency.problem
                {
                    report.add(Problem(path: location.path, severity: consistency.state == .whole ? .warning : .error, "the package is \(problem)"))
                }
                var stated = row
                do throws(DocumentVersionError) {
                    stated.state = try states.state(of: location, lookingInside: data)
                } catch {
                    progress.clear()
                    report.add(Problem(path: location.path, severity: .warning, "cannot tell its state: \(error.message)"))
                }
                if let state = syncStates?.state(ofItemAt: location.path), state != .notTracked { stated.sync = state.summary }
                try report.line(path: stated.path, DocumentListing.lineFields(stated, kind: location.kind))
                return stated
            } catch let error as ICTDocumentError {
                progress.clear()
                report.add(Problem(document: location.path, error))
                if htmlPage != nil { unreadable(ContactSheet.Card(location: location, unreadable: error)) }
            } catch let problem as Problem {
                progress.clear()
                report.add(problem)
            }
            try report.line(path: location.path, DocumentListing.lineFields(nil, kind: location.kind))
            return nil
        }
    }
}

extension Ict.List: TypedReportingCommand {
    static let reportName = "list"
    static var lineFields: [String] { LineFields.fieldNames }

    /// `Schemas/cli/list.schema.json`.
    typealias Fields = DocumentListing.Fields
    typealias LineFields = DocumentListing.LineFields
    typealias Size = DocumentListing.Size
}
