import AppleCompatibility
import DocumentFormats
import DocumentPortSupport
import KeyedCodingAppleNames

extension CTDocument: PortedDocument {
    func summary() throws -> [String] {
        let metadata = try metadata(), data = try data()
        var lines = ["display name: \(try displayName())"]
        let names = [data.firstName, data.lastName].compactMap { $0 }
        lines.append("name: \(names.isEmpty ? "–" : names.joined(separator: " "))")
        if let thumbnail = metadata.thumbnail {
            let size = try PNGImage.size(ofPNG: thumbnail)
            lines.append("thumbnail: \(size.width)×\(size.height) PNG, \(thumbnail.count) bytes")
        }
        return lines
    }

    func edit() throws {
        try setDisplayName(try displayName() + " (edited)")
    }
}

/// `CTDocumentApp DOC.ict…`: opens, renames, saves and closes each document with the ported `CTDocument`.
@main
struct CTDocumentApp {
    @MainActor static func main() async {
        await PortedDocumentRun.main(tool: "CTDocumentApp") { CTDocument(fileURL: $0) }
    }
}
