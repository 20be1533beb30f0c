import Foundation
import PropertyList
import TestSupport
import Testing

/// A small seeded random number generator (SplitMix64), so fuzz tests are
/// repeatable: a failure names its seed and iteration.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// `count` mutations of `document`: bytes flipped, deleted, duplicated or
/// replaced by one of `interesting`, and truncations.
func mutations(of document: [UInt8], count: Int, interesting: [UInt8], seed: UInt64) -> [[UInt8]] {
    var generator = SplitMix64(seed: seed)
    return (0..<count).map { _ in
        var bytes = document
        for _ in 0...Int.random(in: 0..<4, using: &generator) where !bytes.isEmpty {
            let index = Int.random(in: 0..<bytes.count, using: &generator)
            switch Int.random(in: 0..<5, using: &generator) {
            case 0: bytes[index] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &generator)
            case 1: bytes.remove(at: index)
            case 2: bytes.insert(bytes[index], at: index)
            case 3: bytes[index] = interesting.randomElement(using: &generator)!
            default: bytes.removeSubrange(index...)
            }
        }
        return bytes
    }
}

/// Random byte strings, biased towards the given characters so that they get
/// past the first token now and then.
func randomByteStrings(count: Int, interesting: [UInt8], seed: UInt64) -> [[UInt8]] {
    var generator = SplitMix64(seed: seed)
    return (0..<count).map { _ in
        (0..<Int.random(in: 0..<64, using: &generator)).map { _ in
            Bool.random(using: &generator) ? interesting.randomElement(using: &generator)! : UInt8.random(in: 0...255, using: &generator)
        }
    }
}

struct OpenStepPropertyListReaderTests {
    private func read(_ text: String, limits: PropertyListLimits = .default) throws(PropertyListError) -> PropertyListValue {
        try OpenStepPropertyListReader(limits: limits).read(Data(text.utf8))
    }

    /// The error reading `text` throws, or a test failure.
    private func failure(
        _ text: String, limits: PropertyListLimits = .default,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> PropertyListError? {
        failure(bytes: Array(text.utf8), limits: limits, sourceLocation: sourceLocation)
    }

    private func failure(
        bytes: [UInt8], limits: PropertyListLimits = .default,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> PropertyListError? {
        do {
            let value = try OpenStepPropertyListReader(limits: limits).read(Data(bytes))
            Issue.record("expected an error, read \(value)", sourceLocation: sourceLocation)
            return nil
        } catch {
            return error
        }
    }

    // MARK: Good input

    @Test func readsAnInfoPlistStyleDictionary() throws {
        let text = """
            // An old-style Info.plist.
            {
                CFBundleName = "Text Edit";   /* the display name */
                CFBundleVersion = 1.2;
                NSPrincipalClass = NSApplication;
                Items = ( a, "b c", <0fbd7A 01>, (), {}, );
                Empty = "";
                Nested = { Inner = ( { Deep = yes; } ); };
            }
            """
        let expected: PropertyListValue = [
            "CFBundleName": "Text Edit",
            "CFBundleVersion": "1.2",
            "NSPrincipalClass": "NSApplication",
            "Items": ["a", "b c", .data(Data([0x0F, 0xBD, 0x7A, 0x01])), [], [:]],
            "Empty": "",
            "Nested": ["Inner": [["Deep": "yes"]]],
        ]
        #expect(try read(text) == expected)
        #expect(
            try read(text).dictionaryValue.map { Array($0.keys) }
                == ["CFBundleName", "CFBundleVersion", "NSPrincipalClass", "Items", "Empty", "Nested"])
    }

    @Test func readsEscapesInQuotedStrings() throws {
        let text = #""\n\t\\\"\a\b\f\r\v\101\0\U00e9\U20AC\UD83D\UDE00 \q\'""#
        #expect(try read(text) == .string("\n\t\\\"\u{07}\u{08}\u{0C}\r\u{0B}A\u{00}é€😀 q'"))
        #expect(try read(#"'single "quoted" \' string'"#) == .string(#"single "quoted" ' string"#))
        #expect(try read(#""\351t\351""#) == .string("été"))
        #expect(try read("\"raw é and\nnewline\"") == .string("raw é and\nnewline"))
    }

    @Test func readsUnquotedStringsOfTheAllowedCharacters() throws {
        #expect(try read("a_$+/:.-Z9") == .string("a_$+/:.-Z9"))
        #expect(try read("( -1, 3.14, http://example.com/x, YES )") == ["-1", "3.14", "http://example.com/x", "YES"])
        #expect(try read("path//not-a-comment") == .string("path//not-a-comment"))
    }

    @Test func readsDataWithWhitespaceAndUppercaseHex() throws {
        #expect(try read("<0F BD\n7a\t01>") == .data(Data([0x0F, 0xBD, 0x7A, 0x01])))
        #expect(try read("<>") == .data(Data()))
    }

    @Test func readsArraysWithAndWithoutTrailingComma() throws {
        #expect(try read("(a, b)") == ["a", "b"])
        #expect(try read("(a, b,)") == ["a", "b"])
        #expect(try read("( /* nothing */ )") == [])
    }

    @Test func lastDuplicateKeyWins() throws {
        #expect(try read("{ a = 1; b = 2; a = 3; }") == ["a": "3", "b": "2"])
    }

    @Test func readsTheStringsFileForm() throws {
        let text = """
            /* Localizable.strings */
            "greeting" = "Hello, %@!";
            "farewell" = "Goodbye";
            shortcut;
            "list" = ( one, two );
            """
        let expected: PropertyListValue = [
            "greeting": "Hello, %@!", "farewell": "Goodbye", "shortcut": "shortcut", "list": ["one", "two"],
        ]
        #expect(try read(text) == expected)
        #expect(try read("\"key\";") == ["key": "key"])
        #expect(try read("{ a; }") == ["a": "a"])
    }

    /// Zero bytes are refused, as CoreFoundation refuses them ("Cannot parse a
    /// NULL or zero-length data"); white space and comments alone are an empty
    /// dictionary, as `plutil -convert xml1` of such a file gives `<dict/>`.
    @Test func emptyInputIsRefusedAndBlankInputIsAnEmptyDictionary() throws {
        #expect(throws: PropertyListError.emptyInput) { try read("") }
        #expect(try read("  // only a comment\n/* and another */ ") == [:])
        // A UTF-16 byte-order mark alone (Adium's SecErrorMessages.strings) is
        // empty too: Apple's plutil refuses it.
        let bomOnly = failure(bytes: [0xFF, 0xFE])
        #expect(bomOnly?.message == "the input is empty after its UTF-16 byte-order mark")
        #expect(bomOnly?.location == PropertyListLocation.byteOffset(2))
    }

    @Test func aLoneStringIsAString() throws {
        #expect(try read(" \"hello\" ") == "hello")
        #expect(try read("hello // comment") == "hello")
    }

    @Test func readsUTF16StringsFilesWithEitherByteOrderMark() throws {
        let text = "/* Localizable.strings */\n\"Open\" = \"Öffnen\";\n\"Emoji\" = \"😀\";\n"
        let expected: PropertyListValue = ["Open": "Öffnen", "Emoji": "😀"]
        let units = Array(text.utf16)
        let littleEndian: [UInt8] = [0xFF, 0xFE] + units.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8($0 >> 8)] }
        let bigEndian: [UInt8] = [0xFE, 0xFF] + units.flatMap { [UInt8($0 >> 8), UInt8(truncatingIfNeeded: $0)] }
        #expect(try OpenStepPropertyListReader().read(Data(littleEndian)) == expected)
        #expect(try OpenStepPropertyListReader().read(Data(bigEndian)) == expected)
        #expect(try OpenStepPropertyListReader().read(Data([0xEF, 0xBB, 0xBF] + Array(text.utf8))) == expected)
    }

    @Test func reportsLinesAndColumnsInUTF16Input() throws {
        let units = Array("{\n  a = \"é\" b;\n}".utf16)
        let bytes: [UInt8] = [0xFF, 0xFE] + units.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8($0 >> 8)] }
        let error = try #require(failure(bytes: bytes))
        #expect(error.location == .lineColumn(line: 2, column: 11))
        #expect(error.message == "expected ';' after the value, found 'b'")
    }

    // MARK: Bad input

    @Test func rejectsAMissingSemicolon() throws {
        let error = try #require(failure("{ a = b }"))
        #expect(error.code == .unexpectedElement)
        #expect(error.location == .lineColumn(line: 1, column: 9))
        #expect(error.keyPath == [.key("a")])
        #expect(error.message == "expected ';' after the value, found '}'")
        #expect(error.description == "1:9: expected ';' after the value, found '}' (at a)")
    }

    @Test func rejectsAMissingEqualsSign() throws {
        let error = try #require(failure("{\n  a b;\n}"))
        #expect(error.location == .lineColumn(line: 2, column: 5))
        #expect(error.message == "expected '=' after the key, found 'b'")
    }

    @Test func countsCarriageReturnLineFeedAsOneLineBreak() throws {
        let error = try #require(failure("{\r\n a = b\r\n}"))
        #expect(error.location == .lineColumn(line: 3, column: 1))
        #expect(error.message == "expected ';' after the value, found '}'")
    }

    @Test func rejectsAnUnterminatedString() throws {
        let error = try #require(failure("{ outer = { inner = ( x, \"never closed ) ; }; }"))
        #expect(error.code == .truncated)
        #expect(error.location == .lineColumn(line: 1, column: 26))
        #expect(error.keyPath == PropertyListKeyPath([.key("outer"), .key("inner"), .index(1)]))
        #expect(error.message == "the quoted string is not closed: the input ends before its closing '\"'")
    }

    @Test func rejectsAnUnterminatedComment() throws {
        let error = try #require(failure("( a, /* never closed"))
        #expect(error.code == .truncated)
        #expect(error.location == .lineColumn(line: 1, column: 6))
        #expect(error.message == "the comment is not closed: the input ends before its '*/'")
    }

    @Test func rejectsUnterminatedContainers() throws {
        let dictionary = try #require(failure("x = 1;\n{ a = b;\n"))
        #expect(dictionary.code == .invalidKey)  // `{` where a key belongs in the .strings form.
        let braced = try #require(failure("\n  { a = b;\n"))
        #expect(braced.code == .truncated)
        #expect(braced.location == .lineColumn(line: 2, column: 3))
        #expect(braced.message == "the dictionary is not closed: the input ends before its '}'")
        let array = try #require(failure("( a, b"))
        #expect(array.location == .lineColumn(line: 1, column: 1))
        #expect(array.message == "the array is not closed: the input ends before its ')'")
        let data = try #require(failure("<0fbd"))
        #expect(data.message == "the data is not closed: the input ends before its '>'")
    }

    @Test func rejectsUnexpectedCharacters() throws {
        let value = try #require(failure("{ a = # ; }"))
        #expect(value.location == .lineColumn(line: 1, column: 7))
        #expect(value.message == "unexpected '#'; expected a value")
        #expect(value.keyPath == [.key("a")])
        let trailing = try #require(failure("( a ) b"))
        #expect(trailing.location == .lineColumn(line: 1, column: 7))
        #expect(trailing.message == "unexpected 'b'; expected the end of the input after the top-level value")
        let control = try #require(failure("(a, \u{7F})"))
        #expect(control.message == "unexpected U+007F; expected a value")
        let emptyElement = try #require(failure("(,)"))
        #expect(emptyElement.location == .lineColumn(line: 1, column: 2))
        #expect(emptyElement.keyPath == [.index(0)])
        let missingComma = try #require(failure("(a b)"))
        #expect(missingComma.message == "expected ',' or ')' after the array element, found 'b'")
        #expect(missingComma.keyPath == [.index(0)])
    }

    @Test func rejectsBadData() throws {
        let letter = try #require(failure("<0g>"))
        #expect(letter.code == .invalidValue)
        #expect(letter.location == .lineColumn(line: 1, column: 3))
        #expect(letter.message == "'g' in data; only hex digits and whitespace may stand between '<' and '>'")
        let odd = try #require(failure("<0f1>"))
        #expect(odd.location == .lineColumn(line: 1, column: 4))
        #expect(odd.message == "a lone hex digit in data; each byte is two hex digits")
    }

    @Test func rejectsNonStringKeys() throws {
        let error = try #require(failure("{ (a) = b; }"))
        #expect(error.code == .invalidKey)
        #expect(error.location == .lineColumn(line: 1, column: 3))
        #expect(error.message == "a dictionary key must be a string, not '('")
    }

    @Test func rejectsBadStrings() throws {
        let utf8 = try #require(failure(bytes: [0x22, 0x61, 0xFF, 0x22]))
        #expect(utf8.code == .invalidString)
        #expect(utf8.location == .lineColumn(line: 1, column: 3))
        #expect(utf8.message == "byte 0xFF is not valid UTF-8")
        let lowSurrogate = try #require(failure(#""\UDC00""#))
        #expect(lowSurrogate.location == .lineColumn(line: 1, column: 2))
        #expect(lowSurrogate.message == "a \\U escape for a lone low surrogate")
        let highSurrogate = try #require(failure(#""x\UD83Dy""#))
        #expect(highSurrogate.location == .lineColumn(line: 1, column: 3))
        #expect(highSurrogate.message == "a \\U escape for a high surrogate is not followed by one for a low surrogate")
        let octal = try #require(failure(#""\777""#))
        #expect(octal.message == "the octal escape \\777 is above \\377")
    }

    @Test func rejectsBrokenUTF16() throws {
        let unpaired = try #require(failure(bytes: [0xFF, 0xFE, 0x22, 0x00, 0x0A, 0x00, 0x3D, 0xD8, 0x22, 0x00]))
        #expect(unpaired.code == .invalidString)
        #expect(unpaired.location == .lineColumn(line: 2, column: 1))
        #expect(unpaired.message == "an unpaired UTF-16 surrogate 0xD83D")
        let odd = try #require(failure(bytes: [0xFE, 0xFF, 0x00, 0x61, 0x00]))
        #expect(odd.location == .lineColumn(line: 1, column: 2))
        #expect(odd.message == "the UTF-16 text ends with half a code unit")
    }

    @Test func hintsAtUTF16WithoutAByteOrderMark() throws {
        let error = try #require(failure(bytes: [0x61, 0x00, 0x3D, 0x00]))
        #expect(error.message == "unexpected NUL (U+0000; UTF-16 text without a byte-order mark?); expected the end of the input after the top-level value")
    }

    @Test func stopsAtTheDepthLimit() throws {
        let error = try #require(failure("((({a=((b));})))", limits: PropertyListLimits(maximumDepth: 4)))
        #expect(error.code == .limitExceeded(.depth))
        #expect(error.location == .lineColumn(line: 1, column: 7))
        #expect(error.keyPath == PropertyListKeyPath([.index(0), .index(0), .index(0), .key("a")]))
        #expect(error.message == "containers nest more than 4 deep")
        #expect(try read("((({a=(b);})))", limits: PropertyListLimits(maximumDepth: 5)) == [[[["a": ["b"]]]]])
        // Far past any stack: the default limit stops it first.
        let deep = String(repeating: "(", count: 100_000)
        #expect(failure(deep)?.code == .limitExceeded(.depth))
    }

    @Test func stopsAtTheObjectCountAndInputSizeLimits() throws {
        let count = try #require(failure("(a, b, c, d)", limits: PropertyListLimits(maximumObjectCount: 4)))
        #expect(count.code == .limitExceeded(.objectCount))
        #expect(count.location == .lineColumn(line: 1, column: 11))
        let size = try #require(failure("(a, b)", limits: PropertyListLimits(maximumInputSize: 5)))
        #expect(size.code == .limitExceeded(.inputSize))
        #expect(size.message == "the input is 6 bytes, over the limit of 5")
    }

    // MARK: Interop corpus

    @Test(.interopCorpus) func rejectsTheMalformedASCIIPlistsOfTheInteropCorpus() throws {
        // The MANIFEST lists these dd-plist files as ASCII plists that must be rejected.
        let expectations: [(file: String, code: PropertyListError.Code, location: PropertyListLocation)] = [
            ("malformed/dd-plist/github-issue73-1.plist", .invalidValue, .lineColumn(line: 1, column: 3)),  // "(<" then a non-hex byte
            ("malformed/dd-plist/github-issue73-4.plist", .unexpectedElement, .lineColumn(line: 1, column: 1)),  // a lone DEL byte
            ("malformed/dd-plist/github-issue73-5.plist", .truncated, .lineColumn(line: 1, column: 1)),  // "/*" with NULs, never closed
            ("malformed/dd-plist/github-issue76.plist", .unexpectedElement, .lineColumn(line: 1, column: 4)),  // "(((," an empty element
        ]
        for (file, code, location) in expectations {
            let bytes = try InteropCorpus.bytes(file)
            do {
                let value = try OpenStepPropertyListReader().read(bytes)
                Issue.record("\(file): expected an error, read \(value)")
            } catch {
                #expect(error.code == code, "\(file): \(error)")
                #expect(error.location == location, "\(file): \(error)")
            }
        }
    }

    // MARK: Fuzz

    private static let interestingBytes = Array("{}()<>=;,\"'\\/*Ua0f \n".utf8) + [0x00, 0xC3, 0xA9, 0xFF, 0xFE]

    @Test func neverCrashesOnRandomBytes() {
        for bytes in randomByteStrings(count: 3000, interesting: Self.interestingBytes, seed: 0x0BE5) {
            _ = try? OpenStepPropertyListReader().read(Data(bytes))
        }
    }

    @Test func neverCrashesOnMutatedDocuments() {
        let document = Array(
            """
            // comment
            { a = "q\\"\\U00e9\\101"; b = ( 1, <0fbd>, { c = d; }, ); e; /* x */ }
            """.utf8)
        for (index, bytes) in mutations(of: document, count: 3000, interesting: Self.interestingBytes, seed: 7).enumerated() {
            do {
                _ = try OpenStepPropertyListReader(limits: PropertyListLimits(maximumDepth: 3)).read(Data(bytes))
            } catch {
                #expect(error.location != .none, "mutation \(index)")
            }
        }
        let utf16: [UInt8] = [0xFF, 0xFE] + Array("{ a = \"é\"; }".utf16).flatMap { [UInt8(truncatingIfNeeded: $0), UInt8($0 >> 8)] }
        for bytes in mutations(of: utf16, count: 1000, interesting: [0x00, 0xD8, 0xDC, 0x22], seed: 8) {
            _ = try? OpenStepPropertyListReader().read(Data(bytes))
        }
    }
}
