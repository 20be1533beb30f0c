import Testing

@testable import PropertyList

/// The fast `%.17g` must agree with the C library's on every double.
struct RealFormatTests {
    private func fast(_ value: Double) -> String {
        var output: [UInt8] = []
        RealFormat.appendSeventeenDigits(value, to: &output)
        return String(decoding: output, as: UTF8.self)
    }

    private func c(_ value: Double) -> String {
        var output: [UInt8] = []
        RealFormat.appendWithC(value, to: &output)
        return String(decoding: output, as: UTF8.self)
    }

    @Test func writesKnownValuesAsCoreFoundationDoes() {
        #expect(fast(0.5) == "0.5")
        #expect(fast(32.5) == "32.5")
        #expect(fast(0.1) == "0.10000000000000001")
        #expect(fast(1) == "1")
        #expect(fast(-2.71828) == "-2.7182900000000001" || fast(-2.71828) == c(-2.71828))
        #expect(fast(1e16) == "10000000000000000")
        #expect(fast(1e17) == "1e+17")
        #expect(fast(0.001) == "0.001")
        #expect(fast(1.5e-5) == "1.5000000000000000e-05" || fast(1.5e-5) == c(1.5e-5))
    }

    @Test func agreesWithTheCLibraryOnEdgesAndPowersOfTen() {
        var values: [Double] = [
            1e-3, 1e-3.nextDown, 1e-3.nextUp, 1e17.nextDown, Double(9_007_199_254_740_993 as Int64), 4_503_599_627_370_496.5,
            0.5, 0.25, 123_456_789.125, 99_999_999_999_999_984, 9.999_999_999_999_999e15,
        ]
        for exponent in -5...17 {
            let power = (0..<abs(exponent)).reduce(1.0) { value, _ in exponent < 0 ? value / 10 : value * 10 }
            var below = power, above = power
            for _ in 0..<40 {
                values += [power, below, above, -below]
                below = below.nextDown
                above = above.nextUp
            }
        }
        for value in values { #expect(fast(value) == c(value), "\(value.bitPattern)") }
    }

    @Test func agreesWithTheCLibraryOnAMillionRandomDoubles() {
        var generator = SystemRandomNumberGenerator()
        var mismatches: [UInt64] = []
        for round in 0..<1_000_000 {
            let value: Double
            switch round % 4 {
            case 0: value = Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &generator))
            case 1: value = Double.random(in: 1e-3..<1, using: &generator)
            case 2: value = Double.random(in: 1..<1e17, using: &generator) / Double([1, 7, 1000, 1e9][Int.random(in: 0..<4, using: &generator)])
            default: value = Double(Int64.random(in: -1_000_000_000...1_000_000_000, using: &generator)) / 8
            }
            guard value.isFinite, value != 0 else { continue }
            if fast(value) != c(value) { mismatches.append(value.bitPattern) }
        }
        #expect(mismatches.isEmpty, "first mismatches: \(mismatches.prefix(5))")
    }
}
