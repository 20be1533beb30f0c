import ArgumentParser
import DocumentFormats
import FileCoordination
import ICTKitTooling
import SystemSupport

extension Ict {
    /// `ict create`: a new document: an `.ict` from fields and a photo, a `.ptk` from a photo, a note from its text.
    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create",
            abstract: "Create a new document: .ict, .ptk, .icfnote or .dox.",
            discussion: """
                Without a path, an .ict document named from --name (default Friend) in \
                the -o folder: Friend.ict, else Friend 1.ict, Friend 2.ict, … — the first \
                name free in the folder, compared case-insensitively. With a path, the \
                document made there, of the kind its extension names (an existing item \
                is never replaced): an .ict from the fields, a .ptk (the photo app's \
                package) from --photo, a note (.icfnote, .dox: one file of UTF-8 text) \
                from --text, as in ict create Note.icfnote --text "Milk" (--name and -o \
                are for the first form). It prints the new document's path.
                """
        )

        @Argument(help: "The new document's path; its extension (.ict, .ptk, .icfnote, .dox) gives its kind.")
        var document: String?

        @OptionGroup var fields: DocumentFieldOptions

        @Option(help: "The base of the new document's file name: a name, not a path.")
        var name = "Friend"

        @Option(name: [.short, .customLong("output")], help: "The folder to create the document in.")
        var output = "."

        @Flag(help: "Print one JSON document for programs (Schemas/cli/create.schema.json).")
        var json = false

        func validate() throws {
            if let problem = Self.nameProblem(name) { throw ValidationError("--name \(problem)") }
            guard let document else {
                if fields.text != nil { throw ValidationError("--text makes a note: name it, as in ict create Note.icfnote --text TEXT") }
                return
            }
            if output != "." { throw ValidationError("the path names the folder of the new document: leave out -o") }
            guard let kind = DocumentKind.of(name: document) else {
                throw ValidationError("'\(document)' does not end in .ict, .ptk, .icfnote or .dox, so its kind is not known")
            }
            if let problem = fields.problem(for: kind) { throw ValidationError(problem) }
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
            if let document { return try create(at: DocumentSupport.trimmingTrailingSlashes(document)) }
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
            report.fields.path = path
            if !json { StandardOutput.printLine(path) }
            try report.finish()
        }
    }
}

extension Ict.Create {
    /// Creates the document at `path`, of the kind its name says, never replacing what is there.
    private func create(at path: String) throws {
        let report = Self.report(json: json)
        guard let kind = DocumentKind.of(name: path) else { preconditionFailure("validate() checked the kind") }
        do {
            if (try? FileInfo.of(path: path, followingLink: false)) != nil {
                throw ICTDocumentError(.alreadyExists, "already exists; not replaced")
            }
            // A coordinated write: a presenter waiting for this name hears of it once the document is whole.
            try FileCoordinator().coordinate(writing: path, options: .forReplacing) { target in
                switch kind {
                case .ict:
                    let document = ICTDocumentFile()
                    _ = try fields.apply(to: document)
                    try document.save(to: target)
                case .ptk:
                    let document = PTKDocumentFile()
                    _ = try fields.apply(to: document)
                    try document.save(to: target)
                case .icfnote, .dox:
                    try TextNoteFile.write(fields.text ?? "", to: target, replacingExisting: false)
                }
            }
        } catch let problem as Problem {
            throw report.fail(problem)
        } catch let error as ICTDocumentError {
            throw report.fail(Problem(document: path, error))
        } catch {
            throw report.fail(Problem(path: path, "\(error)"))
        }
        report.fields.path = path
        if !json { StandardOutput.printLine(path) }
        try report.finish()
    }
}

extension Ict.Create: TypedReportingCommand {
    static let reportName = "create"

    /// `Schemas/cli/create.schema.json`.
    struct Fields: ReportFields {
        /// The document made.
        var path: String?
    }
}
