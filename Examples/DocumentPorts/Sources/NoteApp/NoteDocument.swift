import DocumentFormats
import DocumentObject

#if canImport(UIKit)
import UIKit
#else
import AppleCompatibility
import Foundation
#endif

/// The notes app's document (`.icfnote`): one file whose whole content is
/// the note as UTF-8 text. As on iOS but for the import, and for reading the
/// text with `DocumentText`, whose error says at which byte the file stops
/// being UTF-8 (`String(data:encoding:)` only says that it does).
final class NoteDocument: UIDocument {
    /// The note.
    var noteText = ""
    /// The last error reported to `handleError`, shown by the tool.
    private(set) var lastError: Error?

    override func contents(forType typeName: String) throws -> Any {
        Data(noteText.utf8)
    }

    override func load(fromContents contents: Any, ofType typeName: String?) throws {
        guard let data = contents as? Data else { throw CocoaError(.fileReadCorruptFile) }
        noteText = try DocumentText(decoding: data, allowingTruncatedEnd: false).text
    }

    override func handleError(_ error: Error, userInteractionPermitted: Bool) {
        lastError = error
        super.handleError(error, userInteractionPermitted: userInteractionPermitted)
    }
}
