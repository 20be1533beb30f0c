import SystemSupport

/// Output for people on standard error.
enum Diagnostics {
    /// Prints `text`, one line, and a newline on standard error. Control
    /// characters in it (from a file name, a key, a value) are shown escaped
    /// (`TerminalText`); file names are written as their own bytes (see `RawFileName`).
    static func printError(_ text: String) {
        writeAll(RawFileName.bytes(TerminalText.escaped(text) + "\n"), to: StandardDescriptor.error)
    }

    /// Writes every byte to `descriptor`, retrying short writes; gives up
    /// silently when the descriptor is closed (nothing else could be said).
    static func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
        _ = bytes.withUnsafeBytes { FileWriting.writeAll($0, to: descriptor) }
    }
}

/// Writes text to standard output through one buffer, so large trees print fast.
struct StandardOutput {
    private var buffer: [UInt8] = []

    /// Writes one line for people and a newline, control characters in it
    /// (from a name, a key, a value) shown escaped (`TerminalText`).
    mutating func writeLine(_ line: String) {
        write(TerminalText.escaped(line))
        write("\n")
    }

    /// Writes `text` as it is: JSON, or text for people whose fields are already escaped.
    mutating func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count > 1 << 16 { flush() }
    }

    mutating func flush() {
        Diagnostics.writeAll(buffer, to: StandardDescriptor.output)
        buffer.removeAll(keepingCapacity: true)
    }
}
