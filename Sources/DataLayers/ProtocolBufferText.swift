/// Protocol buffer fields as `protoc --decode_raw` prints them: one
/// `NUMBER: VALUE` line per field, a nested message or group as
/// `NUMBER {` … `}` indented by two spaces, varints in unsigned decimal,
/// fixed values as `0x` and 8 or 16 hex digits, bytes as a quoted string
/// with C escapes (`\n`, `\"`, and three octal digits for other bytes
/// outside printable ASCII).
public enum ProtocolBufferText {
    /// The text of `fields`, each line ending in a newline.
    public static func text(of fields: [ProtocolBufferField]) -> String {
        var text = ""
        write(fields, indent: 0, to: &text)
        return text
    }

    private static func write(_ fields: [ProtocolBufferField], indent: Int, to text: inout String) {
        let pad = String(repeating: "  ", count: indent)
        for field in fields {
            text += pad + String(field.number)
            switch field.value {
            case .varint(let number): text += ": \(number)\n"
            case .fixed32(let number): text += ": 0x" + hex(UInt64(number), digits: 8) + "\n"
            case .fixed64(let number): text += ": 0x" + hex(number, digits: 16) + "\n"
            case .bytes(let data): text += ": \"" + escaped(data) + "\"\n"
            case .message(let inner), .group(let inner):
                text += " {\n"
                write(inner, indent: indent + 1, to: &text)
                text += pad + "}\n"
            }
        }
    }

    private static func hex(_ number: UInt64, digits: Int) -> String {
        let digitsText = String(number, radix: 16)
        return String(repeating: "0", count: max(0, digits - digitsText.count)) + digitsText
    }

    /// `bytes` with C escapes, as protobuf's `CEscape` writes them.
    public static func escaped<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var text = ""
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\n"): text += "\\n"
            case UInt8(ascii: "\r"): text += "\\r"
            case UInt8(ascii: "\t"): text += "\\t"
            case UInt8(ascii: "\""): text += "\\\""
            case UInt8(ascii: "'"): text += "\\'"
            case UInt8(ascii: "\\"): text += "\\\\"
            case 0x20..<0x7F: text.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                text += "\\" + String(byte >> 6) + String((byte >> 3) & 7) + String(byte & 7)
            }
        }
        return text
    }
}
