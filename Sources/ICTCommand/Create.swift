import ArgumentParser
import FileCoordination
import ICTDocument

extension Ict {
    /// `ict create`: a new `.ict` document from fields and a photo.
    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a new .ict document.",
            discussion: """
                The document is named from --name (default Friend): Friend.ict, else \
                Friend 1.ict, Friend 2.ict, … — the first name free in the folder, \
                compared case-insensitively. It prints the new document's path.
                """
        )

        @OptionGroup var fields: DocumentFieldOptions

        @Option(help: "The base of the new document's file name: a name, not a path.")
        var name = "Friend"

        @Option(name: [.short, .customLong("output")], help: "The folder to create the document in.")
        var output = "."

        @Flag(help: "Print one JSON document for programs (Schemas/cli/create.schema.json).")
        var json = false

        func validate() throws {
            if let problem = Self.nameProblem(name) { throw ValidationError("--name \(problem)") }
        }

        /// Why `name` cannot be a document's base name: it must be one
        /// non-empty file name, not a path nor a hidden name.
        static func nameProblem(_ name: String) -> String? {
            if name.isEmpty { return "is empty; give the document's name, such as Friend" }
            if name.contains("/") { return "'\(name)' is a path; give a name without '/' and choose the folder with -o" }
            if name.hasPrefix(".") { return "'\(name)' starts with '.', which would hide the document" }
            if name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
                return "contains a control character"
            }
            return nil
        }

        func run() throws {
            let report = Self.report(json: json)
            let document = ICTDocumentFile()
            do {
                _ = try fields.apply(to: document)
            } catch let problem as Problem {
                throw report.fail(problem)
            } catch let error as ICTDocumentError {
                throw report.fail(Problem(path: "ict", error.description))
            }
            let directory = DocumentSupport.trimmingTrailingSlashes(output)
            let path: String
            do {
                path = "\(directory)/\(try ICTDocumentFile.freeFileName(for: name, in: directory))"
                // A coordinated write: a presenter waiting for this name hears of it once the save is whole.
                try FileCoordinator().coordinate(writing: path, options: .forReplacing) { try document.save(to: $0) }
            } catch let error as ICTDocumentError {
                throw report.fail(Problem(document: directory, error))
            } catch {
                throw report.fail(Problem(path: directory, "\(error)"))
            }
            report["path"] = .string(path)
            if !json { print(TerminalText.escaped(path)) }
            try report.finish()
        }
    }
}

extension Ict.Create: ReportingCommand {
    static let reportName = "create"
    static let reportFields = ["path"]
}
