import SystemSupport

/// Output for people on standard error.
package enum Diagnostics {
    /// Prints `text`, one line, and a newline on standard error. Control
    /// characters in it (from a file name, a key, a value) are shown escaped
    /// (`TerminalText`); file names are written as their own bytes (see `RawFileName`).
    package static func printError(_ text: String) {
        writeAll(RawFileName.bytes(TerminalText.escaped(text) + "\n"), to: StandardDescriptor.error)
    }

    /// Writes every byte to `descriptor`, retrying short writes; gives up
    /// silently when the descriptor is closed (nothing else could be said).
    package static func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
        _ = bytes.withUnsafeBytes { FileWriting.writeAll($0, to: descriptor) }
    }
}

/// Standard output: the one place `ict` writes it, through one buffer so
/// large trees print fast. Every write is checked: when the reader of a
/// pipe is gone (`ict list | head -1`, `ict list --watch | head -3`) the
/// reader chose to stop, and so does the process, at once, with nothing
/// said and exit status 0 (`BrokenPipe`: SIGPIPE is ignored); any other
/// failure (`> /dev/full`) ends it with exit status 1 and
/// `ict: error: cannot write to standard output: REASON` on standard error, since
/// what it would print can no longer reach anyone.
package struct StandardOutput {
    private var buffer: [UInt8] = []

    package init() {}

    /// Writes one line for people and a newline, control characters in it
    /// (from a name, a key, a value) shown escaped (`TerminalText`).
    package mutating func writeLine(_ line: String) {
        write(TerminalText.escaped(line))
        write("\n")
    }

    /// Writes `text` as it is: JSON, or text for people whose fields are already escaped.
    package mutating func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count > 1 << 16 { flush() }
    }

    /// Writes what is buffered (see the type's note for a failure).
    package mutating func flush() {
        buffer.withUnsafeBytes { Self.writeAll($0) }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes one line for people at once, as `writeLine(_:)` and `flush()`.
    package static func printLine(_ line: String) {
        var output = StandardOutput()
        output.writeLine(line)
        output.flush()
    }

    /// Writes every byte of `bytes` at once, unbuffered (see the type's note for a failure).
    package static func writeAll(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { writeAll($0) }
    }

    /// Writes every byte of `bytes` at once, unbuffered: the one write to
    /// standard output, which ends the process when it fails (see the type's note).
    package static func writeAll(_ bytes: UnsafeRawBufferPointer) {
        guard let code = FileWriting.writeAll(bytes, to: StandardDescriptor.output) else { return }
        if BrokenPipe.isBrokenPipe(code) { CurrentProcess.exit(0) }
        Diagnostics.printError(Problem(path: "ict", "cannot write to standard output: \(SystemCallError.describe(code))").line)
        CurrentProcess.exit(1)
    }
}
