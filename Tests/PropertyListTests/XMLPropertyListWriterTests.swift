import Foundation
import PropertyList
import Testing

private func written(_ value: PropertyListValue) throws -> String {
    String(decoding: try XMLPropertyListWriter().encode(value), as: UTF8.self)
}

private let prologue = """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0">

    """

struct XMLPropertyListWriterTests {
    @Test(.enabled(if: XMLInterop.available, XMLInterop.missing))
    func rewritesCocoaTestDataByteForByte() throws {
        let original = try XMLInterop.data("xmlplist/cpython-plistlib/TESTDATA_FMT_XML.plist")
        let value = try XMLPropertyListReader().read(original)
        let rewritten = try XMLPropertyListWriter().encode(value)
        #expect(rewritten == Array(original))
    }

    @Test func writesAppleLayout() throws {
        let value: PropertyListValue = [
            "b": [true, false, [], [:]],
            "a & <b>": "x > y & z",
            "n": -5,
            "d": .date(Date(timeIntervalSince1970: 1_098_786_813.9)),
        ]
        #expect(try written(value) == prologue + """
            <dict>
            \t<key>b</key>
            \t<array>
            \t\t<true/>
            \t\t<false/>
            \t\t<array/>
            \t\t<dict/>
            \t</array>
            \t<key>a &amp; &lt;b&gt;</key>
            \t<string>x &gt; y &amp; z</string>
            \t<key>n</key>
            \t<integer>-5</integer>
            \t<key>d</key>
            \t<date>2004-10-26T10:33:33Z</date>
            </dict>
            </plist>

            """)
    }

    @Test(arguments: [
        (0.5, "0.5"), (32.5, "32.5"), (1.0, "1"), (-3.0, "-3"), (0.1, "0.10000000000000001"),
        (0.0, "0.0"), (-0.0, "0.0"), (1e100, "1e+100"), (1.0 / 3, "0.33333333333333331"), (.nan, "nan"),
        (.infinity, "+infinity"), (-.infinity, "-infinity"),
    ])
    func writesRealsAsCoreFoundationDoes(_ real: Double, _ text: String) throws {
        #expect(try written(.real(real)) == prologue + "<real>\(text)</real>\n</plist>\n")
    }

    @Test func writesFloat32AsWidenedDouble() throws {
        #expect(try written(.real32(3.14)) == prologue + "<real>3.1400001049041748</real>\n</plist>\n")
    }

    @Test func writesUIDAsCFUIDDictionary() throws {
        let text = try written([.uid(7)])
        #expect(text == prologue + """
            <array>
            \t<dict>
            \t\t<key>CF$UID</key>
            \t\t<integer>7</integer>
            \t</dict>
            </array>
            </plist>

            """)
        #expect(try XMLPropertyListReader().read(Data(text.utf8)) == [.uid(7)])
    }

    @Test func wrapsDataAsCoreFoundationDoes() throws {
        let bytes = Data((0..<60).map { UInt8($0) })
        // 76 characters at the top level, 68 one level in; the rest on a shorter line.
        #expect(try written(.data(bytes)) == prologue + """
            <data>
            AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4vMDEyMzQ1Njc4
            OTo7
            </data>
            </plist>

            """)
        #expect(try written([.data(bytes)]) == prologue + """
            <array>
            \t<data>
            \tAAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4vMDEy
            \tMzQ1Njc4OTo7
            \t</data>
            </array>
            </plist>

            """)
        #expect(try written(.data(Data())) == prologue + "<data>\n</data>\n</plist>\n")
    }

    @Test func capsDataIndentAtEightLevels() throws {
        var value: PropertyListValue = .data(Data(repeating: 0xFF, count: 12))
        for _ in 0..<10 { value = [value] }
        let lines = try written(value).split(separator: "\n")
        // Ten levels in, the base64 lines stay at 8 tabs and 12 characters, as CoreFoundation writes them.
        #expect(lines.contains("\t\t\t\t\t\t\t\t////////////"))
        #expect(lines.contains("\t\t\t\t\t\t\t\t\t\t</data>"))
    }

    @Test func escapesCarriageReturnAndRoundTrips() throws {
        let value: PropertyListValue = ["k": "line\r\nnext\ttab"]
        let bytes = try XMLPropertyListWriter().encode(value)
        #expect(String(decoding: bytes, as: UTF8.self).contains("<string>line&#13;\nnext\ttab</string>"))
        #expect(try XMLPropertyListReader().read(Data(bytes)) == value)
    }

    @Test func refusesControlCharacters() throws {
        let error = try #require(throws: PropertyListError.self) {
            try XMLPropertyListWriter().encode(["outer": ["a", "bell\u{7}"]])
        }
        #expect(error.kind == .unsupportedValue)
        #expect(error.message == "the control character U+0007 cannot be written in XML")
        #expect(error.keyPath.description == "outer[1]")
    }

    @Test func roundTripsEveryKind() throws {
        let value: PropertyListValue = [
            "s": "Mässig, Maß 𝕢", "i": .integer(PropertyListInteger(UInt64.max)), "m": .integer(PropertyListInteger(Int64.min)),
            "r": 0.1, "t": true, "d": .date(Date(timeIntervalSince1970: -1_000_000_000)),
            "data": .data(Data((0..<200).map { UInt8($0) })), "nested": [[["deep": [1, 2, 3]]]], "u": .uid(3),
        ]
        #expect(try XMLPropertyListReader().read(Data(XMLPropertyListWriter().encode(value))) == value)
    }
}
