import Foundation
import ICTKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `DocumentReport DOC.ict…` prints, for each `.ict` document, its display
/// name, the person's names and favourite number, and the size of its
/// thumbnail, as a library user would get them; a document that cannot be
/// read is reported with ICTKit's error, which says where, and the exit
/// status is 1.
@main
struct DocumentReport {
    static func main() {
        let paths = CommandLine.arguments.dropFirst()
        guard !paths.isEmpty else {
            print("usage: DocumentReport DOC.ict…")
            exit(64)
        }
        var failed = false
        for path in paths {
            do {
                print(try report(path))
            } catch {
                print("\(path): error: \(error)")
                failed = true
            }
        }
        exit(failed ? 1 : 0)
    }

    static func report(_ path: String) throws -> String {
        let document = try ICTDocumentFile(contentsOf: URL(fileURLWithPath: path))
        let metadata = try document.metadata()
        let data = try document.data()
        var lines = ["\(path): \(try document.displayName())"]
        let names = [data.firstName, data.lastName].compactMap { $0 }
        lines.append("  name: \(names.isEmpty ? "–" : names.joined(separator: " "))")
        if let number = data.favoriteNumber { lines.append("  favourite number: \(number)") }
        if let thumbnail = metadata.thumbnail {
            let size = try PNGImage.size(ofPNG: thumbnail)
            lines.append("  thumbnail: \(size.width)×\(size.height) PNG, \(thumbnail.count) bytes")
        }
        return lines.joined(separator: "\n")
    }
}
