import ArgumentParser
import DocumentVersions
import ICTDocument
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

        struct Row {
            var path: String
            var kind: DocumentKind = .ict
            var displayName: String
            var thumbnailSize: (width: Int, height: Int)?
            /// With `--data`: the data's fields and the photo's size.
            var data: (fields: CTData, photoSize: (width: Int, height: Int)?)?
            /// How many conflict copies of the document are beside it; nil
            /// for a document named in a list (its folder is not listed).
            var conflicts: Int?
            /// What its files say of its state (`inConflict`, `editingDisabled`);
            /// nil when that could not be found (reported as a warning).
            var state: DocumentItemState?
            /// For a `.dox` cut inside a character: the warning saying where.
            var truncation: Problem?
            /// With `--html`: the document's card on the contact sheet.
            var card: ContactSheet.Card?
            /// Its sync state in a ubiquity container whose engine tells one
            /// (`current`, `uploading`, `downloading 42%`, `unknown`, …); nil otherwise.
            var sync: String?
        }

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
                report.fields.documents = rows.map { PathEntry(path: $0.path, fields: Self.lineFields($0, kind: $0.kind)) }
            } else if !batch.jsonl {
                var output = StandardOutput()
                output.write(Self.table(rows, showingData: data))
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
                        report.add(Self.problem(folderPath, error))
                    }
                } catch {
                    throw report.fail(Self.problem(folderPath, error))
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
                report.add(Problem(path: error.path, severity: .warning, "no sync states: \(error.message)"))
            }
            var pending = locations.makeIterator()
            while let location = pending.next() ?? listed.next(reportingTo: report, clearing: &progress).map(Self.listedLocation) {
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
            return Self.sorted(rows)
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
                    ? try ItemLockSupport.reading(location.path) { try Self.row(location, in: descriptor, readingData: true) }
                    : try Self.row(location, in: descriptor, readingData: false, readingCard: htmlPage != nil)
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
                try report.line(path: stated.path, Self.lineFields(stated, kind: location.kind))
                return stated
            } catch let error as ICTDocumentError {
                progress.clear()
                report.add(Problem(document: location.path, error))
                if htmlPage != nil { unreadable(ContactSheet.Card(location: location, unreadable: error)) }
            } catch let problem as Problem {
                progress.clear()
                report.add(problem)
            }
            try report.line(path: location.path, Self.lineFields(nil, kind: location.kind))
            return nil
        }

        /// `rows` by display name, ignoring case, then by path: the table's and `--json`'s order.
        static func sorted(_ rows: [Row]) -> [Row] {
            let keys = rows.map { $0.displayName.lowercased() }
            return rows.indices.sorted { ContactSheet.areInListOrder((keys[$0], rows[$0].path), (keys[$1], rows[$1].path)) }.map { rows[$0] }
        }

        /// A document named in the `--files-from` list: read by its path, its folder not listed.
        static func listedLocation(_ path: String) -> DocumentLocation {
            DocumentLocation(folder: "", name: DocumentSupport.trimmingTrailingSlashes(path), conflictCount: nil)
        }

        /// A folder that cannot be listed: at the folder the library names, else at `folder`.
        static func problem(_ folder: String, _ error: ICTDocumentError) -> Problem {
            error.packageError.map { Problem(path: folder, $0) } ?? Problem(path: folder, error.message)
        }

        /// The folder the documents being read are in, kept open so each
        /// document is opened relative to it (shorter lookups than full paths).
        struct OpenFolder {
            private var current: (path: String, file: OpenFile)?

            /// A descriptor of `path`, or the current directory's (`CurrentDirectory.descriptor`)
            /// when it cannot be opened (full paths are used then).
            mutating func descriptor(for path: String) -> Int32 {
                guard !path.isEmpty else { return CurrentDirectory.descriptor }
                if let current, current.path == path { return current.file.descriptor }
                close()
                guard let file = try? OpenFile(path: path, options: .directory) else { return CurrentDirectory.descriptor }
                current = (path, file)
                return file.descriptor
            }

            mutating func close() {
                current = nil
            }
        }

        /// The states of the documents of the folder being listed, from one
        /// listing of it (`DocumentVersion.otherVersionsOfItems(inFolder:)`)
        /// rather than a listing per document.
        struct FolderStates {
            private var current: (folder: String, versions: [String: [DocumentVersion]])?

            /// The state of the document at `location`: a document named in a list on its own.
            /// Without `lookingInside`, a document of a listed folder is in conflict when
            /// conflict copies are beside it (the folder's one listing found them), and its
            /// package is not listed for copies of its entries (which `ict versions` shows):
            /// listing every package would double the time of a plain `ict list`.
            mutating func state(of location: DocumentLocation, lookingInside: Bool) throws(DocumentVersionError)
                -> DocumentItemState
            {
                guard let besideCount = location.conflictCount else { return try DocumentItemState(ofItemAt: location.path) }
                if !lookingInside {
                    var state = try DocumentItemState(ofItemAt: location.path, conflictVersions: [])
                    if besideCount > 0 { state.insert(.inConflict) }
                    return state
                }
                let folder = location.folder.isEmpty ? "." : location.folder
                if current?.folder != folder { current = (folder, try DocumentVersion.otherVersionsOfItems(inFolder: folder)) }
                return try DocumentItemState(ofItemAt: location.path, conflictVersions: current?.versions[location.name] ?? [])
            }
        }

        /// The contact sheet card of a document of another kind than `.ict`.
        private static func card(_ location: DocumentLocation, _ displayName: String, thumbnailPNG: [UInt8]?) -> ContactSheet.Card {
            ContactSheet.Card(
                path: location.path, displayName: displayName, kind: ContactSheet.kind(ofDocumentNamed: location.name),
                contentChangeDate: ContactSheet.contentChangeDate(of: location, relativeTo: CurrentDirectory.descriptor),
                conflictCount: location.conflictCount, thumbnailPNG: thumbnailPNG)
        }

        /// One document's row: from the metadata's summary, with `readingData` from the decoded data entry,
        /// and with `readingCard` its contact sheet card (the thumbnail's bytes read too).
        static func row(_ location: DocumentLocation, in folder: Int32, readingData: Bool, readingCard: Bool = false) throws(ICTDocumentError)
            -> Row
        {
            let path = location.path
            switch location.kind {
            case .ict: break
            case .ptk:
                let inspection = try PTKInspection(path: path, readingData: false)
                var row = Row(
                    path: path, kind: .ptk, displayName: inspection.displayName, thumbnailSize: inspection.thumbnailSize,
                    conflicts: location.conflictCount)
                if readingCard { row.card = card(location, inspection.displayName, thumbnailPNG: inspection.metadata.thumbnail.map { [UInt8]($0) }) }
                return row
            case .icfnote, .dox:
                let inspection = try NoteInspection(path: path, kind: location.kind)
                var row = Row(
                    path: path, kind: location.kind, displayName: inspection.displayName, conflicts: location.conflictCount,
                    truncation: inspection.truncationProblem)
                if readingCard { row.card = card(location, inspection.displayName, thumbnailPNG: nil) }
                return row
            }
            let summary = try ICTDocumentSummary(
                ofDocumentAt: folder == CurrentDirectory.descriptor ? path : location.name, relativeTo: folder,
                readingThumbnailUpTo: readingCard ? ContactSheet.defaultThumbnailByteLimit : nil)
            var row = Row(
                path: path, displayName: summary.displayName, thumbnailSize: summary.thumbnailSize.map { ($0.width, $0.height) },
                conflicts: location.conflictCount)
            if readingCard { row.card = ContactSheet.Card(location: location, summary: summary, relativeTo: folder) }
            if readingData {
                let fields = try ICTDocumentFile(contentsOf: path).data()
                row.data = (fields, try fields.photo.map { bytes throws(ICTDocumentError) in try PNGImage.size(ofPNG: bytes) })
            }
            return row
        }

        static func sizeText(_ size: (width: Int, height: Int)?) -> String {
            size.map { "\($0.width)×\($0.height)" } ?? "none"
        }

        /// The table for people: names and paths with control characters escaped
        /// (`TerminalText`); with `updates` (`--watch`), first an UPDATE column of
        /// what each row's document went through last (`added`, `removed`, …).
        static func table(_ rows: [Row], showingData: Bool, updates: [String]? = nil) -> String {
            var headers = ["NAME", "THUMBNAIL"]
            var columns = [rows.map { TerminalText.escaped($0.displayName) }, rows.map { sizeText($0.thumbnailSize) }]
            // Shown only when other kinds than .ict are listed, so a folder of .ict documents lists as before.
            if rows.contains(where: { $0.kind != .ict }) {
                headers.insert("KIND", at: 1)
                columns.insert(rows.map(\.kind.rawValue), at: 1)
            }
            if let updates {
                headers.insert("UPDATE", at: 0)
                columns.insert(updates, at: 0)
            }
            // Shown only when a document has conflicts, so a clean folder lists as before.
            if rows.contains(where: { ($0.conflicts ?? 0) > 0 }) {
                headers.append("CONFLICTS")
                columns.append(rows.map { ($0.conflicts ?? 0) > 0 ? String($0.conflicts ?? 0) : "" })
            }
            // Likewise only when a document is in conflict or read-only: `inConflict, editingDisabled`.
            if rows.contains(where: { !($0.state ?? []).isEmpty }) {
                headers.append("STATE")
                columns.append(rows.map { row in row.state.map { $0.isEmpty ? "" : $0.description } ?? "unknown" })
            }
            // Only when a document is in a container whose engine tells its state.
            if rows.contains(where: { $0.sync != nil }) {
                headers.append("SYNC")
                columns.append(rows.map { $0.sync ?? "-" })
            }
            if showingData {
                headers += ["FIRST NAME", "LAST NAME", "FAVORITE", "PHOTO"]
                columns.append(rows.map { TerminalText.escaped($0.data?.fields.firstName ?? "none") })
                columns.append(rows.map { TerminalText.escaped($0.data?.fields.lastName ?? "none") })
                columns.append(rows.map { $0.data?.fields.favoriteNumber.map(DocumentInspection.number) ?? "none" })
                columns.append(rows.map { sizeText($0.data?.photoSize) })
            }
            let widths = zip(headers, columns).map { header, cells in max(cells.map(\.count).max() ?? 0, header.count) }
            func line(_ cells: [String], path: String) -> String {
                zip(cells, widths).map { cell, width in cell + String(repeating: " ", count: width - cell.count) + "  " }.joined() + path + "\n"
            }
            var text = line(headers, path: "PATH")
            for (index, row) in rows.enumerated() {
                text += line(columns.map { $0[index] }, path: TerminalText.escaped(row.path))
            }
            return text
        }

        /// The fields after `path` of a document, which are also those of its
        /// `--jsonl` line; but for its kind, all null for a document that could not be read.
        static func lineFields(_ row: Row?, kind: DocumentKind) -> LineFields {
            LineFields(
                kind: kind.rawValue, displayName: row?.displayName, thumbnail: row?.thumbnailSize.map { Size(width: $0.width, height: $0.height) },
                data: row?.data.map { DocumentInspection.Fields($0.fields, photoSize: $0.photoSize) }, conflicts: row?.conflicts,
                state: row?.state.map(\.names), sync: row?.sync)
        }
    }
}

extension Ict.List: TypedReportingCommand {
    static let reportName = "list"
    static var lineFields: [String] { LineFields.fieldNames }

    /// `Schemas/cli/list.schema.json`.
    struct Fields: ReportFields {
        /// The folder listed, as named; null for a list from `--files-from` alone.
        var directory: String?
        /// Every document, sorted as the table is.
        var documents: [PathEntry<LineFields>]?
    }

    /// A document's line with `--jsonl` (`Schemas/cli/list.jsonl.schema.json`), after `path`.
    struct LineFields: ReportFields {
        var kind: String?
        var displayName: String?
        var thumbnail: Size?
        /// With `--data`, the data entry's fields.
        var data: DocumentInspection.Fields?
        /// How many conflict copies the document has.
        var conflicts: Int?
        /// The document's state's names (`inConflict`, `editingDisabled`).
        var state: [String]?
        /// Its sync state where a container's engine tells one.
        var sync: String?
    }

    /// A thumbnail's size in pixels.
    struct Size: Encodable {
        var width: Int
        var height: Int
    }
}
