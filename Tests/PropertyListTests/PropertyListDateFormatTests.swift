import Foundation
import Testing

@testable import PropertyList

struct PropertyListDateFormatTests {
    @Test(arguments: [
        (0.0, "1970-01-01T00:00:00Z"),
        (1_098_786_813, "2004-10-26T10:33:33Z"),
        (951_782_400, "2000-02-29T00:00:00Z"),
        (-1, "1969-12-31T23:59:59Z"),
        (-62_135_596_800, "0001-01-01T00:00:00Z"),
        (253_402_300_799, "9999-12-31T23:59:59Z"),
        (11_847_456_000, "2345-06-07T08:00:00Z"),
        (-2_208_988_800, "1900-01-01T00:00:00Z"),
    ])
    func formatsAndParsesWholeSeconds(_ seconds: Double, _ text: String) {
        let date = Date(timeIntervalSince1970: seconds)
        #expect(PropertyListDateFormat.format(date) == text)
        #expect(PropertyListDateFormat.parse(text) == date)
    }

    @Test func dropsFractionalSecondsRoundingDown() {
        #expect(PropertyListDateFormat.format(Date(timeIntervalSince1970: 1.999)) == "1970-01-01T00:00:01Z")
        #expect(PropertyListDateFormat.format(Date(timeIntervalSince1970: -0.5)) == "1969-12-31T23:59:59Z")
    }

    @Test func padsYearsBeforeOneThousandAndAfterNineThousandNineHundredNinetyNine() {
        let yearZero = Date(timeIntervalSince1970: Double(PropertyListDateFormat.days(fromCivilYear: 0, month: 3, day: 1) * 86_400))
        #expect(PropertyListDateFormat.format(yearZero) == "0000-03-01T00:00:00Z")
        let negative = Date(timeIntervalSince1970: Double(PropertyListDateFormat.days(fromCivilYear: -44, month: 3, day: 15) * 86_400))
        #expect(PropertyListDateFormat.format(negative) == "-044-03-15T00:00:00Z")
        #expect(PropertyListDateFormat.parse("-044-03-15T00:00:00Z") == negative)
        #expect(PropertyListDateFormat.parse("-44-03-15T00:00:00Z") == nil)
        let far = Date(timeIntervalSince1970: Double(PropertyListDateFormat.days(fromCivilYear: 12_345, month: 1, day: 2) * 86_400))
        #expect(PropertyListDateFormat.format(far) == "12345-01-02T00:00:00Z")
        #expect(PropertyListDateFormat.parse("12345-01-02T00:00:00Z") == far)
    }

    @Test func parsesFractionalSeconds() {
        #expect(
            PropertyListDateFormat.parse("2017-02-11T03:36:35.382174Z")
                == Date(timeIntervalSince1970: 1_486_784_195.382174))
        #expect(PropertyListDateFormat.parse("1970-01-01T00:00:00.5Z") == Date(timeIntervalSince1970: 0.5))
    }

    @Test func civilArithmeticRoundTripsEveryDayOfFourCenturies() {
        let start = PropertyListDateFormat.days(fromCivilYear: 1600, month: 1, day: 1)
        for day in start..<(start + 146_097) {
            let civil = PropertyListDateFormat.civil(fromDays: day)
            #expect(PropertyListDateFormat.days(fromCivilYear: civil.year, month: civil.month, day: civil.day) == day)
        }
    }

    @Test(arguments: [
        "", "2004-10-26", "2004-10-26T10:33:33", "2004-10-26T10:33:33z", "2004-10-26 10:33:33Z",
        "2004-13-26T10:33:33Z", "2004-00-26T10:33:33Z", "2003-02-29T10:33:33Z", "2004-04-31T10:33:33Z",
        "2004-10-26T24:00:00Z", "2004-10-26T10:60:00Z", "2004-10-26T10:33:60Z", "2004-10-26T10:33:33.Z",
        "2004-10-26T10:33:33Zjunk", "204-10-26T10:33:33Z", "2004-1-26T10:33:33Z", "+2004-10-26T10:33:33Z",
    ])
    func rejectsMalformedDates(_ text: String) {
        #expect(PropertyListDateFormat.parse(text) == nil)
    }

    @Test func acceptsLeapDays() {
        #expect(PropertyListDateFormat.parse("2000-02-29T00:00:00Z") != nil)
        #expect(PropertyListDateFormat.parse("1900-02-29T00:00:00Z") == nil)
        #expect(PropertyListDateFormat.parse("2024-02-29T12:00:00Z") != nil)
    }
}
