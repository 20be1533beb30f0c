import Foundation
import PropertyList
import TestSupport
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
    @Test(.interopCorpus)
    func rewritesCocoaTestDataByteForByte() throws {
        let original = try InteropCorpus.bytes("xmlplist/cpython-plistlib/TESTDATA_FMT_XML.plist")
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
        #expect(
            try written(value) == prologue + """
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
        #expect(
            text == prologue + """
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
        #expect(
            try written(.data(bytes)) == prologue + """
                <data>
                AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4vMDEyMzQ1Njc4
                OTo7
                </data>
                </plist>

                """)
        #expect(
            try written([.data(bytes)]) == prologue + """
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

    @Test func writesCarriageReturnsAndControlCharactersRawAsCoreFoundationDoes() throws {
        // CoreFoundation's _appendEscapedString escapes only & < >; Linux plutil
        // (swift-corelibs-foundation) converts this value's binary form to exactly these bytes.
        let value: PropertyListValue = ["a\rb": "x\r\ny\u{1B}z\u{3}", "n": "\u{0}&\t"]
        let expected =
            prologue + "<dict>\n\t<key>a\rb</key>\n\t<string>x\r\ny\u{1B}z\u{3}</string>\n"
            + "\t<key>n</key>\n\t<string>\u{0}&amp;\t</string>\n</dict>\n</plist>\n"
        let bytes = try XMLPropertyListWriter().encode(value)
        #expect(bytes == Array(expected.utf8))
        #expect(try XMLPropertyListReader().read(Data(bytes)) == value)
    }

    @Test func roundTripsRandomTreesWithControlCharacters() throws {
        var generator = RandomPropertyListTrees(seed: 11, .init(includeUIDs: true, includeControlCharacters: true))
        for (index, tree) in generator.make(200).enumerated() {
            let decoded = try XMLPropertyListReader().read(Data(XMLPropertyListWriter().encode(tree)))
            #expect(PropertyListComparison.exact.firstDifference(decoded, Self.zerosUnsigned(tree)) == nil, "tree \(index)")
        }
    }

    /// `value` with every -0.0 made 0.0: CoreFoundation, and this writer, write both as `0.0`.
    static func zerosUnsigned(_ value: PropertyListValue) -> PropertyListValue {
        switch value {
        case .real(let real) where real == 0: .real(0)
        case .real32(let real) where real == 0: .real32(0)
        case .array(let array): .array(array.map(zerosUnsigned))
        case .dictionary(let dictionary): .dictionary(dictionary.mapValues(zerosUnsigned))
        default: value
        }
    }

    /// Cocoa-written XML nibs holding a raw ESC or CR in a string.
    static let cocoaNibsWithControlCharacters = [
        "Frameworks/Adium/Resources/nl.lproj/PasswordPrompt.nib", "Frameworks/Adium/Resources/nl.lproj/ProxyPasswordPrompt.nib",
        "Frameworks/Adium/Resources/tr.lproj/PasswordPrompt.nib", "Frameworks/Adium/Resources/tr.lproj/ProxyPasswordPrompt.nib",
        "Other/Adium Crash Reporter/cs.lproj/MainMenu.nib", "Other/Adium Crash Reporter/de.lproj/MainMenu.nib",
        "Other/Adium Crash Reporter/en.lproj/MainMenu.nib", "Other/Adium Crash Reporter/fr.lproj/MainMenu.nib",
        "Plugins/Purple Service/PurpleActionRequestWindow.nib",
    ].map { "realworld/adium-adium/\($0)/keyedobjects.nib" }

    @Test(.interopCorpus, arguments: cocoaNibsWithControlCharacters)
    func rewritesCocoaNibsWithControlCharactersByteForByte(_ path: String) throws {
        let original = try InteropCorpus.bytes(path)
        let binary = try BinaryPropertyListWriter().encode(XMLPropertyListReader().read(original))
        let rewritten = try XMLPropertyListWriter().encode(BinaryPropertyListReader().read(Data(binary)))
        // These were written before Mac OS X 10.5, whose CoreFoundation names the DTD
        // "-//Apple Computer//DTD PLIST 1.0//EN"; today's writes "-//Apple//…", as this writer does.
        let oldDoctype = Data("<!DOCTYPE plist PUBLIC \"-//Apple Computer//DTD".utf8)
        let newDoctype = Data("<!DOCTYPE plist PUBLIC \"-//Apple//DTD".utf8)
        let expected = original.replacing(oldDoctype, with: newDoctype)
        #expect(expected != original, "the file no longer has the old DTD name")
        #expect(Data(rewritten) == expected)
    }

    @Test func roundTripsEveryKind() throws {
        let value: PropertyListValue = [
            "s": "Mässig, Maß 𝕢", "i": .integer(PropertyListInteger(UInt64.max)), "m": .integer(PropertyListInteger(Int64.min)),
            "r": 0.1, "t": true, "d": .date(Date(timeIntervalSince1970: -1_000_000_000)),
            "data": .data(Data((0..<200).map { UInt8($0) })), "nested": [[["deep": [1, 2, 3]]]], "u": .uid(3),
        ]
        #expect(try XMLPropertyListReader().read(Data(XMLPropertyListWriter().encode(value))) == value)
    }

    /// Data of every length up to 130 bytes, and all 256 byte values, is
    /// written as Foundation's base64 of it, in lines of 76 characters at the
    /// top (68 one level down), each after its indent.
    @Test func writesDataAsFoundationsBase64() throws {
        var generator = SystemRandomNumberGenerator()
        for length in 0...130 {
            let bytes = Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })
            for (value, indent) in [(PropertyListValue.data(bytes), ""), (["k": .data(bytes)], "\t")] {
                let text = try written(value)
                let start = try #require(text.range(of: "<data>\n"))
                let end = try #require(text.range(of: "</data>", range: start.upperBound..<text.endIndex))
                let lines = text[start.upperBound..<end.lowerBound].split(separator: "\n", omittingEmptySubsequences: false).dropLast()
                #expect(lines.joined().replacingOccurrences(of: "\t", with: "") == bytes.base64EncodedString())
                let width = indent.isEmpty ? 76 : 68
                for line in lines {
                    #expect(line.hasPrefix(indent))
                    #expect(line.count - indent.count <= width)
                }
                #expect(lines.dropLast().allSatisfy { $0.count - indent.count == width })
            }
        }
        let all = Data((0...255).map { UInt8($0) })
        #expect(try written(.data(all)).filter { !"\n\t".contains($0) }.contains(all.base64EncodedString()))
    }
}
