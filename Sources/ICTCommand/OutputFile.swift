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
/// name, flushed, and renamed over it in one step by `commit()`, keeping an
/// existing file's permissions; if anything fails before that, the temporary
/// file is removed and the old file is untouched.
final class OutputFile {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private let path: String
    private let descriptor: Int32
    /// The temporary file and the file it will replace, for a regular-file target.
    private let replacement: (temporary: String, target: String)?
    private var finished = false

    /// True when `path` is `-` or names a terminal.
    static func isTerminal(_ path: String) -> Bool {
        if path == "-" { return isatty(STDOUT_FILENO) == 1 }
        let descriptor = open(path, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return isatty(descriptor) == 1
    }

    /// Writes all of `bytes` to `path` and commits.
    static func write(_ bytes: [UInt8], to path: String) throws(Failure) {
        let output = try OutputFile(path: path)
        let result: Result<Void, Failure> = bytes.withUnsafeBytes { buffer in
            Result { () throws(Failure) in try output.write(buffer) }
        }
        try result.get()
        try output.commit()
    }

    /// Opens the destination named `path`: standard output, a device or pipe
    /// as it is, or a new temporary file beside a regular file's path.
    init(path: String) throws(Failure) {
        self.path = path
        if path == "-" {
            descriptor = STDOUT_FILENO
            replacement = nil
            return
        }
        var status = stat()
        if stat(path, &status) == 0, (status.st_mode & S_IFMT) != S_IFREG {
            guard (status.st_mode & S_IFMT) != S_IFDIR else { throw Failure(description: "\(path) is a directory") }
            descriptor = open(path, O_WRONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw Self.systemFailure("cannot open", path) }
            replacement = nil
            return
        }
        let target = Self.resolvedPath(path)
        let slash = target.lastIndex(of: "/")
        let directory = slash.map { String(target[..<$0]) } ?? "."
        let name = slash.map { String(target[target.index(after: $0)...]) } ?? target
        var template = Array("\(directory.isEmpty ? "/" : directory)/.\(name).ict-XXXXXX".utf8CString)
        descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw Self.systemFailure("cannot create a temporary file beside", path) }
        replacement = (String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self), target)
    }

    deinit {
        if !finished { abandon() }
    }

    /// Appends `bytes`; on failure the destination is abandoned.
    func write(_ bytes: UnsafeRawBufferPointer) throws(Failure) {
        var written = 0
        while written < bytes.count {
            let count = systemWrite(descriptor, bytes.baseAddress! + written, bytes.count - written)
            if count < 0 {
                if errno == EINTR { continue }
                let failure = Self.systemFailure("cannot write", replacement?.temporary ?? displayName)
                abandon()
                throw failure
            }
            written += count
        }
    }

    /// Finishes: for a regular file, sets the old file's permissions (or the
    /// defaults), flushes, and renames the temporary file over the target.
    func commit() throws(Failure) {
        finished = true
        guard let (temporary, target) = replacement else {
            if descriptor != STDOUT_FILENO { close(descriptor) }
            return
        }
        defer { close(descriptor) }
        var existing = stat()
        let mode: mode_t
        if stat(target, &existing) == 0 {
            mode = existing.st_mode & 0o7777
        } else {
            let mask = umask(0)
            umask(mask)
            mode = 0o666 & ~mask
        }
        guard fchmod(descriptor, mode) == 0 else { throw abandoning(Self.systemFailure("cannot set the permissions of", temporary)) }
        guard fsync(descriptor) == 0 else { throw abandoning(Self.systemFailure("cannot flush", temporary)) }
        guard rename(temporary, target) == 0 else { throw abandoning(Self.systemFailure("cannot replace", path)) }
    }

    /// Removes the temporary file, leaving any old file as it was.
    func abandon() {
        finished = true
        guard let (temporary, _) = replacement else { return }
        close(descriptor)
        unlink(temporary)
    }

    private func abandoning(_ failure: Failure) -> Failure {
        unlink(replacement?.temporary ?? "")
        return failure
    }

    private var displayName: String { path == "-" ? "standard output" : path }

    /// The file a symbolic link at `path` points to, so the link itself stays a link.
    private static func resolvedPath(_ path: String) -> String {
        var linkStatus = stat()
        guard lstat(path, &linkStatus) == 0, (linkStatus.st_mode & S_IFMT) == S_IFLNK,
              let resolved = realpath(path, nil)
        else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private static func systemFailure(_ action: String, _ path: String) -> Failure {
        Failure(description: "\(action) \(path): \(String(cString: strerror(errno)))")
    }
}
