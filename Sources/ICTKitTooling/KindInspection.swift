import DocumentFormats
import SystemSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What `ict inspect` and `ict list` show of a `.ptk` document: its
/// display name (the file name), its thumbnail, its entries, and with
/// `--data` its photo. Reads only the metadata entry unless the data is asked for.
package struct PTKInspection {
    package var path: String
    package var displayName: String
    package var metadata: PTKMetadata
    package var thumbnailSize: (width: Int, height: Int)?
    package var entries: [(name: String, size: Int64?)]
    package var data: PTKData?
    package var photoSize: (width: Int, height: Int)?
    package var entriesRead: [String]
    package var bytesRead: Int

    package init(path: String, readingData: Bool) throws(ICTDocumentError) {
        let document = try PTKDocumentFile(contentsOf: path)
        self.path = path
        displayName = document.displayName
        metadata = try document.metadata()
        thumbnailSize = try Self.size(metadata.thumbnail, entry: PTKDocumentFormat.metadataEntryName, key: PTKDocumentFormat.thumbnailKey)
        entries = document.entrySizes
        if readingData {
            let data = try document.data()
            self.data = data
            photoSize = try Self.size(data.photo, entry: PTKDocumentFormat.dataEntryName, key: PTKDocumentFormat.photoKey)
        }
        entriesRead = document.statistics.entriesDecoded
        bytesRead = document.statistics.bytesRead
    }

    /// The size of a PNG from its header; an error names the entry and key it is in.
    private static func size(_ bytes: Data?, entry: String, key: String) throws(ICTDocumentError) -> (width: Int, height: Int)? {
        guard let bytes else { return nil }
        do {
            return try PNGImage.size(ofPNG: bytes)
        } catch {
            throw ICTDocumentError(error.code, entry: entry, keyPath: "\(PTKDocumentFormat.topKey).\(key)", error.message)
        }
    }

    /// The text for people, names escaped (`TerminalText`, `RawFileName.escaped`).
    package func text() -> String {
        var lines = [
            "\(path): .ptk document",
            "  display name: \(displayName)",
            "  version: \(metadata.version)",
            "  thumbnail: \(DocumentInspection.sizeText(thumbnailSize, bytes: metadata.thumbnail?.count))",
        ]
        if let data { lines.append("  photo: \(DocumentInspection.sizeText(photoSize, bytes: data.photo?.count))") }
        lines.append("  entries:")
        let shown = entries.map { RawFileName.escaped($0.name) }
        let width = shown.map(\.count).max() ?? 0
        for (entry, name) in zip(entries, shown) {
            lines.append("    \(name)\(String(repeating: " ", count: width - name.count))  \(entry.size.map { "\($0) bytes" } ?? "directory or link")")
        }
        lines.append(
            "  read: \(entriesRead.joined(separator: ", ")) (\(bytesRead) bytes)"
                + (data == nil ? "; the data entry was not read (--data shows the photo)" : ""))
        return lines.map(TerminalText.escaped).joined(separator: "\n") + "\n"
    }

    /// The `document` object of `ict inspect --json`: the `.ict` shape, the fields a `.ptk` lacks null.
    package func jsonForm() -> DocumentInspection.JSONForm {
        DocumentInspection.JSONForm(
            kind: DocumentKind.ptk.rawValue, path: path, displayName: displayName, version: metadata.version,
            thumbnail: DocumentInspection.Image(thumbnailSize, bytes: metadata.thumbnail?.count),
            data: data.map { DocumentInspection.Fields(CTData(photo: $0.photo), photoSize: photoSize) }, text: nil,
            entries: entries.map(DocumentInspection.Entry.init), entriesRead: entriesRead, bytesRead: bytesRead)
    }
}

/// What `ict inspect` and `ict list` show of a text note (`.icfnote`, `.dox`):
/// its display name (the file name), its length, its first line, and what
/// a `.dox` cut short dropped.
package struct NoteInspection {
    package var path: String
    package var displayName: String
    package var note: TextNoteFile

    /// Reads the note at `path` (of `kind`).
    ///
    /// - Throws: `ICTDocumentError` `.unreadableFile` or `.invalidText` (with its byte offset).
    package init(path: String, kind: DocumentKind) throws(ICTDocumentError) {
        self.path = path
        note = try TextNoteFile(contentsOf: path, kind: kind)
        displayName = kind.fileDisplayName(ofPath: path)
    }

    /// The warning for a `.dox` whose last character was cut short, at the byte where it starts.
    package var truncationProblem: Problem? {
        note.truncationOffset.map { offset in
            Problem(
                path: path, location: .byte(offset), severity: .warning,
                "the note ends inside a UTF-8 character (\(note.droppedByteCount) byte\(note.droppedByteCount == 1 ? "" : "s") dropped), as the .dox app wrote non-ASCII text"
            )
        }
    }

    /// The text for people, the first line escaped (`TerminalText`).
    package func text() -> String {
        var lines = [
            "\(path): .\(note.kind.rawValue) note",
            "  display name: \(displayName)",
            "  text: \(note.text.count) characters, \(note.byteCount) bytes",
            "  first line: \(note.firstLine)",
        ]
        if let offset = note.truncationOffset {
            lines.append("  cut short: \(note.droppedByteCount) byte(s) at byte \(offset) dropped (the end of a character)")
        }
        return lines.map(TerminalText.escaped).joined(separator: "\n") + "\n"
    }

    /// The `text` object of a note in `ict inspect --json` and `ict list --json`.
    package struct TextForm: Encodable {
        package var characters: Int
        package var bytes: Int
        package var firstLine: String
        package var droppedBytes: Int
        /// Where a `.dox` cut short lost its last character, else null.
        package var truncatedAt: Int?
    }

    /// This note's `text` object.
    package func textForm() -> TextForm {
        TextForm(
            characters: note.text.count, bytes: note.byteCount, firstLine: note.firstLine, droppedBytes: note.droppedByteCount,
            truncatedAt: note.truncationOffset)
    }

    /// The `document` object of `ict inspect --json`: the `.ict` shape, the fields a note lacks null or empty.
    package func jsonForm() -> DocumentInspection.JSONForm {
        DocumentInspection.JSONForm(
            kind: note.kind.rawValue, path: path, displayName: displayName, version: nil, thumbnail: nil, data: nil,
            text: textForm(), entries: [], entriesRead: [], bytesRead: note.byteCount)
    }
}
