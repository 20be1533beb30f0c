import Foundation
import PropertyList
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
        let result = try findings(header + """
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
        #expect(finding.kind == .malformedXML)
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

    @Test(.enabled(if: XMLInterop.available, XMLInterop.missing))
    func acceptsTheInteropCorpus() throws {
        let validator = try validator()
        for path in ["xmlplist/cpython-plistlib/TESTDATA_FMT_XML.plist", "xmlplist/swift-corelibs-foundation/Info.plist",
                     "xmlplist/rust-plist/xml.plist", "xmlplist/libplist/entities.plist"] {
            let result = validator.validate(try XMLInterop.data(path))
            #expect(result.isEmpty, "\(path): \(result)")
        }
    }

    @Test(.enabled(if: XMLInterop.available, XMLInterop.missing))
    func reportsEntityDeclarations() throws {
        let result = try validator().validate(XMLInterop.data("malformed/cpython-plistlib/XML_PLIST_WITH_ENTITY.plist"))
        #expect(result.contains { $0.message == "entity declarations/references are not supported" })
    }

    @Test func rejectsAMalformedDTD() throws {
        let error = try #require(throws: PropertyListError.self) {
            try XMLPropertyListValidator(dtd: Data("<!ELEMENT plist (array\n".utf8))
        }
        #expect(error.kind == .malformedXML)
        #expect(error.message.hasPrefix("the DTD cannot be parsed: "))
    }
    @Test func acceptsUTF32AsTheReaderDoes() throws {
        // libxml2 alone answered "Document is empty" while the reader read the file.
        let text = header + "<plist version=\"1.0\">\n<string>x</string>\n</plist>\n"
        let bytes: [UInt8] = [0x00, 0x00, 0xFE, 0xFF] + text.unicodeScalars.flatMap { scalar in
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
