import AppleCompatibility
import DocumentPortSupport
import Foundation

extension NoteDocument: PortedDocument {
    func summary() throws -> [String] {
        let lines = noteText.split(separator: "\n", omittingEmptySubsequences: false)
        return ["\(noteText.utf8.count) bytes, \(lines.count) lines; first line: \(lines.first ?? "")"]
    }

    func edit() throws {
        noteText += (noteText.hasSuffix("\n") ? "" : "\n") + "Edited on Linux.\n"
        updateChangeCount(.done)
    }
}

/// `NoteApp NOTE.icfnote…`: opens, edits, saves and closes each note with the ported `NoteDocument`.
@main
struct NoteApp {
    @MainActor static func main() async {
        await PortedDocumentRun.main(tool: "NoteApp") { NoteDocument(fileURL: $0) }
    }
}
