#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
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

    /// Prints `text` and a newline on standard error.
    static func printError(_ text: String) {
        var line = text
        line.append("\n")
        fputs(line, stderr)
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
        buffer.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let count = fwrite(bytes.baseAddress! + offset, 1, bytes.count - offset, stdout)
                if count <= 0 { break }
                offset += count
            }
        }
        buffer.removeAll(keepingCapacity: true)
        fflush(stdout)
    }
}
