import SystemSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading and safely replacing a one-file document.
enum FlatFile {
    /// The largest one-file document read: larger ones are refused before
    /// any byte is read (a note is text; 1 GiB is past any of them).
    static let maximumSize: Int64 = 1 << 30

    /// The bytes of the regular file at `path` and its stamp, taken from
    /// the open descriptor (the file read, even if renamed over meanwhile).
    static func contents(at path: String) throws(DocumentError) -> (Data, FileStamp) {
        let descriptor = RawFileName.withPath(path) { open($0, O_RDONLY | O_CLOEXEC | O_NONBLOCK) }
        guard descriptor >= 0 else {
            let code = errno
            throw DocumentError(
                code == ENOENT ? .notFound : .io, path: path, systemErrorNumber: code, "cannot open the document: \(describe(code))")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw ioError(path, "cannot read the document's status") }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw DocumentError(.wrongKind, path: path, "not a regular file (a one-file document is read as bytes)")
        }
        guard Int64(status.st_size) <= maximumSize else {
            throw DocumentError(.io, path: path, "the document is \(status.st_size) bytes, over the \(maximumSize)-byte limit")
        }
        var bytes = Data(capacity: Int(status.st_size))
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw ioError(path, "cannot read the document") }
            if count == 0 { break }
            guard Int64(bytes.count + count) <= maximumSize else {
                throw DocumentError(.io, path: path, "the document grew past the \(maximumSize)-byte limit while read")
            }
            bytes.append(contentsOf: chunk[..<count])
        }
        return (bytes, FileStamp(FileInfo(status)))
    }

    /// Writes `bytes` beside `path` under a temporary name, flushes them and
    /// puts them in place: over the file `expected` describes (and no other)
    /// when overwriting, only where nothing is when creating.
    static func save(_ bytes: Data, to path: String, for operation: DocumentSaveOperation, replacing expected: FileStamp?)
        throws(DocumentError) -> FileStamp
    {
        let (folder, name) = split(path)
        let directory = RawFileName.withPath(folder.isEmpty ? "." : folder) { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard directory >= 0 else { throw ioError(path, "cannot open the document's folder") }
        defer { close(directory) }
        var existing = stat()
        let exists = RawFileName.withPath(name) { fstatat(directory, $0, &existing, 0) } == 0
        if exists {
            guard operation == .forOverwriting else {
                throw DocumentError(.alreadyExists, path: path, "already exists; a new document is not saved over it")
            }
            guard existing.st_mode & S_IFMT == S_IFREG else {
                throw DocumentError(.wrongKind, path: path, "exists and is not a regular file; not replaced")
            }
        }
        TemporaryItem.removeStale(of: name, in: directory)
        let permissions = exists ? existing.st_mode & 0o7777 : 0o644
        guard let (descriptor, temporary) = TemporaryItem.makeFile(for: name, in: directory, folder: folder, permissions: permissions)
        else { throw ioError(path, "cannot write beside the document") }
        defer { TemporaryItem.finished(temporary, folder: folder) }
        let temporaryPath = TemporaryItem.path(temporary, in: folder)
        do throws(DocumentError) {
            try writeAll(bytes, to: descriptor, path: path)
            // Umask aside, the new file keeps the old one's permissions.
            guard fchmod(descriptor, permissions) == 0, fsync(descriptor) == 0 else { throw ioError(path, "cannot flush the new version") }
            close(descriptor)
        } catch {
            close(descriptor)
            RawFileName.withPath(temporaryPath) { _ = unlink($0) }
            throw error
        }
        do throws(FileStamp.ReplaceFailure) {
            try FileStamp.replace(temporaryPath, over: path, expecting: exists ? expected : nil)
        } catch {
            if !error.changedSinceRead { RawFileName.withPath(temporaryPath) { _ = unlink($0) } }
            if error.changedSinceRead {
                throw DocumentError(.changedOnDisk, path: path, "another program replaced the document since it was read; nothing was saved")
            }
            throw DocumentError(.io, path: path, systemErrorNumber: error.systemError, "cannot replace the document: \(describe(error.systemError))")
        }
        _ = fsync(directory)
        guard let saved = FileStamp(path: path) else { throw ioError(path, "the saved document is gone") }
        return saved
    }

    private static func writeAll(_ bytes: Data, to descriptor: Int32, path: String) throws(DocumentError) {
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + written, $0.count - written) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw ioError(path, "cannot write the new version") }
            written += count
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

    static func ioError(_ path: String, _ what: String, errno code: Int32 = errno) -> DocumentError {
        DocumentError(.io, path: path, systemErrorNumber: code, "\(what): \(describe(code))")
    }

    static func describe(_ code: Int32) -> String { String(cString: strerror(code)) }
}
