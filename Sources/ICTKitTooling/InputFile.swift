import PropertyList
import SystemSupport

/// An input named on the command line: a regular file, mapped; or a stream
/// read to its end: `-` (standard input), `/dev/stdin`, a pipe from process
/// substitution (`<(cat f.plist)`), a FIFO or a character device. A stream
/// is read only up to the size limit, and its bytes are checked as they
/// arrive (`PropertyListInputSniffer`), so `ict inspect - < /dev/zero` or
/// `< /dev/urandom` stops at the first byte no property list can hold
/// there rather than reading to the limit; a regular file's first bytes
/// are checked so before it is read. A FIFO waits for a writer, as
/// `cat` does, saying so on a terminal after a second.
///
/// The path is opened once, without waiting (`O_NONBLOCK`: opening a FIFO
/// for reading would otherwise wait there for a writer), and what was
/// opened decides the rest; a name checked first and opened after could be
/// another file by then. An input read to be edited in place, or a
/// package's entry, must be a regular file (`Purpose`): anything else is
/// refused right after opening, before any wait or read.
package struct InputFile {
    /// Why the input is read, which decides what it may be.
    package enum Purpose {
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
    package let displayName: String
    private let mapped: MappedFile?
    private let buffer: [UInt8]

    /// Opens `path` (`-` is standard input), refusing input over `limit` bytes.
    ///
    /// - Throws: `PropertyListError` with code `.io` when it cannot be opened or
    ///   read or is a directory (or, to edit in place or as a package's
    ///   entry, is not a regular file), `.limitExceeded(.inputSize)` over the limit,
    ///   and `PropertyListInputSniffer`'s errors, at the byte concerned.
    package init(path: String, limit: Int = PropertyListLimits.default.maximumInputSize, for purpose: Purpose = .reading)
        throws(PropertyListError)
    {
        if path == "-" {
            guard purpose == .reading else {
                throw PropertyListError(.io, at: .none, "standard input cannot be edited in place; name a regular file")
            }
            displayName = "<stdin>"
            mapped = nil
            buffer = try Self.readAll(descriptor: StandardDescriptor.input, path: displayName, limit: limit)
            return
        }
        displayName = path
        let opened = try Self.attempt("cannot open") { () throws(SystemCallError) in
            try OpenFile(path: path, options: [.nonBlocking, .noControllingTerminal])
        }
        // `opened.descriptor` is used below: the file stays open to the end.
        defer { withExtendedLifetime(opened) {} }
        let info = try Self.attempt("cannot read the status of") { () throws(SystemCallError) in try opened.info() }
        if info.kind == .directory { throw PropertyListError(.io, at: .none, "is a directory, not a file") }
        if purpose != .reading, info.kind != .regular {
            let rule = purpose == .editingInPlace ? "only a regular file is edited in place" : "a package's entry must be one"
            throw PropertyListError(.io, at: .none, "is \(Self.kindName(info.kind)), not a regular file: \(rule)")
        }
        switch info.kind {
        case .regular:
            guard Int(info.size) <= limit else { throw Self.overLimit(limit) }
            // A file of no stated size (`/proc/self/status`) is read to its end, up to the limit.
            let file = try MappedFile(descriptor: opened.descriptor, path: path, limit: limit)
            try PropertyListInputSniffer.checkStart(of: file.bytes)
            mapped = file
            buffer = []
        case .fifo:
            mapped = nil
            buffer = try Self.readFIFO(opened, limit: limit)
        default:
            // A device or socket is read as a stream, waiting for data as `cat` does.
            try Self.attempt("cannot read") { () throws(SystemCallError) in try opened.makeBlocking() }
            mapped = nil
            buffer = try Self.readAll(descriptor: opened.descriptor, path: path, limit: limit)
        }
    }

    /// True when `output` names the file `input` names: the same name, or
    /// the same file by another (a link, `./`, another folder's path).
    package static func names(_ output: String, sameFileAs input: String) -> Bool {
        guard output != "-", input != "-" else { return false }
        if output == input { return true }
        guard let inputInfo = try? FileInfo.of(path: input), let outputInfo = try? FileInfo.of(path: output) else { return false }
        return inputInfo.device == outputInfo.device && inputInfo.inode == outputInfo.inode
    }

    /// Calls `body` with the input's bytes.
    package func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws(PropertyListError) -> R) throws(PropertyListError) -> R {
        if let mapped { return try body(mapped.bytes) }
        let result: Result<R, PropertyListError> = buffer.withUnsafeBytes { bytes in
            Result { () throws(PropertyListError) in try body(bytes) }
        }
        return try result.get()
    }

    /// The mapped file, when the input is a regular file.
    package var file: MappedFile? { mapped }

    /// Reads the stream open as `descriptor` (the caller's to close) to its end; `path` names it in errors.
    private static func readAll(descriptor: Int32, path: String, limit: Int) throws(PropertyListError) -> [UInt8] {
        var bytes: [UInt8] = []
        var sniffer = PropertyListInputSniffer()
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let read = chunk.withUnsafeMutableBytes { buffer in
                Result { () throws(SystemCallError) in try FileReading.read(descriptor, into: buffer, path: path) }
            }
            let count = try attempt("cannot read") { () throws(SystemCallError) in try read.get() }
            if count == 0 { return bytes }
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

    /// Reads a FIFO (or pipe) opened without blocking to its end, waiting
    /// for a writer as `cat` does; so that the wait is never silent, after a
    /// second a line on a terminal's standard error says so (cleared when
    /// data comes).
    private static func readFIFO(_ file: OpenFile, limit: Int) throws(PropertyListError) -> [UInt8] {
        var waiting = WaitingNote(path: file.path)
        defer { waiting.clear() }
        var bytes: [UInt8] = []
        var sniffer = PropertyListInputSniffer()
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let ready = try attempt("cannot wait for data") { () throws(SystemCallError) in
                try file.waitUntilReadable(milliseconds: waiting.isShown ? -1 : 1000)
            }
            if !ready {
                waiting.show()
                continue
            }
            waiting.clear()
            let read = chunk.withUnsafeMutableBytes { buffer in Result { () throws(SystemCallError) in try file.read(into: buffer) } }
            let count: Int
            do throws(SystemCallError) {
                count = try read.get()
            } catch let error where error.isWouldBlock {
                continue
            } catch {
                throw systemError("cannot read", error)
            }
            if count == 0 { return bytes }
            guard bytes.count + count <= limit else { throw overLimit(limit) }
            try sniff(chunk[0..<count], with: &sniffer)
            bytes.append(contentsOf: chunk[0..<count])
        }
    }

    /// The transient "waiting for a writer" line, on a terminal only.
    private struct WaitingNote {
        package let path: String
        package private(set) var isShown = false

        package init(path: String) { self.path = path }

        package mutating func show() {
            guard !isShown else { return }
            isShown = true
            guard Terminal.isTerminal(StandardDescriptor.error) else { return }
            Diagnostics.writeAll(
                RawFileName.bytes(TerminalText.escaped(path) + ": waiting for a writer on this FIFO (Ctrl-C to stop)"), to: StandardDescriptor.error)
        }

        package mutating func clear() {
            guard isShown else { return }
            isShown = false
            if Terminal.isTerminal(StandardDescriptor.error) { Diagnostics.writeAll(Array("\r\u{1B}[K".utf8), to: StandardDescriptor.error) }
        }
    }

    /// "a FIFO or pipe", "a character device", … for a kind of file other than a regular file or directory.
    package static func kindName(_ kind: FileKind) -> String {
        switch kind {
        case .fifo: "a FIFO or pipe"
        case .characterDevice: "a character device"
        case .blockDevice: "a block device"
        case .socket: "a socket"
        default: "a special file"
        }
    }

    private static func overLimit(_ limit: Int) -> PropertyListError {
        PropertyListError(.limitExceeded(.inputSize), at: .none, "the input is larger than the limit of \(limit) bytes (--max-input-size)")
    }

    /// "`action`: reason" for a failed system call; the path is the caller's to add.
    private static func systemError(_ action: String, _ error: SystemCallError) -> PropertyListError {
        PropertyListError(.io, at: .none, "\(action): \(error.reason)")
    }

    /// `body`'s result, or its failure as `systemError(action, _:)`.
    private static func attempt<T>(_ action: String, _ body: () throws(SystemCallError) -> T) throws(PropertyListError) -> T {
        do throws(SystemCallError) {
            return try body()
        } catch {
            throw systemError(action, error)
        }
    }
}
