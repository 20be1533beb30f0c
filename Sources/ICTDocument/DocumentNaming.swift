#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ICTDocumentFile {
    /// The first free document name in `directory` for `baseName`:
    /// `Friend.ict`, then `Friend 1.ict`, `Friend 2.ict`, … — names compared
    /// case-insensitively, as the platform guidance asks.
    ///
    /// - Throws: `ICTDocumentError` `.package` when the directory cannot be listed.
    public static func freeFileName(for baseName: String, in directory: String) throws(ICTDocumentError) -> String {
        guard let stream = opendir(directory) else {
            throw ICTDocumentError(.package, "cannot list \(directory): \(String(cString: strerror(errno)))")
        }
        defer { closedir(stream) }
        var taken: Set<String> = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            taken.insert(name.lowercased())
        }
        var candidate = "\(baseName).\(ICTDocumentFormat.packageExtension)"
        var number = 0
        while taken.contains(candidate.lowercased()) {
            number += 1
            candidate = "\(baseName) \(number).\(ICTDocumentFormat.packageExtension)"
        }
        return candidate
    }
}
