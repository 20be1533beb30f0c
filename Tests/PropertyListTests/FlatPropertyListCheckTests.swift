import Testing

@testable import PropertyList

struct FlatPropertyListCheckTests {
    private func check(_ bytes: [UInt8], maximumDepth: Int = 512) throws -> FlatPropertyListCheck {
        try bytes.withUnsafeBytes { try FlatPropertyListCheck($0, maximumDepth: maximumDepth) }
    }

    private func refusal(_ bytes: [UInt8], maximumDepth: Int = 512) -> PropertyListError? {
        do {
            _ = try check(bytes, maximumDepth: maximumDepth)
            return nil
        } catch {
            return error as? PropertyListError
        }
    }

    @Test func countsEveryKeyContainerAndScalar() throws {
        // {"a": [true, 7], "b": ""}: the dictionary, two keys, the array, its two members and the empty string.
        let bytes: [UInt8] =
            [12, 2, 0, 0, 0] + [1, 1, 0, 0, 0, 0x61] + [11, 2, 0, 0, 0] + [7] + [2, 7, 0, 0, 0, 0, 0, 0, 0]
            + [1, 1, 0, 0, 0, 0x62] + [1, 0, 0, 0, 0]
        #expect(try check(bytes).valueCount == 7)
    }

    @Test func refusesEachMalformedValueAtItsByte() {
        // Each line: the bytes, what is wrong, and where (counted by hand from the tags and 4-byte counts).
        let cases: [(bytes: [UInt8], code: PropertyListError.Code, offset: Int)] = [
            ([], .truncated, 0),  // Nothing: the tag is missing at byte 0.
            ([13], .invalidObject, 0),  // Tag 13 follows DICT (12).
            ([1, 5, 0, 0, 0, 0x61, 0x62], .truncated, 5),  // A 5-byte string with 2 bytes left after its length.
            ([2, 1, 2, 3], .truncated, 1),  // An INT64 with 3 of its 8 bytes.
            ([11, 9, 0, 0, 0, 7], .truncated, 0),  // An array of 9 with one byte left: at the array's tag.
            ([12, 1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 7], .invalidKey, 5),  // An INT64 key.
            ([1, 1, 0, 0, 0, 0xFF], .invalidString, 1),  // 0xFF is no UTF-8: at the string's length.
            ([7, 7], .invalidObject, 1),  // A second value after the whole one.
        ]
        for (bytes, code, offset) in cases {
            let error = refusal(bytes)
            #expect(error?.code == code, "\(bytes)")
            #expect(error?.location == .byteOffset(offset), "\(bytes)")
        }
    }

    @Test func refusesNestingPastTheDepthLimitWithNoPlace() {
        // Three arrays of one around an empty one: the fourth is at depth 3.
        let bytes: [UInt8] = [11, 1, 0, 0, 0, 11, 1, 0, 0, 0, 11, 1, 0, 0, 0, 11, 0, 0, 0, 0]
        #expect(refusal(bytes, maximumDepth: 4) == nil)
        let error = refusal(bytes, maximumDepth: 3)
        #expect(error?.code == .limitExceeded(.depth))
        #expect(error?.location == PropertyListLocation.none)
    }

    @Test func takesTheUTF8SwiftsValidatingInitializerTakes() {
        // Swift's String(validating:as:) is the reference: overlong forms, surrogates, values above U+10FFFF,
        // cut sequences and stray continuation bytes are refused; every scalar range's edges are taken.
        let samples: [[UInt8]] = [
            [], [0x7F], Array("plain ascii, longer than eight bytes".utf8), Array("Straße 🙂 日本語".utf8),
            [0xC2, 0x80], [0xDF, 0xBF], [0xE0, 0xA0, 0x80], [0xED, 0x9F, 0xBF], [0xEE, 0x80, 0x80], [0xEF, 0xBF, 0xBF],
            [0xF0, 0x90, 0x80, 0x80], [0xF4, 0x8F, 0xBF, 0xBF],
            [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x9F, 0xBF], [0xED, 0xA0, 0x80], [0xED, 0xBF, 0xBF],
            [0xF0, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xFF], [0x80], [0xBF],
            [0xC2], [0xE1, 0x80], [0xF1, 0x80, 0x80], [0xC2, 0x41], [0xE1, 0x80, 0x41], [0xF1, 0x80, 0x80, 0x41],
            Array("eight ok".utf8) + [0xC3, 0xA9] + Array("then more ascii".utf8), Array("eight ok".utf8) + [0xC3],
        ]
        for sample in samples {
            let expected = String(validating: sample, as: UTF8.self) != nil
            #expect(sample.withUnsafeBytes { FlatPropertyListCheck.isUTF8($0) } == expected, "\(sample)")
        }
    }
}
