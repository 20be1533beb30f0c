import Foundation
import Testing

@testable import PropertyList

/// What `XMLParserInput` gives libxml2 for the text CoreFoundation writes raw.
struct XMLParserInputTests {
    /// The bytes libxml2 would parse for `text`, and the placeholders used.
    private func prepared(_ bytes: [UInt8]) throws -> (parsed: [UInt8], placeholders: XMLTextPlaceholders?) {
        let result: Result<(parsed: [UInt8], placeholders: XMLTextPlaceholders?), PropertyListError> = bytes.withUnsafeBytes { input in
            Result { () throws(PropertyListError) in
                let prepared = try XMLParserInput(input)
                return (prepared.withBytes(of: input) { _, parser, _ in Array(parser) }, prepared.placeholders)
            }
        }
        return try result.get()
    }

    @Test func leavesInputWithoutControlCharactersAsItIs() throws {
        let text = Array("<plist>\n\t<string>a\tb</string>\n</plist>\n".utf8)
        let result = try prepared(text)
        #expect(result.parsed == text)
        #expect(result.placeholders == nil)
    }

    @Test func replacesEscapeAndU0003WithPrivateUseCharacters() throws {
        let result = try prepared(Array("<plist><string>\u{1B}x\u{3}</string></plist>".utf8))
        // U+F001B and U+F0003: the first free block is U+F0000…U+F001F.
        #expect(result.parsed == Array("<plist><string>\u{F001B}x\u{F0003}</string></plist>".utf8))
        let placeholders = try #require(result.placeholders)
        var restored: [UInt8] = []
        Array("\u{F001B}x\u{F0003}".utf8).withUnsafeBufferPointer { placeholders.restore($0, appendingTo: &restored) }
        #expect(restored == [0x1B, UInt8(ascii: "x"), 0x03])
    }

    @Test func keepsCarriageReturnsOnlyWhereTheyBelongToAValue() throws {
        let result = try prepared(Array("<plist>\r\n<dict>\r\n<key>a\r\nb</key>\r\n<string>\r</string>\r\n<array>\r\n</array>\r\n</dict>\r\n</plist>".utf8))
        let expected = "<plist>\r\n<dict>\r\n<key>a\u{F000D}\nb</key>\r\n<string>\u{F000D}</string>\r\n<array>\r\n</array>\r\n</dict>\r\n</plist>"
        #expect(result.parsed == Array(expected.utf8))
    }

    @Test func picksAPlaceholderBlockTheInputDoesNotUse() throws {
        // The input holds U+F0005, so the block U+F0000… is taken; U+F0020… is next.
        let result = try prepared(Array("<string>\u{F0005}\u{1B}</string>".utf8))
        #expect(result.parsed == Array("<string>\u{F0005}\u{F003B}</string>".utf8))
    }

    @Test func leavesInputDeclaringAnotherEncodingToLibXML2() throws {
        let text = Array("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><string>\u{1B}</string>".utf8)
        #expect(try prepared(text).parsed == text)
    }

    @Test func leavesControlCharactersInsideTagsToLibXML2() throws {
        let text = Array("<string a=\"\u{1B}\">x</string><!-- \u{3} -->".utf8)
        #expect(try prepared(text).parsed == text)
    }
}

/// The scan for characters that need placeholders (32 bytes a step, then
/// eight, then one) agrees with a byte-by-byte look at every byte value, at
/// every position: in 19 bytes (no 32-byte step) and in 75 (two, then one
/// eight-byte step and three single bytes).
struct XMLParserInputScanTests {
    @Test(arguments: [19, 75]) func findsEveryByteBelow0x20ButTabAndLineFeedWherever(count: Int) {
        for value in 0..<256 {
            let expected = value < 0x20 && value != 0x09 && value != 0x0A
            for position in 0..<count {
                var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: count)
                bytes[position] = UInt8(value)
                let found = bytes.withUnsafeBytes { XMLTextPlaceholders.containsCandidate($0) }
                #expect(found == expected, "byte 0x\(String(value, radix: 16)) at \(position) of \(count)")
            }
        }
        #expect(Array("<plist>\n\t<true/>\n</plist>\n".utf8).withUnsafeBytes { XMLTextPlaceholders.containsCandidate($0) } == false)
    }
}
