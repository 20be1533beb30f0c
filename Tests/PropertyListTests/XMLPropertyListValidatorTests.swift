import Foundation
import PropertyList
import TestSupport
import Testing

/// `Schemas/PropertyList-1.0.dtd` in this repository.
private let schemaURL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Schemas/PropertyList-1.0.dtd")

private func validator() throws -> XMLPropertyListValidator {
    try XMLPropertyListValidator(dtd: Data(contentsOf: schemaURL))
}

private func findings(_ document: String) throws -> [PropertyListError] {
    try validator().validate(Data(document.utf8))
}

private let header = """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">

    """

struct XMLPropertyListValidatorTests {
    @Test func acceptsAValidDocument() throws {
        let result = try findings(
            header + """
                <plist version="1.0">
                <dict>
                \t<key>a</key><array><integer>1</integer><real>2.5</real><true/><false/><data>AA==</data></array>
                \t<key>b</key><dict/>
                \t<key>c</key><date>2004-10-26T10:33:33Z</date>
                \t<key>d</key><string>x</string>
                </dict>
                </plist>
                """)
        #expect(result.isEmpty, "\(result)")
    }

    @Test func reportsValueWithoutKeyOnItsLine() throws {
        let result = try findings(header + "<plist version=\"1.0\">\n<array>\n<dict><string>x</string></dict>\n</array>\n</plist>\n")
        let finding = try #require(result.first)
        #expect(finding.code == .malformedXML)
        #expect(finding.location == .lineColumn(line: 5, column: 1))
        #expect(finding.message.contains("dict"))
    }

    @Test func reportsUnknownElementAndNonEmptyBoolean() throws {
        let result = try findings("<plist>\n<array>\n<float>1</float>\n<true>x</true>\n</array>\n</plist>")
        let lines = result.compactMap { finding -> Int? in
            if case .lineColumn(let line, _) = finding.location { return line }
            return nil
        }
        #expect(lines.contains(3))
        #expect(lines.contains(4))
        #expect(result.contains { $0.message.contains("float") })
    }

    @Test func reportsTwoValuesInPlist() throws {
        let result = try findings("<plist>\n<true/>\n<false/>\n</plist>")
        #expect(result.count == 1)
        #expect(result.first?.location == .lineColumn(line: 1, column: 1))
    }

    @Test func reportsWrongRootElement() throws {
        let result = try findings("<?xml version=\"1.0\"?>\n<dict/>")
        #expect(result.contains { $0.message == "the root element is <dict>, not <plist>" && $0.location == .lineColumn(line: 2, column: 1) })
    }

    @Test func reportsMalformedXMLWithColumn() throws {
        let result = try findings("<plist>\n<string>x</strin>\n</plist>")
        let finding = try #require(result.first)
        #expect(finding.location == .lineColumn(line: 2, column: 18))
        #expect(finding.message == "Opening and ending tag mismatch: string line 2 and strin")
    }

    @Test(.interopCorpus)
    func acceptsTheInteropCorpus() throws {
        let validator = try validator()
        for path in [
            "xmlplist/cpython-plistlib/TESTDATA_FMT_XML.plist", "xmlplist/swift-corelibs-foundation/Info.plist",
            "xmlplist/rust-plist/xml.plist", "xmlplist/libplist/entities.plist",
        ] {
            let result = validator.validate(try InteropCorpus.bytes(path))
            #expect(result.isEmpty, "\(path): \(result)")
        }
    }

    @Test(.interopCorpus)
    func reportsEntityDeclarations() throws {
        let result = try validator().validate(InteropCorpus.bytes("malformed/cpython-plistlib/XML_PLIST_WITH_ENTITY.plist"))
        #expect(result.contains { $0.message == "entity declarations/references are not supported" })
    }

    @Test func rejectsAMalformedDTD() throws {
        let error = try #require(throws: PropertyListError.self) {
            try XMLPropertyListValidator(dtd: Data("<!ELEMENT plist (array\n".utf8))
        }
        #expect(error.code == .malformedXML)
        #expect(error.message.hasPrefix("the DTD cannot be parsed: "))
    }

    // What follows is derived by hand from Schemas/PropertyList-1.0.dtd: the
    // messages are libxml2's, as its tree validation words them, each on the
    // line of the element it is about.

    private static let valueChoice = "(array | data | date | dict | real | integer | string | true | false)"
    private static let dictModel = "(key , \(valueChoice))*"

    private func described(_ result: [PropertyListError]) -> [String] {
        result.map { finding in
            guard case .lineColumn(let line, let column) = finding.location else { return "?: \(finding.message)" }
            return "\(line):\(column): \(finding.message)"
        }
    }

    @Test func validatesADocumentWithoutDoctype() throws {
        let result = try findings("<plist version=\"1.0\">\n<array>\n<dict><string>x</string></dict>\n</array>\n</plist>\n")
        #expect(described(result) == ["3:1: Element dict content does not follow the DTD, expecting \(Self.dictModel), got (string)"])
    }

    @Test func usesItsOwnDTDWhateverTheDoctypeNames() throws {
        // The DOCTYPE names another root and a DTD on the network: neither is used.
        let result = try findings("<?xml version=\"1.0\"?>\n<!DOCTYPE html SYSTEM \"http://example.com/x.dtd\">\n<plist>\n<true/>\n<false/>\n</plist>\n")
        #expect(described(result) == ["3:1: Element plist content does not follow the DTD, expecting \(Self.valueChoice), got (true false )"])
    }

    @Test func reportsAValueBeforeItsKey() throws {
        let result = try findings(header + "<plist version=\"1.0\">\n<dict>\n  <string>x</string>\n  <key>a</key>\n</dict>\n</plist>\n")
        #expect(described(result) == ["4:1: Element dict content does not follow the DTD, expecting \(Self.dictModel), got (string key )"])
    }

    @Test func reportsAnUnknownElementAfterItsParent() throws {
        let result = try findings("<plist>\n<array>\n<float>1</float>\n<true>x</true>\n</array>\n</plist>")
        #expect(
            described(result) == [
                "2:1: Element array content does not follow the DTD, expecting \(Self.valueChoice)*, got (float true )",
                "3:1: No declaration for element float",
                "4:1: Element true was declared EMPTY this one has content",
            ])
    }

    @Test func reportsTextWhereOnlyElementsMayBe() throws {
        let result = try findings("<plist>\n<dict>\n<key>a</key>junk<string>s</string>\n</dict>\n</plist>\n")
        #expect(described(result) == ["2:1: Element dict content does not follow the DTD, expecting \(Self.dictModel), got (key CDATA string )"])
    }

    @Test func reportsElementsInsideText() throws {
        let result = try findings("<plist>\n<string>a<b/>c<d/></string>\n</plist>\n")
        #expect(
            described(result) == [
                "2:1: Element string was declared #PCDATA but contains non text nodes",
                "2:1: No declaration for element b",
                "2:1: No declaration for element d",
            ])
    }

    @Test func countsSpaceCommentsAndEmptyCDATAAsContentOfEmptyElements() throws {
        let result = try findings("<plist>\n<array>\n<true> </true>\n<false><!--x--></false>\n<true><![CDATA[]]></true>\n</array>\n</plist>\n")
        #expect(
            described(result) == [
                "3:1: Element true was declared EMPTY this one has content",
                "4:1: Element false was declared EMPTY this one has content",
                "5:1: Element true was declared EMPTY this one has content",
            ])
    }

    @Test func reportsUndeclaredAttributes() throws {
        let result = try findings("<plist version=\"1.0\" foo=\"bar\">\n<dict color=\"red\"><key k=\"1\">a</key><string>b</string></dict>\n</plist>\n")
        #expect(
            described(result) == [
                "1:1: No declaration for attribute foo of element plist",
                "2:1: No declaration for attribute color of element dict",
                "2:1: No declaration for attribute k of element key",
            ])
    }

    @Test func reportsAnElementsOwnProblemsBeforeItsChildrens() throws {
        let result = try findings("<plist>\n<dict>\n<key>a</key>\n<array>\n<dict><true/></dict>\n</array>\n<key>b</key>\n</dict>\n</plist>\n")
        #expect(
            described(result) == [
                "2:1: Element dict content does not follow the DTD, expecting \(Self.dictModel), got (key array key )",
                "5:1: Element dict content does not follow the DTD, expecting \(Self.dictModel), got (true)",
            ])
    }

    @Test func reportsAnEmptyPlist() throws {
        let result = try findings("<plist>\n</plist>\n")
        #expect(described(result) == ["1:1: Element plist content does not follow the DTD, expecting \(Self.valueChoice), got ()"])
    }

    @Test func reportsStandaloneDocumentsWithSpaceBetweenElements() throws {
        let result = try findings("<?xml version=\"1.0\" standalone=\"yes\"?>\n<plist>\n<array>\n<true/>\n</array>\n</plist>\n")
        #expect(
            described(result) == [
                "2:1: standalone: plist declared in the external subset contains white spaces nodes",
                "3:1: standalone: array declared in the external subset contains white spaces nodes",
            ])
    }

    @Test func keepsTheFirstHundredFindingsInDocumentOrder() throws {
        let elements = (0..<150).map { "<x\($0)/>\n" }.joined()
        let result = try findings("<plist>\n<array>\n" + elements + "</array>\n</plist>\n")
        #expect(result.count == 100)
        #expect(result.first?.message.hasPrefix("Element array content does not follow the DTD") == true)
        #expect(described(Array(result.suffix(1))) == ["101:1: No declaration for element x98"])
    }

    @Test func cutsALongChildListAsLibXML2Does() throws {
        let result = try findings("<plist>\n" + String(repeating: "<true/>", count: 2000) + "\n</plist>\n")
        let message = try #require(result.first?.message)
        #expect(result.count == 1)
        #expect(message.hasSuffix("true  ..."))
        #expect(message.utf8.count < 5200)
    }

    @Test func reportsOnlyTheEntityDeclarationOfADocumentDeclaringOne() throws {
        let result = try findings("<?xml version=\"1.0\"?>\n<!DOCTYPE plist [\n<!ENTITY e \"x\">\n]>\n<plist><string>&e;</string></plist>\n")
        #expect(described(result) == ["1:1: entity declarations/references are not supported"])
    }

    @Test func ignoresTheInternalSubsetsDeclarations() throws {
        let result = try findings("<?xml version=\"1.0\"?>\n<!DOCTYPE plist [\n<!ELEMENT plist ANY>\n]>\n<plist>\n<foo/>\n</plist>\n")
        #expect(
            described(result) == [
                "5:1: Element plist content does not follow the DTD, expecting \(Self.valueChoice), got (foo )",
                "6:1: No declaration for element foo",
            ])
    }

    @Test func checksAttributeValuesAgainstTheGivenDTD() throws {
        let dtd = """
            <!ELEMENT plist (true)>
            <!ATTLIST plist version (1.0) #REQUIRED id ID #IMPLIED>
            <!ELEMENT true EMPTY>
            <!ATTLIST true id ID #IMPLIED>

            """
        let validator = try XMLPropertyListValidator(dtd: Data(dtd.utf8))
        let result = validator.validate(Data("<plist version=\"2.0\" id=\"a\">\n<true id=\"a\"/>\n</plist>\n".utf8))
        #expect(
            described(result) == [
                "1:1: Value \"2.0\" for attribute version of plist is not among the enumerated set",
                "2:1: ID a already defined",
            ])
        let missing = validator.validate(Data("<plist>\n<true/>\n</plist>\n".utf8))
        #expect(described(missing) == ["1:1: Element plist does not carry attribute version"])
    }

    @Test func acceptsUTF32AsTheReaderDoes() throws {
        // libxml2 alone answered "Document is empty" while the reader read the file.
        let text = header + "<plist version=\"1.0\">\n<string>x</string>\n</plist>\n"
        let bytes: [UInt8] =
            [0x00, 0x00, 0xFE, 0xFF]
            + text.unicodeScalars.flatMap { scalar in
                (0..<4).reversed().map { UInt8(truncatingIfNeeded: scalar.value >> ($0 * 8)) }
            }
        #expect(try XMLPropertyListReader().read(Data(bytes)) == "x")
        #expect(try validator().validate(Data(bytes)).isEmpty)
    }

    @Test func acceptsRawControlCharactersAndCarriageReturnsInText() throws {
        let result = try findings(header + "<plist version=\"1.0\">\r\n<dict>\r\n\t<key>a\u{3}</key>\r\n\t<string>\u{1B}\r</string>\r\n</dict>\r\n</plist>\r\n")
        #expect(result.isEmpty, "\(result)")
    }
}

/// Found by the mime-xml fuzz target, in the parser the validator shares the
/// bug with: a DTD validity error in the internal subset reached the error
/// handler with the parser context where it expected its sink.
@Test func validityErrorInTheInternalSubsetDoesNotCrashTheValidator() throws {
    let text = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist [
        <!ATTLIST plist kind (a|a) #IMPLIED>
        ]>
        <plist version="1.0"><true/></plist>

        """
    // The internal subset alone is a problem; what matters is the validator returns.
    _ = try validator().validate(Data(text.utf8))
}
