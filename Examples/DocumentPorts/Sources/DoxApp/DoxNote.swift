import DocumentFormats
import DocumentObject

#if canImport(UIKit)
import UIKit
#else
import AppleCompatibility
import Foundation
#endif

/// The tutorial's note (`.dox`): one file whose whole content is the note as
/// UTF-8 text, empty notes shown as "Empty" — as on iOS but for the import.
///
/// The tutorial wrote `[NSData dataWithBytes:[noteContent UTF8String]
/// length:[noteContent length]]`: the character count as the byte count,
/// so a note with non-ASCII text lost its last bytes, maybe inside a
/// character. Here the bytes written are the whole text, and reading drops
/// a last character cut short (with a warning) instead of refusing the file.
final class DoxNote: UIDocument {
    /// The note.
    var noteContent = ""
    /// How many bytes at the end were dropped as a character cut short.
    private(set) var droppedByteCount = 0
    /// The last error reported to `handleError`, shown by the tool.
    private(set) var lastError: Error?

    override func contents(forType typeName: String) throws -> Any {
        if noteContent.isEmpty { noteContent = "Empty" }
        return Data(noteContent.utf8)
    }

    override func load(fromContents contents: Any, ofType typeName: String?) throws {
        guard let data = contents as? Data else { throw CocoaError(.fileReadCorruptFile) }
        if data.isEmpty {
            noteContent = "Empty"
            droppedByteCount = 0
        } else {
            let text = try DocumentText(decoding: data, allowingTruncatedEnd: true)
            noteContent = text.text
            droppedByteCount = text.droppedByteCount
        }
        NotificationCenter.default.post(name: Notification.Name("noteModified"), object: self)
    }

    override func handleError(_ error: Error, userInteractionPermitted: Bool) {
        lastError = error
        super.handleError(error, userInteractionPermitted: userInteractionPermitted)
    }
}
