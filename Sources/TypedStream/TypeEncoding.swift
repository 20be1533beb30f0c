/// One parsed Objective-C type encoding, as the reader needs it.
indirect enum TypeEncoding: Hashable, Sendable {
    case signedInteger
    case unsignedInteger
    /// `c` or `C`: one raw byte, not a tagged integer.
    case char(signed: Bool)
    case float
    case double
    case bool
    case cString
    case unsharedString
    /// `%` and `:`: shared strings.
    case sharedString
    case `class`
    case object
    case none
    case array(count: Int, element: TypeEncoding)
    case structure(name: String?, fields: [TypeEncoding])

    /// Splits a group's encoding string into its single encodings, each
    /// with its text. Throws `invalidTypeEncoding` at `offset` (the string's
    /// place in the stream) or `limitExceeded` when nesting passes `maximumDepth`.
    static func parseGroup(_ bytes: [UInt8], at offset: Int, maximumDepth: Int) throws(TypedStreamError) -> [(text: String, encoding: TypeEncoding)] {
        guard !bytes.isEmpty else { throw TypedStreamError(.invalidTypeEncoding, at: offset, "empty type encoding") }
        var parser = Parser(bytes: bytes, offset: offset, maximumDepth: maximumDepth)
        var result: [(String, TypeEncoding)] = []
        while parser.index < bytes.count {
            let start = parser.index
            let encoding = try parser.parseOne(depth: 0)
            result.append((String(decoding: bytes[start..<parser.index], as: UTF8.self), encoding))
        }
        return result
    }

    private struct Parser {
        let bytes: [UInt8]
        let offset: Int
        let maximumDepth: Int
        var index = 0

        private func fail(_ message: String) -> TypedStreamError {
            TypedStreamError(.invalidTypeEncoding, at: offset, "type encoding '\(String(decoding: bytes, as: UTF8.self))': \(message)")
        }

        mutating func parseOne(depth: Int) throws(TypedStreamError) -> TypeEncoding {
            guard depth < maximumDepth else {
                throw TypedStreamError(.limitExceeded, at: offset, "type encoding nests deeper than the maximum depth (\(maximumDepth))")
            }
            guard index < bytes.count else { throw fail("ends inside a type") }
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "s"), UInt8(ascii: "i"), UInt8(ascii: "l"), UInt8(ascii: "q"): return .signedInteger
            case UInt8(ascii: "S"), UInt8(ascii: "I"), UInt8(ascii: "L"), UInt8(ascii: "Q"): return .unsignedInteger
            case UInt8(ascii: "c"): return .char(signed: true)
            case UInt8(ascii: "C"): return .char(signed: false)
            case UInt8(ascii: "f"): return .float
            case UInt8(ascii: "d"): return .double
            case UInt8(ascii: "B"): return .bool
            case UInt8(ascii: "*"): return .cString
            case UInt8(ascii: "+"): return .unsharedString
            case UInt8(ascii: "%"), UInt8(ascii: ":"): return .sharedString
            case UInt8(ascii: "#"): return .class
            case UInt8(ascii: "@"): return .object
            case UInt8(ascii: "!"): return .none
            case UInt8(ascii: "["): return try parseArray(depth: depth)
            case UInt8(ascii: "{"): return try parseStruct(depth: depth)
            default: throw fail("unknown type '\(String(decoding: [byte], as: UTF8.self))'")
            }
        }

        private mutating func parseArray(depth: Int) throws(TypedStreamError) -> TypeEncoding {
            var count = 0
            var digits = 0
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                let (times, overflow1) = count.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = times.addingReportingOverflow(Int(bytes[index] - UInt8(ascii: "0")))
                guard !overflow1, !overflow2, sum <= Int(Int32.max) else { throw fail("array length too large") }
                count = sum
                digits += 1
                index += 1
            }
            guard digits > 0 else { throw fail("array without a length") }
            let element = try parseOne(depth: depth + 1)
            guard index < bytes.count, bytes[index] == UInt8(ascii: "]") else { throw fail("array without its ']'") }
            index += 1
            return .array(count: count, element: element)
        }

        private mutating func parseStruct(depth: Int) throws(TypedStreamError) -> TypeEncoding {
            // A name runs to '=' unless a nested struct or the end comes first (then there is none).
            var name: String?
            var probe = index
            while probe < bytes.count, bytes[probe] != UInt8(ascii: "="), bytes[probe] != UInt8(ascii: "}"), bytes[probe] != UInt8(ascii: "{") {
                probe += 1
            }
            if probe < bytes.count, bytes[probe] == UInt8(ascii: "=") {
                name = String(decoding: bytes[index..<probe], as: UTF8.self)
                index = probe + 1
            }
            var fields: [TypeEncoding] = []
            while index < bytes.count, bytes[index] != UInt8(ascii: "}") {
                fields.append(try parseOne(depth: depth + 1))
            }
            guard index < bytes.count else { throw fail("struct without its '}'") }
            index += 1
            return .structure(name: name, fields: fields)
        }
    }
}
