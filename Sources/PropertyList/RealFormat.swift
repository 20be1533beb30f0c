import CPropertyListSupport

/// Formats doubles exactly as C's `"%.17g"` does, which is how CoreFoundation
/// writes XML reals: 17 significant digits, correctly rounded (ties to even),
/// trailing zeros dropped, exponent form below 1e-4 and from 1e17 on.
///
/// Values from 1e-3 up to 1e17 — nearly every real in practice — are done
/// here with 128-bit integer arithmetic: the double is `m × 2^e` exactly, so
/// `m × 10^k` shifted right by `-e`, with the remainder deciding the
/// rounding, gives the 17 digits with no error. Anything else goes to the C
/// library. A test compares both on a large set of doubles.
enum RealFormat {
    /// 10⁰ … 10¹⁹, written out so the compiler lays the table down in the
    /// binary (computed, it took a `swift_once` check at each real written).
    private static let powersOfTen: [UInt64] = [
        1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000,
        10_000_000_000, 100_000_000_000, 1_000_000_000_000, 10_000_000_000_000, 100_000_000_000_000,
        1_000_000_000_000_000, 10_000_000_000_000_000, 100_000_000_000_000_000, 1_000_000_000_000_000_000,
        10_000_000_000_000_000_000,
    ]

    /// Appends `"%.17g"` of the finite, non-zero `value` to `output`.
    static func appendSeventeenDigits<Output: ByteSink>(_ value: Double, to output: inout Output) {
        if !appendFast(value, to: &output) { appendWithC(value, to: &output) }
    }

    static func appendWithC<Output: ByteSink>(_ value: Double, to output: inout Output) {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 32) { buffer in
            let length = ictkit_format_real(value, buffer.baseAddress, 32)
            buffer.baseAddress!.withMemoryRebound(to: UInt8.self, capacity: 32) { bytes in
                output.append(contentsOf: UnsafeBufferPointer(start: bytes, count: Int(length)))
            }
        }
    }

    /// The fast path; false (writing nothing) outside 1e-3 ..< 1e17 or for subnormals.
    private static func appendFast<Output: ByteSink>(_ value: Double, to output: inout Output) -> Bool {
        let magnitude = value.magnitude
        guard magnitude >= 1e-3, magnitude < 1e17, value.isNormal else { return false }
        let significand = value.significandBitPattern | (UInt64(1) << 52)
        let binaryExponent = Int(value.exponent) - 52
        // The decimal exponent E of the first digit: an estimate, corrected below.
        var decimalExponent = Int((Double(value.exponent) * 0.30102999566398120).rounded(.down))
        var digits: UInt64 = 0
        for _ in 0..<3 {
            let scale = 16 - decimalExponent  // digits = round(value × 10^scale)
            guard scale >= 0, scale <= 19 else { return false }
            guard let rounded = roundedProduct(significand, binaryExponent, powersOfTen[scale]) else { return false }
            if rounded < 10_000_000_000_000_000 {
                decimalExponent -= 1  // Fewer than 17 digits: the first digit is further right.
                continue
            }
            if rounded >= 100_000_000_000_000_000 {
                // 18 digits: the estimate was low, or rounding carried into a
                // new digit; one place further left gives 1 and zeros then.
                decimalExponent += 1
                continue
            }
            digits = rounded
            break
        }
        guard digits != 0 else { return false }
        if value < 0 { output.append(UInt8(ascii: "-")) }
        appendDigits(digits, decimalExponent: decimalExponent, to: &output)
        return true
    }

    /// round-half-even(`significand` × 2^`binaryExponent` × `power`), or nil
    /// when it does not fit the arithmetic here.
    private static func roundedProduct(_ significand: UInt64, _ binaryExponent: Int, _ power: UInt64) -> UInt64? {
        let (high, low) = significand.multipliedFullWidth(by: power)
        if binaryExponent >= 0 {
            // value × 10^scale is an integer; it must fit in 64 bits.
            guard high == 0, binaryExponent < 64 else { return nil }
            let shifted = low << UInt64(binaryExponent)
            guard shifted >> UInt64(binaryExponent) == low else { return nil }
            return shifted
        }
        let shift = -binaryExponent
        guard shift < 128 else { return nil }
        // quotient = (high:low) >> shift; remainder = the bits shifted out.
        let quotient: (high: UInt64, low: UInt64)
        let remainderIsHalf: Bool, remainderAboveHalf: Bool
        if shift < 64 {
            quotient = (high >> UInt64(shift), shift == 0 ? low : (low >> UInt64(shift)) | (high << UInt64(64 - shift)))
            let mask: UInt64 = shift == 0 ? 0 : (UInt64(1) << UInt64(shift)) - 1
            let remainder = low & mask
            let half: UInt64 = shift == 0 ? 0 : UInt64(1) << UInt64(shift - 1)
            remainderIsHalf = shift > 0 && remainder == half
            remainderAboveHalf = shift > 0 && remainder > half
        } else {
            let innerShift = shift - 64
            quotient = (0, innerShift == 0 ? high : high >> UInt64(innerShift))
            let highMask: UInt64 = innerShift == 0 ? 0 : (UInt64(1) << UInt64(innerShift)) - 1
            let remainderHigh = high & highMask
            // Half is bit (shift - 1): in `high` when innerShift > 0, else the top bit of `low`.
            if innerShift == 0 {
                let half = UInt64(1) << 63
                remainderIsHalf = low == half
                remainderAboveHalf = low > half
            } else {
                let half = UInt64(1) << UInt64(innerShift - 1)
                remainderIsHalf = remainderHigh == half && low == 0
                remainderAboveHalf = remainderHigh > half || (remainderHigh == half && low != 0)
            }
        }
        guard quotient.high == 0 else { return nil }
        var result = quotient.low
        if remainderAboveHalf || (remainderIsHalf && result & 1 == 1) { result += 1 }
        return result
    }

    /// Writes 17 digits with the first at 10^`decimalExponent` in `%g` style.
    private static func appendDigits<Output: ByteSink>(_ digits: UInt64, decimalExponent: Int, to output: inout Output) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 17) { text in
            var rest = digits
            for index in stride(from: 16, through: 0, by: -1) {
                text[index] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            }
            var significant = 17
            while significant > 1, text[significant - 1] == UInt8(ascii: "0") { significant -= 1 }
            if decimalExponent < -4 || decimalExponent >= 17 {
                output.append(text[0])
                if significant > 1 {
                    output.append(UInt8(ascii: "."))
                    output.append(contentsOf: UnsafeBufferPointer(rebasing: text[1..<significant]))
                }
                output.append(UInt8(ascii: "e"))
                output.append(decimalExponent < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
                let exponent = decimalExponent.magnitude
                if exponent < 10 { output.append(UInt8(ascii: "0")) }
                output.append(contentsOf: String(exponent).utf8)
            } else if decimalExponent >= 0 {
                let integerDigits = decimalExponent + 1
                output.append(contentsOf: UnsafeBufferPointer(rebasing: text[0..<integerDigits]))
                if significant > integerDigits {
                    output.append(UInt8(ascii: "."))
                    output.append(contentsOf: UnsafeBufferPointer(rebasing: text[integerDigits..<significant]))
                }
            } else {
                output.append(UInt8(ascii: "0"))
                output.append(UInt8(ascii: "."))
                for _ in 0..<(-decimalExponent - 1) { output.append(UInt8(ascii: "0")) }
                output.append(contentsOf: UnsafeBufferPointer(rebasing: text[0..<significant]))
            }
        }
    }
}
