import AppleCompatibility
import DocumentPortSupport
import Foundation

extension DoxNote: PortedDocument {
    func summary() throws -> [String] {
        var lines = ["\(noteContent.count) characters: \(noteContent.split(separator: "\n").first ?? "")"]
        if droppedByteCount > 0 {
            lines.append("warning: the file ends inside a character; its last \(droppedByteCount) byte(s) were dropped")
        }
        return lines
    }

    func edit() throws {
        noteContent += (noteContent.hasSuffix("\n") ? "" : "\n") + "Edited on Linux.\n"
        updateChangeCount(.done)
    }
}

/// `DoxApp NOTE.dox…`: opens, edits, saves and closes each note with the ported `DoxNote`.
@main
struct DoxApp {
    @MainActor static func main() async {
        await PortedDocumentRun.main(tool: "DoxApp") { DoxNote(fileURL: $0) }
    }
}
