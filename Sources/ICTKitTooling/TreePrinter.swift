import PropertyList

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Prints a property list as an indented tree for people, in the manner of
/// `plutil -p`: dictionaries in braces with `"key" => value`, arrays in
/// brackets with `index => value`, data as its length and first bytes.
///
/// Not `PlutilTextForm.prettyPrinted`, on purpose: that one must match
/// Apple's `plutil -p` byte for byte (keys sorted, strings unescaped, data's
/// hex digits unpadded with its odd sampling, `Date.description` dates),
/// while this one is `ict inspect`'s output for people: keys in file order,
/// quotes and control characters escaped for a terminal (`TerminalText`),
/// UIDs marked as such, ISO 8601 dates, and written as it goes.
package struct TreePrinter {
    package private(set) var output = StandardOutput()
    /// With `inspect --expand`: data values holding archives shown decoded in place.
    package var expanding: EmbeddedArchiveView?

    package init(expanding: EmbeddedArchiveView? = nil) { self.expanding = expanding }

    /// A printer that goes on writing to `output` (a tree inside another tree).
    package init(output: StandardOutput, expanding: EmbeddedArchiveView?) {
        self.output = output
        self.expanding = expanding
    }

    package mutating func print(_ value: PropertyListValue) {
        write(value, indent: 0)
        output.write("\n")
        output.flush()
    }

    package mutating func write(_ value: PropertyListValue, indent: Int) {
        switch value {
        case .dictionary(let dictionary):
            if dictionary.isEmpty { output.write("{}"); return }
            output.write("{\n")
            for (key, element) in dictionary {
                output.write(String(repeating: "  ", count: indent + 1))
                output.write(Self.quoted(key))
                output.write(" => ")
                write(element, indent: indent + 1)
                output.write("\n")
            }
            output.write(String(repeating: "  ", count: indent) + "}")
        case .array(let elements):
            if elements.isEmpty { output.write("[]"); return }
            output.write("[\n")
            for (index, element) in elements.enumerated() {
                output.write(String(repeating: "  ", count: indent + 1))
                output.write("\(index) => ")
                write(element, indent: indent + 1)
                output.write("\n")
            }
            output.write(String(repeating: "  ", count: indent) + "]")
        case .data(let bytes):
            if let expanding, expanding.write(bytes, indent: indent, to: &output) { return }
            output.write(Self.scalar(value))
        default:
            output.write(Self.scalar(value))
        }
    }

    /// The one-line form of a value that is not a container.
    package static func scalar(_ value: PropertyListValue) -> String {
        switch value {
        case .string(let string): quoted(string)
        case .integer(let integer): integer.description
        case .real(let real): real.description
        case .real32(let real): real.description
        case .bool(let bool): bool ? "true" : "false"
        case .date(let date): PropertyListDateFormat.format(date)
        case .data(let data): dataSummary(data)
        case .uid(let uid): "UID(\(uid))"
        case .array(let elements): "[\(elements.count) elements]"
        case .dictionary(let dictionary): "{\(dictionary.count) keys}"
        }
    }

    package static func dataSummary(_ data: Data) -> String {
        let shown = data.prefix(16).map { byte in
            let digits = String(byte, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }.joined()
        return "{length = \(data.count), bytes = 0x\(shown)\(data.count > 16 ? "..." : "")}"
    }

    /// A string in double quotes, with quotes and backslashes escaped, and
    /// control characters as `TerminalText` shows them.
    package static func quoted(_ string: String) -> String {
        var text = string
        if text.utf8.contains(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            text = text.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"")
        }
        return "\"" + TerminalText.escaped(text) + "\""
    }
}
