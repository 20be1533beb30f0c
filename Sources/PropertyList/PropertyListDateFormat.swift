#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The ISO 8601 form property lists write dates in, `2004-10-26T10:33:33Z`,
/// always UTC, done with civil-calendar arithmetic (proleptic Gregorian, no
/// formatter, no time zone database).
public enum PropertyListDateFormat {
    /// The seconds since 1970 `format(_:)` can write: about ±3 million years.
    static let formattableSeconds: ClosedRange<Double> = -1e14...1e14

    /// Writes `date` as `YYYY-MM-DDTHH:MM:SSZ` in UTC, dropping fractional
    /// seconds (rounding down) as CoreFoundation does. Years below 1000 are
    /// zero-padded to four characters, the sign counting as one, as `%04d` does.
    ///
    /// Dates outside `formattableSeconds` are clamped to its ends.
    public static func format(_ date: Date) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(20)
        append(date, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `format(date)`'s UTF-8 bytes to `output`.
    static func append<Output: ByteSink>(_ date: Date, to output: inout Output) {
        let interval = date.timeIntervalSince1970
        let clamped = interval.isNaN ? 0 : min(max(interval, formattableSeconds.lowerBound), formattableSeconds.upperBound)
        let seconds = Int64(clamped.rounded(.down))
        let (dayNumber, secondOfDay) = floorDivide(seconds, 86_400)
        let (year, month, day) = civil(fromDays: dayNumber)
        appendPadded(year, width: 4, to: &output)
        output.append(UInt8(ascii: "-"))
        appendPadded(month, width: 2, to: &output)
        output.append(UInt8(ascii: "-"))
        appendPadded(day, width: 2, to: &output)
        output.append(UInt8(ascii: "T"))
        appendPadded(secondOfDay / 3600, width: 2, to: &output)
        output.append(UInt8(ascii: ":"))
        appendPadded(secondOfDay / 60 % 60, width: 2, to: &output)
        output.append(UInt8(ascii: ":"))
        appendPadded(secondOfDay % 60, width: 2, to: &output)
        output.append(UInt8(ascii: "Z"))
    }

    /// Parses `YYYY-MM-DDTHH:MM:SSZ`, with optional fractional seconds
    /// (`…:SS.123Z`) and an optional `-` before the year (then three digits
    /// are enough, as `format` writes them); nil for anything
    /// else, including out-of-range fields such as month 13 or February 30.
    public static func parse(_ text: some StringProtocol) -> Date? {
        var copy = String(text)
        return copy.withUTF8 { parse($0) }
    }

    /// Parses the UTF-8 bytes of a date, as `parse(_:)` on text.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        var scanner = DigitScanner(bytes: bytes)
        let negativeYear = scanner.skip(UInt8(ascii: "-"))
        // `format` pads to four characters with the sign counted: -044, 0044.
        guard let yearDigits = scanner.number(minimumDigits: negativeYear ? 3 : 4, maximumDigits: 9),
            scanner.skip(UInt8(ascii: "-")), let month = scanner.number(minimumDigits: 2, maximumDigits: 2),
            scanner.skip(UInt8(ascii: "-")), let day = scanner.number(minimumDigits: 2, maximumDigits: 2),
            scanner.skip(UInt8(ascii: "T")), let hour = scanner.number(minimumDigits: 2, maximumDigits: 2),
            scanner.skip(UInt8(ascii: ":")), let minute = scanner.number(minimumDigits: 2, maximumDigits: 2),
            scanner.skip(UInt8(ascii: ":")), let second = scanner.number(minimumDigits: 2, maximumDigits: 2)
        else { return nil }
        var fraction = 0.0
        if scanner.skip(UInt8(ascii: ".")) {
            guard let digits = scanner.fraction() else { return nil }
            fraction = digits
        }
        guard scanner.skip(UInt8(ascii: "Z")), scanner.atEnd else { return nil }
        let year = negativeYear ? -yearDigits : yearDigits
        guard (1...12).contains(month), (1...daysInMonth(month, year: year)).contains(day),
            hour < 24, minute < 60, second < 60
        else { return nil }
        let days = days(fromCivilYear: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
    /// `days_from_civil`).
    static func days(fromCivilYear year: Int64, month: Int64, day: Int64) -> Int64 {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = floorDivide(shiftedYear, 400).quotient
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date of a day counted from 1970-01-01
    /// (Howard Hinnant's `civil_from_days`).
    static func civil(fromDays dayNumber: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = dayNumber + 719_468
        let era = floorDivide(shifted, 146_097).quotient
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    private static func daysInMonth(_ month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2:
            let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
            return leap ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let quotient = value / divisor
        let remainder = value % divisor
        return remainder < 0 ? (quotient - 1, remainder + divisor) : (quotient, remainder)
    }

    /// Appends `value` in decimal, zero-padded to `width` characters with the sign counted.
    private static func appendPadded<Output: ByteSink>(_ value: Int64, width: Int, to output: inout Output) {
        if value >= 0, value < 100, width == 2 {
            // Months, days, hours, minutes, seconds: the common case, no buffer.
            output.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value / 10))
            output.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value % 10))
            return
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var count = 0
            var magnitude = value.magnitude
            repeat {
                digits[count] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
                count += 1
                magnitude /= 10
            } while magnitude > 0
            if value < 0 { output.append(UInt8(ascii: "-")) }
            let used = count + (value < 0 ? 1 : 0)
            for _ in used..<max(width, used) { output.append(UInt8(ascii: "0")) }
            for index in stride(from: count - 1, through: 0, by: -1) { output.append(digits[index]) }
        }
    }
}

/// Reads the fixed-width decimal fields of a date.
private struct DigitScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    var position = 0

    var atEnd: Bool { position == bytes.count }

    mutating func skip(_ byte: UInt8) -> Bool {
        guard position < bytes.count, bytes[position] == byte else { return false }
        position += 1
        return true
    }

    /// A run of `minimumDigits ... maximumDigits` decimal digits.
    mutating func number(minimumDigits: Int, maximumDigits: Int) -> Int64? {
        var value: Int64 = 0
        var count = 0
        while position < bytes.count, count < maximumDigits, case let digit = bytes[position] &- UInt8(ascii: "0"), digit < 10 {
            value = value * 10 + Int64(digit)  // At most 9 digits: cannot overflow.
            position += 1
            count += 1
        }
        return count >= minimumDigits ? value : nil
    }

    /// One or more digits after a decimal point, as a fraction of one.
    /// Digits past the eighteenth are below a double's precision and are skipped.
    mutating func fraction() -> Double? {
        var numerator: Int64 = 0
        var denominator: Int64 = 1
        let start = position
        while position < bytes.count, case let digit = bytes[position] &- UInt8(ascii: "0"), digit < 10 {
            if position - start < 18 {
                numerator = numerator * 10 + Int64(digit)  // At most 18 digits: below Int64.max.
                denominator *= 10
            }
            position += 1
        }
        return position > start ? Double(numerator) / Double(denominator) : nil
    }
}
