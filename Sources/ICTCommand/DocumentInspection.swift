import ICTDocument
import OrderedCollections
import PropertyList

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
        let document = try ICTDocument(contentsOf: path)
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

    func text() -> String {
        var lines = ["\(path): .ict document",
                     "  display name: \(displayName)",
                     "  version: \(metadata.version)",
                     "  thumbnail: \(Self.sizeText(thumbnailSize, bytes: metadata.thumbnail?.count))"]
        if let data {
            lines.append("  first name: \(data.firstName ?? "none")")
            lines.append("  last name: \(data.lastName ?? "none")")
            lines.append("  display name (data): \(data.displayName ?? "none")")
            lines.append("  favorite number: \(data.favoriteNumber.map { Self.number($0) } ?? "none")")
            lines.append("  photo: \(Self.sizeText(photoSize, bytes: data.photo?.count))")
        }
        lines.append("  entries:")
        let width = entries.map(\.name.count).max() ?? 0
        for entry in entries {
            let padding = String(repeating: " ", count: width - entry.name.count)
            lines.append("    \(entry.name)\(padding)  \(entry.size.map { "\($0) bytes" } ?? "directory or link")")
        }
        lines.append("  read: \(entriesRead.joined(separator: ", ")) (\(bytesRead) bytes)"
                     + (data == nil ? "; the data entry was not read (--data shows the fields and photo)" : ""))
        return lines.joined(separator: "\n") + "\n"
    }

    /// A number as the user typed it: 7, not 7.0.
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(Float(value))
    }

    func jsonValue() -> PropertyListValue {
        var value: OrderedDictionary<String, PropertyListValue> = [
            "path": .string(path),
            "displayName": .string(displayName),
            "version": .integer(PropertyListInteger(Int64(metadata.version))),
        ]
        value["thumbnail"] = Self.imageValue(thumbnailSize, bytes: metadata.thumbnail?.count)
        if let data {
            var fields: OrderedDictionary<String, PropertyListValue> = [:]
            fields["firstName"] = data.firstName.map(PropertyListValue.string)
            fields["lastName"] = data.lastName.map(PropertyListValue.string)
            fields["displayName"] = data.displayName.map(PropertyListValue.string)
            fields["favoriteNumber"] = data.favoriteNumber.map(PropertyListValue.real)
            fields["photo"] = Self.imageValue(photoSize, bytes: data.photo?.count)
            value["data"] = .dictionary(fields)
        }
        value["entries"] = .array(entries.map { entry in
            var fields: OrderedDictionary<String, PropertyListValue> = ["name": .string(entry.name)]
            fields["size"] = entry.size.map { .integer(PropertyListInteger($0)) }
            return .dictionary(fields)
        })
        value["entriesRead"] = .array(entriesRead.map(PropertyListValue.string))
        value["bytesRead"] = .integer(PropertyListInteger(Int64(bytesRead)))
        return .dictionary(value)
    }

    /// `{"width", "height", "bytes"}`, or nil (the key left out) when there is no image.
    static func imageValue(_ size: (width: Int, height: Int)?, bytes: Int?) -> PropertyListValue? {
        guard let size, let bytes else { return nil }
        return .dictionary(["width": .integer(PropertyListInteger(Int64(size.width))),
                            "height": .integer(PropertyListInteger(Int64(size.height))),
                            "bytes": .integer(PropertyListInteger(Int64(bytes)))])
    }
}
