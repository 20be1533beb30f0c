import DocumentFormats
import OrderedCollections
import PropertyList
import SystemSupport

/// What `ict inspect DOC.ict` shows: the metadata, the entries' sizes, and
/// with `--data` the data's fields. Reads only the metadata entry unless the
/// data is asked for.
package struct DocumentInspection {
    package var path: String
    package var displayName: String
    package var metadata: CTMetadata
    package var thumbnailSize: (width: Int, height: Int)?
    package var entries: [(name: String, size: Int64?)]
    package var data: CTData?
    package var photoSize: (width: Int, height: Int)?
    package var entriesRead: [String]
    package var bytesRead: Int

    package init(path: String, readingData: Bool) throws(ICTDocumentError) {
        let document = try ICTDocumentFile(contentsOf: path)
        self.path = path
        metadata = try document.metadata()
        displayName = try document.displayName()
        thumbnailSize = try metadata.thumbnail.map { bytes throws(ICTDocumentError) in try PNGImage.size(ofPNG: bytes) }
        entries = document.entrySizes
        if readingData {
            let data = try document.data()
            self.data = data
            photoSize = try data.photo.map { bytes throws(ICTDocumentError) in try PNGImage.size(ofPNG: bytes) }
        }
        entriesRead = document.statistics.entriesDecoded
        bytesRead = document.statistics.bytesRead
    }

    package static func sizeText(_ size: (width: Int, height: Int)?, bytes: Int?) -> String {
        guard let size, let bytes else { return "none" }
        return "\(size.width)×\(size.height) PNG, \(bytes) bytes"
    }

    /// The text for people, its names and fields with control characters escaped (`TerminalText`).
    package func text() -> String {
        var lines = [
            "\(path): .ict document",
            "  display name: \(displayName)",
            "  version: \(metadata.version)",
            "  thumbnail: \(Self.sizeText(thumbnailSize, bytes: metadata.thumbnail?.count))",
        ]
        if let data {
            lines.append("  first name: \(data.firstName ?? "none")")
            lines.append("  last name: \(data.lastName ?? "none")")
            lines.append("  display name (data): \(data.displayName ?? "none")")
            lines.append("  favorite number: \(data.favoriteNumber.map { Self.number($0) } ?? "none")")
            lines.append("  photo: \(Self.sizeText(photoSize, bytes: data.photo?.count))")
        }
        lines.append("  entries:")
        // Names as bytes may be anything: shown escaped (`RawFileName.escaped`), `--json` gives them as they are.
        let shown = entries.map { RawFileName.escaped($0.name) }
        let width = shown.map(\.count).max() ?? 0
        for (entry, name) in zip(entries, shown) {
            let padding = String(repeating: " ", count: width - name.count)
            lines.append("    \(name)\(padding)  \(entry.size.map { "\($0) bytes" } ?? "directory or link")")
        }
        lines.append(
            "  read: \(entriesRead.joined(separator: ", ")) (\(bytesRead) bytes)"
                + (data == nil ? "; the data entry was not read (--data shows the fields and photo)" : ""))
        // Each line is one line: any control character in it came from the document.
        return lines.map(TerminalText.escaped).joined(separator: "\n") + "\n"
    }

    /// A number as the user typed it: 7, not 7.0.
    package static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(Float(value))
    }

    /// The `document` object of `ict inspect --json` (`Schemas/cli/inspect.schema.json`).
    package func jsonForm() -> JSONForm {
        JSONForm(
            kind: DocumentKind.ict.rawValue, path: path, displayName: displayName, version: metadata.version,
            thumbnail: Image(thumbnailSize, bytes: metadata.thumbnail?.count), data: data.map { Fields($0, photoSize: photoSize) },
            text: nil, entries: entries.map(Entry.init), entriesRead: entriesRead, bytesRead: bytesRead)
    }

    /// The `document` object of `ict inspect --json`, one shape for every
    /// document kind (`.ict`, `.ptk`, notes): the fields a kind lacks null or empty.
    package struct JSONForm: Encodable {
        package var kind: String
        package var path: String
        package var displayName: String
        package var version: Int?
        package var thumbnail: Image?
        /// The data entry's fields, when it was read.
        package var data: Fields?
        /// A note's text (`NoteInspection.TextForm`).
        package var text: NoteInspection.TextForm?
        package var entries: [Entry]
        package var entriesRead: [String]
        package var bytesRead: Int
    }

    /// A package's entry: `{"name", "size"}`, the size null for a folder or link.
    package struct Entry: Encodable {
        package var name: String
        package var size: Int?

        package init(_ entry: (name: String, size: Int64?)) {
            name = entry.name
            size = entry.size.map { Int($0) }
        }
    }

    /// The data entry's fields, each null when absent.
    package struct Fields: Encodable {
        package var firstName: String?
        package var lastName: String?
        package var displayName: String?
        package var favoriteNumber: Double?
        package var photo: Image?

        package init(_ data: CTData, photoSize: (width: Int, height: Int)?) {
            firstName = data.firstName
            lastName = data.lastName
            displayName = data.displayName
            favoriteNumber = data.favoriteNumber
            photo = Image(photoSize, bytes: data.photo?.count)
        }
    }

    /// A PNG image: `{"width", "height", "bytes"}`.
    package struct Image: Encodable {
        package var width: Int
        package var height: Int
        package var bytes: Int

        /// Nil when there is no image.
        package init?(_ size: (width: Int, height: Int)?, bytes: Int?) {
            guard let size, let bytes else { return nil }
            (width, height, self.bytes) = (size.width, size.height, bytes)
        }
    }
}
