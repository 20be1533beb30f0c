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

        func validate() throws {
            guard !fields.isEmpty else { throw ValidationError("name at least one field to set") }
            guard DocumentSupport.isDocument(document) else { throw ValidationError("\(document) is not an .ict document package") }
        }

        func run() throws {
            let path = DocumentSupport.trimmingTrailingSlashes(document)
            do {
                let opened = try ICTDocument(contentsOf: path)
                guard try fields.apply(to: opened) else {
                    print("\(path): unchanged")
                    return
                }
                try opened.save()
            } catch let error as ICTDocumentError {
                throw DocumentSupport.fail(document: path, error)
            }
            print("\(path): saved")
        }
    }
}
