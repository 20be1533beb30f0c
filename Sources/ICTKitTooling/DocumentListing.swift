import ConflictVersions
import DocumentFormats
import PropertyList
import SystemSupport

/// What `ict list` makes of a folder's documents: a row for each (its name,
/// kind, thumbnail, conflicts, state and sync state), in the table's order,
/// as a table for people and as the fields of its JSON forms.
package enum DocumentListing {
    package struct Row {
        package var path: String
        package var kind: DocumentKind = .ict
        package var displayName: String
        package var thumbnailSize: (width: Int, height: Int)?
        /// With `--data`: the data's fields and the photo's size.
        package var data: (fields: CTData, photoSize: (width: Int, height: Int)?)?
        /// How many conflict copies of the document are beside it; nil
        /// for a document named in a list (its folder is not listed).
        package var conflicts: Int?
        /// What its files say of its state (`inConflict`, `editingDisabled`);
        /// nil when that could not be found (reported as a warning).
        package var state: DocumentItemState?
        /// For a `.dox` cut inside a character: the warning saying where.
        package var truncation: Problem?
        /// With `--html`: the document's card on the contact sheet.
        package var card: ContactSheet.Card?
        /// Its sync state in a ubiquity container whose engine tells one
        /// (`current`, `uploading`, `downloading 42%`, `unknown`, …); nil otherwise.
        package var sync: String?
    }

    /// `rows` by display name, ignoring case, then by path: the table's and `--json`'s order.
    package static func sorted(_ rows: [Row]) -> [Row] {
        let keys = rows.map { $0.displayName.lowercased() }
        return rows.indices.sorted { ContactSheet.areInListOrder((keys[$0], rows[$0].path), (keys[$1], rows[$1].path)) }.map { rows[$0] }
    }

    /// A document named in the `--files-from` list: read by its path, its folder not listed.
    package static func listedLocation(_ path: String) -> DocumentLocation {
        DocumentLocation(folder: "", name: DocumentSupport.trimmingTrailingSlashes(path), conflictCount: nil)
    }

    /// A folder that cannot be listed: at the folder the library names, else at `folder`.
    package static func problem(_ folder: String, _ error: ICTDocumentError) -> Problem {
        error.packageError.map { Problem(path: folder, $0) } ?? Problem(path: folder, error.message)
    }

    /// The folder the documents being read are in, kept open so each
    /// document is opened relative to it (shorter lookups than full paths).
    package struct OpenFolder {
        private var current: (path: String, file: OpenFile)?

        package init() {}

        /// A descriptor of `path`, or the current directory's (`CurrentDirectory.descriptor`)
        /// when it cannot be opened (full paths are used then).
        package mutating func descriptor(for path: String) -> Int32 {
            guard !path.isEmpty else { return CurrentDirectory.descriptor }
            if let current, current.path == path { return current.file.descriptor }
            close()
            guard let file = try? OpenFile(path: path, options: .directory) else { return CurrentDirectory.descriptor }
            current = (path, file)
            return file.descriptor
        }

        package mutating func close() {
            current = nil
        }
    }

    /// The states of the documents of the folder being listed, from one
    /// listing of it (`DocumentVersion.otherVersionsOfItems(inFolder:)`)
    /// rather than a listing per document.
    package struct FolderStates {
        private var current: (folder: String, versions: [String: [DocumentVersion]])?

        package init() {}

        /// The state of the document at `location`: a document named in a list on its own.
        /// Without `lookingInside`, a document of a listed folder is in conflict when
        /// conflict copies are beside it (the folder's one listing found them), and its
        /// package is not listed for copies of its entries (which `ict versions` shows):
        /// listing every package would double the time of a plain `ict list`.
        package mutating func state(of location: DocumentLocation, lookingInside: Bool) throws(DocumentVersionError)
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
    package static func row(_ location: DocumentLocation, in folder: Int32, readingData: Bool, readingCard: Bool = false) throws(ICTDocumentError)
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

    package static func sizeText(_ size: (width: Int, height: Int)?) -> String {
        size.map { "\($0.width)×\($0.height)" } ?? "none"
    }

    /// The table for people: names and paths with control characters escaped
    /// (`TerminalText`); with `updates` (`--watch`), first an UPDATE column of
    /// what each row's document went through last (`added`, `removed`, …).
    package static func table(_ rows: [Row], showingData: Bool, updates: [String]? = nil) -> String {
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
    package static func lineFields(_ row: Row?, kind: DocumentKind) -> LineFields {
        LineFields(
            kind: kind.rawValue, displayName: row?.displayName, thumbnail: row?.thumbnailSize.map { Size(width: $0.width, height: $0.height) },
            data: row?.data.map { DocumentInspection.Fields($0.fields, photoSize: $0.photoSize) }, conflicts: row?.conflicts,
            state: row?.state.map(\.names), sync: row?.sync)
    }

    /// `Schemas/cli/list.schema.json`.
    package struct Fields: ReportFields {
        /// The folder listed, as named; null for a list from `--files-from` alone.
        package var directory: String?
        /// Every document, sorted as the table is.
        package var documents: [PathEntry<LineFields>]?

        package init() {}
    }

    /// A document's line with `--jsonl` (`Schemas/cli/list.jsonl.schema.json`), after `path`.
    package struct LineFields: ReportFields {
        package var kind: String?
        package var displayName: String?
        package var thumbnail: Size?
        /// With `--data`, the data entry's fields.
        package var data: DocumentInspection.Fields?
        /// How many conflict copies the document has.
        package var conflicts: Int?
        /// The document's state's names (`inConflict`, `editingDisabled`).
        package var state: [String]?
        /// Its sync state where a container's engine tells one.
        package var sync: String?

        package init() {}

        package init(
            kind: String?, displayName: String?, thumbnail: Size?, data: DocumentInspection.Fields?, conflicts: Int?, state: [String]?,
            sync: String?
        ) {
            self.kind = kind
            self.displayName = displayName
            self.thumbnail = thumbnail
            self.data = data
            self.conflicts = conflicts
            self.state = state
            self.sync = sync
        }
    }

    /// A thumbnail's size in pixels.
    package struct Size: Encodable {
        package var width: Int
        package var height: Int
    }
}
