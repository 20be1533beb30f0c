import DocumentFormats
import PropertyList
import SystemSupport

/// Shared by the commands that work on `.ict` documents.
package enum DocumentSupport {
    package static func trimmingTrailingSlashes(_ path: String) -> String {
        ICTDocumentFormat.trimmingTrailingSlashes(path)
    }

    /// The bytes of the file at `path`.
    package static func readFile(_ path: String) throws(PropertyListError) -> [UInt8] {
        let file = try MappedFile(path: path)
        return [UInt8](file.bytes)
    }

    /// Why `path` is not an `.ict` document to edit or read, or nil when it is one.
    package static func notADocumentProblem(_ path: String) -> Problem? {
        if ICTDocumentFormat.isDocument(atPath: path) { return nil }
        let trimmed = trimmingTrailingSlashes(path)
        let info: FileInfo
        do { info = try FileInfo.of(path: trimmed) } catch { return Problem(path: trimmed, "cannot open: \(error.reason)") }
        if info.kind.isSpecial { return Problem(path: trimmed, "is \(info.kind.phrase), not a document; it is left as it is") }
        if info.kind != .directory { return Problem(path: trimmed, "is a file, not an .ict document package") }
        if !ICTDocumentFormat.isPackage(atPath: trimmed) {
            return Problem(path: trimmed, "is a directory, not an .ict document package (its name does not end in .ict)")
        }
        return Problem(path: trimmed, location: .entry(ICTDocumentFormat.metadataEntryName), "the package has no metadata entry, so it is not an .ict document")
    }
}
