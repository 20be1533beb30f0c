#if canImport(Darwin)
import Foundation
#else
import KeyedCodingAppleNames
#endif

/// `ct-document-port DOCUMENT… --output FOLDER`: prints each document's
/// fields as the ported classes read them, then renames it (display name
/// in both objects, as the app's setter does) and writes it into FOLDER.
@main
struct CTDocumentPortMain {
    static func main() {
        var arguments = Array(CommandLine.arguments.dropFirst())
        guard let outputFlag = arguments.firstIndex(of: "--output"), outputFlag + 1 < arguments.count else {
            print("usage: ct-document-port DOCUMENT.ict… --output FOLDER")
            exit(64)
        }
        let output = URL(fileURLWithPath: arguments[outputFlag + 1])
        arguments.removeSubrange(outputFlag...outputFlag + 1)
        var failed = false
        for path in arguments {
            do {
                print(try port(documentAt: URL(fileURLWithPath: path), into: output), terminator: "")
            } catch {
                print("\(path): \(error)")
                failed = true
            }
        }
        exit(failed ? 1 : 0)
    }

    /// Reads the document at `url`, writes it renamed into `folder`, and says what it did.
    static func port(documentAt url: URL, into folder: URL) throws -> String {
        let (data, metadata) = try CTDocumentFiles.read(documentAt: url)
        var report = """
            \(url.lastPathComponent)
              DISPLAY NAME     \(metadata.displayName ?? "nil")
              THUMBNAIL        \(metadata.thumbnail.map { "\($0.count) bytes" } ?? "nil")
              FIRST_NAME       \(data.firstName ?? "nil")
              LAST_NAME        \(data.lastName ?? "nil")
              DISPLAY_NAME     \(data.displayName ?? "nil")
              FAVORITE_NUMBER  \(data.favoriteNumber.map { "\($0.floatValue)" } ?? "nil")
              PHOTO            \(data.photo.map { "\($0.count) bytes" } ?? "nil")

            """
        let newName = (data.displayName ?? url.deletingPathExtension().lastPathComponent) + " (ported)"
        data.displayName = newName
        metadata.displayName = newName
        let destination = folder.appendingPathComponent(newName + ".ict")
        try CTDocumentFiles.write(data: data, metadata: metadata, toDocumentAt: destination)
        report += "  renamed to \"\(newName)\", written to \(destination.path)\n"
        return report
    }
}
