import OrderedCollections

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes a property list as JSON, in a lossless form that
/// `JSONPropertyListReader` reads back to an equal value.
///
/// The mapping (the JSON Schema is `Schemas/property-list.schema.json`):
///
/// | Value | JSON |
/// |---|---|
/// | string | a string |
/// | integer | an integer, exact over `Int64.min ... UInt64.max`: `-7`, `18446744073709551615` |
/// | finite real | a number that always has a `.` or an exponent, Swift's shortest round-trip spelling: `1.0`, `-0.0`, `1e+308` |
/// | boolean | `true` or `false` |
/// | array | an array |
/// | dictionary | an object, keys in order |
/// | non-finite real | `{"$real": "nan"}`, `{"$real": "+infinity"}`, `{"$real": "-infinity"}` |
/// | 32-bit real | `{"$real32": 1.5}` (shortest spelling of the `Float`); non-finite as for `$real` |
/// | date | `{"$date": "2004-10-26T10:33:33Z"}` |
/// | data | `{"$data": "AAEC"}`: base64, standard alphabet, padded, one line |
/// | UID | `{"$uid": 5}` |
/// | dictionary whose one key is a tag (`$data`, `$date`, `$uid`, `$real32`, `$real`, `$dict`) | `{"$dict": {…}}`, the object inside taken literally |
///
/// An object with exactly one member whose key is one of those six tags is
/// a tagged value; every other object is a plain dictionary, keys starting
/// with `$` included (`{"$schema": "…", "name": "Ada"}` is a dictionary of two
/// keys). So only a dictionary that would read back as a tagged value, one
/// whose only key is a tag, is wrapped in `$dict`; the wrapping applies to
/// that dictionary alone, not to the values around or inside it. That keeps
/// every value unambiguous, whatever its keys.
///
/// Dates are UTC, `YYYY-MM-DDTHH:MM:SS` as in XML property lists, then the
/// fraction of a second when there is one: the shortest decimal digits that
/// read back to the same 64-bit seconds since 2001, so
/// `Date(timeIntervalSinceReferenceDate: 0.1)` is `2001-01-01T00:00:00.1Z`
/// and a date 0.25 s before 2001 is `2000-12-31T23:59:59.75Z`. Years run from
/// -999999 to 999999 (written as XML property lists write them: at least four
/// characters, a minus sign before years below zero).
///
/// NaN payloads are not kept: every NaN is written `"nan"`.
///
/// JSON → value → JSON gives the same text for every document this writer
/// wrote; value → JSON → value gives an equal value (NaN aside, which is never
/// equal to itself).
public struct JSONPropertyListWriter: Sendable {
    /// Whether to write one member or element a line, indented by two spaces
    /// a level, with `": "` after keys; otherwise the JSON has no whitespace.
    /// Tagged values (`{"$data": "…"}`) stay on one line either way.
    public var prettyPrinted: Bool
    /// Whether to write dictionary keys sorted by `String`'s `<` instead of in
    /// the dictionary's order.
    public var sortedKeys: Bool = false
    /// How deeply arrays and dictionaries may nest: the readers' limit, so
    /// that what is written can be read back.
    public var maximumDepth = PropertyListLimits.default.maximumDepth

    /// Makes a writer, pretty-printing by default.
    public init(prettyPrinted: Bool = true) {
        self.prettyPrinted = prettyPrinted
    }

    /// The UTF-8 JSON text of `value`, without a final newline.
    ///
    /// - Throws: `PropertyListError` with code `.unsupportedValue`, with the key
    ///   path, for a date that is not finite or outside the years -999999 to
    ///   999999; `.limitExceeded(.depth)` for containers nested deeper than
    ///   `maximumDepth`.
    public func encode(_ value: PropertyListValue) throws(PropertyListError) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(4096)
        try append(value, indent: 0, depth: 0, to: &output)
        return output
    }

    private func append(_ value: PropertyListValue, indent: Int, depth: Int, to output: inout [UInt8]) throws(PropertyListError) {
        switch value {
        case .string(let string):
            Self.appendString(string, to: &output)
        case .integer(let integer):
            output.append(contentsOf: integer.description.utf8)
        case .real(let real):
            if real.isFinite {
                output.append(contentsOf: real.description.utf8)
            } else {
                appendTagged("$real", to: &output) { Self.appendString(Self.nonFiniteName(real), to: &$0) }
            }
        case .real32(let real):
            appendTagged("$real32", to: &output) {
                if real.isFinite {
                    $0.append(contentsOf: real.description.utf8)
                } else {
                    Self.appendString(Self.nonFiniteName(Double(real)), to: &$0)
                }
            }
        case .bool(let bool):
            output.append(contentsOf: (bool ? "true" : "false").utf8)
        case .date(let date):
            guard let text = JSONDateText.format(date) else {
                throw PropertyListError(
                    .unsupportedValue, at: .none,
                    "the date \(date.timeIntervalSinceReferenceDate) s after 2001 is outside the years -999999 to 999999 JSON dates can hold")
            }
            appendTagged("$date", to: &output) { Self.appendString(text, to: &$0) }
        case .data(let data):
            appendTagged("$data", to: &output) { output in
                output.append(UInt8(ascii: "\""))
                data.withUnsafeBytes { bytes in
                    // One line as long as the whole text; it ends in a newline, unless empty.
                    Base64.appendLines(of: bytes, lineLength: max(4, (bytes.count + 2) / 3 * 4), indent: 0, to: &output)
                    if !bytes.isEmpty { output.removeLast() }
                }
                output.append(UInt8(ascii: "\""))
            }
        case .uid(let uid):
            appendTagged("$uid", to: &output) { $0.append(contentsOf: String(uid).utf8) }
        case .array(let elements):
            try checkDepth(depth)
            try appendArray(elements, indent: indent, depth: depth, to: &output)
        case .dictionary(let dictionary):
            try checkDepth(depth)
            if JSONPropertyListTag.isTagged(dictionary) {
                output.append(UInt8(ascii: "{"))
                appendNewline(indent: indent + 1, to: &output)
                appendKey("$dict", to: &output)
                try appendObject(dictionary, indent: indent + 1, depth: depth, to: &output)
                appendNewline(indent: indent, to: &output)
                output.append(UInt8(ascii: "}"))
            } else {
                try appendObject(dictionary, indent: indent, depth: depth, to: &output)
            }
        }
    }

    private func checkDepth(_ depth: Int) throws(PropertyListError) {
        guard depth < maximumDepth else {
            throw PropertyListError(.limitExceeded(.depth), at: .none, "containers nest more than \(maximumDepth) deep")
        }
    }

    private func appendArray(_ elements: [PropertyListValue], indent: Int, depth: Int, to output: inout [UInt8]) throws(PropertyListError) {
        output.append(UInt8(ascii: "["))
        for (index, element) in elements.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            appendNewline(indent: indent + 1, to: &output)
            do {
                try append(element, indent: indent + 1, depth: depth + 1, to: &output)
            } catch {
                throw error.prefixed(by: .index(index))
            }
        }
        if !elements.isEmpty { appendNewline(indent: indent, to: &output) }
        output.append(UInt8(ascii: "]"))
    }

    /// The dictionary as a plain object, its keys taken literally.
    private func appendObject(
        _ dictionary: OrderedDictionary<String, PropertyListValue>, indent: Int, depth: Int,
        to output: inout [UInt8]
    ) throws(PropertyListError) {
        output.append(UInt8(ascii: "{"))
        let keys = sortedKeys ? dictionary.keys.sorted() : Array(dictionary.keys)
        for (index, key) in keys.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            appendNewline(indent: indent + 1, to: &output)
            appendKey(key, to: &output)
            do {
                try append(dictionary[key]!, indent: indent + 1, depth: depth + 1, to: &output)  // `key` is one of the dictionary's keys.
            } catch {
                throw error.prefixed(by: .key(key))
            }
        }
        if !keys.isEmpty { appendNewline(indent: indent, to: &output) }
        output.append(UInt8(ascii: "}"))
    }

    /// `{"$tag": …}` on one line, the tag's value appended by `body`.
    private func appendTagged(_ tag: String, to output: inout [UInt8], _ body: (inout [UInt8]) -> Void) {
        output.append(UInt8(ascii: "{"))
        appendKey(tag, to: &output)
        body(&output)
        output.append(UInt8(ascii: "}"))
    }

    private func appendKey(_ key: String, to output: inout [UInt8]) {
        Self.appendString(key, to: &output)
        output.append(UInt8(ascii: ":"))
        if prettyPrinted { output.append(UInt8(ascii: " ")) }
    }

    private func appendNewline(indent: Int, to output: inout [UInt8]) {
        guard prettyPrinted else { return }
        output.append(UInt8(ascii: "\n"))
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * indent))
    }

    private static func nonFiniteName(_ real: Double) -> String {
        real.isNaN ? "nan" : real < 0 ? "-infinity" : "+infinity"
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// A JSON string: `"` and `\` escaped, `\b \f \n \r \t` for those controls,
    /// `\u00XX` for the other control characters; everything else as UTF-8.
    static func appendString(_ string: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x08: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0x0A: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x00..<0x20:
                output.append(contentsOf: "\\u00".utf8)
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0x0F)])
            default:
                output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}

/// The text of JSON `$date` values: `PropertyListDateFormat`'s whole seconds,
/// then the exact fraction of a second, so that every finite date in range
/// reads back to the same `Double` seconds since 2001.
///
/// The fraction is kept exactly by working on decimal digits: the writer
/// takes the shortest decimal that reads back to the seconds since 2001,
/// splits it into whole seconds (rounded down) and a fraction, and the reader
/// rebuilds that decimal and converts it with one correctly rounded parse.
enum JSONDateText {
    /// The seconds since 2001 of the years -999999 ... 999999.
    private static let range: Range<Double> = -31_620_065_904_000..<31_493_806_473_600

    /// `YYYY-MM-DDTHH:MM:SS[.fraction]Z`, or nil for a date that is not
    /// finite or outside the years -999999 ... 999999.
    static func format(_ date: Date) -> String? {
        let seconds = date.timeIntervalSinceReferenceDate
        guard range.contains(seconds) else { return nil }  // Also false for NaN.
        var (negative, integerDigits, fractionDigits) = decimalDigits(of: seconds)
        var whole = integerDigits.reduce(Int64(0)) { $0 * 10 + Int64($1) }  // At most 14 digits: within range.
        if negative {
            whole = -whole
            if !fractionDigits.isEmpty {
                whole -= 1
                fractionDigits = complement(fractionDigits)
            }
        }
        var bytes: [UInt8] = []
        PropertyListDateFormat.append(Date(timeIntervalSinceReferenceDate: Double(whole)), to: &bytes)
        if !fractionDigits.isEmpty {
            bytes.removeLast()  // The "Z".
            bytes.append(UInt8(ascii: "."))
            bytes.append(contentsOf: fractionDigits.map { UInt8(ascii: "0") + $0 })
            bytes.append(UInt8(ascii: "Z"))
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The date `format(_:)` wrote as `text`, or nil when `text` is not
    /// `YYYY-MM-DDTHH:MM:SS[.digits]Z` with fields in range.
    static func parse(_ text: UnsafeBufferPointer<UInt8>) -> Date? {
        // What `format(_:)` cannot write is not read either: a date read
        // from JSON can always be written back (found by fuzzing: year 2320200).
        guard let date = parseAnyYear(text), range.contains(date.timeIntervalSinceReferenceDate) else { return nil }
        return date
    }

    /// `parse(_:)` without the range check.
    private static func parseAnyYear(_ text: UnsafeBufferPointer<UInt8>) -> Date? {
        guard let point = text.firstIndex(of: UInt8(ascii: ".")) else {
            return PropertyListDateFormat.parse(text)
        }
        guard text.count - point >= 3, text[text.count - 1] == UInt8(ascii: "Z") else { return nil }
        var digits: [UInt8] = []
        digits.reserveCapacity(text.count - point - 2)
        for byte in text[(point + 1)..<(text.count - 1)] {
            let digit = byte &- UInt8(ascii: "0")  // Bytes below "0" wrap to 246 or more and fail the test below.
            guard digit < 10 else { return nil }
            digits.append(digit)
        }
        let wholeText = Array(text[..<point]) + [UInt8(ascii: "Z")]
        guard let wholeDate = wholeText.withUnsafeBufferPointer({ PropertyListDateFormat.parse($0) }) else { return nil }
        let whole = Int64(wholeDate.timeIntervalSinceReferenceDate)  // Whole seconds, exact in a Double.
        while digits.last == 0 { digits.removeLast() }
        guard !digits.isEmpty else { return wholeDate }
        var decimal = whole >= 0 ? String(whole) : "-" + String(-whole - 1)
        decimal += "."
        decimal += String(decoding: (whole >= 0 ? digits : complement(digits)).map { UInt8(ascii: "0") + $0 }, as: UTF8.self)
        guard let seconds = Double(decimal) else { return nil }
        return Date(timeIntervalSinceReferenceDate: seconds)
    }

    /// The exact decimal digits of `value`'s shortest round-trip spelling:
    /// its sign, the integer part without leading zeros and the fraction
    /// without trailing zeros (each digit 0...9).
    private static func decimalDigits(of value: Double) -> (negative: Bool, integer: [UInt8], fraction: [UInt8]) {
        var text = Substring(value.description)
        let negative = text.first == "-"
        if negative { text = text.dropFirst() }
        var exponent = 0
        if let e = text.firstIndex(of: "e") {
            exponent = Int(text[text.index(after: e)...])!  // Swift writes a valid exponent after "e".
            text = text[..<e]
        }
        var digits: [UInt8] = []
        var pointPosition: Int?
        for character in text.utf8 {
            if character == UInt8(ascii: ".") {
                pointPosition = digits.count
            } else {
                digits.append(character - UInt8(ascii: "0"))
            }
        }
        let point = (pointPosition ?? digits.count) + exponent
        var integer: [UInt8]
        var fraction: [UInt8]
        if point <= 0 {
            integer = []
            fraction = Array(repeating: 0, count: -point) + digits
        } else if point >= digits.count {
            integer = digits + Array(repeating: 0, count: point - digits.count)
            fraction = []
        } else {
            integer = Array(digits[..<point])
            fraction = Array(digits[point...])
        }
        while integer.first == 0 { integer.removeFirst() }
        while fraction.last == 0 { fraction.removeLast() }
        return (negative, integer, fraction)
    }

    /// `1 - 0.digits` as digits of the same length; `digits` must not all be zero.
    /// The result ends in a non-zero digit when `digits` does.
    private static func complement(_ digits: [UInt8]) -> [UInt8] {
        var result = digits
        var index = result.count - 1
        while result[index] == 0 { index -= 1 }
        result[index] = 10 - result[index]
        while index > 0 {
            index -= 1
            result[index] = 9 - result[index]
        }
        return result
    }
}

/// The one-member objects of the JSON form that stand for values JSON lacks.
enum JSONPropertyListTag {
    /// The tags: `$data`, `$date`, `$uid`, `$real32`, `$real`, and `$dict`,
    /// which escapes a dictionary that would otherwise read as one of them.
    static let all: Set<String> = ["$data", "$date", "$uid", "$real32", "$real", "$dict"]

    /// Whether `dictionary` would read back as a tagged value: it has exactly
    /// one key and that key is a tag. Such a dictionary is written in `$dict`.
    static func isTagged(_ dictionary: OrderedDictionary<String, PropertyListValue>) -> Bool {
        dictionary.count == 1 && all.contains(dictionary.keys[0])
    }
}
