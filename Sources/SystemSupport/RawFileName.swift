#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
/// File names byte for byte. A Linux file name is any bytes but `/` and NUL,
/// not always UTF-8; Swift's `CommandLine.arguments` would replace the bytes
/// that are not UTF-8 with U+FFFD, so such a file could not be opened and
/// `-o` would write another name. Instead each byte that is not part of valid
/// UTF-8 is carried in a `String` as the private-use scalar U+10FF00 + byte
/// (U+10FF80…U+10FFFF), and turned back into that byte wherever the name
/// reaches the file system or standard error. JSON output, which must be
/// UTF-8, shows those scalars as they are.
package enum RawFileName {
    private static let base: UInt32 = 0x10FF00

    /// The longest path the system takes, in bytes with its NUL (`PATH_MAX`).
    package static let maximumPathLength = Int(PATH_MAX)

    /// The command-line arguments after the program's name, decoded so.
    package static func arguments() -> [String] {
        (1..<Int(CommandLine.argc)).map { index in
            guard let argument = CommandLine.unsafeArgv[index] else { return "" }
            var length = 0
            while argument[length] != 0 { length += 1 }
            return decoding(UnsafeRawBufferPointer(start: argument, count: length))
        }
    }

    /// The last path component of the name the program was run as (`plutil` through a link so named).
    package static func programName() -> String {
        guard CommandLine.argc > 0, let name = CommandLine.unsafeArgv[0] else { return "" }
        let full = decoding(UnsafeRawBufferPointer(start: name, count: Int(strlen(name))))
        return PathName.split(full).name
    }

    /// The NUL-terminated name at `cString` (a `FilePath`'s platform string,
    /// say) as `decoding(_:)` gives its bytes: byte for byte.
    package static func decoding(cString: UnsafePointer<CChar>) -> String {
        decoding(UnsafeRawBufferPointer(start: cString, count: strlen(cString)))
    }

    /// `bytes` as a string: valid UTF-8 as it is, every other byte as U+10FF00 + byte.
    package static func decoding<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        if let valid = String(validating: bytes, as: UTF8.self) { return valid }
        var scalars = String.UnicodeScalarView()
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var position = bytes.startIndex
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                scalars.append(Unicode.UTF8.decode(encoded))
                position = bytes.index(position, offsetBy: encoded.count)
            case .error(let length):
                for byte in bytes[position...].prefix(length) {
                    scalars.append(Unicode.Scalar(base + UInt32(byte))!)  // U+10FF00…U+10FFFF are valid scalars.
                }
                position = bytes.index(position, offsetBy: length)
            case .emptyInput:
                return String(scalars)
            }
        }
    }

    /// The bytes `text` stands for on the file system: UTF-8, with each
    /// U+10FF80…U+10FFFF turned back into the byte it carries.
    package static func bytes(_ text: String) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            if scalar.value >= base + 0x80, scalar.value <= base + 0xFF {
                result.append(UInt8(truncatingIfNeeded: scalar.value - base))
            } else {
                result.append(contentsOf: String(scalar).utf8)
            }
        }
        return result
    }

    /// The first byte of the argument `text` that is not part of valid
    /// UTF-8 (carried as U+10FF80…U+10FFFF), with its offset in the
    /// argument's bytes; nil when the argument is UTF-8. For an argument
    /// that is text, not a file name (`--text`, `-string`), which must be UTF-8.
    package static func firstByteNotUTF8(in text: String) -> (byte: UInt8, offset: Int)? {
        var offset = 0
        for scalar in text.unicodeScalars {
            if scalar.value >= base + 0x80, scalar.value <= base + 0xFF { return (UInt8(truncatingIfNeeded: scalar.value - base), offset) }
            offset += String(scalar).utf8.count
        }
        return nil
    }

    /// Text from files and the file system as it is shown to people: a
    /// display name, an entry or file name, a key, a message quoting them.
    /// Such text may hold an escape sequence that clears the screen or
    /// retitles the terminal, or a newline that forges a line of a table; in
    /// output for people each control character is shown as an escape, in
    /// the manner of Swift's string literals (without the quotes):
    ///
    /// - `\0`, `\t`, `\n`, `\r` for NUL, tab, line feed and carriage return;
    /// - `\u{1B}` (hexadecimal, upper case) for every other C0 control, DEL,
    ///   the C1 controls U+0080…U+009F, the line and paragraph separators
    ///   U+2028 and U+2029, and the bidirectional formatting characters
    ///   (U+061C, U+200E, U+200F, U+202A…U+202E, U+2066…U+2069), which
    ///   reorder what is printed after them ("Trojan Source");
    /// - `\xFF` for a byte of a name that is not UTF-8: every such byte with
    ///   `everyRawByte` (names inside a package), else only 0x80…0x9F, which
    ///   a terminal not in UTF-8 takes for a C1 control (a path the user
    ///   typed is printed back byte for byte).
    ///
    /// Backslashes are left as they are, so text without control characters
    /// is unchanged and escaping twice is the same as once; `--json` output
    /// is the exact form, and is never escaped.
    package static func escaped(_ text: String, everyRawByte: Bool = true) -> String {
        // Fast path: plain printable ASCII, as nearly all names are.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x00: result += "\\0"
            case 0x09: result += "\\t"
            case 0x0A: result += "\\n"
            case 0x0D: result += "\\r"
            case (base + 0x80)...(base + 0x9F): result += "\\x" + hex(scalar.value - base)
            case (base + 0xA0)...(base + 0xFF) where everyRawByte: result += "\\x" + hex(scalar.value - base)
            case 0x00...0x1F, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x2028...0x202E, 0x2066...0x2069:
                result += "\\u{" + hex(scalar.value) + "}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return digits.count == 1 ? "0" + digits : digits
    }

    /// Calls `body` with `path` as a C string of its file-system bytes.
    package static func withPath<R>(_ path: String, _ body: (UnsafePointer<CChar>) throws -> R) rethrows -> R {
        // U+10FF80…U+10FFFF all begin with the byte F4 in UTF-8: without one, the UTF-8 is the bytes.
        if !path.utf8.contains(0xF4) { return try path.withCString(body) }
        let cString = bytes(path).map { CChar(bitPattern: $0) } + [0]
        return try cString.withUnsafeBufferPointer { try body($0.baseAddress!) }
    }
}
