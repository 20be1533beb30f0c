import OrderedCollections

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads the JSON form of property lists that `JSONPropertyListWriter`
/// writes (its documentation gives the mapping; the JSON Schema is
/// `Schemas/property-list.schema.json`).
///
/// The parser is strict RFC 8259 JSON in UTF-8 (a leading byte-order mark is
/// skipped): no trailing commas, no comments, no `NaN`, no control characters
/// in strings, `\u` escapes with surrogate pairs. On top of JSON:
/// - a number without fraction or exponent is an integer and must lie in
///   `Int64.min ... UInt64.max`; a larger one is an error rather than a real
///   that would lose digits (write `1e20` for the real). `-0` is the integer 0.
/// - a number with a fraction or exponent is a 64-bit real, rounded
///   correctly; one beyond the range of `Double` is an error.
/// - `null`, duplicate keys and unpaired surrogates are errors: no property
///   list holds them.
/// - an object with exactly one member whose key is a tag (`$data`, `$date`,
///   `$uid`, `$real32`, `$real`, `$dict`) is a tagged value, and its value must
///   be what the tag needs; every other object is a dictionary, whatever its
///   keys (`{"$schema": "…", "a": 1}` is plain JSON and reads as it is).
/// - `$data` is base64; whitespace in it is skipped and padding may be left off.
public struct JSONPropertyListReader: Sendable {
    /// The limits applied to the input.
    public var limits: PropertyListLimits
    /// Whether a one-member object keyed by a tag (`$data`, …) is a tagged
    /// value (the default); when false every object is a dictionary, as
    /// plain JSON readers such as `JSONSerialization` read it.
    public var interpretsTags: Bool

    /// Makes a reader with the given limits.
    public init(limits: PropertyListLimits = .default, interpretsTags: Bool = true) {
        self.limits = limits
        self.interpretsTags = interpretsTags
    }

    /// Decodes the whole JSON document in `bytes`.
    ///
    /// - Throws: `PropertyListError` with the line and column of the problem
    ///   (columns count Unicode scalars) and the key path of the value being
    ///   read.
    public func read(_ bytes: UnsafeRawBufferPointer) throws(PropertyListError) -> PropertyListValue {
        try limits.checkInputSize(bytes.count, at: .lineColumn(line: 1, column: 1))
        var parser = JSONParser(text: bytes, limits: limits, interpretsTags: interpretsTags)
        return try parser.parseDocument()
    }

    /// Decodes the whole JSON document in `data`.
    ///
    /// - Throws: `PropertyListError`, as `read(_:)` on bytes.
    public func read(_ data: Data) throws(PropertyListError) -> PropertyListValue {
        try data.withPropertyListBytes { (bytes) throws(PropertyListError) in try read(bytes) }
    }
}

/// The state of one JSON read: a position in UTF-8 text.
private struct JSONParser: TextPropertyListParser {
    let text: UnsafeRawBufferPointer
    let limits: PropertyListLimits
    var position = 0
    let interpretsTags: Bool
    var producedCount = 0
    /// The offset just past each object and array whose extent
    /// `endOfRawValue(from:)` found, by the offset of its `{` or `[`.
    var containerEnds: [Int: Int] = [:]

    init(text: UnsafeRawBufferPointer, limits: PropertyListLimits, interpretsTags: Bool) {
        self.text = text
        self.limits = limits
        self.interpretsTags = interpretsTags
    }

    mutating func parseDocument() throws(PropertyListError) -> PropertyListValue {
        if text.count >= 3, text[0] == 0xEF, text[1] == 0xBB, text[2] == 0xBF { position = 3 }
        skipWhitespace()
        let value = try parseValue(depth: 0)
        skipWhitespace()
        guard position == text.count else {
            throw unexpectedCharacter(expecting: "the end of the input after the top-level value")
        }
        return value
    }

    // MARK: Values

    private mutating func parseValue(depth: Int) throws(PropertyListError) -> PropertyListValue {
        try countValue()
        switch text[position] {
        case UInt8(ascii: "{"):
            try checkDepth(depth)
            return try parseObject(depth: depth)
        case UInt8(ascii: "["):
            try checkDepth(depth)
            return .array(try parseArray(depth: depth))
        case UInt8(ascii: "\""):
            return .string(try parseString())
        case UInt8(ascii: "t"):
            try parseLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try parseLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            let start = position
            try parseLiteral("null")
            throw error(.invalidValue, at: start, "null has no property-list equivalent")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let number = try scanNumber()
            return number.isInteger ? .integer(try integer(number.range)) : .real(try real(number.range))
        default:
            throw unexpectedCharacter(expecting: "a value")
        }
    }

    private mutating func parseLiteral(_ literal: StaticString) throws(PropertyListError) {
        let start = position
        for expected in UnsafeRawBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount) {
            guard position < text.count, text[position] == expected else {
                position = start
                throw unexpectedCharacter(expecting: "a value")
            }
            position += 1
        }
    }

    private mutating func parseArray(depth: Int) throws(PropertyListError) -> [PropertyListValue] {
        position += 1
        var elements: [PropertyListValue] = []
        skipWhitespace()
        if position < text.count, text[position] == UInt8(ascii: "]") {
            position += 1
            return elements
        }
        while true {
            let index = elements.count
            do throws(PropertyListError) {
                elements.append(try parseValue(depth: depth + 1))
                skipWhitespace()
            } catch {
                throw error.prefixed(by: .index(index))
            }
            guard position < text.count else {
                throw error(.truncated, at: position, "the input ends inside an array; expected ',' or ']'")
            }
            switch text[position] {
            case UInt8(ascii: ","):
                position += 1
                skipWhitespace()
            case UInt8(ascii: "]"):
                position += 1
                return elements
            default:
                throw unexpectedCharacter(expecting: "',' or ']' after an array element")
            }
        }
    }

    /// An object: a tagged value when its only key is a tag, else a dictionary.
    ///
    /// When the first key is a tag, what follows its value decides: the
    /// value's extent is found by its brackets and strings alone
    /// (`endOfRawValue(from:)`), and the value is then read once, as the
    /// tag's when it is the only member, as an ordinary value when another
    /// member follows. (Reading it as the tag's first and again as an
    /// ordinary value when a `,` followed took time exponential in the
    /// number of nested tagged objects: 1,362 bytes ran for seconds.)
    private mutating func parseObject(depth: Int) throws(PropertyListError) -> PropertyListValue {
        position += 1
        skipWhitespace()
        if position < text.count, text[position] == UInt8(ascii: "}") {
            position += 1
            return .dictionary([:])
        }
        let keyStart = position
        let key = try parseKey()
        guard interpretsTags, JSONPropertyListTag.all.contains(key) else {
            return .dictionary(try parseMembers(firstKey: key, depth: depth))
        }
        if let next = endOfRawValue(from: position), next < text.count, text[next] == UInt8(ascii: ",") {
            return .dictionary(try parseMembers(firstKey: key, depth: depth))
        }
        let value: PropertyListValue
        do throws(PropertyListError) {
            value = try parseTaggedValue(tag: key, at: keyStart, depth: depth)
            skipWhitespace()
        } catch {
            throw error.prefixed(by: .key(key))
        }
        guard position < text.count, text[position] == UInt8(ascii: "}") else {
            throw unexpectedCharacter(expecting: "'}' after the tagged value")
        }
        position += 1
        return value
    }

    /// The offset just past the JSON value at `start` and the white space
    /// after it, found from its brackets and strings alone, reading no value;
    /// nil when the input ends first or a bracket closes what the value did
    /// not open. The end of each object and array met on the way is kept in
    /// `containerEnds`, so that a later look at a value inside finds its
    /// extent at once: however deep tagged objects nest, each byte is
    /// scanned here at most once. (Only objects whose first key is a tag are
    /// looked past, so plain JSON costs nothing here.)
    private mutating func endOfRawValue(from start: Int) -> Int? {
        var index = start
        var open: [Int] = []
        repeat {
            guard index < text.count else { return nil }
            switch text[index] {
            case UInt8(ascii: "\""):
                index += 1
                while index < text.count, text[index] != UInt8(ascii: "\"") {
                    // A backslash escapes the byte after it (\" among them).
                    index += text[index] == UInt8(ascii: "\\") ? 2 : 1
                }
                guard index < text.count else { return nil }
                index += 1
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                if let end = containerEnds[index] {
                    index = end
                } else {
                    open.append(index)
                    index += 1
                }
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                guard let opening = open.popLast() else { return nil }
                index += 1
                containerEnds[opening] = index
            default:
                if open.isEmpty {
                    // A number or literal: up to the next delimiter.
                    while index < text.count, !Self.isDelimiter(text[index]) { index += 1 }
                } else {
                    index += 1
                }
            }
        } while !open.isEmpty
        while index < text.count, Self.isWhitespace(text[index]) { index += 1 }
        return index
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r")
    }

    private static func isDelimiter(_ byte: UInt8) -> Bool {
        isWhitespace(byte) || byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]")
    }

    /// The members of a dictionary, the first key already read and followed by
    /// its ':', up to and including the '}'.
    private mutating func parseMembers(firstKey: String, depth: Int)
        throws(PropertyListError) -> OrderedDictionary<String, PropertyListValue>
    {
        var dictionary = OrderedDictionary<String, PropertyListValue>()
        var key = firstKey
        while true {
            do throws(PropertyListError) {
                dictionary[key] = try parseValue(depth: depth + 1)
                skipWhitespace()
            } catch {
                throw error.prefixed(by: .key(key))
            }
            guard position < text.count else {
                throw error(.truncated, at: position, "the input ends inside an object; expected ',' or '}'")
            }
            switch text[position] {
            case UInt8(ascii: ","):
                position += 1
                skipWhitespace()
            case UInt8(ascii: "}"):
                position += 1
                return dictionary
            default:
                throw unexpectedCharacter(expecting: "',' or '}' after an object member")
            }
            let keyStart = position
            key = try parseKey()
            if dictionary[key] != nil {
                throw error(.invalidKey, at: keyStart, "the key \"\(key)\" appears twice in the object")
            }
        }
    }

    /// A key and the ':' after it, leaving the position at the value.
    private mutating func parseKey() throws(PropertyListError) -> String {
        guard position < text.count, text[position] == UInt8(ascii: "\"") else {
            if position == text.count { throw error(.truncated, at: position, "the input ends inside an object; expected a key") }
            throw unexpectedCharacter(expecting: "a key in double quotes")
        }
        let key = try parseString()
        skipWhitespace()
        guard position < text.count, text[position] == UInt8(ascii: ":") else {
            if position == text.count { throw error(.truncated, at: position, "the input ends inside an object; expected ':'") }
            throw unexpectedCharacter(expecting: "':' after the key")
        }
        position += 1
        skipWhitespace()
        return key
    }

    // MARK: Tagged values

    private mutating func parseTaggedValue(tag: String, at tagStart: Int, depth: Int) throws(PropertyListError) -> PropertyListValue {
        let valueStart = position
        switch tag {
        case "$dict":
            guard position < text.count, text[position] == UInt8(ascii: "{") else {
                throw error(.invalidValue, at: valueStart, "the value of \"$dict\" must be an object")
            }
            position += 1
            skipWhitespace()
            if position < text.count, text[position] == UInt8(ascii: "}") {
                position += 1
                return .dictionary([:])
            }
            let firstKey = try parseKey()
            return .dictionary(try parseMembers(firstKey: firstKey, depth: depth))
        case "$data":
            var encoded = try parseTagString(tag)
            guard let decoded = encoded.withUTF8({ Base64.decode($0) }) else {
                throw error(.invalidValue, at: valueStart, "the value of \"$data\" is not base64")
            }
            return .data(Data(decoded))
        case "$date":
            var encoded = try parseTagString(tag)
            guard let date = encoded.withUTF8({ JSONDateText.parse($0) }) else {
                throw error(
                    .invalidValue, at: valueStart,
                    "the value of \"$date\" is not a date of the form YYYY-MM-DDTHH:MM:SS[.fraction]Z with fields in range")
            }
            return .date(date)
        case "$uid":
            guard position < text.count, text[position] == UInt8(ascii: "-") || Self.isDigit(text[position]) else {
                throw error(.invalidValue, at: valueStart, "the value of \"$uid\" must be an integer")
            }
            let number = try scanNumber()
            guard number.isInteger, let uid = try integer(number.range).uint64Value else {
                throw error(.invalidValue, at: valueStart, "the value of \"$uid\" must be an integer from 0 to \(UInt64.max)")
            }
            return .uid(uid)
        case "$real32":
            if position < text.count, text[position] == UInt8(ascii: "\"") {
                return .real32(Float(try nonFiniteReal(tag)))
            }
            guard position < text.count, text[position] == UInt8(ascii: "-") || Self.isDigit(text[position]) else {
                throw error(.invalidValue, at: valueStart, "the value of \"$real32\" must be a number, \"nan\", \"+infinity\" or \"-infinity\"")
            }
            let number = try scanNumber()
            guard let real = Float(numberText(number.range)), real.isFinite else {
                throw error(.invalidValue, at: valueStart, "\(numberText(number.range)) is beyond the range of a 32-bit real")
            }
            return .real32(real)
        case "$real":
            return .real(try nonFiniteReal(tag))
        default:
            preconditionFailure("parseTaggedValue is called for the tags only, not \(tag) at byte \(tagStart)")
        }
    }

    private mutating func parseTagString(_ tag: String) throws(PropertyListError) -> String {
        guard position < text.count, text[position] == UInt8(ascii: "\"") else {
            throw error(.invalidValue, at: position, "the value of \"\(tag)\" must be a string")
        }
        return try parseString()
    }

    private mutating func nonFiniteReal(_ tag: String) throws(PropertyListError) -> Double {
        let start = position
        switch try parseTagString(tag) {
        case "nan": return .nan
        case "+infinity": return .infinity
        case "-infinity": return -.infinity
        default:
            throw error(.invalidValue, at: start, "the string value of \"\(tag)\" must be \"nan\", \"+infinity\" or \"-infinity\"")
        }
    }

    // MARK: Numbers

    /// The extent of an RFC 8259 number at `position`, and whether it has
    /// neither a fraction nor an exponent.
    private mutating func scanNumber() throws(PropertyListError) -> (range: Range<Int>, isInteger: Bool) {
        let start = position
        if text[position] == UInt8(ascii: "-") { position += 1 }
        guard position < text.count, Self.isDigit(text[position]) else {
            throw error(.invalidValue, at: position, "expected a digit in the number, found \(describeCharacter(at: position))")
        }
        if text[position] == UInt8(ascii: "0") {
            position += 1
            if position < text.count, Self.isDigit(text[position]) {
                throw error(.invalidValue, at: start, "a number must not start with a 0 followed by more digits")
            }
        } else {
            skipDigits()
        }
        var isInteger = true
        if position < text.count, text[position] == UInt8(ascii: ".") {
            position += 1
            try requireDigit(in: "the fraction")
            isInteger = false
        }
        if position < text.count, text[position] == UInt8(ascii: "e") || text[position] == UInt8(ascii: "E") {
            position += 1
            if position < text.count, text[position] == UInt8(ascii: "+") || text[position] == UInt8(ascii: "-") { position += 1 }
            try requireDigit(in: "the exponent")
            isInteger = false
        }
        return (start..<position, isInteger)
    }

    private mutating func requireDigit(in part: String) throws(PropertyListError) {
        guard position < text.count, Self.isDigit(text[position]) else {
            throw error(.invalidValue, at: position, "expected a digit in \(part) of the number, found \(describeCharacter(at: position))")
        }
        skipDigits()
    }

    private mutating func skipDigits() {
        while position < text.count, Self.isDigit(text[position]) { position += 1 }
    }

    private func numberText(_ range: Range<Int>) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: text[range]), as: UTF8.self)
    }

    private func integer(_ range: Range<Int>) throws(PropertyListError) -> PropertyListInteger {
        let negative = text[range.lowerBound] == UInt8(ascii: "-")
        var magnitude: UInt64 = 0
        for index in (negative ? range.lowerBound + 1 : range.lowerBound)..<range.upperBound {
            let (times10, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(text[index] - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { throw integerRangeError(range) }
            magnitude = sum
        }
        guard negative else { return PropertyListInteger(magnitude) }
        guard magnitude <= UInt64(Int64.max) + 1 else { throw integerRangeError(range) }
        return PropertyListInteger(Int64(truncatingIfNeeded: 0 &- magnitude))  // Two's complement of a magnitude up to 2^63.
    }

    private func integerRangeError(_ range: Range<Int>) -> PropertyListError {
        error(
            .invalidValue, at: range.lowerBound,
            "the integer \(numberText(range)) is outside \(Int64.min) ... \(UInt64.max); write a real with a fraction or exponent")
    }

    private func real(_ range: Range<Int>) throws(PropertyListError) -> Double {
        guard let real = Double(numberText(range)), real.isFinite else {
            throw error(.invalidValue, at: range.lowerBound, "\(numberText(range)) is beyond the range of a 64-bit real")
        }
        return real
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10  // Bytes below "0" wrap to 246 or more and fail the test.
    }

    // MARK: Strings

    /// A string from its opening '"' up to and including its closing '"'.
    private mutating func parseString() throws(PropertyListError) -> String {
        let opening = position
        position += 1
        var utf8: [UInt8] = []
        while position < text.count {
            let runStart = position
            while position < text.count, text[position] >= 0x20, text[position] < 0x80,
                text[position] != UInt8(ascii: "\""), text[position] != UInt8(ascii: "\\")
            {
                position += 1
            }
            utf8.append(contentsOf: UnsafeRawBufferPointer(rebasing: text[runStart..<position]))
            guard position < text.count else { break }
            let byte = text[position]
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                return String(decoding: utf8, as: UTF8.self)
            case UInt8(ascii: "\\"):
                try parseEscape(into: &utf8)
            case 0x00..<0x20:
                throw error(.invalidString, at: position, "\(describeCharacter(at: position)) must be escaped in a string")
            default:
                guard let (_, length) = PropertyListText.decodeScalar(text, at: position) else {
                    throw error(.invalidString, at: position, "byte 0x\(String(byte, radix: 16, uppercase: true)) is not valid UTF-8")
                }
                utf8.append(contentsOf: UnsafeRawBufferPointer(rebasing: text[position..<(position + length)]))
                position += length
            }
        }
        throw error(.truncated, at: opening, "the string is not closed: the input ends before its closing '\"'")
    }

    private mutating func parseEscape(into utf8: inout [UInt8]) throws(PropertyListError) {
        let start = position
        position += 1
        guard position < text.count else {
            throw error(.truncated, at: start, "the input ends inside an escape sequence")
        }
        let byte = text[position]
        position += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(byte)
        case UInt8(ascii: "b"): utf8.append(0x08)
        case UInt8(ascii: "f"): utf8.append(0x0C)
        case UInt8(ascii: "n"): utf8.append(0x0A)
        case UInt8(ascii: "r"): utf8.append(0x0D)
        case UInt8(ascii: "t"): utf8.append(0x09)
        case UInt8(ascii: "u"):
            let unit = try hexUnit(escapeStart: start)
            if unit & 0xFC00 == 0xD800 {
                guard position + 1 < text.count, text[position] == UInt8(ascii: "\\"), text[position + 1] == UInt8(ascii: "u") else {
                    throw error(
                        .invalidString, at: start, "the escape \\u\(Self.hex(unit)) is a high surrogate not followed by a \\u escape for a low surrogate")
                }
                let lowStart = position
                position += 2
                let low = try hexUnit(escapeStart: lowStart)
                guard low & 0xFC00 == 0xDC00 else {
                    throw error(
                        .invalidString, at: start, "the escape \\u\(Self.hex(unit)) is a high surrogate not followed by a \\u escape for a low surrogate")
                }
                PropertyListText.appendUTF8(Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))!, to: &utf8)  // A valid pair makes a scalar.
            } else if let scalar = Unicode.Scalar(unit) {
                PropertyListText.appendUTF8(scalar, to: &utf8)
            } else {
                throw error(.invalidString, at: start, "the escape \\u\(Self.hex(unit)) is a lone low surrogate")
            }
        default:
            throw error(
                .invalidString, at: start,
                "\\\(describeCharacter(at: position - 1)) is not a JSON escape; the escapes are \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX")
        }
    }

    /// Exactly four hex digits after `\u`.
    private mutating func hexUnit(escapeStart: Int) throws(PropertyListError) -> UInt32 {
        var unit: UInt32 = 0
        for _ in 0..<4 {
            guard position < text.count else {
                throw error(.truncated, at: escapeStart, "the input ends inside a \\u escape")
            }
            let byte = text[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default:
                throw error(.invalidString, at: escapeStart, "a \\u escape needs four hex digits; found \(describeCharacter(at: position))")
            }
            unit = unit << 4 | UInt32(digit)
            position += 1
        }
        return unit
    }

    private static func hex(_ unit: UInt32) -> String {
        let digits = String(unit, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    // MARK: Whitespace and errors

    private mutating func skipWhitespace() {
        while position < text.count {
            switch text[position] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): position += 1
            default: return
            }
        }
    }

    private func unexpectedCharacter(expecting what: String) -> PropertyListError {
        guard position < text.count else {
            return error(.truncated, at: position, "the input ends; expected \(what)")
        }
        return error(.unexpectedElement, at: position, "unexpected \(describeCharacter(at: position)); expected \(what)")
    }
}
