#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser
import PropertyList

/// The input options of the commands that read property lists.
struct InputOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The largest input read, in bytes, also from standard input, a pipe or a FIFO (default 2 GiB).",
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
/// with an error rather than filling memory. Opening a FIFO waits for a
/// writer, as `cat` does.
struct InputFile {
    /// The name to print in messages: the path, or `<stdin>`.
    let displayName: String
    private let mapped: MappedFile?
    private let buffer: [UInt8]

    /// Opens `path` (`-` is standard input), refusing input over `limit` bytes.
    ///
    /// - Throws: `PropertyListError` of kind `.io` when it cannot be opened or
    ///   read or is a directory, `.limitExceeded(.inputSize)` over the limit.
    init(path: String, limit: Int = PropertyListLimits.default.maximumInputSize) throws(PropertyListError) {
        if path == "-" {
            displayName = "<stdin>"
            mapped = nil
            buffer = try Self.readAll(descriptor: STDIN_FILENO, limit: limit)
            return
        }
        displayName = path
        let descriptor = RawFileName.withPath(path) { open($0, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else { throw Self.systemError("cannot open") }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw Self.systemError("cannot read the status of") }
        switch status.st_mode & S_IFMT {
        case S_IFREG:
            guard Int(status.st_size) <= limit else { throw Self.overLimit(limit) }
            mapped = try MappedFile(descriptor: descriptor, path: path)
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

    private static func overLimit(_ limit: Int) -> PropertyListError {
        PropertyListError(.limitExceeded(.inputSize), at: .none, "the input is larger than the limit of \(limit) bytes (--max-input-size)")
    }

    private static func systemError(_ action: String) -> PropertyListError {
        PropertyListError(.io, at: .none, "\(action): \(String(cString: strerror(errno)))")
    }
}
