#if canImport(Glibc)
import Glibc
private let systemWrite = Glibc.write
#elseif canImport(Darwin)
import Darwin
private let systemWrite = Darwin.write
#endif

/// Writes command output where the user asked, never leaving a half-written file.
///
/// `-` is standard output. A path naming a device, pipe or socket (say
/// `/dev/stdout` or `/dev/null`) is written directly, never replaced. Any
/// other path gets a new regular file written beside it under a temporary
/// name, flushed, and renamed over it in one step, keeping an existing file's
/// permissions; if anything fails, the temporary file is removed and the old
/// file is untouched.
enum OutputFile {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// True when `path` is `-` or names a terminal.
    static func isTerminal(_ path: String) -> Bool {
        if path == "-" { return isatty(STDOUT_FILENO) == 1 }
        let descriptor = open(path, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return isatty(descriptor) == 1
    }

    static func write(_ bytes: [UInt8], to path: String) throws(Failure) {
        if path == "-" {
            try writeAll(bytes, to: STDOUT_FILENO, path: "standard output")
            return
        }
        var status = stat()
        if stat(path, &status) == 0, (status.st_mode & S_IFMT) != S_IFREG {
            guard (status.st_mode & S_IFMT) != S_IFDIR else { throw Failure(description: "\(path) is a directory") }
            let descriptor = open(path, O_WRONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw systemFailure("cannot open", path) }
            defer { close(descriptor) }
            try writeAll(bytes, to: descriptor, path: path)
            return
        }
        try replaceAtomically(path: resolvedPath(path), with: bytes)
    }

    /// The file a symbolic link at `path` points to, so the link itself stays a link.
    private static func resolvedPath(_ path: String) -> String {
        var linkStatus = stat()
        guard lstat(path, &linkStatus) == 0, (linkStatus.st_mode & S_IFMT) == S_IFLNK,
              let resolved = realpath(path, nil)
        else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private static func replaceAtomically(path: String, with bytes: [UInt8]) throws(Failure) {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        var template = Array("\(directory.isEmpty ? "/" : directory)/.\(name).ict-XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw systemFailure("cannot create a temporary file beside", path) }
        let temporary = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var renamed = false
        defer { if !renamed { unlink(temporary) } }
        try fill(descriptor, temporary: temporary, replacing: path, with: bytes)
        guard rename(temporary, path) == 0 else { throw systemFailure("cannot replace", path) }
        renamed = true
    }

    /// Writes the temporary file, gives it the permissions of the file it
    /// replaces (or the defaults for a new file), flushes it and closes it.
    private static func fill(_ descriptor: Int32, temporary: String, replacing path: String, with bytes: [UInt8]) throws(Failure) {
        defer { close(descriptor) }
        try writeAll(bytes, to: descriptor, path: temporary)
        var existing = stat()
        let mode: mode_t
        if stat(path, &existing) == 0 {
            mode = existing.st_mode & 0o7777
        } else {
            let mask = umask(0)
            umask(mask)
            mode = 0o666 & ~mask
        }
        guard fchmod(descriptor, mode) == 0 else { throw systemFailure("cannot set the permissions of", temporary) }
        guard fsync(descriptor) == 0 else { throw systemFailure("cannot flush", temporary) }
    }

    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32, path: String) throws(Failure) {
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { buffer in
                systemWrite(descriptor, buffer.baseAddress! + written, buffer.count - written)
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw systemFailure("cannot write", path)
            }
            written += count
        }
    }

    private static func systemFailure(_ action: String, _ path: String) -> Failure {
        Failure(description: "\(action) \(path): \(String(cString: strerror(errno)))")
    }
}
