import OrderedCollections

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads the old ASCII property-list format of NeXTSTEP and OpenStep, as
/// found in old `Info.plist` files and in `.strings` files.
///
/// The grammar, as CoreFoundation reads it:
/// - dictionaries `{ key = value; … }`, every pair ended by `;`, and the
///   short form `key;` meaning `key = key`;
/// - arrays `( a, b, )`, with an optional trailing comma;
/// - strings, quoted with `"` or `'` (escapes `\a \b \f \n \r \t \v`, `\\`,
///   `\"`, `\'`, octal `\101`, `\U00e9` with up to four hex digits and
///   surrogate pairs written as two `\U` escapes; any other escaped character
///   stands for itself), or unquoted runs of letters, digits and `_$+/:.-`;
/// - data `<0fbd7a …>`: pairs of hex digits, whitespace between pairs;
/// - `//` line comments and `/* */` block comments.
///
/// Every value is a string, data, an array or a dictionary: like
/// CoreFoundation, numbers and booleans stay strings. A top level of
/// `key = value;` pairs without braces (the `.strings` form) is read as a
/// dictionary, and so is an input holding only whitespace and comments. When
/// a key appears twice, the last value wins (the key keeps its first place).
///
/// The input is UTF-8, with or without a byte-order mark, or UTF-16 of either
/// byte order with a byte-order mark. Octal escapes stand for the code point
/// of their value (Latin-1 for `\200`–`\377`; CoreFoundation maps those through
/// the NeXTSTEP character set instead).
public struct OpenStepPropertyListReader: Sendable {
    /// The limits applied to the input.
    public var limits: PropertyListLimits

    /// Makes a reader with the given limits.
    public init(limits: PropertyListLimits = .default) {
        self.limits = limits
    }

    /// Decodes the whole property list in `bytes`.
    ///
    /// UTF-16 input is first converted to UTF-8, a copy the size of the text.
    ///
    /// - Throws: `PropertyListError` with the line and column of the problem
    ///   (columns count Unicode scalars) and the key path of the value being
    ///   read; `PropertyListError.emptyInput` for zero bytes (white space
    ///   and comments alone read as an empty dictionary, as CoreFoundation
    ///   reads them).
    public func read(_ bytes: UnsafeRawBufferPointer) throws(PropertyListError) -> PropertyListValue {
        guard !bytes.isEmpty else { throw PropertyListError.emptyInput }
        try limits.checkInputSize(bytes.count, at: .lineColumn(line: 1, column: 1))
        if bytes.count >= 2, (bytes[0] == 0xFE && bytes[1] == 0xFF) || (bytes[0] == 0xFF && bytes[1] == 0xFE) {
            // A byte-order mark and nothing after it is empty input, which
            // CoreFoundation refuses as it refuses zero bytes.
            guard bytes.count > 2 else {
                throw PropertyListError(.truncated, at: .byteOffset(2), "the input is empty after its UTF-16 byte-order mark")
            }
            let utf8 = try Self.transcodeUTF16(UnsafeRawBufferPointer(rebasing: bytes[2...]), bigEndian: bytes[0] == 0xFE)
            let result: Result<PropertyListValue, PropertyListError> = utf8.withUnsafeBytes { buffer in
                Result { () throws(PropertyListError) in try parse(buffer) }
            }
            return try result.get()
        }
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            return try parse(UnsafeRawBufferPointer(rebasing: bytes[3...]))
        }
        return try parse(bytes)
    }

    /// Decodes the whole property list in `data`.
    ///
    /// - Throws: `PropertyListError`, as `read(_:)` on bytes.
    public func read(_ data: Data) throws(PropertyListError) -> PropertyListValue {
        try data.withPropertyListBytes { (bytes) throws(PropertyListError) in try read(bytes) }
    }

    private func parse(_ text: UnsafeRawBufferPointer) throws(PropertyListError) -> PropertyListValue {
        var parser = OpenStepParser(text: text, limits: limits)
        return try parser.parseTopLevel()
    }

    /// Converts UTF-16 (after its byte-order mark) to UTF-8, rejecting unpaired
    /// surrogates and an odd byte count.
    private static func transcodeUTF16(_ bytes: UnsafeRawBufferPointer, bigEndian: Bool) throws(PropertyListError) -> [UInt8] {
        var utf8: [UInt8] = []
        utf8.reserveCapacity(bytes.count + bytes.count / 2)  // At most 3 UTF-8 bytes per 2-byte unit.
        let unitCount = bytes.count / 2
        func unit(_ index: Int) -> UInt32 {
            let first = UInt32(bytes[2 * index]), second = UInt32(bytes[2 * index + 1])
            return bigEndian ? first << 8 | second : second << 8 | first
        }
        func failure(_ message: String) -> PropertyListError {
            let location = utf8.withUnsafeBytes { PropertyListText.location(ofByte: $0.count, in: $0) }
            return PropertyListError(.invalidString, at: location, message)
        }
        var index = 0
        while index < unitCount {
            var scalar = unit(index)
            index += 1
            if scalar & 0xF800 == 0xD800 {
                guard scalar < 0xDC00, index < unitCount, unit(index) & 0xFC00 == 0xDC00 else {
                    throw failure("an unpaired UTF-16 surrogate 0x\(String(scalar, radix: 16, uppercase: true))")
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (unit(index) - 0xDC00)
                index += 1
            }
            PropertyListText.appendUTF8(Unicode.Scalar(scalar)!, to: &utf8)  // Surrogates were handled above, so this is a scalar.
        }
        guard bytes.count % 2 == 0 else { throw failure("the UTF-16 text ends with half a code unit") }
        return utf8
    }
}

/// Helpers for readers of UTF-8 text formats (OpenStep, JSON).
enum PropertyListText {
    /// Appends the UTF-8 encoding of `scalar`.
    static func appendUTF8(_ scalar: Unicode.Scalar, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: UTF8.encode(scalar)!)  // Every scalar has a UTF-8 encoding.
    }

    /// The 1-based line and column of byte `offset` in UTF-8 `text`. Lines end
    /// at `\n`, `\r\n` or a lone `\r`; columns count Unicode scalars. Costs a
    /// scan of the text up to `offset`, so it is called only for errors.
    static func location(ofByte offset: Int, in text: UnsafeRawBufferPointer) -> PropertyListLocation {
        var line = 1
        var column = 1
        var index = 0
        let end = min(offset, text.count)
        while index < end {
            let byte = text[index]
            if byte == UInt8(ascii: "\n") || (byte == UInt8(ascii: "\r") && (index + 1 >= text.count || text[index + 1] != UInt8(ascii: "\n"))) {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80, byte != UInt8(ascii: "\r") {
                column += 1
            }
            index += 1
        }
        return .lineColumn(line: line, column: column)
    }

    /// Reads one UTF-8 scalar at `index` of `text`: the scalar and its byte
    /// length, or nil when the bytes there are not well-formed UTF-8 (overlong
    /// forms, surrogates and values above U+10FFFF included).
    static func decodeScalar(_ text: UnsafeRawBufferPointer, at index: Int) -> (scalar: Unicode.Scalar, length: Int)? {
        let lead = UInt32(text[index])
        let length: Int
        let minimum: UInt32
        var value: UInt32
        switch lead {
        case 0x00..<0x80: return (Unicode.Scalar(UInt8(lead)), 1)
        case 0xC2..<0xE0: length = 2; minimum = 0x80; value = lead & 0x1F
        case 0xE0..<0xF0: length = 3; minimum = 0x800; value = lead & 0x0F
        case 0xF0..<0xF5: length = 4; minimum = 0x10000; value = lead & 0x07
        default: return nil
        }
        guard length <= text.count - index else { return nil }
        for offset in 1..<length {
            let continuation = UInt32(text[index + offset])
            guard continuation & 0xC0 == 0x80 else { return nil }
            value = value << 6 | (continuation & 0x3F)
        }
        guard value >= minimum, let scalar = Unicode.Scalar(value) else { return nil }
        return (scalar, length)
    }

    /// The character at `offset` for a message, a noun phrase that reads
    /// after "unexpected", "found" or "not": `'x'`, `U+0007` for one that
    /// does not print, `NUL (U+0000; …)` with a hint (UTF-16 text without a
    /// byte-order mark?), the byte for invalid UTF-8, or "the end of the input".
    static func describeCharacter(at offset: Int, in text: UnsafeRawBufferPointer) -> String {
        guard offset < text.count else { return "the end of the input" }
        guard let (scalar, _) = decodeScalar(text, at: offset) else {
            return "byte 0x\(String(text[offset], radix: 16, uppercase: true)), which is not valid UTF-8"
        }
        if scalar.value == 0 { return "NUL (U+0000; UTF-16 text without a byte-order mark?)" }
        if scalar.properties.generalCategory == .control || scalar.properties.generalCategory == .format {
            let hex = String(scalar.value, radix: 16, uppercase: true)
            return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        }
        return "'\(Character(scalar))'"
    }
}

/// A reader of a property list written as text (JSON, OpenStep): its
/// errors located by line and column and its characters described, one way for both.
protocol TextPropertyListParser {
    /// The whole text read.
    var text: UnsafeRawBufferPointer { get }
    /// The offset of the next byte to read.
    var position: Int { get }
    /// The limits of the read.
    var limits: PropertyListLimits { get }
    /// How many values the read has met so far.
    var producedCount: Int { get set }
}

extension TextPropertyListParser {
    /// An error located at the byte `offset` of the text (its line and column).
    func error(_ code: PropertyListError.Code, at offset: Int, _ message: String) -> PropertyListError {
        PropertyListError(code, at: PropertyListText.location(ofByte: offset, in: text), message)
    }

    /// The character at `offset` for a message (`PropertyListText.describeCharacter`).
    func describeCharacter(at offset: Int) -> String {
        PropertyListText.describeCharacter(at: offset, in: text)
    }

    /// Counts the value that starts at `position`: throws `truncated` when
    /// the input ends there instead, `limitExceeded(.objectCount)` past the
    /// limit of values.
    mutating func countValue() throws(PropertyListError) {
        guard position < text.count else {
            throw error(.truncated, at: position, "the input ends where a value was expected")
        }
        producedCount += 1
        guard producedCount <= limits.maximumObjectCount else {
            throw error(.limitExceeded(.objectCount), at: position, "the property list holds more than \(limits.maximumObjectCount) values")
        }
    }

    /// Throws `limitExceeded(.depth)` when a container at `depth` would nest
    /// deeper than the limit.
    func checkDepth(_ depth: Int) throws(PropertyListError) {
        guard depth < limits.maximumDepth else {
            throw error(.limitExceeded(.depth), at: position, "containers nest more than \(limits.maximumDepth) deep")
        }
    }
}

/// The state of one OpenStep read: a position in UTF-8 text.
private struct OpenStepParser: TextPropertyListParser {
    let text: UnsafeRawBufferPointer
    let limits: PropertyListLimits
    var position = 0
    var producedCount = 0

    init(text: UnsafeRawBufferPointer, limits: PropertyListLimits) {
        self.text = text
        self.limits = limits
    }

    // MARK: Top level

    /// A single value, or the `.strings` form: `key = value;` pairs without braces.
    mutating func parseTopLevel() throws(PropertyListError) -> PropertyListValue {
        try skipWhitespaceAndComments()
        guard position < text.count else { return .dictionary([:]) }
        let first = text[position]
        if first != UInt8(ascii: "{"), first != UInt8(ascii: "("), first != UInt8(ascii: "<") {
            let start = position
            _ = try parseString()
            try skipWhitespaceAndComments()
            if position < text.count, text[position] == UInt8(ascii: "=") || text[position] == UInt8(ascii: ";") {
                position = start
                return .dictionary(try parseDictionaryContent(openedAt: nil, depth: 0))
            }
            position = start
        }
        let value = try parseValue(depth: 0)
        try skipWhitespaceAndComments()
        guard position == text.count else {
            throw unexpectedCharacter(expecting: "the end of the input after the top-level value")
        }
        return value
    }

    // MARK: Values

    mutating func parseValue(depth: Int) throws(PropertyListError) -> PropertyListValue {
        try countValue()
        switch text[position] {
        case UInt8(ascii: "{"):
            try checkDepth(depth)
            let opening = position
            position += 1
            return .dictionary(try parseDictionaryContent(openedAt: opening, depth: depth))
        case UInt8(ascii: "("):
            try checkDepth(depth)
            return .array(try parseArray(depth: depth))
        case UInt8(ascii: "<"):
            return .data(try parseData())
        default:
            return .string(try parseString())
        }
    }

    /// The pairs of a dictionary, after its `{` (at `openedAt`) up to and
    /// including its `}`; or, for the `.strings` form (`openedAt` nil), up to
    /// the end of the input.
    mutating func parseDictionaryContent(openedAt opening: Int?, depth: Int) throws(PropertyListError) -> OrderedDictionary<String, PropertyListValue> {
        var dictionary = OrderedDictionary<String, PropertyListValue>()
        while true {
            try skipWhitespaceAndComments()
            guard position < text.count else {
                guard let opening else { return dictionary }
                throw error(.truncated, at: opening, "the dictionary is not closed: the input ends before its '}'")
            }
            if opening != nil, text[position] == UInt8(ascii: "}") {
                position += 1
                return dictionary
            }
            let key = try parseKey()
            do throws(PropertyListError) {
                try skipWhitespaceAndComments()
                if position < text.count, text[position] == UInt8(ascii: ";") {
                    position += 1
                    dictionary[key] = .string(key)
                    continue
                }
                guard position < text.count, text[position] == UInt8(ascii: "=") else {
                    throw missing("'=' after the key")
                }
                position += 1
                try skipWhitespaceAndComments()
                dictionary[key] = try parseValue(depth: depth + 1)
                try skipWhitespaceAndComments()
                guard position < text.count, text[position] == UInt8(ascii: ";") else {
                    throw missing("';' after the value")
                }
                position += 1
            } catch {
                throw error.prefixed(by: .key(key))
            }
        }
    }

    private mutating func parseKey() throws(PropertyListError) -> String {
        let byte = text[position]
        guard byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") || Self.isUnquotedStringByte(byte) else {
            if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "(") || byte == UInt8(ascii: "<") {
                throw error(.invalidKey, at: position, "a dictionary key must be a string, not \(describeCharacter(at: position))")
            }
            throw unexpectedCharacter(expecting: "a key")
        }
        return try parseString()
    }

    /// The elements of an array, from its `(` up to and including its `)`.
    private mutating func parseArray(depth: Int) throws(PropertyListError) -> [PropertyListValue] {
        let opening = position
        position += 1
        var elements: [PropertyListValue] = []
        try skipWhitespaceAndComments()
        while true {
            guard position < text.count else {
                throw error(.truncated, at: opening, "the array is not closed: the input ends before its ')'")
            }
            if text[position] == UInt8(ascii: ")") {
                position += 1
                return elements
            }
            let index = elements.count
            do throws(PropertyListError) {
                elements.append(try parseValue(depth: depth + 1))
                try skipWhitespaceAndComments()
                guard position < text.count else { continue }
                switch text[position] {
                case UInt8(ascii: ","):
                    position += 1
                    try skipWhitespaceAndComments()
                case UInt8(ascii: ")"):
                    break
                default:
                    throw missing("',' or ')' after the array element")
                }
            } catch {
                throw error.prefixed(by: .index(index))
            }
        }
    }

    /// Data, from its `<` up to and including its `>`.
    private mutating func parseData() throws(PropertyListError) -> Data {
        let opening = position
        position += 1
        var bytes: [UInt8] = []
        while position < text.count {
            let byte = text[position]
            if byte == UInt8(ascii: ">") {
                position += 1
                return Data(bytes)
            }
            if Self.isWhitespace(byte) {
                position += 1
                continue
            }
            guard let high = Self.hexValue(byte) else {
                throw error(
                    .invalidValue, at: position, "\(describeCharacter(at: position)) in data; only hex digits and whitespace may stand between '<' and '>'")
            }
            guard position + 1 < text.count, let low = Self.hexValue(text[position + 1]) else {
                if position + 1 < text.count, text[position + 1] != UInt8(ascii: ">"), !Self.isWhitespace(text[position + 1]) {
                    throw error(
                        .invalidValue, at: position + 1,
                        "\(describeCharacter(at: position + 1)) in data; only hex digits and whitespace may stand between '<' and '>'")
                }
                throw error(.invalidValue, at: position, "a lone hex digit in data; each byte is two hex digits")
            }
            bytes.append(high << 4 | low)
            position += 2
        }
        throw error(.truncated, at: opening, "the data is not closed: the input ends before its '>'")
    }

    // MARK: Strings

    private mutating func parseString() throws(PropertyListError) -> String {
        let byte = text[position]
        if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") { return try parseQuotedString() }
        let start = position
        while position < text.count, Self.isUnquotedStringByte(text[position]) { position += 1 }
        guard position > start else { throw unexpectedCharacter(expecting: "a value") }
        return String(decoding: UnsafeRawBufferPointer(rebasing: text[start..<position]), as: UTF8.self)
    }

    private mutating func parseQuotedString() throws(PropertyListError) -> String {
        let opening = position
        let quote = text[position]
        position += 1
        var utf8: [UInt8] = []
        var pendingHighSurrogate: (value: UInt32, at: Int)?
        while position < text.count {
            let byte = text[position]
            if byte == UInt8(ascii: "\\"), position + 1 < text.count, text[position + 1] == UInt8(ascii: "U") {
                let escapeStart = position
                let unit = parseUnicodeEscape()
                if let high = pendingHighSurrogate {
                    guard unit & 0xFC00 == 0xDC00 else {
                        throw error(.invalidString, at: high.at, "a \\U escape for a high surrogate is not followed by one for a low surrogate")
                    }
                    // A valid pair makes a scalar.
                    PropertyListText.appendUTF8(Unicode.Scalar(0x10000 + ((high.value - 0xD800) << 10) + (unit - 0xDC00))!, to: &utf8)
                    pendingHighSurrogate = nil
                } else if unit & 0xFC00 == 0xD800 {
                    pendingHighSurrogate = (unit, escapeStart)
                } else if let scalar = Unicode.Scalar(unit) {
                    PropertyListText.appendUTF8(scalar, to: &utf8)
                } else {
                    throw error(.invalidString, at: escapeStart, "a \\U escape for a lone low surrogate")
                }
                continue
            }
            if let high = pendingHighSurrogate {
                throw error(.invalidString, at: high.at, "a \\U escape for a high surrogate is not followed by one for a low surrogate")
            }
            if byte == quote {
                position += 1
                return String(decoding: utf8, as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") {
                try parseEscape(into: &utf8)
            } else if byte < 0x80 {
                utf8.append(byte)
                position += 1
            } else {
                guard let (_, length) = PropertyListText.decodeScalar(text, at: position) else {
                    throw error(.invalidString, at: position, "byte 0x\(String(byte, radix: 16, uppercase: true)) is not valid UTF-8")
                }
                utf8.append(contentsOf: UnsafeRawBufferPointer(rebasing: text[position..<(position + length)]))
                position += length
            }
        }
        throw error(
            .truncated, at: opening, "the quoted string is not closed: the input ends before its closing \(quote == UInt8(ascii: "\"") ? "'\"'" : "\"'\"")")
    }

    /// `\U` and up to four hex digits, at `position`; returns the UTF-16 unit.
    private mutating func parseUnicodeEscape() -> UInt32 {
        position += 2
        var unit: UInt32 = 0
        var digits = 0
        while digits < 4, position < text.count, let digit = Self.hexValue(text[position]) {
            unit = unit << 4 | UInt32(digit)
            position += 1
            digits += 1
        }
        return unit
    }

    /// A backslash escape other than `\U`, at `position`.
    private mutating func parseEscape(into utf8: inout [UInt8]) throws(PropertyListError) {
        let start = position
        position += 1
        guard position < text.count else {
            throw error(.truncated, at: start, "the input ends inside an escape sequence")
        }
        let byte = text[position]
        switch byte {
        case UInt8(ascii: "a"): utf8.append(0x07)
        case UInt8(ascii: "b"): utf8.append(0x08)
        case UInt8(ascii: "f"): utf8.append(0x0C)
        case UInt8(ascii: "n"): utf8.append(0x0A)
        case UInt8(ascii: "r"): utf8.append(0x0D)
        case UInt8(ascii: "t"): utf8.append(0x09)
        case UInt8(ascii: "v"): utf8.append(0x0B)
        case UInt8(ascii: "0")...UInt8(ascii: "7"):
            var value = UInt32(byte - UInt8(ascii: "0"))
            var digits = 1
            while digits < 3, position + 1 < text.count, (UInt8(ascii: "0")...UInt8(ascii: "7")).contains(text[position + 1]) {
                position += 1
                value = value << 3 | UInt32(text[position] - UInt8(ascii: "0"))
                digits += 1
            }
            guard value <= 0xFF else {
                throw error(.invalidString, at: start, "the octal escape \\\(String(value, radix: 8)) is above \\377")
            }
            PropertyListText.appendUTF8(Unicode.Scalar(UInt8(value)), to: &utf8)
        default:
            guard let (_, length) = PropertyListText.decodeScalar(text, at: position) else {
                throw error(.invalidString, at: position, "byte 0x\(String(byte, radix: 16, uppercase: true)) is not valid UTF-8")
            }
            utf8.append(contentsOf: UnsafeRawBufferPointer(rebasing: text[position..<(position + length)]))
            position += length
            return
        }
        position += 1
    }

    // MARK: Whitespace and comments

    mutating func skipWhitespaceAndComments() throws(PropertyListError) {
        while position < text.count {
            let byte = text[position]
            if Self.isWhitespace(byte) {
                position += 1
            } else if byte == 0xE2, position + 2 < text.count, text[position + 1] == 0x80,
                text[position + 2] == 0xA8 || text[position + 2] == 0xA9
            {
                position += 3  // U+2028 LINE SEPARATOR, U+2029 PARAGRAPH SEPARATOR.
            } else if byte == UInt8(ascii: "/"), position + 1 < text.count, text[position + 1] == UInt8(ascii: "/") {
                while position < text.count, text[position] != UInt8(ascii: "\n"), text[position] != UInt8(ascii: "\r") {
                    position += 1
                }
            } else if byte == UInt8(ascii: "/"), position + 1 < text.count, text[position + 1] == UInt8(ascii: "*") {
                let opening = position
                position += 2
                while true {
                    guard position + 1 < text.count else {
                        throw error(.truncated, at: opening, "the comment is not closed: the input ends before its '*/'")
                    }
                    if text[position] == UInt8(ascii: "*"), text[position + 1] == UInt8(ascii: "/") {
                        position += 2
                        break
                    }
                    position += 1
                }
            } else {
                return
            }
        }
    }

    // MARK: Character classes

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || (0x09...0x0D).contains(byte)
    }

    private static func isUnquotedStringByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "_"), UInt8(ascii: "$"), UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: ":"),
            UInt8(ascii: "."), UInt8(ascii: "-"):
            true
        default:
            false
        }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    // MARK: Errors

    private func missing(_ what: String) -> PropertyListError {
        guard position < text.count else {
            return error(.truncated, at: position, "expected \(what); the input ends first")
        }
        return error(.unexpectedElement, at: position, "expected \(what), found \(describeCharacter(at: position))")
    }

    private func unexpectedCharacter(expecting what: String) -> PropertyListError {
        guard position < text.count else { return missing(what) }
        return error(.unexpectedElement, at: position, "unexpected \(describeCharacter(at: position)); expected \(what)")
    }
}
