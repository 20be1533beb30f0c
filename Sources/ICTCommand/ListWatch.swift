import ConflictVersions
import Dispatch
import DocumentFormats
import ICTKitTooling
import LiveQuery
import PropertyList
import SystemSupport
import UbiquityContainers

extension Ict.List {
    /// `ict list --watch`: the list, then each change to the folder's
    /// documents, from a `MetadataQuery` over the folder, until SIGINT or
    /// SIGTERM (exit status 0).
    ///
    /// The list is printed once the query has gathered, so a change made
    /// while it is read is told after it rather than lost.
    ///
    /// - Throws: what `Report.fail` throws when the folder cannot be watched.
    func watchFolder() throws {
        // validate() refuses --watch without a folder (there is no --files-from with it).
        let folder = DocumentSupport.trimmingTrailingSlashes(directory ?? ".")
        // Before any thread starts: the signals then wait for waitForTermination.
        InterruptCleanup.holdTermination()
        let printer = WatchPrinter(self, folder: folder)
        // Every kind `ict list` lists (.ict, .ptk, .icfnote, .dox), by its declared type.
        let kinds = MetadataQueryPredicate(contentTypes: DocumentKind.allCases.map(\.typeIdentifier))
        let query = MetadataQuery(scopes: [folder], predicate: kinds)
        // The same kinds name its packages and read their display names.
        query.documentKinds = DocumentKind.metadataDocumentKinds
        let queue = DispatchQueue(label: "ict.list.watch")
        do throws(MetadataQueryError) {
            try query.start(on: queue) { printer.show($0) }
        } catch {
            throw Self.report(json: false, jsonLines: batch.jsonl).fail(Problem(error))
        }
        _ = InterruptCleanup.waitForTermination()
        query.stop()
        // The update being printed, if any, is printed whole before the process ends.
        queue.sync {}
    }
}

/// One change to a watched document, as `ict list --watch` names it.
enum ListUpdateKind: String {
    case added, changed, removed
    /// Changed, and a conflict copy of it appeared (`hasUnresolvedConflicts` went true).
    case conflict
    /// Changed, and its conflict copies went (`hasUnresolvedConflicts` went false).
    case resolved

    /// What a change to a document is, given whether it had conflict copies before and has now.
    static func change(hadConflicts: Bool, hasConflicts: Bool) -> ListUpdateKind {
        if hadConflicts == hasConflicts { return .changed }
        return hasConflicts ? .conflict : .resolved
    }
}

/// Prints what `ict list --watch` shows of each update of its query, in
/// one of three forms: the table redrawn in place on a terminal, a line per
/// change (`KIND<TAB>PATH`) otherwise, or with `--jsonl` a JSON line per
/// change (`Schemas/cli/list-watch.jsonl.schema.json`). Called on the
/// query's serial queue only.
final class WatchPrinter: @unchecked Sendable {
    // @unchecked: used only on the query's serial queue, one update at a time.

    private enum Form { case terminal, lines, jsonLines }

    private let list: Ict.List
    private let folder: String
    private let form: Form
    /// The list's report (its problems, and with --jsonl its lines).
    private let listReport: TypedReport<Ict.List.Fields>
    /// The report of the update lines: a JSON line's problems are those found since the last line.
    private let updateReport: Report
    /// Whether each watched document had conflict copies at the last update, by path.
    private var conflicts = PathDictionary<Bool>()
    /// With `--jsonl`, each document's display name as last read, by path: a removed one can no longer be read.
    private var displayNames: [String: String] = [:]
    /// On a terminal: the table's rows by path, and how many lines the table last drawn has.
    private var rows: [String: Ict.List.Row] = [:]
    private var drawnLines = 0
    /// With `--html`: each document's card on the contact sheet, by path, rewritten on each change.
    private var cards: [String: ContactSheet.Card] = [:]

    static var lineFields: [String] { UpdateLine.fieldNames }

    /// A line of `ict list --watch --jsonl` after the listing (`Schemas/cli/list-watch.jsonl.schema.json`), after `path`.
    struct UpdateLine: ReportFields {
        /// `listed` for the listing, then what happened to the document (`ListUpdateKind`).
        var update: String?
        var displayName: String?
        /// Whether the document has conflict copies now.
        var inConflict: Bool?
        /// Its sync state where a container's engine tells one (`current`, `downloading 42%`, …).
        var sync: String?
    }

    init(_ list: Ict.List, folder: String) {
        self.list = list
        self.folder = folder
        form = list.batch.jsonl ? .jsonLines : OutputFile.isTerminal("-") ? .terminal : .lines
        // On a terminal the problems are kept to tell whether any was printed between two tables.
        // The line fields only for lines: their names are had by encoding a value (`TypedReport`'s cost).
        let jsonLines = list.batch.jsonl
        listReport = TypedReport(
            command: Ict.List.reportName, json: false, jsonLines: jsonLines, lineFields: jsonLines ? Ict.List.lineFields : [],
            keepsProblems: form == .terminal)
        updateReport = Report(
            command: Ict.List.reportName, fields: [], json: false, jsonLines: jsonLines, lineFields: jsonLines ? Self.lineFields : [],
            keepsProblems: form == .terminal)
    }

    /// Prints `update`: the list for the gathering, the changes after it.
    /// When the folder itself went, its documents are told as removed, then
    /// that it went, as an error, and the process ends with exit status 1:
    /// nothing in it, or in a folder made again under its name, could be told.
    func show(_ update: MetadataQueryUpdate) {
        for problem in update.problems where !problem.isScopeGone { updateReport.add(Problem(problem, severity: .warning)) }
        let watched = update.results.filter(isWatched)
        do {
            switch update.phase {
            case .gatheringFinished: try printList()
            case .updated: try printChanges(update)
            }
        } catch {
            // A line that cannot be written (JSON cannot hold it) is a problem of the run, not its end.
            listReport.add(Problem(path: folder, "\(error)"))
        }
        conflicts = [:]
        for item in watched { conflicts[key(item)] = item.hasUnresolvedConflicts }
        if let gone = update.problems.first(where: \.isScopeGone) {
            updateReport.add(Problem(gone))
            CurrentProcess.exit(1)
        }
    }

    /// Whether `item` is one of the documents watched: with `-r` any under
    /// the folder (the query searches nested folders), else the folder's own.
    private func isWatched(_ item: MetadataItem) -> Bool {
        list.recursive || PathName.same(PathName.folder(of: item.pathString), folder)
    }

    /// The document's path as the list names it (`DocumentLocation.path`).
    private func key(_ item: MetadataItem) -> String {
        location(of: item).path
    }

    private func location(of item: MetadataItem) -> DocumentLocation {
        DocumentLocation(folder: PathName.folder(of: item.pathString), name: item.fsName, conflictCount: nil)
    }

    /// With `--html`: the card of `item` read anew (from its metadata alone),
    /// with its conflict copies counted in its folder's listing.
    private func card(of item: MetadataItem) -> ContactSheet.Card {
        var location = location(of: item)
        let names = (try? Directory.entries(atPath: location.folder).map(\.name)) ?? []
        location.conflictCount = DocumentVersion.conflictCounts(amongNames: names)[location.name] ?? 0
        do throws(ICTDocumentError) {
            let row = try DocumentListing.row(location, in: CurrentDirectory.descriptor, readingData: false, readingCard: true)
            if let card = row.card { return card }
        } catch {
            return ContactSheet.Card(location: location, unreadable: error)
        }
        return ContactSheet.Card(path: location.path, displayName: item.displayName, kind: ContactSheet.kind(ofDocumentNamed: location.name))
    }

    /// With `--html`: the page written anew, then its stamp, each atomically
    /// (`ContactSheet.write(toPage:watching:)`), so an open page reloads.
    private func rewriteSheet() {
        guard let page = list.htmlPage else { return }
        do throws(ICTDocumentError) {
            try ContactSheet(title: folder, cards: Array(cards.values)).write(toPage: page, watching: true)
        } catch {
            listReport.add(Problem(document: page, error))
        }
    }

    /// The list as `ict list` prints it; with `--jsonl` then the `listed` line.
    private func printList() throws {
        let listed: [Ict.List.Row]
        do {
            listed = try list.listDocuments(
                into: listReport,
                read: { row in
                    if form == .jsonLines { displayNames[row.path] = row.displayName }
                },
                unreadable: { card in cards[card.path] = card })
        } catch let error as PropertyListError {
            throw error
        } catch {
            // The folder could not be listed, which the report has said; its changes are still told.
            listed = []
        }
        if list.htmlPage != nil {
            for row in listed { cards[row.path] = row.card }
            rewriteSheet()
        }
        switch form {
        case .jsonLines:
            try updateReport.line(path: folder, UpdateLine(update: "listed"))
        case .lines:
            write(DocumentListing.table(listed, showingData: list.data))
        case .terminal:
            rows = Dictionary(listed.map { ($0.path, $0) }, uniquingKeysWith: { $1 })
            draw(updates: nil)
        }
    }

    /// One line, or a redrawn table, for the changes of `update`.
    private func printChanges(_ update: MetadataQueryUpdate) throws {
        var changes: [(kind: ListUpdateKind, item: MetadataItem)] = update.added.filter(isWatched).map { (.added, $0) }
        for item in update.changed where isWatched(item) {
            changes.append((.change(hadConflicts: conflicts[key(item)] ?? false, hasConflicts: item.hasUnresolvedConflicts), item))
        }
        changes += update.removed.filter(isWatched).map { (.removed, $0) }
        if list.htmlPage != nil, !changes.isEmpty {
            for (kind, item) in changes { cards[key(item)] = kind == .removed ? nil : card(of: item) }
            rewriteSheet()
        }
        switch form {
        case .jsonLines:
            for (kind, item) in changes {
                let path = key(item)
                let displayName: String
                if kind == .removed {
                    displayName = displayNames.removeValue(forKey: path) ?? item.displayName
                } else {
                    displayName = item.displayName
                    displayNames[path] = displayName
                }
                try updateReport.line(
                    path: path,
                    UpdateLine(
                        update: kind.rawValue, displayName: displayName, inConflict: item.hasUnresolvedConflicts,
                        sync: item.syncState == .notTracked ? nil : item.syncState.summary))
            }
        case .lines:
            write(changes.map { "\($0.kind.rawValue)\t\(TerminalText.escaped(key($0.item)))\n" }.joined())
        case .terminal:
            guard !changes.isEmpty else { return }
            redraw(changes)
        }
    }

    /// The table again, each changed document's row read anew and marked;
    /// a removed document's last row is shown once more, marked removed.
    private func redraw(_ changes: [(kind: ListUpdateKind, item: MetadataItem)]) {
        var updates: [String: ListUpdateKind] = [:]
        var removedRows: [Ict.List.Row] = []
        var folders = Ict.List.OpenFolder()
        var states = Ict.List.FolderStates()
        var progress = ProgressReporter("list", total: nil, unit: "documents")
        var listings: [String: [String: Int]] = [:]
        for (kind, item) in changes {
            let path = key(item)
            updates[path] = kind
            if kind == .removed {
                if let row = rows.removeValue(forKey: path) { removedRows.append(row) }
                continue
            }
            var location = location(of: item)
            if listings[location.folder] == nil {
                let names = (try? Directory.entries(atPath: location.folder).map(\.name)) ?? []
                listings[location.folder] = DocumentVersion.conflictCounts(amongNames: names)
            }
            location.conflictCount = listings[location.folder]?[location.name] ?? 0
            // The query's item carries the engine's state as its events told it: no engine is asked here.
            var noSyncStates: SyncStateReader?
            var row = try? list.readRow(location, folder: &folders, states: &states, syncStates: &noSyncStates, report: listReport, clearing: &progress)
            if item.syncState != .notTracked { row?.sync = item.syncState.summary }
            rows[path] = row ?? rows[path]
        }
        folders.close()
        draw(updates: updates, removed: removedRows)
    }

    /// Draws the table over the one drawn before, unless a problem was
    /// printed on standard error since (then below it, leaving the problem in view).
    private func draw(updates: [String: ListUpdateKind]?, removed: [Ict.List.Row] = []) {
        let sorted = DocumentListing.sorted(Array(rows.values) + removed)
        let marks = updates.map { updates in sorted.map { updates[$0.path]?.rawValue ?? "" } }
        let table = DocumentListing.table(sorted, showingData: list.data, updates: marks)
        let problemsPrinted = listReport.problems.count + updateReport.problems.count
        let up = drawnLines > 0 && problemsPrinted == problemsSeen ? "\u{1B}[\(drawnLines)A\r\u{1B}[J" : ""
        problemsSeen = problemsPrinted
        drawnLines = sorted.count + 1
        write(up + table)
    }

    /// How many problems had been printed when the table was last drawn.
    private var problemsSeen = 0

    private func write(_ text: String) {
        var output = StandardOutput()
        output.write(text)
        output.flush()
    }
}

extension Problem {
    /// A problem of a metadata query: at the path it names.
    init(_ error: MetadataQueryError, severity: Severity = .error) {
        let prefix = error.pathText + ": "
        let reason = error.description.hasPrefix(prefix) ? String(error.description.dropFirst(prefix.count)) : error.description
        self.init(path: error.pathText, severity: severity, reason)
    }
}
