import SystemSupport

extension ICTDocumentFile {
    /// The first free document name in `directory` for `baseName`:
    /// `Friend.ict`, then `Friend 1.ict`, `Friend 2.ict`, … — names compared
    /// case-insensitively, as the platform guidance asks.
    ///
    /// - Throws: `ICTDocumentError` `.package` when the directory cannot be listed.
    package static func freeFileName(for baseName: String, in directory: String) throws(ICTDocumentError) -> String {
        let entries: [DirectoryEntry]
        do throws(SystemCallError) {
            entries = try Directory.entries(atPath: directory)
        } catch {
            throw ICTDocumentError(.package, "cannot list \(directory): \(error.reason)")
        }
        let taken = Set(entries.map { String(decoding: $0.bytes, as: UTF8.self).lowercased() })
        var candidate = "\(baseName).\(ICTDocumentFormat.packageExtension)"
        var number = 0
        while taken.contains(candidate.lowercased()) {
            number += 1
            candidate = "\(baseName) \(number).\(ICTDocumentFormat.packageExtension)"
        }
        return candidate
    }
}
