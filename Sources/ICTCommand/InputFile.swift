import ArgumentParser
import PropertyList
import SystemSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The input options of the commands that read property lists.
struct InputOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The largest input read, in bytes, also from standard input, a pipe or a FIFO (default 2 GiB).",
            valueName: "bytes"))
    var maxInputSize: Int = PropertyListLimits.default.maximumInputSize

    func validate() throws {
        guard maxInputSize > 0 else { throw ValidationError("--max-input-size must be a positive number of bytes") }
    }

    /// The readers' limits with this input size.
    var limits: PropertyListLimits {
        var limits = PropertyListLimits.default
        limits.maximumInputSize = maxInputSize
        return limits
    }
}

/// An input named on the command line: a regular file, mapped; or a stream
/// read to its end: `-` (standard input), `/dev/stdin`, a pipe from process
/// substitution (`<(cat f.plist)`), a FIFO or a character device. A stream
/// is read only up to the size limit, so `ict inspect - < /dev/zero` stops
/// with an error rather than filling memory. A FIFO waits for a writer, as
/// `cat` does, saying so on a terminal after a second.
///
/// The path is opened once, without waiting (`O_NONBLOCK`: opening a FIFO
/// for reading would otherwise wait there for a writer), and what was
/// opened decides the rest; a name checked first and opened after could be
/// another file by then. An input read to be edited in place, or a
/// package's entry, must be a regular file (`Purpose`): anything else is
/// refused right after opening, before any wait or read.
struct InputFile {
    /// Why the input is read, which decides what it may be.
    enum Purpose {
        /// To read it: a stream is read to its end.
        case reading
        /// To write it back over itself (`ict set`, `plutil -replace`, …),
        /// which needs a regular file: a FIFO, pipe or device is refused,
        /// so is standard input.
        case editingInPlace
        /// As an entry of a package, which holds only regular files
        /// (besides folders and links): a FIFO or device there is refused.
        case packageEntry
    }

    /// The name to print in messages: the path, or `<stdin>`.
    let displayName: String
    private let mapped: MappedFile?
    private let buffer: [UInt8]

    /// Opens `path` (`-` is standard input), refusing input over `limit` bytes.
    ///
    /// - Throws: `PropertyListError` with code `.io` when it cannot be opened or
    ///   read or is a directory (or, to edit in place or as a package's
    ///   entry, is not a regular file), `.limitExceeded(.inputSize)` over the limit.
    init(path: String, limit: Int = PropertyListLimits.default.maximumInputSize, for purpose: Purpose = .reading)
        throws(PropertyListError)
    {
        if path == "-" {
            guard purpose == .reading else {
                throw PropertyListError(.io, at: .none, "standard input cannot be edited in place; name a regular file")
            }
            displayName = "<stdin>"
            mapped = nil
            buffer = try Self.readAll(descriptor: STDIN_FILENO, limit: limit)
            return
        }
        displayName = path
        let descriptor = RawFileName.withPath(path) { open($0, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC) }
        guard descriptor >= 0 else { throw Self.systemError("cannot open") }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw Self.systemError("cannot read the status of") }
        let type = status.st_mode & S_IFMT
        if type == S_IFDIR { throw PropertyListError(.io, at: .none, "is a directory, not a file") }
        if purpose != .reading, type != S_IFREG {
            let rule = purpose == .editingInPlace ? "only a regular file is edited in place" : "a package's entry must be one"
            throw PropertyListError(.io, at: .none, "is \(Self.kindName(type)), not a regular file: \(rule)")
        }
        switch type {
        case S_IFREG:
            guard Int(status.st_size) <= limit else { throw Self.overLimit(limit) }
            // A file of no stated size (`/proc/self/status`) is read to its end, up to the limit.
            mapped = try MappedFile(descriptor: descriptor, path: path, limit: limit)
            buffer = []
        case S_IFIFO:
            mapped = nil
            buffer = try Self.readFIFO(descriptor, path: path, limit: limit)
        default:
            // A device or socket is read as a stream, waiting for data as `cat` does.
            guard fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK) == 0 else {
                throw Self.systemError("cannot read")
            }
            mapped = nil
            buffer = try Self.readAll(descriptor: descriptor, limit: limit)
        }
    }

    /// True when `output` names the file `input` names: the same name, or
    /// the same file by another (a link, `./`, another folder's path).
    static func names(_ output: String, sameFileAs input: String) -> Bool {
        guard output != "-", input != "-" else { return false }
        if output == input { return true }
        var inputStatus = stat()
        var outputStatus = stat()
        guard RawFileName.withPath(input, { stat($0, &inputStatus) }) == 0,
            RawFileName.withPath(output, { stat($0, &outputStatus) }) == 0
        else { return false }
        return inputStatus.st_dev == outputStatus.st_dev && inputStatus.st_ino == outputStatus.st_ino
    }

    /// Calls `body` with the input's bytes.
    func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws(PropertyListError) -> R) throws(PropertyListError) -> R {
        if let mapped { return try body(mapped.bytes) }
        let result: Result<R, PropertyListError> = buffer.withUnsafeBytes { bytes in
            Result { () throws(PropertyListError) in try body(bytes) }
        }
        return try result.get()
    }

    /// The mapped file, when the input is a regular file.
    var file: MappedFile? { mapped }

    private static func readAll(descriptor: Int32, limit: Int) throws(PropertyListError) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return bytes }
            if count < 0 {
                if errno == EINTR { continue }
                throw systemError("cannot read")
            }
            guard bytes.count + count <= limit else { throw overLimit(limit) }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }

    /// Reads a FIFO (or pipe) opened without blocking to its end, waiting
    /// for a writer as `cat` does; so that the wait is never silent, after a
    /// second a line on a terminal's standard error says so (cleared when
    /// data comes).
    private static func readFIFO(_ descriptor: Int32, path: String, limit: Int) throws(PropertyListError) -> [UInt8] {
        var waiting = WaitingNote(path: path)
        defer { waiting.clear() }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&request, 1, waiting.isShown ? -1 : 1000)
            if ready < 0 {
                if errno == EINTR { continue }
                throw systemError("cannot wait for data")
            }
            if ready == 0 {
                waiting.show()
                continue
            }
            waiting.clear()
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return bytes }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw systemError("cannot read")
            }
            guard bytes.count + count <= limit else { throw overLimit(limit) }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }

    /// The transient "waiting for a writer" line, on a terminal only.
    private struct WaitingNote {
        let path: String
        private(set) var isShown = false

        init(path: String) { self.path = path }

        mutating func show() {
            guard !isShown else { return }
            isShown = true
            guard isatty(STDERR_FILENO) == 1 else { return }
            Diagnostics.writeAll(RawFileName.bytes("\(path): waiting for a writer on this FIFO (Ctrl-C to stop)"), to: STDERR_FILENO)
        }

        mutating func clear() {
            guard isShown else { return }
            isShown = false
            if isatty(STDERR_FILENO) == 1 { Diagnostics.writeAll(Array("\r\u{1B}[K".utf8), to: STDERR_FILENO) }
        }
    }

    /// "a FIFO or pipe", "a character device", … for an `st_mode` file type other than a regular file or directory.
    static func kindName(_ type: mode_t) -> String {
        switch type {
        case S_IFIFO: "a FIFO or pipe"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        default: "a special file"
        }
    }

    private static func overLimit(_ limit: Int) -> PropertyListError {
        PropertyListError(.limitExceeded(.inputSize), at: .none, "the input is larger than the limit of \(limit) bytes (--max-input-size)")
    }

    private static func systemError(_ action: String) -> PropertyListError {
        PropertyListError(.io, at: .none, "\(action): \(String(cString: strerror(errno)))")
    }
}
