import ArgumentParser
import DocumentFormats
import ICTKitTooling
import PropertyList
import SystemSupport

extension Ict {
    /// `ict set`: edit the fields of an `.ict` document, or put a value at a
    /// key path of any property list, keyed archive or `.ict` document.
    struct SetFields: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Set fields of a document (.ict, .ptk, a note's text), or the value at a key path (replacing or adding it).",
            discussion: """
                ict set FILE KEYPATH -TYPE VALUE puts the value at the key path, replacing \
                what is there or adding it (plutil -replace); the containers on the way \
                must exist. Key paths as in ict get; the file is written back in its own \
                form, safely. Fields of an .ict document: the display name is set in both the data and the metadata; a new photo \
                regenerates the thumbnail. A value equal to the stored one changes \
                nothing and nothing is written. The document is saved safely (a new \
                package swapped in); entries not edited are linked, not rewritten, and \
                keys ict does not know (a newer app's) are kept as they are. \
                A .ptk document (the photo app's package) takes --photo, which remakes \
                its 145×145 thumbnail. A note (.icfnote, .dox: one file of UTF-8 text) \
                takes --text, the whole new text, written to a new file renamed over \
                the old one, so the note is never half written.
                """
        )

        @Argument(help: "The document to edit (.ict, .ptk, .icfnote, .dox), or with a key path any property list.")
        var document: String

        @Argument(help: ArgumentHelp("The key path of the value to set (see ict get).", valueName: "keypath"))
        var keyPath: String?

        @OptionGroup var fields: DocumentFieldOptions

        @OptionGroup var value: TypedValueOptions

        @OptionGroup var input: InputOptions

        @OptionGroup var links: LinkOptions

        @Flag(help: "Print one JSON document for programs (Schemas/cli/set.schema.json).")
        var json = false

        func validate() throws {
            if keyPath != nil {
                guard fields.isEmpty else { throw ValidationError("set a key path or fields, not both") }
                _ = try value.value()
            } else {
                guard value.isEmpty else { throw ValidationError("a value needs a key path: ict set FILE KEYPATH -TYPE VALUE") }
                guard !fields.isEmpty else { throw ValidationError("name at least one field to set, or a key path and a value") }
                if let kind = DocumentKind.of(name: document), let problem = fields.problem(for: kind) { throw ValidationError(problem) }
            }
        }

        func run() throws {
            if let keyPath {
                let newValue = try value.value()
                try KeyPathEdit.run(Self.self, links.documentPath(document), keyPath: keyPath, limits: input.limits, json: json, followingLast: true) {
                    propertyList, keyPath throws(PropertyListKeyPathError) in
                    try propertyList.setValue(newValue, at: keyPath, mode: .replace)
                }
                return
            }
            let report = Self.report(json: json)
            let given = DocumentSupport.trimmingTrailingSlashes(document)
            // The kind by the name given; with --follow-symlinks, what a link there points to is edited.
            let path = links.documentPath(given)
            report.fields.path = path
            if case .document(let kind) = InputClass.specialReader(of: given, among: .documents) { return try edit(path, of: kind, report) }
            if let problem = DocumentSupport.notADocumentProblem(document) { throw report.fail(problem) }
            // Held from reading to saving: concurrent edits by ict take turns, none lost.
            let lock = try ItemLockSupport.exclusive(path, report: report)
            defer { lock?.release() }
            do {
                let opened = try ICTDocumentFile(contentsOf: path)
                let changed = try fields.apply(to: opened)
                if changed { try opened.save() }
                report.fields.changed = changed
                if !json { StandardOutput.printLine("\(path): \(changed ? "saved" : "unchanged")") }
            } catch let error as ICTDocumentError {
                throw report.fail(Problem(document: path, error))
            } catch let problem as Problem {
                throw report.fail(problem)
            }
            try report.finish()
        }
    }
}

extension Ict.SetFields {
    /// Sets the photo of a `.ptk` document or the text of a note, saved safely, under the same lock as an `.ict` edit.
    private func edit(_ path: String, of kind: DocumentKind, _ report: TypedReport<Fields>) throws {
        let lock = try ItemLockSupport.exclusive(path, report: report)
        defer { lock?.release() }
        let changed: Bool
        do {
            if kind == .ptk {
                let opened = try PTKDocumentFile(contentsOf: path)
                changed = try fields.apply(to: opened)
                if changed { try opened.save() }
            } else {
                let text = fields.text ?? ""
                // A note that does not read (not UTF-8) is replaced all the same: the new text is the whole file.
                let old = try? TextNoteFile(contentsOf: path, kind: kind)
                changed = old?.text != text || old?.droppedByteCount != 0
                if changed { try TextNoteFile.write(text, to: path, replacingExisting: true) }
            }
        } catch let error as ICTDocumentError {
            throw report.fail(Problem(document: path, error))
        } catch let problem as Problem {
            throw report.fail(problem)
        }
        report.fields.changed = changed
        if !json { StandardOutput.printLine("\(path): \(changed ? "saved" : "unchanged")") }
        try report.finish()
    }
}

extension Ict.SetFields: TypedReportingCommand {
    static let reportName = "set"
    typealias Fields = KeyPathEditFields
}
