import ICTDocument
import OrderedCollections
import PropertyList
import SystemSupport

/// What `ict inspect DOC.ict` shows: the metadata, the entries' sizes, and
/// with `--data` the data's fields. Reads only the metadata entry unless the
/// data is asked for.
struct DocumentInspection {
    var path: String
    var displayName: String
    var metadata: CTMetadata
    var thumbnailSize: (width: Int, height: Int)?
    var entries: [(name: String, size: Int64?)]
    var data: CTData?
    var photoSize: (width: Int, height: Int)?
    var entriesRead: [String]
    var bytesRead: Int

    init(path: String, readingData: Bool) throws(ICTDocumentError) {
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

    static func sizeText(_ size: (width: Int, height: Int)?, bytes: Int?) -> String {
        guard let size, let bytes else { return "none" }
        return "\(size.width)×\(size.height) PNG, \(bytes) bytes"
    }

    /// The text for people, its names and fields with control characters escaped (`TerminalText`).
    func text() -> String {
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
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(Float(value))
    }

    /// The `document` object of `ict inspect --json` (`Schemas/cli/inspect.schema.json`).
    func jsonValue() -> JSONValue {
        .object([
            ("kind", .string(DocumentKind.ict.rawValue)),
            ("path", .string(path)),
            ("displayName", .string(displayName)),
            ("version", .integer(metadata.version)),
            ("thumbnail", Self.imageValue(thumbnailSize, bytes: metadata.thumbnail?.count)),
            ("data", data.map { Self.fieldsValue($0, photoSize: photoSize) } ?? .null),
            ("text", .null),
            ("entries", Self.entriesValue(entries)),
            ("entriesRead", .array(entriesRead.map(JSONValue.string))),
            ("bytesRead", .integer(bytesRead)),
        ])
    }

    /// A package's entries: `[{"name", "size"}]`, the size null for a folder or link.
    static func entriesValue(_ entries: [(name: String, size: Int64?)]) -> JSONValue {
        .array(entries.map { entry in .object([("name", .string(entry.name)), ("size", .optional(entry.size.map { Int($0) }))]) })
    }

    /// The data entry's fields, each null when absent.
    static func fieldsValue(_ data: CTData, photoSize: (width: Int, height: Int)?) -> JSONValue {
        .object([
            ("firstName", .optional(data.firstName)),
            ("lastName", .optional(data.lastName)),
            ("displayName", .optional(data.displayName)),
            ("favoriteNumber", data.favoriteNumber.map { .propertyList(.real($0)) } ?? .null),
            ("photo", imageValue(photoSize, bytes: data.photo?.count)),
        ])
    }

    /// `{"width", "height", "bytes"}`, or null when there is no image.
    static func imageValue(_ size: (width: Int, height: Int)?, bytes: Int?) -> JSONValue {
        guard let size, let bytes else { return .null }
        return .object([("width", .integer(size.width)), ("height", .integer(size.height)), ("bytes", .integer(bytes))])
    }
}
