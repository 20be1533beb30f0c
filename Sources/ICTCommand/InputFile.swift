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
/// is read only up to the size limit, and its bytes are checked as they
/// arrive (`PropertyListInputSniffer`), so `ict inspect - < /dev/zero` or
/// `< /dev/urandom` stops at the first byte no property list can hold
/// there rather than reading to the limit; a regular file's first bytes
/// are checked so before it is read. A FIFO waits for a writer, as
/// `cat` does, saying so on a terminal after a second.
struct InputFile {
    /// The name to print in messages: the path, or `<stdin>`.
    let displayName: String
    private let mapped: MappedFile?
    private let buffer: [UInt8]

    /// Opens `path` (`-` is standard input), refusing input over `limit` bytes.
    ///
    /// - Throws: `PropertyListError` with code `.io` when it cannot be opened or
    ///   read or is a directory, `.limitExceeded(.inputSize)` over the limit,
    ///   and `PropertyListInputSniffer`'s errors, at the byte concerned.
    init(path: String, limit: Int = PropertyListLimits.default.maximumInputSize) throws(PropertyListError) {
        if path == "-" {
            displayName = "<stdin>"
            mapped = nil
            buffer = try Self.readAll(descriptor: STDIN_FILENO, limit: limit)
            return
        }
        displayName = path
        var named = stat()
        if RawFileName.withPath(path, { stat($0, &named) }) == 0, (named.st_mode & S_IFMT) == S_IFIFO {
            mapped = nil
            buffer = try Self.readFIFO(path, limit: limit)
            return
        }
        let descriptor = RawFileName.withPath(path) { open($0, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else { throw Self.systemError("cannot open") }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw Self.systemError("cannot read the status of") }
        switch status.st_mode & S_IFMT {
        case S_IFREG:
            guard Int(status.st_size) <= limit else { throw Self.overLimit(limit) }
            let file = try MappedFile(descriptor: descriptor, path: path)
            try PropertyListInputSniffer.checkStart(of: file.bytes)
            mapped = file
            buffer = []
        case S_IFDIR:
            throw PropertyListError(.io, at: .none, "is a directory, not a file")
        default:
            mapped = nil
            buffer = try Self.readAll(descriptor: descriptor, limit: limit)
        }
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
        var sniffer = PropertyListInputSniffer()
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return bytes }
            if count < 0 {
                if errno == EINTR { continue }
                throw systemError("cannot read")
            }
            guard bytes.count + count <= limit else { throw overLimit(limit) }
            try sniff(chunk[0..<count], with: &sniffer)
            bytes.append(contentsOf: chunk[0..<count])
        }
    }

    /// Checks the next bytes of a stream (see `PropertyListInputSniffer`).
    private static func sniff(_ bytes: ArraySlice<UInt8>, with sniffer: inout PropertyListInputSniffer) throws(PropertyListError) {
        let result: Result<Void, PropertyListError> = bytes.withUnsafeBytes { buffer in
            Result { () throws(PropertyListError) in try sniffer.check(buffer) }
        }
        try result.get()
    }

    /// Reads a FIFO to its end. Opening one for reading waits for a writer,
    /// as `cat` does; so that the wait is never silent, after a second a
    /// line on a terminal's standard error says so (cleared when data comes).
    private static func readFIFO(_ path: String, limit: Int) throws(PropertyListError) -> [UInt8] {
        // Opened without blocking, then polled: the wait can be announced.
        let descriptor = RawFileName.withPath(path) { open($0, O_RDONLY | O_NONBLOCK | O_CLOEXEC) }
        guard descriptor >= 0 else { throw systemError("cannot open") }
        defer { close(descriptor) }
        var waiting = WaitingNote(path: path)
        defer { waiting.clear() }
        var bytes: [UInt8] = []
        var sniffer = PropertyListInputSniffer()
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
            try sniff(chunk[0..<count], with: &sniffer)
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

    private static func overLimit(_ limit: Int) -> PropertyListError {
        PropertyListError(.limitExceeded(.inputSize), at: .none, "the input is larger than the limit of \(limit) bytes (--max-input-size)")
    }

    private static func systemError(_ action: String) -> PropertyListError {
        PropertyListError(.io, at: .none, "\(action): \(String(cString: strerror(errno)))")
    }
}
