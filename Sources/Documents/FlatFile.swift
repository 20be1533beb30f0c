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
                error.isNoSuchEntry ? .notFound : .io, path: path, systemErrorNumber: error.code, "cannot open the document: \(error.reason)")
        }
        let status: FileInfo
        do throws(SystemCallError) {
            status = try file.info()
        } catch {
            throw ioError(path, "cannot read the document's status", errno: error.code)
        }
        guard status.kind == .regular else {
            throw DocumentError(.wrongKind, path: path, "not a regular file (a one-file document is read as bytes)")
        }
        guard status.size <= maximumSize else {
            throw DocumentError(.io, path: path, "the document is \(status.size) bytes, over the \(maximumSize)-byte limit")
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
                throw DocumentError(.io, path: path, "the document grew past the \(maximumSize)-byte limit while read")
            }
            bytes.append(contentsOf: chunk[..<count])
        }
        return (bytes, FileStamp(status))
    }

    /// Writes `bytes` beside `path` under a temporary name, flushes them and
    /// puts them in place: over the file `expected` describes (and no other)
    /// when overwriting, only where nothing is when creating.
    static func save(_ bytes: Data, to path: String, for operation: DocumentSaveOperation, replacing expected: FileStamp?)
        throws(DocumentError) -> FileStamp
    {
        let (folder, name) = split(path)
        let directory: Int32
        do throws(SystemCallError) {
            directory = try Directory.openDescriptor(atPath: folder.isEmpty ? "." : folder)
        } catch {
            throw ioError(path, "cannot open the document's folder", errno: error.code)
        }
        defer { DescriptorCalls.close(directory) }
        let existing = try? FileInfo.of(name, in: directory)
        if let existing {
            guard operation == .forOverwriting else {
                throw DocumentError(.alreadyExists, path: path, "already exists; a new document is not saved over it")
            }
            guard existing.kind == .regular else {
                throw DocumentError(.wrongKind, path: path, "exists and is not a regular file; not replaced")
            }
        }
        TemporaryItem.removeStale(of: name, in: directory)
        let permissions = existing?.permissions ?? 0o644
        guard let (descriptor, temporary) = TemporaryItem.makeFile(for: name, in: directory, folder: folder, permissions: permissions)
        else { throw ioError(path, "cannot write beside the document", errno: ErrorNumber.current) }
        defer { TemporaryItem.finished(temporary, folder: folder) }
        let temporaryPath = TemporaryItem.path(temporary, in: folder)
        do throws(DocumentError) {
            try writeAll(bytes, to: descriptor, path: path)
            // Umask aside, the new file keeps the old one's permissions.
            do throws(SystemCallError) {
                try FilePermissions.set(permissions, on: descriptor, path: path)
                try DescriptorCalls.flush(descriptor, path: path)
            } catch {
                throw ioError(path, "cannot flush the new version", errno: error.code)
            }
            DescriptorCalls.close(descriptor)
        } catch {
            DescriptorCalls.close(descriptor)
            try? Directory.remove(temporaryPath, in: CurrentDirectory.descriptor)
            throw error
        }
        do throws(FileStamp.ReplaceFailure) {
            try FileStamp.replace(temporaryPath, over: path, expecting: existing != nil ? expected : nil)
        } catch {
            if !error.changedSinceRead { try? Directory.remove(temporaryPath, in: CurrentDirectory.descriptor) }
            if error.changedSinceRead {
                throw DocumentError(.changedOnDisk, path: path, "another program replaced the document since it was read; nothing was saved")
            }
            throw DocumentError(.io, path: path, systemErrorNumber: error.systemError, "cannot replace the document: \(describe(error.systemError))")
        }
        try? DescriptorCalls.flush(directory, path: folder)
        guard let saved = FileStamp(path: path) else { throw ioError(path, "the saved document is gone", errno: ErrorNumber.current) }
        return saved
    }

    private static func writeAll(_ bytes: Data, to descriptor: Int32, path: String) throws(DocumentError) {
        if let code = bytes.withUnsafeBytes({ FileWriting.writeAll($0, to: descriptor) }) {
            throw ioError(path, "cannot write the new version", errno: code)
        }
    }

    /// The folder (empty for the current one) and the name of `path`.
    static func split(_ path: String) -> (folder: String, name: String) {
        var trimmed = path
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return ("", trimmed) }
        let folder = slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
        return (folder, String(trimmed[trimmed.index(after: slash)...]))
    }

    static func ioError(_ path: String, _ what: String, errno code: Int32) -> DocumentError {
        DocumentError(.io, path: path, systemErrorNumber: code, "\(what): \(describe(code))")
    }

    static func describe(_ code: Int32) -> String { SystemCallError.describe(code) }
}
