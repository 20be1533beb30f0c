import ArgumentParser
import ICTDocument

extension Ict {
    /// `ict set`: edit the fields of an `.ict` document.
    struct SetFields: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Set fields of an .ict document.",
            discussion: """
                The display name is set in both the data and the metadata; a new photo \
                regenerates the thumbnail. A value equal to the stored one changes \
                nothing and nothing is written. The document is saved safely (a new \
                package swapped in); entries not edited are linked, not rewritten.
                """
        )

        @Argument(help: "The .ict document to edit.")
        var document: String

        @OptionGroup var fields: DocumentFieldOptions

        @Flag(help: "Print one JSON document for programs (Schemas/cli/set.schema.json).")
        var json = false

        func validate() throws {
            guard !fields.isEmpty else { throw ValidationError("name at least one field to set") }
        }

        func run() throws {
            let report = Self.report(json: json)
            let path = DocumentSupport.trimmingTrailingSlashes(document)
            report["path"] = .string(path)
            if let problem = DocumentSupport.notADocumentProblem(document) { throw report.fail(problem) }
            do {
                let opened = try ICTDocument(contentsOf: path)
                let changed = try fields.apply(to: opened)
                if changed { try opened.save() }
                report["changed"] = .bool(changed)
                if !json { print("\(path): \(changed ? "saved" : "unchanged")") }
            } catch let error as ICTDocumentError {
                throw report.fail(Problem(document: path, error))
            } catch let problem as DocumentFieldOptions.Failure {
                throw report.fail(problem.problem)
            }
            try report.finish()
        }
    }
}

extension Ict.SetFields: ReportingCommand {
    static let reportName = "set"
    static let reportFields = ["path", "changed"]
}
