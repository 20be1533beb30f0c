import ICTDocument
import PropertyList

/// `ict convert` between an `.ict` document and its JSON form
/// (`ICTDocumentJSONForm`): where the JSON and its image files go.
enum DocumentConversion {
    /// Exports the document at `path` as JSON to `destination` (`-` for
    /// standard output). Unless `embedding`, each image is written beside
    /// the JSON as `BASE.photo.png` and `BASE.thumbnail.png`, BASE being the
    /// destination without `.json` (the document without `.ict` for
    /// standard output), and named relative to the JSON's folder.
    static func export(_ path: String, to destination: String, embedding: Bool) throws {
        let base = destination == "-" ? String(path.dropLast(4)) : (destination.hasSuffix(".json") ? String(destination.dropLast(5)) : destination)
        let folder = destination == "-" ? "" : (destination.lastIndex(of: "/").map { String(destination[...$0]) } ?? "")
        let export = try ICTDocument(contentsOf: path).jsonForm(imageFileBase: embedding ? nil : String(base.dropFirst(folder.count)))
        for file in export.imageFiles {
            try OutputFile.write(file.contents, to: folder + file.name)
        }
        try OutputFile.write(export.form.jsonBytes() + [UInt8(ascii: "\n")], to: destination)
    }

    /// Builds a new document at `destination` from the JSON form at `path`;
    /// the thumbnail is made again from the photo. An existing item at
    /// `destination` is never replaced.
    ///
    /// - Throws: `PropertyListError` when the JSON or the photo file cannot
    ///   be read or is not JSON (it says where); else `ICTDocumentError`.
    static func `import`(_ path: String, to destination: String) throws {
        let document: ICTDocument
        do {
            document = try ICTDocument(jsonFormAt: path)
        } catch {
            if let reading = error.propertyListError { throw reading }
            throw error
        }
        try document.save(to: destination)
    }
}
