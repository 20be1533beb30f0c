import SystemSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reading and safely replacing a one-file document.
enum FlatFile {
    /// The largest one-file document read: larger ones are refused before
    /// any byte is read (a note is text; 1 GiB is past any of them).
    static let maximumSize: Int64 = 1 << 30

    /// The bytes of the regular file at `path` and its stamp, taken from
    /// the open descriptor (the file read, even if renamed over meanwhile).
    static func contents(at path: String) throws(DocumentError) -> (Data, FileStamp) {
        let file: OpenFile
        do throws(SystemCallError) {
            file = try OpenFile(path: path, options: [.nonBlocking])
        } catch {
            throw DocumentError(
                error.isNoSuchEntry ? .notFound : .io, pathText: path, systemErrorNumber: error.code, "cannot open the document: \(error.reason)")
        }
        let status: FileInfo
        do throws(SystemCallError) {
            status = try file.info()
        } catch {
            throw ioError(path, "cannot read the document's status", errno: error.code)
        }
        guard status.kind == .regular else {
            throw DocumentError(.wrongKind, pathText: path, "not a regular file (a one-file document is read as bytes)")
        }
        guard status.size <= maximumSize else {
            throw DocumentError(.io, pathText: path, "the document is \(status.size) bytes, over the \(maximumSize)-byte limit")
        }
        var bytes = Data(capacity: Int(status.size))
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count: Int
            do throws(SystemCallError) {
                count = try chunk.withUnsafeMutableBytes { buffer in Result { () throws(SystemCallError) in try file.read(into: buffer) } }.get()
            } catch {
                throw ioError(path, "cannot read the document", errno: error.code)
            }
            if count == 0 { break }
            guard Int64(bytes.count + count) <= maximumSize else {
                throw DocumentError(.io, pathText: path, "the document grew past the \(maximumSize)-byte limit while read")
            }
            bytes.append(contentsOf: chunk[..<count])
        }
        return (bytes, FileStamp(status))
    }

    /// Writes `bytes` beside `path` under a temporary name, flushes them and
    /// puts them in place (`AtomicFileWriter`, then the folder flushed): over
    /// the file `expected` describes (and no other) when overwriting, only
    /// where nothing is when creating. The new file keeps the old one's
    /// permissions (0644 for a new one, whatever the umask). A symbolic link,
    /// a device, a FIFO or a socket at `path` is refused and left as it is:
    /// never written through, never replaced (one planted by a peer of a
    /// synced folder would send the document wherever it points).
    static func save(_ bytes: Data, to path: String, for operation: DocumentSaveOperation, replacing expected: FileStamp?)
        throws(DocumentError) -> FileStamp
    {
        let (folder, name) = PathName.split(path)
        let target = PathName.join(folder, name)
        let existing = try? FileInfo.of(path: target, followingLink: false)
        if let existing {
            guard operation == .forOverwriting else {
                throw DocumentError(.alreadyExists, pathText: path, "already exists; a new document is not saved over it")
            }
            guard existing.kind == .regular else {
                throw DocumentError(.wrongKind, pathText: path, "is \(existing.kind.phrase), not a regular file; not replaced or written through")
            }
        }
        var options = AtomicFileWriter.Options()
        options.links = .refused
        options.specialFiles = .refused
        // Umask aside, the new file keeps the old one's permissions.
        options.permissions = .exactly(existing?.permissions ?? 0o644)
        options.listingFolderOnce = false
        options.flushingFolder = true
        do throws(AtomicFileWriter.Failure) {
            let writer = try AtomicFileWriter(path: target, options: options)
            try bytes.withUnsafeBytes { buffer in Result { () throws(AtomicFileWriter.Failure) in try writer.write(buffer) } }.get()
            try writer.commit(expecting: existing != nil ? expected : nil)
        } catch {
            throw saveError(error, path: path)
        }
        guard let saved = FileStamp(path: path) else { throw ioError(path, "the saved document is gone", errno: ErrorNumber.current) }
        return saved
    }

    /// The `DocumentError` of a failed save, by the step that failed.
    private static func saveError(_ failure: AtomicFileWriter.Failure, path: String) -> DocumentError {
        let code = failure.systemError
        switch failure.step {
        case .symbolicLink, .specialFile: return DocumentError(.wrongKind, pathText: path, failure.description)
        case .open, .openFolder: return ioError(path, "cannot open the document's folder", errno: code)
        case .createTemporary: return ioError(path, "cannot write beside the document", errno: code)
        case .write: return ioError(path, "cannot write the new version", errno: code)
        case .keepOwner, .setPermissions, .flush: return ioError(path, "cannot flush the new version", errno: code)
        case .replace:
            if failure.changedSinceRead {
                return DocumentError(.changedOnDisk, pathText: path, "another program replaced the document since it was read; nothing was saved")
            }
            return DocumentError(.io, pathText: path, systemErrorNumber: code, "cannot replace the document: \(describe(code))")
        }
    }

    static func ioError(_ path: String, _ what: String, errno code: Int32) -> DocumentError {
        DocumentError(.io, pathText: path, systemErrorNumber: code, "\(what): \(describe(code))")
    }

    static func describe(_ code: Int32) -> String { SystemCallError.describe(code) }
}
