/// Byte-level helpers for element text.
enum XMLText {
    static func isXMLWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D
    }

    static func isWhitespace(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.allSatisfy(isXMLWhitespace)
    }

    static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        var start = 0
        var end = bytes.count
        while start < end, isXMLWhitespace(bytes[start]) { start += 1 }
        while end > start, isXMLWhitespace(bytes[end - 1]) { end -= 1 }
        return UnsafeBufferPointer(rebasing: bytes[start..<end])
    }

    /// The text for a message, shortened to 40 characters.
    static func excerpt(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        let text = String(decoding: bytes, as: UTF8.self)
        return text.count > 40 ? String(text.prefix(40)) + "…" : text
    }

    /// A decimal or `0x` hexadecimal integer with an optional sign, in
    /// `Int64.min ... UInt64.max`.
    static func parseInteger(_ bytes: UnsafeBufferPointer<UInt8>) -> PropertyListInteger? {
        var position = 0
        var negative = false
        if position < bytes.count, bytes[position] == UInt8(ascii: "-") || bytes[position] == UInt8(ascii: "+") {
            negative = bytes[position] == UInt8(ascii: "-")
            position += 1
        }
        var radix: UInt64 = 10
        if bytes.count - position > 2, bytes[position] == UInt8(ascii: "0"),
            bytes[position + 1] | 0x20 == UInt8(ascii: "x")
        {
            radix = 16
            position += 2
        }
        guard position < bytes.count else { return nil }
        var magnitude: UInt64 = 0
        while position < bytes.count {
            let byte = bytes[position]
            let digit: UInt64
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt64(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f") where radix == 16: digit = UInt64(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F") where radix == 16: digit = UInt64(byte - UInt8(ascii: "A") + 10)
            default: return nil
            }
            let (shifted, overflowMultiply) = magnitude.multipliedReportingOverflow(by: radix)
            let (sum, overflowAdd) = shifted.addingReportingOverflow(digit)
            guard !overflowMultiply, !overflowAdd else { return nil }
            magnitude = sum
            position += 1
        }
        guard negative else { return PropertyListInteger(magnitude) }
        guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
        return PropertyListInteger(Int64(bitPattern: 0 &- magnitude))  // Two's complement of a magnitude ≤ 2^63.
    }

    /// A decimal real, or `nan`, `inf`, `infinity` with an optional sign, in any case.
    static func parseReal(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        // Swift also reads hexadecimal reals (`0x1p3`); property lists have none.
        guard !bytes.contains(where: { $0 | 0x20 == UInt8(ascii: "x") }) else { return nil }
        return Double(String(decoding: bytes, as: UTF8.self))
    }
}
