/// Text from files and the file system as it is shown to people: a display
/// name, an entry or file name, a key, a string value, a message quoting
/// them. Such text may hold an escape sequence that clears the screen or
/// retitles the terminal, or a newline or carriage return that forges a line
/// of a table; in output for people each control character is shown as an
/// escape instead, in the manner of Swift's string literals (and of
/// `String.debugDescription`, without the quotes):
///
/// - `\0`, `\t`, `\n`, `\r` for NUL, tab, line feed and carriage return;
/// - `\u{1B}` (hexadecimal, upper case) for every other C0 control, DEL,
///   the C1 controls U+0080…U+009F, the line and paragraph separators
///   U+2028 and U+2029, and the bidirectional formatting characters
///   (U+061C, U+200E, U+200F, U+202A…U+202E, U+2066…U+2069), which reorder
///   what is printed after them ("Trojan Source");
/// - `\x9B` for a byte 0x80…0x9F of a file name that is not UTF-8 (see
///   `RawFileName`), which a terminal not in UTF-8 takes for a C1 control;
///   the name's other bytes that are not UTF-8 are printed as they are.
///
/// Backslashes are left as they are, so text without control characters is
/// unchanged and escaping twice is the same as once; `--json` output is the
/// exact form, and is never escaped.
enum TerminalText {
    /// `text` with its control characters escaped as described above.
    static func escaped(_ text: String) -> String {
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
            case 0x10FF80...0x10FF9F: result += "\\x" + hex(scalar.value - 0x10FF00)
            default:
                if isControl(scalar.value) {
                    result += "\\u{" + hex(scalar.value) + "}"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }

    /// Whether a scalar is one that `escaped(_:)` shows as `\u{…}`.
    private static func isControl(_ value: UInt32) -> Bool {
        switch value {
        case 0x00...0x1F, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x2028...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return digits.count == 1 ? "0" + digits : digits
    }
}
