#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import KeyedArchive
import PropertyList

/// Messages for people on standard error, in the `file:location: message` form.
enum Diagnostics {
    /// `file:byte 42: message (at a.b)`, `file:3:7: message`, or `file: message`.
    static func line(file: String, _ error: PropertyListError) -> String {
        let place = error.location.description
        var text = place.isEmpty ? "\(file): \(error.message)" : "\(file):\(place): \(error.message)"
        if !error.keyPath.components.isEmpty { text += " (at \(error.keyPath))" }
        return text
    }

    /// `file:byte 42: message (at $top.root, object 3)` for an archive's problem.
    static func line(file: String, _ error: KeyedArchiveError) -> String {
        "\(file):\(error.description)".replacingFirstColonSpace()
    }

    /// Prints `text` and a newline on standard error.
    static func printError(_ text: String) {
        writeAll(Array((text + "\n").utf8), to: STDERR_FILENO)
    }

    /// Writes every byte to `descriptor`, retrying short writes; gives up
    /// silently when the descriptor is closed (nothing else could be said).
    static func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let count = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if count < 0, errno == EINTR { continue }
                if count <= 0 { return }
                offset += count
            }
        }
    }
}

/// Writes text to standard output through one buffer, so large trees print fast.
struct StandardOutput {
    private var buffer: [UInt8] = []

    mutating func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count > 1 << 16 { flush() }
    }

    mutating func flush() {
        Diagnostics.writeAll(buffer, to: STDOUT_FILENO)
        buffer.removeAll(keepingCapacity: true)
    }
}

private extension String {
    /// `file:message` → `file: message` when no location follows the file name.
    func replacingFirstColonSpace() -> String {
        guard let colon = firstIndex(of: ":") else { return self }
        let rest = self[index(after: colon)...]
        if rest.first?.isNumber == true || rest.hasPrefix("byte ") { return self }
        return String(self[..<colon]) + ": " + rest
    }
}
