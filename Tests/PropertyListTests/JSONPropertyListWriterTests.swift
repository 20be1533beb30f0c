import Foundation
import PropertyList
import Testing

struct JSONPropertyListWriterTests {
    private func compact(_ value: PropertyListValue) throws(PropertyListError) -> String {
        String(decoding: try JSONPropertyListWriter(prettyPrinted: false).encode(value), as: UTF8.self)
    }

    private func pretty(_ value: PropertyListValue) throws(PropertyListError) -> String {
        String(decoding: try JSONPropertyListWriter().encode(value), as: UTF8.self)
    }

    private func date(_ secondsSince2001: Double) -> PropertyListValue {
        .date(Date(timeIntervalSinceReferenceDate: secondsSince2001))
    }

    @Test func writesJSONTypesDirectly() throws {
        let value: PropertyListValue = ["name": "x", "n": 1, "r": 1.5, "b": true, "f": false, "a": [1, "two"], "e": [:], "l": []]
        #expect(try compact(value) == #"{"name":"x","n":1,"r":1.5,"b":true,"f":false,"a":[1,"two"],"e":{},"l":[]}"#)
    }

    @Test func prettyPrintsWithTwoSpaces() throws {
        let value: PropertyListValue = ["a": [1, [:], []], "d": .data(Data([0, 1, 2])), "s": "t"]
        #expect(
            try pretty(value) == """
                {
                  "a": [
                    1,
                    {},
                    []
                  ],
                  "d": {"$data": "AAEC"},
                  "s": "t"
                }
                """)
        #expect(try pretty([]) == "[]")
        #expect(try pretty("top") == #""top""#)
    }

    @Test func escapesStrings() throws {
        #expect(try compact("a\"b\\c/\n\r\t\u{08}\u{0C}\u{01}\u{1F}\u{7F}é😀") == #""a\"b\\c/\n\r\t\b\f\u0001\u001f"# + "\u{7F}é😀\"")
        #expect(try compact(["k\"ey\n": ""]) == #"{"k\"ey\n":""}"#)
    }

    @Test func writesIntegersExactly() throws {
        #expect(try compact(.integer(PropertyListInteger(UInt64.max))) == "18446744073709551615")
        #expect(try compact(.integer(PropertyListInteger(Int64.min))) == "-9223372036854775808")
        #expect(try compact(.integer(0)) == "0")
    }

    @Test func writesRealsSoThatTheyReadBackAsReals() throws {
        #expect(try compact(1.0) == "1.0")
        #expect(try compact(-0.0) == "-0.0")
        #expect(try compact(0.1) == "0.1")
        #expect(try compact(1e308) == "1e+308")
        #expect(try compact(1e16) == "1e+16")
        #expect(try compact(.real(.leastNonzeroMagnitude)) == "5e-324")
        #expect(try compact(.real(.greatestFiniteMagnitude)) == "1.7976931348623157e+308")
    }

    @Test func tagsNonFiniteReals() throws {
        #expect(try compact(.real(.nan)) == #"{"$real":"nan"}"#)
        #expect(try compact(.real(.infinity)) == #"{"$real":"+infinity"}"#)
        #expect(try compact(.real(-.infinity)) == #"{"$real":"-infinity"}"#)
    }

    @Test func tagsThirtyTwoBitReals() throws {
        #expect(try compact(.real32(1.5)) == #"{"$real32":1.5}"#)
        #expect(try compact(.real32(0.1)) == #"{"$real32":0.1}"#)
        #expect(try compact(.real32(.nan)) == #"{"$real32":"nan"}"#)
        #expect(try compact(.real32(-.infinity)) == #"{"$real32":"-infinity"}"#)
    }

    @Test func tagsDataUIDsAndDates() throws {
        #expect(try compact(.data(Data())) == #"{"$data":""}"#)
        #expect(try compact(.data(Data([0xFF]))) == #"{"$data":"/w=="}"#)
        #expect(
            try compact(.data(Data("hello world, long enough for several groups".utf8)))
                == #"{"$data":"aGVsbG8gd29ybGQsIGxvbmcgZW5vdWdoIGZvciBzZXZlcmFsIGdyb3Vwcw=="}"#)
        #expect(try compact(.uid(5)) == #"{"$uid":5}"#)
        #expect(try compact(.uid(UInt64.max)) == #"{"$uid":18446744073709551615}"#)
        #expect(try compact(date(120_479_613)) == #"{"$date":"2004-10-26T10:33:33Z"}"#)
    }

    @Test func writesDateFractionsExactly() throws {
        #expect(try compact(date(0.1)) == #"{"$date":"2001-01-01T00:00:00.1Z"}"#)
        #expect(try compact(date(-0.25)) == #"{"$date":"2000-12-31T23:59:59.75Z"}"#)
        #expect(try compact(date(-978_307_200)) == #"{"$date":"1970-01-01T00:00:00Z"}"#)
        #expect(try compact(date(-3_172_996_800.5)) == #"{"$date":"1900-06-15T11:59:59.5Z"}"#)
        #expect(try compact(date(1.5e-7)) == #"{"$date":"2001-01-01T00:00:00.00000015Z"}"#)
        #expect(try compact(date(-63_113_904_000)) == #"{"$date":"0001-01-01T00:00:00Z"}"#)
        #expect(try compact(date(252_423_993_599.125)) == #"{"$date":"9999-12-31T23:59:59.125Z"}"#)
    }

    @Test func writesYearsBeforeZeroAsXMLPropertyListsDo() throws {
        #expect(try compact(date(-94_702_435_200)) == #"{"$date":"-1000-01-01T00:00:00Z"}"#)
        #expect(try compact(date(-63_303_292_800)) == #"{"$date":"-005-01-01T00:00:00Z"}"#)
        let thousandBC = try JSONPropertyListReader().read(Data(try JSONPropertyListWriter().encode(date(-94_702_435_200))))
        #expect(thousandBC == date(-94_702_435_200))
        let fiveBC = try JSONPropertyListReader().read(Data(try JSONPropertyListWriter().encode(date(-63_303_292_800))))
        #expect(fiveBC == date(-63_303_292_800))
    }

    /// Only a dictionary whose one key is a tag would read back as a tagged
    /// value, so only it is wrapped in `$dict`, and only it, not its parents.
    @Test func wrapsOnlyDictionariesThatWouldReadAsTags() throws {
        #expect(try compact(["$a": 1]) == #"{"$a":1}"#)
        #expect(try compact(["x": 1, "$data": "AA=="]) == #"{"x":1,"$data":"AA=="}"#)
        #expect(try compact(["$data": "AA=="]) == #"{"$dict":{"$data":"AA=="}}"#)
        #expect(try compact(["$dict": 1]) == #"{"$dict":{"$dict":1}}"#)
        #expect(try compact(["a$": 1]) == #"{"a$":1}"#)
        #expect(
            try pretty(["name": "Ada", "k": ["$uid": [:]]]) == """
                {
                  "name": "Ada",
                  "k": {
                    "$dict": {
                      "$uid": {}
                    }
                  }
                }
                """)
        for value: PropertyListValue in [["$data": "AA=="], ["$dict": ["$real": 1]], ["$schema": "x", "a": ["$uid": 1]]] {
            #expect(try JSONPropertyListReader().read(Data(try JSONPropertyListWriter().encode(value))) == value)
        }
    }

    @Test func sortsKeysWhenAsked() throws {
        var writer = JSONPropertyListWriter(prettyPrinted: false)
        writer.sortedKeys = true
        let value: PropertyListValue = ["b": 1, "a": ["z": 1, "y": 2], "C": 3]
        #expect(String(decoding: try writer.encode(value), as: UTF8.self) == #"{"C":3,"a":{"y":2,"z":1},"b":1}"#)
        #expect(try compact(value) == #"{"b":1,"a":{"z":1,"y":2},"C":3}"#)
    }

    @Test func rejectsDatesItCannotWrite() throws {
        let value: PropertyListValue = ["d": [1, date(1e300)]]
        do {
            _ = try compact(value)
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .unsupportedValue)
            #expect(error.keyPath == PropertyListKeyPath([.key("d"), .index(1)]))
            #expect(error.message == "the date 1e+300 s after 2001 is outside the years -999999 to 999999 JSON dates can hold")
        }
        #expect(try compact(date(-31_620_065_904_000)) == #"{"$date":"-999999-01-01T00:00:00Z"}"#)
        #expect(try compact(date(31_493_806_473_599.5)) == #"{"$date":"999999-12-31T23:59:59.5Z"}"#)
        #expect(throws: PropertyListError.self) { try compact(date(-31_620_065_904_000.5)) }
        #expect(throws: PropertyListError.self) { try compact(date(31_493_806_473_600)) }
        #expect(throws: PropertyListError.self) { try compact(date(.nan)) }
        #expect(throws: PropertyListError.self) { try compact(date(-.infinity)) }
    }
}
