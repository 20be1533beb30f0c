import ArgumentParser
import DocumentFormats
import ICTKitTooling

extension Ict {
    /// `ict thumbnail`: a document's thumbnail as a PNG file.
    struct Thumbnail: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "thumbnail",
            abstract: "Write an .ict document's thumbnail as a PNG file.",
            discussion: """
                Without --size, the stored thumbnail is written as it is (only the \
                metadata entry is read). With --size N, the photo (from the data \
                entry) is resized to N×N with the same filter as the stored thumbnail.
                """
        )

        @Argument(help: "The .ict document.")
        var document: String

        @Option(name: [.short, .customLong("output")], help: "The PNG file to write.")
        var output: String

        @Option(help: "The side of the square thumbnail to make from the photo, in pixels (1–4096).")
        var size: Int?

        @Flag(help: "Print one JSON document for programs (Schemas/cli/thumbnail.schema.json).")
        var json = false

        func validate() throws {
            if let size, !(1...4096).contains(size) { throw ValidationError("--size must be between 1 and 4096") }
            if json, output == "-" { throw ValidationError("--json prints the report on standard output; name the PNG's file with -o") }
        }

        func run() throws {
            let report = Self.report(json: json)
            let path = DocumentSupport.trimmingTrailingSlashes(document)
            report.fields.path = path
            report.fields.output = output
            if let problem = DocumentSupport.notADocumentProblem(document) { throw report.fail(problem) }
            if let problem = OutputPlacement.insideInputProblem(output, reading: path) { throw report.fail(problem) }
            let bytes: [UInt8]
            do {
                let opened = try ICTDocumentFile(contentsOf: path)
                if let size {
                    guard let photo = try opened.data().photo else {
                        throw ICTDocumentError(.missingKey, entry: ICTDocumentFormat.dataEntryName, keyPath: "DATA.PHOTO", "the document has no photo")
                    }
                    bytes = try ICTDocumentFile.thumbnail(of: try PNGImage(pngBytes: [UInt8](photo)), side: size).pngBytes()
                } else {
                    guard let thumbnail = try opened.metadata().thumbnail else {
                        throw ICTDocumentError(
                            .missingKey, entry: ICTDocumentFormat.metadataEntryName, keyPath: "DATA.THUMBNAIL", "the document has no thumbnail")
                    }
                    bytes = [UInt8](thumbnail)
                }
                let pixels = try PNGImage.size(ofPNG: bytes)
                report.fields.width = pixels.width
                report.fields.height = pixels.height
            } catch let error as ICTDocumentError {
                throw report.fail(Problem(document: path, error))
            }
            do {
                try OutputFile.write(bytes, to: output)
            } catch {
                throw report.fail(Problem(path: Problem.outputName(output), error.description))
            }
            report.fields.bytes = bytes.count
            try report.finish()
        }
    }
}

extension Ict.Thumbnail: TypedReportingCommand {
    static let reportName = "thumbnail"

    /// `Schemas/cli/thumbnail.schema.json`.
    struct Fields: ReportFields {
        /// The document, without trailing slashes.
        var path: String?
        /// The PNG file written.
        var output: String?
        /// The PNG's size in pixels.
        var width: Int?
        var height: Int?
        /// The PNG's size in bytes.
        var bytes: Int?
    }
}
