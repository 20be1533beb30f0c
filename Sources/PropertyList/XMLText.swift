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

    /// Whether `bytes` start with `-`, and where what follows an optional `-` or `+` starts.
    @inline(__always)
    static func sign(_ bytes: UnsafeBufferPointer<UInt8>) -> (negative: Bool, after: Int) {
        guard let first = bytes.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") else { return (false, 0) }
        return (first == UInt8(ascii: "-"), 1)
    }

    /// A decimal or `0x` hexadecimal integer with an optional sign, in
    /// `Int64.min ... UInt64.max`.
    static func parseInteger(_ bytes: UnsafeBufferPointer<UInt8>) -> PropertyListInteger? {
        let (negative, start) = sign(bytes)
        var position = start
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
        if let parts = decimalParts(bytes), let value = exactDecimal(parts) ?? roundedDecimal(parts) { return value }
        // Swift also reads hexadecimal reals (`0x1p3`); property lists have none.
        guard !bytes.contains(where: { $0 | 0x20 == UInt8(ascii: "x") }) else { return nil }
        return Double(String(decoding: bytes, as: UTF8.self))
    }

    /// A decimal's sign, significant digits and power of ten (`decimalParts(_:)`).
    typealias DecimalParts = (negative: Bool, digits: UInt64, exponent: Int)

    /// Powers of ten a `Double` holds exactly: 10⁰ … 10²².
    private static let exactPowersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20,
        1e21, 1e22,
    ]

    /// A decimal `[+-]digits[.digits][(e|E)[+-]digits]` whose digits make an
    /// integer of at most 2⁵³ and whose power of ten is within ±22, read
    /// without `strtod`: both are exact as `Double`s, so one multiplication
    /// or division rounds once and gives the correctly rounded value, the
    /// one `strtod` gives (Clinger's fast path). Nil for anything else
    /// (more digits, a larger exponent, `nan`, `inf`), which
    /// `roundedDecimal(_:)` or `strtod` reads.
    static func exactDecimal(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        decimalParts(bytes).flatMap(exactDecimal)
    }

    private static func exactDecimal(_ parts: DecimalParts) -> Double? {
        let (negative, digits, exponent) = parts
        guard digits <= 1 << 53, (-22...22).contains(exponent) else { return nil }
        let value = exponent >= 0 ? Double(digits) * exactPowersOfTen[exponent] : Double(digits) / exactPowersOfTen[-exponent]
        return negative ? -value : value
    }

    /// A decimal `[+-]digits[.digits][(e|E)[+-]digits]` of at most 19
    /// significant digits whose power of ten is within ±19 (the 17 digits
    /// Python's `repr` and Swift's `description` write for a `Double`
    /// from 0.001 to 1e16, and shorter ones beyond) read without `strtod`, correctly
    /// rounded (to nearest, ties to even) as `strtod` rounds: the digits
    /// times or divided by the power of ten, both exact 64-bit integers,
    /// is worked out exactly in 128 bits before the one rounding. Nil for
    /// anything else, which `strtod` reads.
    static func roundedDecimal(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        decimalParts(bytes).flatMap(roundedDecimal)
    }

    private static func roundedDecimal(_ parts: DecimalParts) -> Double? {
        let (negative, digits, exponent) = parts
        guard (-19...19).contains(exponent) else { return nil }
        guard digits != 0 else { return negative ? -0.0 : 0.0 }
        let value: Double
        if exponent >= 0 {
            // Exact: digits < 10^19 and 10^exponent ≤ 10^19 fit 64 bits each, their product 128.
            let (high, low) = digits.multipliedFullWidth(by: powersOfTen[exponent])
            let leading = high != 0 ? high.leadingZeroBitCount : 64 &+ low.leadingZeroBitCount
            // The product shifted so its top bit is bit 127: its top 64 bits and whether any lower bit is set.
            let top: UInt64, sticky: Bool
            if leading >= 64 {
                top = low << (leading &- 64)
                sticky = false
            } else if leading == 0 {
                top = high
                sticky = low != 0
            } else {
                top = high << leading | low >> (64 &- leading)
                sticky = low << leading != 0
            }
            value = rounded(top: top, sticky: sticky, exponent: 64 &- leading)
        } else {
            // The quotient of digits · 2^shift by 10^-exponent, with 63 or 64 bits, and its remainder.
            let divisor = powersOfTen[-exponent]
            let shift = 63 &+ (64 &- divisor.leadingZeroBitCount) &- (64 &- digits.leadingZeroBitCount)
            let numerator: (high: UInt64, low: UInt64) =
                shift >= 64 ? (digits << (shift &- 64), 0) : shift == 0 ? (0, digits) : (digits >> (64 &- shift), digits << shift)
            // Safe: numerator < divisor · 2^64, as digits · 2^shift < 2^(63 + bits of divisor).
            let (quotient, remainder) = divisor.dividingFullWidth(numerator)
            let leading = quotient.leadingZeroBitCount  // 0 or 1: quotient ≥ 2^62.
            value = rounded(top: quotient << leading, sticky: remainder != 0, exponent: -shift &- leading)
        }
        return negative ? -value : value
    }

    /// `top` (its top bit set) times 2^`exponent`, plus less than one unit of
    /// `top` when `sticky`, rounded to a `Double` to nearest, ties to even.
    @inline(__always)
    private static func rounded(top: UInt64, sticky: Bool, exponent: Int) -> Double {
        var significand = top >> 11
        let rest = top & 0x7FF
        if rest > 0x400 || (rest == 0x400 && (sticky || significand & 1 == 1)) { significand &+= 1 }
        // Exact: significand ≤ 2^53, and the result is a normal number (1e-19 … 1e38).
        return Double(sign: .plus, exponent: exponent &+ 11, significand: Double(significand))
    }

    /// The sign, the significant digits as an integer (at most 19 of them)
    /// and the power of ten of a decimal `[+-]digits[.digits][(e|E)[+-]digits]`;
    /// nil for anything else.
    private static func decimalParts(_ bytes: UnsafeBufferPointer<UInt8>) -> DecimalParts? {
        let zero = UInt8(ascii: "0")
        let (negative, start) = sign(bytes)
        var index = start
        var digits: UInt64 = 0
        var significant = 0
        var seen = 0
        var exponent = 0
        var seenPoint = false
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "."), !seenPoint {
                seenPoint = true
            } else if byte &- zero < 10 {
                seen &+= 1
                if digits != 0 || byte != zero {
                    significant &+= 1
                    guard significant <= 19 else { return nil }  // 10^19 - 1 < 2^64.
                }
                digits = digits &* 10 &+ UInt64(byte &- zero)
                if seenPoint { exponent &-= 1 }
            } else {
                break
            }
            index &+= 1
        }
        guard seen > 0 else { return nil }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index &+= 1
            var exponentNegative = false
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
                exponentNegative = bytes[index] == UInt8(ascii: "-")
                index &+= 1
            }
            var written = 0
            var exponentDigits = 0
            while index < bytes.count, bytes[index] &- zero < 10, exponentDigits < 4 {
                written = written &* 10 &+ Int(bytes[index] &- zero)
                exponentDigits &+= 1
                index &+= 1
            }
            guard exponentDigits > 0 else { return nil }
            exponent &+= exponentNegative ? -written : written
        }
        guard index == bytes.count else { return nil }
        return (negative, digits, exponent)
    }

    /// 10⁰ … 10¹⁹, each exact in 64 bits.
    private static let powersOfTen: [UInt64] = (0...19).map { power in (0..<power).reduce(UInt64(1)) { product, _ in product * 10 } }
}
