import ArgumentParser
import ICTDocument

extension Ict {
    /// `ict thumbnail`: a document's thumbnail as a PNG file.
    struct Thumbnail: ParsableCommand {
        static let configuration = CommandConfiguration(
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

        func validate() throws {
            guard DocumentSupport.isDocument(document) else { throw ValidationError("\(document) is not an .ict document package") }
            if let size, !(1 ... 4096).contains(size) { throw ValidationError("--size must be between 1 and 4096") }
        }

        func run() throws {
            let path = DocumentSupport.trimmingTrailingSlashes(document)
            let bytes: [UInt8]
            do {
                let opened = try ICTDocument(contentsOf: path)
                if let size {
                    guard let photo = try opened.data().photo else {
                        throw ICTDocumentError(.missingKey, entry: ICTFormat.dataEntryName, keyPath: "DATA.PHOTO", "the document has no photo")
                    }
                    bytes = try ICTDocument.thumbnail(of: try PNGImage(pngBytes: [UInt8](photo)), side: size).pngBytes()
                } else {
                    guard let thumbnail = try opened.metadata().thumbnail else {
                        throw ICTDocumentError(.missingKey, entry: ICTFormat.metadataEntryName, keyPath: "DATA.THUMBNAIL", "the document has no thumbnail")
                    }
                    bytes = [UInt8](thumbnail)
                }
            } catch let error as ICTDocumentError {
                throw DocumentSupport.fail(document: path, error)
            }
            do {
                try OutputFile.write(bytes, to: output)
            } catch {
                Diagnostics.printError("ict: \(error.description)")
                throw ExitCode.failure
            }
        }
    }
}
