import DocumentFormats
import PropertyList
import SystemSupport

/// `ict convert` between an `.ict` document (or from a `.ptk` one) and its
/// JSON form (`ICTDocumentJSONForm`): where the JSON and its image files go.
package enum DocumentConversion {
    /// Exports the document at `path` (an `.ict`, or a `.ptk` with `kind`) as JSON to `destination` (`-` for
    /// standard output). Unless `embedding`, each image is written beside
    /// the JSON as `BASE.photo.png` and `BASE.thumbnail.png`, BASE being the
    /// destination without `.json` (the document without `.ict` for
    /// standard output), and named relative to the JSON's folder; an
    /// existing image file is replaced only when `replacingImageFiles`
    /// (`OutputPlacement`). Everything is checked before anything is written.
    ///
    /// - Throws: `Problem` when an output may not be written there,
    ///   `ICTDocumentError` when the document cannot be read,
    ///   `CommandFailure` when an output cannot be written.
    package static func export(
        _ path: String, kind: DocumentKind = .ict, to destination: String, embedding: Bool, replacingImageFiles: Bool,
        links: AtomicFileWriter.LinkHandling
    ) throws {
        if let problem = OutputPlacement.insideInputProblem(destination, reading: path) { throw problem }
        let jsonForm: (String?) throws(ICTDocumentError) -> (form: ICTDocumentJSONForm, imageFiles: [(name: String, contents: [UInt8])])
        if kind == .ptk {
            jsonForm = try PTKDocumentFile(contentsOf: path).jsonForm
        } else {
            jsonForm = try ICTDocumentFile(contentsOf: path).jsonForm
        }
        var imageFiles: [(name: String, contents: [UInt8])] = []
        var form: ICTDocumentJSONForm
        if embedding {
            form = try jsonForm(nil).form
        } else {
            let side = try OutputPlacement.SideFiles(beside: destination, document: path)
            (form, imageFiles) = try jsonForm(side.base)
            try side.check(imageFiles.map(\.name), replacing: replacingImageFiles, reading: path)
            imageFiles = imageFiles.map { (side.folder + $0.name, $0.contents) }
        }
        for file in imageFiles {
            try OutputFile.write(file.contents, to: file.name, links: links)
        }
        try OutputFile.write(form.jsonBytes() + [UInt8(ascii: "\n")], to: destination, links: links)
    }

    /// Builds a new document at `destination` from the JSON form at `path`;
    /// the thumbnail is made again from the photo. An existing item at
    /// `destination` is never replaced.
    ///
    /// - Throws: `PropertyListError` when the JSON or the photo file cannot
    ///   be read or is not JSON (it says where); else `ICTDocumentError`.
    package static func `import`(_ path: String, to destination: String) throws {
        let document: ICTDocumentFile
        do {
            document = try ICTDocumentFile(jsonFormAt: path)
        } catch {
            if let reading = error.propertyListError { throw reading }
            throw error
        }
        try document.save(to: destination)
    }
}
