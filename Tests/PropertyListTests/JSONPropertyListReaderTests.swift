import Foundation
import PropertyList
import TestSupport
import Testing

struct JSONPropertyListReaderTests {
    private func read(_ text: String, limits: PropertyListLimits = .default) throws(PropertyListError) -> PropertyListValue {
        try JSONPropertyListReader(limits: limits).read(Data(text.utf8))
    }

    /// The error reading `bytes` throws, or a test failure.
    private func failure(
        bytes: [UInt8], limits: PropertyListLimits = .default,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> PropertyListError? {
        do {
            let value = try JSONPropertyListReader(limits: limits).read(Data(bytes))
            Issue.record("expected an error, read \(value)", sourceLocation: sourceLocation)
            return nil
        } catch {
            return error
        }
    }

    private func failure(
        _ text: String, limits: PropertyListLimits = .default,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> PropertyListError? {
        failure(bytes: Array(text.utf8), limits: limits, sourceLocation: sourceLocation)
    }

    /// Checks an error's code, line:column and message.
    private func expectFailure(
        _ text: String, _ code: PropertyListError.Code, line: Int, column: Int, _ message: String,
        keyPath: PropertyListKeyPath = [], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard let error = failure(text, sourceLocation: sourceLocation) else { return }
        #expect(error.code == code, sourceLocation: sourceLocation)
        #expect(error.location == .lineColumn(line: line, column: column), sourceLocation: sourceLocation)
        #expect(error.message == message, sourceLocation: sourceLocation)
        #expect(error.keyPath == keyPath, sourceLocation: sourceLocation)
    }

    private func expectSame(
        _ actual: PropertyListValue, _ expected: PropertyListValue, _ comment: Comment? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let difference = PropertyListComparison.exact.firstDifference(actual, expected)
        #expect(difference == nil, comment, sourceLocation: sourceLocation)
    }

    // MARK: Good input

    @Test func readsEveryKind() throws {
        let text = #"""
            {
              "a": [1, -2, 1.5, true, false, "s\u00e9\ud83d\ude00\n\/"],
              "b": {"$data": "AAEC"},
              "c": {"$date": "2004-10-26T10:33:33Z"},
              "u": {"$uid": 5},
              "f": {"$real32": 1.5},
              "n": {"$real": "-infinity"},
              "dd": {"$dict": {"$x": {"$data": "AA=="}, "y": {}}},
              "e": [],
              "": {}
            }
            """#
        let expected: PropertyListValue = [
            "a": [1, -2, 1.5, true, false, "sé😀\n/"],
            "b": .data(Data([0, 1, 2])),
            "c": .date(Date(timeIntervalSinceReferenceDate: 120_479_613)),
            "u": .uid(5),
            "f": .real32(1.5),
            "n": .real(-.infinity),
            "dd": ["$x": .data(Data([0])), "y": [:]],
            "e": [],
            "": [:],
        ]
        expectSame(try read(text), expected)
    }

    @Test func readsNumbersAsIntegersOrReals() throws {
        expectSame(try read("18446744073709551615"), .integer(PropertyListInteger(UInt64.max)))
        expectSame(try read("-9223372036854775808"), .integer(PropertyListInteger(Int64.min)))
        expectSame(try read("-0"), .integer(0))
        expectSame(try read("1e2"), .real(100))
        expectSame(try read("1E+2"), .real(100))
        expectSame(try read("-0.0"), .real(-0.0))
        expectSame(try read("2.5e-1"), .real(0.25))
        expectSame(try read("5e-324"), .real(.leastNonzeroMagnitude))
        expectSame(try read("1.7976931348623157e+308"), .real(.greatestFiniteMagnitude))
        expectSame(try read("0.1"), .real(0.1))
        expectSame(try read(#"{"$real32": 0.1}"#), .real32(0.1))
        expectSame(try read(#"{"$real32": 3}"#), .real32(3))
        expectSame(try read(#"{"$real32": "nan"}"#), .real32(.nan))
        expectSame(try read(#"{"$real": "nan"}"#), .real(.nan))
    }

    @Test func readsDateFractionsExactly() throws {
        expectSame(try read(#"{"$date": "2001-01-01T00:00:00.1Z"}"#), .date(Date(timeIntervalSinceReferenceDate: 0.1)))
        expectSame(try read(#"{"$date": "2000-12-31T23:59:59.75Z"}"#), .date(Date(timeIntervalSinceReferenceDate: -0.25)))
        expectSame(try read(#"{"$date": "2000-12-31T23:59:59.750Z"}"#), .date(Date(timeIntervalSinceReferenceDate: -0.25)))
        expectSame(try read(#"{"$date": "1900-06-15T11:59:59.5Z"}"#), .date(Date(timeIntervalSinceReferenceDate: -3_172_996_800.5)))
        expectSame(try read(#"{"$date": "2001-01-01T00:00:00.00000015Z"}"#), .date(Date(timeIntervalSinceReferenceDate: 1.5e-7)))
        expectSame(try read(#"{"$date": "2001-01-01T00:00:00.000Z"}"#), .date(Date(timeIntervalSinceReferenceDate: 0)))
    }

    @Test func skipsAByteOrderMarkAndWhitespace() throws {
        expectSame(try JSONPropertyListReader().read(Data([0xEF, 0xBB, 0xBF] + Array(" \t\r\n[ ] ".utf8))), [])
    }

    // MARK: Bad input

    @Test func rejectsTrailingCommas() {
        expectFailure("[1, 2,]", .unexpectedElement, line: 1, column: 7, "unexpected ']'; expected a value", keyPath: [.index(2)])
        expectFailure(#"{"a": 1,}"#, .unexpectedElement, line: 1, column: 9, "unexpected '}'; expected a key in double quotes")
    }

    @Test func rejectsBadSyntax() {
        expectFailure(#"{"a" 1}"#, .unexpectedElement, line: 1, column: 6, "unexpected '1'; expected ':' after the key")
        expectFailure("[1 2]", .unexpectedElement, line: 1, column: 4, "unexpected '2'; expected ',' or ']' after an array element")
        expectFailure("{'a': 1}", .unexpectedElement, line: 1, column: 2, "unexpected '''; expected a key in double quotes")
        expectFailure("1 2", .unexpectedElement, line: 1, column: 3, "unexpected '2'; expected the end of the input after the top-level value")
        expectFailure("", .truncated, line: 1, column: 1, "the input ends where a value was expected")
        expectFailure("[1,", .truncated, line: 1, column: 4, "the input ends where a value was expected", keyPath: [.index(1)])
        expectFailure("{\"a\": 1", .truncated, line: 1, column: 8, "the input ends inside an object; expected ',' or '}'")
        expectFailure("NaN", .unexpectedElement, line: 1, column: 1, "unexpected 'N'; expected a value")
        expectFailure("// no comments\n1", .unexpectedElement, line: 1, column: 1, "unexpected '/'; expected a value")
        expectFailure(
            "{\n  \"a\": [\n    1,\n    tru\n  ]\n}", .unexpectedElement, line: 4, column: 5,
            "unexpected 't'; expected a value", keyPath: [.key("a"), .index(1)])
    }

    @Test func rejectsNull() {
        expectFailure(#"{"a": null}"#, .invalidValue, line: 1, column: 7, "null has no property-list equivalent", keyPath: [.key("a")])
    }

    @Test func rejectsBadNumbers() {
        expectFailure("[01]", .invalidValue, line: 1, column: 2, "a number must not start with a 0 followed by more digits", keyPath: [.index(0)])
        expectFailure("1.", .invalidValue, line: 1, column: 3, "expected a digit in the fraction of the number, found the end of the input")
        expectFailure("1e+x", .invalidValue, line: 1, column: 4, "expected a digit in the exponent of the number, found 'x'")
        expectFailure("-", .invalidValue, line: 1, column: 2, "expected a digit in the number, found the end of the input")
        expectFailure("+1", .unexpectedElement, line: 1, column: 1, "unexpected '+'; expected a value")
        expectFailure(
            "18446744073709551616", .invalidValue, line: 1, column: 1,
            "the integer 18446744073709551616 is outside -9223372036854775808 ... 18446744073709551615; write a real with a fraction or exponent")
        expectFailure(
            "-9223372036854775809", .invalidValue, line: 1, column: 1,
            "the integer -9223372036854775809 is outside -9223372036854775808 ... 18446744073709551615; write a real with a fraction or exponent")
        expectFailure("1E400", .invalidValue, line: 1, column: 1, "1E400 is beyond the range of a 64-bit real")
    }

    @Test func rejectsBadStrings() {
        expectFailure("\"abc", .truncated, line: 1, column: 1, "the string is not closed: the input ends before its closing '\"'")
        expectFailure("\"a\u{01}\"", .invalidString, line: 1, column: 3, "U+0001 must be escaped in a string")
        expectFailure("\"a\nb\"", .invalidString, line: 1, column: 3, "U+000A must be escaped in a string")
        expectFailure(
            #""\ud800""#, .invalidString, line: 1, column: 2,
            "the escape \\uD800 is a high surrogate not followed by a \\u escape for a low surrogate")
        expectFailure(#""\udc00""#, .invalidString, line: 1, column: 2, "the escape \\uDC00 is a lone low surrogate")
        expectFailure(#""\u12G4""#, .invalidString, line: 1, column: 2, "a \\u escape needs four hex digits; found 'G'")
        expectFailure(
            #""\x""#, .invalidString, line: 1, column: 2,
            #"\'x' is not a JSON escape; the escapes are \" \\ \/ \b \f \n \r \t \uXXXX"#)
        let utf8 = failure(bytes: [0x22, 0xC3, 0x28, 0x22])
        #expect(utf8?.message == "byte 0xC3 is not valid UTF-8")
        #expect(utf8?.location == .lineColumn(line: 1, column: 2))
    }

    @Test func rejectsDuplicateKeys() {
        expectFailure(#"{"a": 1, "a": 2}"#, .invalidKey, line: 1, column: 10, "the key \"a\" appears twice in the object")
    }

    /// Plain JSON with keys starting with `$` (a JSON Schema's `$schema`, say)
    /// reads as it is: only an object whose one key is a tag is a tagged value.
    @Test func readsDollarKeysOutsideLoneTagsAsPlainKeys() throws {
        #expect(
            try read(#"{"$schema": "https://json-schema.org/draft/2020-12/schema", "name": "Ada"}"#)
                == ["$schema": "https://json-schema.org/draft/2020-12/schema", "name": "Ada"])
        #expect(try read(#"{"a": 1, "$b": 2}"#) == ["a": 1, "$b": 2])
        #expect(try read(#"[{"$foo": 1}]"#) == [["$foo": 1]])
        // A tag with other members is a plain key, its value read as an ordinary value.
        #expect(try read(#"{"$data": "AAEC", "x": 1}"#) == ["$data": "AAEC", "x": 1])
        #expect(try read(#"{"$data": 5, "x": {"$uid": 3}}"#) == ["$data": 5, "x": .uid(3)])
        // Alone, a tag is a tag: its value must be what the tag needs.
        #expect(try read(#"{"$data": "AAEC"}"#) == .data(Data([0, 1, 2])))
        expectFailure(
            #"{"$data": 5}"#, .invalidValue, line: 1, column: 11, #"the value of "$data" must be a string"#,
            keyPath: [.key("$data")])
    }

    @Test func rejectsBadTaggedValues() {
        expectFailure(
            #"{"$date": "2004-13-01T00:00:00Z"}"#, .invalidValue, line: 1, column: 11,
            "the value of \"$date\" is not a date of the form YYYY-MM-DDTHH:MM:SS[.fraction]Z with fields in range", keyPath: [.key("$date")])
        expectFailure(
            #"{"$date": "2004-10-26T10:33:33.Z"}"#, .invalidValue, line: 1, column: 11,
            "the value of \"$date\" is not a date of the form YYYY-MM-DDTHH:MM:SS[.fraction]Z with fields in range", keyPath: [.key("$date")])
        expectFailure(#"{"$date": 5}"#, .invalidValue, line: 1, column: 11, "the value of \"$date\" must be a string", keyPath: [.key("$date")])
        expectFailure(#"{"$data": "A*=="}"#, .invalidValue, line: 1, column: 11, "the value of \"$data\" is not base64", keyPath: [.key("$data")])
        expectFailure(
            #"{"$uid": -1}"#, .invalidValue, line: 1, column: 10,
            "the value of \"$uid\" must be an integer from 0 to 18446744073709551615", keyPath: [.key("$uid")])
        expectFailure(
            #"{"$uid": 1.0}"#, .invalidValue, line: 1, column: 10,
            "the value of \"$uid\" must be an integer from 0 to 18446744073709551615", keyPath: [.key("$uid")])
        expectFailure(#"{"$real32": 1e39}"#, .invalidValue, line: 1, column: 13, "1e39 is beyond the range of a 32-bit real", keyPath: [.key("$real32")])
        expectFailure(#"{"$real": 1.5}"#, .invalidValue, line: 1, column: 11, "the value of \"$real\" must be a string", keyPath: [.key("$real")])
        expectFailure(
            #"{"$real": "inf"}"#, .invalidValue, line: 1, column: 11,
            "the string value of \"$real\" must be \"nan\", \"+infinity\" or \"-infinity\"", keyPath: [.key("$real")])
        expectFailure(#"{"$dict": [1]}"#, .invalidValue, line: 1, column: 11, "the value of \"$dict\" must be an object", keyPath: [.key("$dict")])
        expectFailure(#"{"$uid": 1 "#, .truncated, line: 1, column: 12, "the input ends; expected '}' after the tagged value")
    }

    /// Fuzzing found a 1,362-byte input (`json-plist` target, a time-out)
    /// that took seconds: objects whose first key is a tag were read as a
    /// tagged value and then again as an ordinary one, at every level.
    /// Its first problem, counted by hand: the value of `"$date"` at line 1,
    /// column 30 (`{"$di4ect":{"$dic#":{"$date":{`) is an object.
    @Test func readsTheFuzzedNestedTagsOnce() throws {
        let fixture = Repository.root.appendingPathComponent("Tests/PropertyListTests/Fixtures/fuzz/timeout-json-tag-backtracking.json")
        let bytes = try [UInt8](Data(contentsOf: fixture))
        let error = try #require(failure(bytes: bytes))
        #expect(error.code == .invalidValue)
        #expect(error.location == .lineColumn(line: 1, column: 30))
        #expect(error.message == #"the value of "$date" must be a string"#)
        #expect(error.keyPath == [.key("$di4ect"), .key("$dic#"), .key("$date")])
    }

    /// Sixty levels of `{"$dict": …, "n": i}`: each object has two members,
    /// so each is a dictionary whose `$dict` key holds the next; the
    /// innermost `{"$dict": {"a": 1}}` is alone, a tagged dictionary.
    /// Read once per level, not 3^60 times.
    @Test func readsDeeplyNestedTagsWithSiblingsAsDictionaries() throws {
        let levels = 60
        var text = #"{"$dict": {"a": 1}}"#
        var expected: PropertyListValue = ["a": 1]
        for level in 0..<levels {
            text = #"{"$dict": "# + text + #", "n": \#(level)}"#
            expected = ["$dict": expected, "n": .integer(PropertyListInteger(level))]
        }
        expectSame(try read(text), expected)
        // The same nesting with a tagged value that is wrong at the bottom: the error's key path runs through every level.
        let broken = String(repeating: #"{"$dict": "#, count: levels) + #"{"$date": 5}"# + String(repeating: "}", count: levels)
        let error = try #require(failure(broken))
        #expect(error.message == #"the value of "$date" must be a string"#)
        #expect(error.keyPath.components.count == levels + 1)
    }

    /// Fuzzing found `{"$date": "2320200-12-30T23:58:20Z"}` (`json-plist`, a
    /// property failure): the reader took a year the writer cannot write
    /// (years -999999 to 999999), so what it read did not write back. The
    /// last second of year 999999 reads and writes back; the year after does not read.
    @Test func readsOnlyTheDatesTheWriterWrites() throws {
        let fixture = Repository.root.appendingPathComponent("Tests/PropertyListTests/Fixtures/fuzz/crash-json-date-year-beyond-writer.json")
        let error = try #require(failure(bytes: try [UInt8](Data(contentsOf: fixture))))
        #expect(error.code == .invalidValue)
        #expect(error.location == .lineColumn(line: 1, column: 11))
        #expect(error.keyPath == [.key("$date")])
        let last = #"{"$date": "999999-12-31T23:59:59Z"}"#
        let value = try read(last)
        #expect(String(decoding: try JSONPropertyListWriter().encode(value), as: UTF8.self) == last)
        expectFailure(
            #"{"$date": "1000000-01-01T00:00:00Z"}"#, .invalidValue, line: 1, column: 11,
            "the value of \"$date\" is not a date of the form YYYY-MM-DDTHH:MM:SS[.fraction]Z with fields in range", keyPath: [.key("$date")])
        expectFailure(
            #"{"$date": "-1000000-01-01T00:00:00Z"}"#, .invalidValue, line: 1, column: 11,
            "the value of \"$date\" is not a date of the form YYYY-MM-DDTHH:MM:SS[.fraction]Z with fields in range", keyPath: [.key("$date")])
    }

    @Test func stopsAtTheLimits() throws {
        let depth = try #require(failure(#"{"a": [[1]], "b": [[{"$dict": {"c": [1]}}]]}"#, limits: PropertyListLimits(maximumDepth: 4)))
        #expect(depth.code == .limitExceeded(.depth))
        #expect(depth.location == .lineColumn(line: 1, column: 37))
        #expect(depth.keyPath == PropertyListKeyPath([.key("b"), .index(0), .index(0), .key("$dict"), .key("c")]))
        #expect(depth.message == "containers nest more than 4 deep")
        #expect(failure(String(repeating: "[", count: 100_000))?.code == .limitExceeded(.depth))
        let count = try #require(failure("[1, 2, 3]", limits: PropertyListLimits(maximumObjectCount: 3)))
        #expect(count.code == .limitExceeded(.objectCount))
        #expect(count.location == .lineColumn(line: 1, column: 8))
        #expect(count.message == "the property list holds more than 3 values")  // The XML and OpenStep readers' sentence.
        let size = try #require(failure("[1, 2, 3]", limits: PropertyListLimits(maximumInputSize: 8)))
        #expect(size.code == .limitExceeded(.inputSize))
    }

    // MARK: Round trips

    /// One value of every kind, with the edge cases.
    static let everyKind: PropertyListValue = [
        "strings": ["", "plain", "quote \" backslash \\ slash /", "controls \u{00}\u{01}\u{08}\u{0C}\n\r\t\u{1F}\u{7F}", "é😀\u{2028}"],
        "integers": [
            0, 1, -1, .integer(PropertyListInteger(UInt64.max)), .integer(PropertyListInteger(Int64.min)),
            .integer(PropertyListInteger(Int64.max)), .integer(PropertyListInteger(UInt64(Int64.max) + 1)),
        ],
        "reals": [
            0.0, -0.0, 1.0, 0.1, 1e308, -1e-308, .real(.leastNonzeroMagnitude), .real(.greatestFiniteMagnitude),
            .real(.nan), .real(.infinity), .real(-.infinity), 123_456_789.123_456_78,
        ],
        "real32s": [
            .real32(1.5), .real32(0.1), .real32(-0.0), .real32(.leastNonzeroMagnitude), .real32(.greatestFiniteMagnitude),
            .real32(.nan), .real32(.infinity), .real32(-.infinity),
        ],
        "booleans": [true, false],
        "dates": [
            .date(Date(timeIntervalSinceReferenceDate: 0)), .date(Date(timeIntervalSinceReferenceDate: 120_479_613)),
            .date(Date(timeIntervalSinceReferenceDate: -978_307_200.000_001)), .date(Date(timeIntervalSinceReferenceDate: -0.25)),
            .date(Date(timeIntervalSinceReferenceDate: 0.1)), .date(Date(timeIntervalSinceReferenceDate: .leastNonzeroMagnitude)),
            .date(Date(timeIntervalSinceReferenceDate: -.leastNonzeroMagnitude)),
            .date(Date(timeIntervalSinceReferenceDate: -63_113_904_000.5)),
            .date(Date(timeIntervalSinceReferenceDate: 31_493_806_473_599.996)),
            .date(Date(timeIntervalSinceReferenceDate: -31_620_065_904_000)),
        ],
        "data": [.data(Data()), .data(Data([0])), .data(Data([0, 1])), .data(Data([0, 1, 2])), .data(Data((0...255).map { UInt8($0) }))],
        "uids": [.uid(0), .uid(5), .uid(UInt64.max)],
        "$dollar": ["$data": "not data", "$": [:], "$dict": ["$dict": ["x": 1]]],
        "onlyDollar": ["$real": 1],
        "nested": [[[["deep": [.data(Data([1])), ["$uid": .uid(1)]]]]]],
        "empty": [[], [:]],
    ]

    @Test func roundTripsEveryKindInEveryWriterForm() throws {
        for prettyPrinted in [true, false] {
            for sortedKeys in [false, true] {
                var writer = JSONPropertyListWriter(prettyPrinted: prettyPrinted)
                writer.sortedKeys = sortedKeys
                let json = try writer.encode(Self.everyKind)
                let value = try JSONPropertyListReader().read(Data(json))
                let comparison = PropertyListComparison(keyOrderMatters: !sortedKeys, dateTolerance: 0)
                #expect(comparison.firstDifference(value, Self.everyKind) == nil, "pretty \(prettyPrinted), sorted \(sortedKeys)")
                #expect(try writer.encode(value) == json, "JSON → value → JSON, pretty \(prettyPrinted), sorted \(sortedKeys)")
            }
        }
    }

    @Test func roundTripsRandomValues() throws {
        var generator = SplitMix64(seed: 2026)
        for iteration in 0..<400 {
            let value = Self.randomValue(depth: 0, using: &generator)
            let writer = JSONPropertyListWriter(prettyPrinted: iteration % 2 == 0)
            let json = try writer.encode(value)
            let read = try JSONPropertyListReader().read(Data(json))
            #expect(PropertyListComparison.exact.firstDifference(read, value) == nil, "iteration \(iteration)")
            #expect(try writer.encode(read) == json, "iteration \(iteration)")
        }
    }

    private static func randomValue(depth: Int, using generator: inout SplitMix64) -> PropertyListValue {
        switch Int.random(in: 0..<(depth < 4 ? 12 : 9), using: &generator) {
        case 0: return .string(randomString(using: &generator))
        case 1: return .integer(PropertyListInteger(Int64(bitPattern: generator.next())))
        case 2: return .integer(PropertyListInteger(generator.next()))
        case 3: return .real(Double(bitPattern: generator.next()))
        case 4: return .real32(Float(bitPattern: UInt32(truncatingIfNeeded: generator.next())))
        case 5: return .bool(Bool.random(using: &generator))
        case 6:
            // Whole seconds, or any Double in range (with its full binary fraction).
            let seconds =
                Bool.random(using: &generator)
                ? Double(Int64.random(in: -60_000_000_000...250_000_000_000, using: &generator))
                : Double.random(in: -1e12...1e12, using: &generator) * pow(10, Double(Int.random(in: -20...0, using: &generator)))
            return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case 7: return .data(Data((0..<Int.random(in: 0..<10, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }))
        case 8: return .uid(generator.next() >> UInt64.random(in: 0..<64, using: &generator))
        case 9, 10:
            return .array((0..<Int.random(in: 0..<4, using: &generator)).map { _ in randomValue(depth: depth + 1, using: &generator) })
        default:
            var dictionary: [(String, PropertyListValue)] = []
            for _ in 0..<Int.random(in: 0..<4, using: &generator) {
                dictionary.append((randomString(using: &generator), randomValue(depth: depth + 1, using: &generator)))
            }
            return .dictionary(.init(dictionary, uniquingKeysWith: { _, last in last }))
        }
    }

    private static func randomString(using generator: inout SplitMix64) -> String {
        let pieces = ["$", "$data", "$dict", "a", "\"", "\\", "\n", "\u{00}", "\u{1F}", "é", "😀", "\u{FFFF}", " "]
        return (0..<Int.random(in: 0..<4, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
    }

    // MARK: Fuzz

    private static let interestingBytes = Array("{}[]:,\"\\$-0123456789.eE+tfnu ".utf8) + [0x00, 0x0A, 0xC3, 0xA9, 0xED, 0xFF]

    @Test func neverCrashesOnRandomBytes() {
        for bytes in randomByteStrings(count: 3000, interesting: Self.interestingBytes, seed: 0x150B) {
            _ = try? JSONPropertyListReader().read(Data(bytes))
        }
    }

    @Test func neverCrashesOnMutatedDocuments() throws {
        let document = try JSONPropertyListWriter().encode(Self.everyKind)
        for (index, bytes) in mutations(of: document, count: 3000, interesting: Self.interestingBytes, seed: 11).enumerated() {
            do {
                _ = try JSONPropertyListReader(limits: PropertyListLimits(maximumDepth: 4)).read(Data(bytes))
            } catch {
                #expect(error.location != .none, "mutation \(index)")
            }
        }
    }
}
