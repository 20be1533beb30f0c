import Foundation
import PropertyList
import TestSupport
import Testing

private func read(_ text: String, limits: PropertyListLimits = .default) throws(PropertyListError) -> PropertyListValue {
    try XMLPropertyListReader(limits: limits).read(Data(text.utf8))
}

/// Reads `text`, expecting an error, and returns it.
private func readError(_ text: String, limits: PropertyListLimits = .default) -> PropertyListError? {
    do {
        _ = try read(text, limits: limits)
        return nil
    } catch {
        return error
    }
}

private let header = """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">

    """

struct XMLPropertyListReaderTests {
    @Test func readsEveryKindOfValue() throws {
        let value = try read(
            header + """
                <plist version="1.0">
                <dict>
                \t<key>string</key><string>a &amp; b &lt;c&gt; &#169; &#x1D562;</string>
                \t<key>empty</key><string/>
                \t<key>cdata</key><string>x<![CDATA[<y>&]]>z</string>
                \t<key>commented</key><string>a<!-- note -->b</string>
                \t<key>spaces</key><string>  </string>
                \t<key>integer</key><integer> -42 </integer>
                \t<key>hex</key><integer>0xFF</integer>
                \t<key>max</key><integer>18446744073709551615</integer>
                \t<key>min</key><integer>-9223372036854775808</integer>
                \t<key>real</key><real>32.5</real>
                \t<key>exponent</key><real>1e4</real>
                \t<key>true</key><true/>
                \t<key>false</key><false></false>
                \t<key>date</key><date>2004-10-26T10:33:33Z</date>
                \t<key>data</key><data>
                \tPGJp
                \tbmFy eSBndW5rPg==
                \t</data>
                \t<key>emptyData</key><data/>
                \t<key>array</key><array><integer>1</integer><array/><dict/></array>
                \t<key>uid</key><dict><key>CF$UID</key><integer>7</integer></dict>
                </dict>
                </plist>
                """)
        let expected: PropertyListValue = [
            "string": "a & b <c> © 𝕢",
            "empty": "",
            "cdata": "x<y>&z",
            "commented": "ab",
            "spaces": "  ",
            "integer": -42,
            "hex": 255,
            "max": .integer(PropertyListInteger(UInt64.max)),
            "min": .integer(PropertyListInteger(Int64.min)),
            "real": 32.5,
            "exponent": 10000.0,
            "true": true,
            "false": false,
            "date": .date(Date(timeIntervalSince1970: 1_098_786_813)),
            "data": .data(Data("<binary gunk>".utf8)),
            "emptyData": .data(Data()),
            "array": [1, [], [:]],
            "uid": .uid(7),
        ]
        #expect(value == expected)
    }

    @Test func readsSpecialRealsInAnyCase() throws {
        let value = try read(
            "<plist><array><real>nan</real><real>+infinity</real><real>-Infinity</real>"
                + "<real>INF</real><real>-inf</real></array></plist>")
        let reals = try #require(value.arrayValue).compactMap { value -> Double? in
            if case .real(let real) = value { return real }
            return nil
        }
        #expect(reals.count == 5)
        #expect(reals[0].isNaN)
        #expect(reals[1...] == [.infinity, -.infinity, .infinity, -.infinity])
    }

    @Test func readsTopLevelValueWithoutPlistWrapper() throws {
        #expect(try read("<string>bare</string>") == "bare")
        #expect(try read("<?xml version=\"1.0\"?>\n<array/>") == [])
    }

    @Test func lastDuplicateKeyWins() throws {
        let value = try read(
            "<plist><dict><key>a</key><integer>1</integer><key>b</key><integer>2</integer>"
                + "<key>a</key><integer>3</integer></dict></plist>")
        #expect(value == ["a": 3, "b": 2])
    }

    @Test func keepsKeyOrder() throws {
        let value = try read("<plist><dict><key>z</key><true/><key>a</key><true/><key>m</key><true/></dict></plist>")
        #expect(value.dictionaryValue.map { Array($0.keys) } == ["z", "a", "m"])
    }

    @Test func readsFractionalSecondsInDates() throws {
        let value = try read("<plist><date>2017-02-11T03:36:35.5Z</date></plist>")
        #expect(value == .date(Date(timeIntervalSince1970: 1_486_784_195.5)))
    }

    // MARK: Interop files

    @Test(.interopCorpus)
    func readsCPythonTestData() throws {
        let value = try XMLPropertyListReader().read(InteropCorpus.bytes("xmlplist/cpython-plistlib/TESTDATA_FMT_XML.plist"))
        let gunk = Data("<lots of binary gunk>\0\u{1}\u{2}\u{3}".utf8)
        let lotsOfGunk = Data(repeatElement(gunk, count: 10).joined())
        #expect(value["aBigInt"] == .integer(PropertyListInteger(Int64.max - 43)))
        #expect(value["aBigInt2"] == .integer(PropertyListInteger(UInt64(Int64.max) + 45)))
        #expect(value["aDate"] == .date(Date(timeIntervalSince1970: 1_098_786_813)))
        #expect(value["aDict"]?["aUnicodeValue"] == "Mässig, Maß")
        #expect(value["aDict"]?["anotherString"] == "<hello & 'hi' there!>")
        #expect(value["aDict"]?["deeperDict"] == ["a": 17, "b": 32.5, "c": [1, 2, "text"]])
        #expect(value["aList"] == ["A", "B", 12, 32.5, [1, 2, 3]])
        #expect(value["aNegativeBigInt"] == -80_000_000_000)
        #expect(value["nestedData"] == [.data(lotsOfGunk)])
        #expect(value["someData"] == .data(Data("<binary gunk>".utf8)))
        #expect(value["someMoreData"] == .data(lotsOfGunk))
        #expect(value["Åbenraa"] == "That was a unicode key.")
        #expect(value.dictionaryValue?.count == 16)
    }

    @Test(
        .interopCorpus,
        arguments: [
            "utf-16be", "utf-16be-bom", "utf-16le", "utf-16le-bom",
            "utf-32be", "utf-32be-bom", "utf-32le", "utf-32le-bom",
        ])
    func readsEveryUnicodeEncoding(_ name: String) throws {
        let value = try XMLPropertyListReader().read(InteropCorpus.bytes("xmlplist/dd-plist/test-xml-\(name).plist"))
        #expect(value["keyA"] == "valueA")
        #expect(value["key&B"] == "value&B \u{2705}")
        #expect(value["date"] == .date(Date(timeIntervalSince1970: 1_322_472_090)))
        #expect(value["data"] == .data(Data([0, 0, 0, 4, 16, 65, 8, 32, 130])))
        #expect(value["array"] == [true, false, 87, 3.14159])
    }

    @Test(.interopCorpus)
    func readsEveryInteropFile() throws {
        let folder = InteropCorpus.root.appendingPathComponent("xmlplist")
        let files = try #require(FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil))
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "plist" }
        #expect(files.count > 30)
        for file in files {
            let data = try Data(contentsOf: file)
            do {
                _ = try XMLPropertyListReader().read(data)
            } catch {
                Issue.record("\(file.lastPathComponent): \(error)")
            }
        }
    }

    @Test(.interopCorpus)
    func readsLibplistEntitiesAndHex() throws {
        let entities = try XMLPropertyListReader().read(InteropCorpus.bytes("xmlplist/libplist/entities.plist"))
        #expect(entities["four byte utf-8"]?["four byte utf-8 with text before & after"] == "abcd\u{1D565}wxyz")
        #expect(entities["some test entitites"]?["copyright"] == "©")
    }

    @Test(.interopCorpus)
    func readsInfinities() throws {
        let value = try XMLPropertyListReader().read(InteropCorpus.bytes("xmlplist/dd-plist/infinity-xml.plist"))
        #expect(value == ["a": .real(.infinity), "b": .real(-.infinity)])
    }

    // MARK: Bad input

    @Test func rejectsUnknownElement() throws {
        let error = try #require(readError("<plist>\n<dict>\n  <key>a</key>\n  <float>1</float>\n</dict>\n</plist>"))
        #expect(error.code == .unexpectedElement)
        #expect(error.message == "unknown element <float>")
        #expect(error.location == .lineColumn(line: 4, column: 3))
        #expect(error.keyPath == [.key("a")])
    }

    @Test func rejectsBadIntegerWithKeyPath() throws {
        let error = try #require(
            readError(
                """
                <plist>
                <dict>
                \t<key>aDict</key>
                \t<dict>
                \t\t<key>deeperDict</key>
                \t\t<dict>
                \t\t\t<key>c</key>
                \t\t\t<array><integer>1</integer><integer>2</integer><integer>12x</integer></array>
                \t\t</dict>
                \t</dict>
                </dict>
                </plist>
                """))
        #expect(error.code == .invalidValue)
        #expect(error.message == "\"12x\" is not an integer")
        #expect(error.location == .lineColumn(line: 8, column: 51))
        #expect(error.keyPath.description == "aDict.deeperDict.c[2]")
    }

    @Test(arguments: [
        ("<integer>18446744073709551616</integer>", "\"18446744073709551616\" is not an integer"),
        ("<integer>-9223372036854775809</integer>", "\"-9223372036854775809\" is not an integer"),
        ("<integer></integer>", "\"\" is not an integer"),
        ("<real>1.5.2</real>", "\"1.5.2\" is not a real number"),
        ("<real>0x1p3</real>", "\"0x1p3\" is not a real number"),
        ("<date>2004-13-26T10:33:33Z</date>", "\"2004-13-26T10:33:33Z\" is not a date of the form 2004-10-26T10:33:33Z"),
        ("<data>PGJp!</data>", "\"PGJp!\" is not base64"),
        ("<true>yes</true>", "\"yes\" is not empty, as <true/> must be"),
    ])
    func rejectsBadScalarText(_ element: String, _ message: String) throws {
        let error = try #require(readError("<plist>\n  " + element + "\n</plist>"))
        #expect(error.code == .invalidValue)
        #expect(error.message == message)
        #expect(error.location == .lineColumn(line: 2, column: 3))
    }

    @Test func rejectsKeyWithoutValue() throws {
        let error = try #require(readError("<plist><dict>\n<key>a</key>\n<key>b</key><true/></dict></plist>"))
        #expect(error.code == .invalidKey)
        #expect(error.message == "key \"a\" has no value")
        #expect(error.location == .lineColumn(line: 3, column: 1))

        let atEnd = try #require(readError("<plist><dict>\n<key>a</key>\n</dict></plist>"))
        #expect(atEnd.code == .invalidKey)
        #expect(atEnd.message == "key \"a\" has no value")
        #expect(atEnd.location == .lineColumn(line: 3, column: 1))
    }

    @Test func rejectsDictionaryValueWithoutKey() throws {
        let error = try #require(readError("<plist><dict><key>a</key><true/>\n  <string>x</string></dict></plist>"))
        #expect(error.code == .invalidKey)
        #expect(error.message == "<string> in a dictionary where a <key> is expected")
        #expect(error.location == .lineColumn(line: 2, column: 3))
    }

    @Test func rejectsKeyOutsideDictionary() throws {
        let error = try #require(readError("<plist><array><key>a</key></array></plist>"))
        #expect(error.code == .unexpectedElement)
        #expect(error.message == "<key> in an array")
        #expect(error.location == .lineColumn(line: 1, column: 15))
        #expect(error.keyPath == [.index(0)])
    }

    @Test func rejectsTwoRootValues() throws {
        let error = try #require(readError("<plist>\n<string>a</string>\n<string>b</string>\n</plist>"))
        #expect(error.code == .unexpectedElement)
        #expect(error.message == "a second value, <string>, at the top level; a property list holds one")
        #expect(error.location == .lineColumn(line: 3, column: 1))
    }

    @Test func rejectsEmptyPlistAndStrayText() throws {
        let empty = try #require(readError("<plist version=\"1.0\">\n</plist>"))
        #expect(empty.code == .unexpectedElement)
        #expect(empty.message == "the document holds no property-list value")

        let stray = try #require(readError("<plist><array>\n  hello<string/></array></plist>"))
        #expect(stray.code == .unexpectedElement)
        #expect(stray.message == "text \"hello\" outside a value element")
        #expect(stray.location == .lineColumn(line: 1, column: 15))
    }

    @Test func rejectsElementInsideString() throws {
        let error = try #require(readError("<plist><string>a<b/></string></plist>"))
        #expect(error.code == .unexpectedElement)
        #expect(error.message == "unknown element <b>")
        let nested = try #require(readError("<plist><string>a<true/></string></plist>"))
        #expect(nested.message == "<true> inside <string>, which holds only text")
        #expect(nested.location == .lineColumn(line: 1, column: 17))
    }

    @Test func reportsLibXML2ErrorsWithLineAndColumn() throws {
        let error = try #require(readError("<plist>\n<dict>\n<key>a</key>\n<string>x</strin>\n</dict></plist>"))
        #expect(error.code == .malformedXML)
        #expect(error.location == .lineColumn(line: 4, column: 18))
        #expect(error.message == "Opening and ending tag mismatch: string line 4 and strin")
    }

    @Test func rejectsEmptyInput() throws {
        let error = try #require(readError(""))
        #expect(error.code == .unrecognizedFormat)
    }

    // MARK: Hostile input

    @Test(.interopCorpus)
    func rejectsEntityDeclarations() throws {
        let data = try InteropCorpus.bytes("malformed/cpython-plistlib/XML_PLIST_WITH_ENTITY.plist")
        let error = try #require(throws: PropertyListError.self) { try XMLPropertyListReader().read(data) }
        #expect(error.code == .malformedXML)
        #expect(error.message == "entity declarations/references are not supported")
    }

    @Test func rejectsBillionLaughsQuickly() throws {
        var document = "<?xml version=\"1.0\"?>\n<!DOCTYPE plist [\n<!ENTITY lol \"lol\">\n"
        document += "<!ENTITY lol1 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">\n"
        for level in 2...9 {
            let previous = "&lol\(level - 1);"
            document += "<!ENTITY lol\(level) \"\(String(repeating: previous, count: 10))\">\n"
        }
        document += "]>\n<plist><string>&lol9;</string></plist>\n"
        // Refused at the first entity declaration, before any is expanded.
        let error = try #require(readError(document))
        #expect(error.code == .malformedXML)
        #expect(error.message == "entity declarations/references are not supported")
    }

    @Test func rejectsInternalSubsetDeclarations() throws {
        let error = try #require(readError("<!DOCTYPE plist [<!ELEMENT foo (#PCDATA)>]>\n<plist><true/></plist>"))
        #expect(error.code == .malformedXML)
        #expect(error.message == "declarations inside <!DOCTYPE plist [...]> are not supported")
        #expect(try read("<!DOCTYPE plist [ ]>\n<plist><true/></plist>") == true)
    }

    @Test func rejectsUndeclaredEntityReference() throws {
        let error = try #require(readError("<plist><string>&nope;</string></plist>"))
        #expect(error.code == .malformedXML)
    }

    @Test func rejectsNestingBeyondTheDepthLimit() throws {
        let deep = String(repeating: "<array>", count: 20) + String(repeating: "</array>", count: 20)
        let error = try #require(readError("<plist>" + deep + "</plist>", limits: PropertyListLimits(maximumDepth: 10)))
        #expect(error.code == .limitExceeded(.depth))
        #expect(error.message == "arrays and dictionaries nest more than 10 deep")
        #expect(error.location == .lineColumn(line: 1, column: 78))
        #expect(error.keyPath.components.count == 10)
    }

    @Test func rejectsNestingBeyondLibXML2sDepthLimit() throws {
        let deep = String(repeating: "<array>", count: 600) + String(repeating: "</array>", count: 600)
        let error = try #require(readError("<plist>" + deep + "</plist>"))
        #expect(error.code == .limitExceeded(.depth))
    }

    @Test func rejectsMoreValuesThanTheObjectLimit() throws {
        let items = String(repeating: "<true/>", count: 11)
        let error = try #require(
            readError(
                "<plist><array>" + items + "</array></plist>",
                limits: PropertyListLimits(maximumObjectCount: 10)))
        #expect(error.code == .limitExceeded(.objectCount))
    }

    @Test func rejectsInputOverTheSizeLimit() throws {
        let error = try #require(readError("<plist><true/></plist>", limits: PropertyListLimits(maximumInputSize: 8)))
        #expect(error.code == .limitExceeded(.inputSize))
    }

    // MARK: Text as CoreFoundation reads it (raw control characters and CR)

    @Test func readsRawControlCharactersInTextAsCoreFoundationDoes() throws {
        // CoreFoundation's parseStringTag copies these bytes as they are; libxml2 alone says
        // "PCDATA invalid Char value 27". ESC as Interface Builder writes a key equivalent,
        // U+0003 (Enter) as in MacVim's KeyBinding.plist, NUL, a CDATA section, a reference.
        let value = try read(
            header + "<plist version=\"1.0\">\n<dict>\n"
                + "\t<key>$\u{3}</key>\n\t<string>\u{1B}</string>\n"
                + "\t<key>n</key>\n\t<string>a\u{0}b\u{1F}<![CDATA[c\u{8}]]>&#27;&#x1;</string>\n"
                + "</dict>\n</plist>\n")
        #expect(value == ["$\u{3}": "\u{1B}", "n": "a\u{0}b\u{1F}c\u{8}\u{1B}\u{1}"])
    }

    @Test func keepsRawCarriageReturnsInValues() throws {
        // XML 1.0 turns CR and CR LF into LF; CoreFoundation keeps them. Line ends between
        // elements (CR LF here) are only layout and still read as such.
        let document =
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\r\n<plist version=\"1.0\">\r\n<dict>\r\n"
            + "\t<key>a\rb</key>\r\n\t<string>x\r\ny</string>\r\n"
            + "\t<key>only</key>\r\n\t<string>\r</string>\r\n"
            + "\t<key>cdata</key>\r\n\t<string><![CDATA[\r\n]]></string>\r\n"
            + "\t<key>n</key>\r\n\t<integer>12\r\n</integer>\r\n"
            + "\t<key>empty</key>\r\n\t<dict>\r\n\t</dict>\r\n"
            + "</dict>\r\n</plist>\r\n"
        #expect(try read(document) == ["a\rb": "x\r\ny", "only": "\r", "cdata": "\r\n", "n": 12, "empty": [:]])
    }

    @Test func readsUTF16TextWithControlCharacters() throws {
        let text = "<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n<plist version=\"1.0\"><string>\u{1B}\r\n</string></plist>\n"
        let bytes: [UInt8] = [0xFF, 0xFE] + text.utf16.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8($0 >> 8)] }
        #expect(try XMLPropertyListReader().read(Data(bytes)) == "\u{1B}\r\n")
    }

    @Test func stillRefusesControlCharactersOutsideText() throws {
        // Between elements CoreFoundation refuses them too ("unexpected character").
        let between = try #require(readError("<plist><array>\u{1B}<true/></array></plist>"))
        #expect(between.code == .unexpectedElement)
        #expect(between.message == "text \"\u{1B}\" outside a value element")
        // Inside a tag they are libxml2's to refuse.
        let inTag = try #require(readError("<plist><string a=\"\u{1B}\">x</string></plist>"))
        #expect(inTag.code == .malformedXML)
    }

    @Test(.interopCorpus) func readsCocoaWrittenNibsHoldingEscape() throws {
        // Interface Builder wrote ESC raw as the key equivalent of a Cancel button.
        for path in ["nl.lproj/PasswordPrompt.nib", "tr.lproj/PasswordPrompt.nib"] {
            let value = try XMLPropertyListReader().read(InteropCorpus.bytes("realworld/adium-adium/Frameworks/Adium/Resources/\(path)/keyedobjects.nib"))
            let objects = try #require(value["$objects"]?.arrayValue)
            guard case .uid(let keyEquivalent)? = objects[67]["NSKeyEquivalent"] else {
                Issue.record("no NSKeyEquivalent UID in $objects[67] of \(path)")
                continue
            }
            #expect(objects[Int(keyEquivalent)] == "\u{1B}", "\(path)")
        }
        // MacVim's key bindings: "$" (Shift) or "^~" (Control-Option) before CR or U+0003.
        let keyBinding = try XMLPropertyListReader().read(InteropCorpus.bytes("realworld/macvim-dev-macvim/src/MacVim/KeyBinding.plist"))
        #expect(keyBinding["$\r"] == "insertNewline:")
        #expect(keyBinding["$\u{3}"] == "insertNewline:")
        #expect(keyBinding["^~\r"] == "insertNewline:")
    }

    @Test func keepsTheLastValueOfADuplicateKeyAsPlistlibDoesAndFindsBothLines() throws {
        let text = """
            <plist><dict>
            <key>a</key><string>first</string>
            <key>b</key><dict><key>c</key><integer>1</integer>
            <key>c</key><integer>2</integer></dict>
            <key>a</key><string>last</string>
            </dict></plist>
            """
        let value = try read(text)
        #expect(value["a"] == "last")
        #expect(value["b"]?["c"] == .integer(2))
        // The oracle: Python's plistlib (CoreFoundation's plutil keeps the last too).
        let printed = try PythonScript.run(
            "import json, plistlib, sys; print(json.dumps(plistlib.loads(sys.stdin.buffer.read()), sort_keys=True))", arguments: [],
            input: Data(text.utf8))
        #expect(String(decoding: printed, as: UTF8.self) == "{\"a\": \"last\", \"b\": {\"c\": 2}}\n")
        let duplicates = Data(text.utf8).withUnsafeBytes { XMLPropertyListReader.duplicateKeys(in: $0) }
        #expect(
            duplicates == [
                XMLDuplicateKey(keyPath: PropertyListKeyPath([.key("b"), .key("c")]), firstLine: 3, line: 4),
                XMLDuplicateKey(keyPath: PropertyListKeyPath([.key("a")]), firstLine: 2, line: 5),
            ])
        #expect(Data("<plist><dict><key>a</key><true/></dict></plist>".utf8).withUnsafeBytes { XMLPropertyListReader.duplicateKeys(in: $0) }.isEmpty)
    }
}
