import ArgumentParser
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

        @Option(help: "The base of the new document's file name.")
        var name = "Friend"

        @Option(name: [.short, .customLong("output")], help: "The folder to create the document in.")
        var output = "."

        func run() throws {
            let document = ICTDocument()
            _ = try fields.apply(to: document)
            let directory = DocumentSupport.trimmingTrailingSlashes(output)
            let path: String
            do {
                path = "\(directory)/\(try ICTDocument.freeFileName(for: name, in: directory))"
                try document.save(to: path)
            } catch {
                throw DocumentSupport.fail(document: directory, error)
            }
            print(path)
        }
    }
}
