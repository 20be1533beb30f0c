import Foundation
import TestSupport
import Testing

@_spi(Fuzzing) @testable import PropertyList

/// The XML reader's first tries — its quick read of the common document
/// (`XMLPropertyListQuickReader`), then libxml2's pull parser over the whole
/// document — against the parse in pieces it falls back to, which reads as
/// libxml2's tree reader read: where either first try gives a value, the
/// parse in pieces must give the same one; where the parse in pieces refuses
/// a document, both must refuse it too (and the reader then reports the
/// parse in pieces' error, so messages do not change).
struct XMLPropertyListFirstTryTests {
    /// What agreement on one document found.
    private struct Tally {
        var documents = 0
        var quickValues = 0
        var firstTryValues = 0
        var inPiecesValues = 0
        /// Documents the parse in pieces reads and the first try refuses,
        /// with the encoding their XML declaration names, if any.
        var fellBack: [(name: String, encoding: String?)] = []
    }

    /// The encoding an XML declaration at the start of `bytes` names.
    private func declaredEncoding(_ bytes: Data) -> String? {
        let head = String(decoding: bytes.prefix(100), as: UTF8.self)
        guard head.hasPrefix("<?xml"), let start = head.range(of: "encoding=\"") else { return nil }
        return head[start.upperBound...].split(separator: "\"").first.map(String.init)
    }

    /// Checks the rule on `bytes`, counting into `tally`.
    private func checkAgreement(_ bytes: Data, _ name: String, limits: PropertyListLimits = .default, into tally: inout Tally) {
        guard let (quick, firstTry, inPieces) = bytes.withUnsafeBytes({ XMLPropertyListReader(limits: limits).readAllWays($0) })
        else { return }
        tally.documents += 1
        if case .success = inPieces { tally.inPiecesValues += 1 }
        if let quick {
            tally.quickValues += 1
            switch inPieces {
            case .success(let other):
                #expect(identical(quick, other), "\(name): the quick read and the parse in pieces disagree")
            case .failure(let error):
                Issue.record("\(name): the quick read gave a value where the parse in pieces refuses the document: \(error)")
            }
        }
        guard case .success(let value) = firstTry else {
            if case .success = inPieces { tally.fellBack.append((name, declaredEncoding(bytes))) }
            return
        }
        tally.firstTryValues += 1
        switch inPieces {
        case .success(let other):
            #expect(identical(value, other), "\(name): the first try and the parse in pieces disagree")
        case .failure(let error):
            Issue.record("\(name): the first try gave a value where the parse in pieces refuses the document: \(error)")
        }
    }

    /// True for bytes that may be an XML document: not a binary property
    /// list, starting with "<", white space or a byte order mark.
    private func mayBeXML(_ data: Data) -> Bool {
        guard let first = data.first, !data.starts(with: Array("bplist".utf8)) else { return false }
        return [UInt8(ascii: "<"), 0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xFE, 0xFF, 0x00].contains(first)
    }

    @Test func everyXMLDocumentTheTestsHoldReadsTheSameBothWays() throws {
        var tally = Tally()
        for folder in ["Tests", "SampleDocs", "Fuzz/Corpus", "Schemas"] {
            let root = Repository.root.appendingPathComponent(folder)
            guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey, .fileSizeKey])
            else { continue }
            for case let url as URL in walker {
                let values = try url.resourceValues(forKeys: [.isRegularFileKey, .fileSizeKey])
                guard values.isRegularFile == true, (values.fileSize ?? 0) <= 8 << 20 else { continue }
                let data = try Data(contentsOf: url)
                if mayBeXML(data) { checkAgreement(data, url.path, into: &tally) }
            }
        }
        #expect(tally.documents > 500, "found \(tally.documents) documents")
        // The quick read takes the documents Apple's tools and plistlib write
        // (most documents here are the fuzz corpus's, made to be unusual).
        #expect(tally.quickValues > 50, "the quick read read \(tally.quickValues) documents")
        // The first try takes every document the parse in pieces reads, but
        // for documents in an encoding libxml2 converts through iconv (UTF-7:
        // one the fuzzer found), which its pull parser refuses; the reader
        // then reads them in pieces.
        for (name, encoding) in tally.fellBack {
            #expect(
                encoding.map { !["UTF-8", "UTF-16"].contains($0.uppercased()) } == true,
                "\(name): the first try refuses a document in \(encoding ?? "UTF-8") that the parse in pieces reads")
        }
        #expect(tally.fellBack.count <= 3, "the first try refused \(tally.fellBack.count) documents the parse in pieces reads")
    }

    @Test(.interopCorpus) func everyXMLDocumentOfTheInteropCorpusReadsTheSameBothWays() throws {
        var tally = Tally()
        for path in InteropCorpus.files(under: "") {
            let data = try InteropCorpus.bytes(path)
            if mayBeXML(data) { checkAgreement(data, path, into: &tally) }
        }
        #expect(tally.inPiecesValues > 100, "the parse in pieces read \(tally.inPiecesValues) documents")
        #expect(
            tally.firstTryValues == tally.inPiecesValues,
            "the first try read \(tally.firstTryValues) documents, the parse in pieces \(tally.inPiecesValues)")
    }

    /// Documents each refused, by libxml2 or by the builder, with the error
    /// the parse in pieces gives (what the reader said before the first try
    /// existed): the reader's error is that one, word for word.
    @Test(
        arguments: [
            ("", "empty"),
            ("<plist><dict><key>a</key></dict></plist>", "key without value"),
            ("<plist><string>a</string></plist>trailing", "extra content"),
            ("<plist><string>a</string>", "unclosed plist"),
            ("<plist><array><string>a</array></plist>", "mismatched tag"),
            ("<?xml version=\"1.0\"?><!DOCTYPE plist [<!ENTITY a \"b\">]><plist><string>&a;</string></plist>", "entity"),
            ("<plist><string>&undeclared;</string></plist>", "undeclared entity"),
            ("<plist><integer>12x</integer></plist>", "bad integer"),
            ("<plist><dict><key>a</key><true/><key>a</key><false/></dict><string/></plist>", "second value"),
            ("   ", "only white space"),
            ("<plist><real>1.5</real></plist><real>2</real>", "second root element"),
            ("<?xml version=\"1.0\" encoding=\"UTF-16\"?><plist><true/></plist>", "UTF-16 declared, UTF-8 given"),
        ] as [(String, String)])
    func theReaderSaysWhatTheParseInPiecesSays(document: String, name: String) throws {
        try checkRefusal(Data(document.utf8), name: name)
    }

    /// Bytes that are not the encoding they claim: libxml2 reports these
    /// with no parser context when it reads a document whole.
    @Test(
        arguments: [
            (Array("<plist><string>".utf8) + [0xC3] + Array("</string></plist>".utf8), "UTF-8 lead byte alone"),
            ([0xFF, 0xFE] + Array("<plist/>".utf8) + [0xFF], "UTF-16 byte order mark before UTF-8"),
            (
                Array("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><plist><string>".utf8) + [0xE9]
                    + Array("</string></plist>".utf8), "Latin-1 read as Latin-1"
            ),
        ] as [([UInt8], String)])
    func wrongBytesGetTheParseInPiecesError(bytes: [UInt8], name: String) throws {
        try checkRefusal(Data(bytes), name: name, readable: name.hasPrefix("Latin-1"))
    }

    /// Checks that the reader's outcome for `bytes` is the parse in pieces':
    /// the same error word for word, or (`readable`) the same value.
    private func checkRefusal(_ bytes: Data, name: String, readable: Bool = false) throws {
        let reader = XMLPropertyListReader()
        if readable {
            let (_, firstTry, inPieces) = try #require(bytes.withUnsafeBytes { reader.readAllWays($0) })
            #expect(try firstTry.get() == inPieces.get(), "\(name)")
            return
        }
        let error = #expect(throws: PropertyListError.self, "\(name)") { try reader.read(bytes) }
        guard let (_, _, inPieces) = bytes.withUnsafeBytes({ reader.readAllWays($0) }) else {
            // Refused before either parse (the empty input).
            #expect(bytes.isEmpty, "\(name)")
            return
        }
        guard case .failure(let expected) = inPieces else {
            Issue.record("\(name): the parse in pieces read it")
            return
        }
        #expect(error?.description == expected.description, "\(name)")
    }

    // MARK: The quick read

    /// Documents the quick read takes, with the value a person reads off
    /// them: the predefined entities, every element, empty forms, non-ASCII
    /// text, no declaration or Apple's two, comments (in text too).
    @Test(
        arguments: [
            (
                "<plist version=\"1.0\"><string>a&amp;b&lt;c&gt;d&quot;e&apos;f</string></plist>",
                PropertyListValue.string("a&b<c>d\"e'f")
            ),
            ("<plist><array><true/><false></false><string/><dict/><array/></array></plist>", [true, false, "", [:], []]),
            ("<dict><key>é</key><integer>-0x10</integer><key>z</key><real>2.5</real></dict>", ["é": -16, "z": 2.5]),
            (
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE plist PUBLIC \"-//Apple Computer//DTD PLIST 1.0//EN\" "
                    + "\"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n<plist version=\"1.0\">\n<data>\n\tAAEC\n</data>\n</plist>\n",
                .data(Data([0, 1, 2]))
            ),
            ("<plist><dict><key>CF$UID</key><integer>7</integer></dict></plist>", .uid(7)),
            (
                "<?xml version=\"1.0\"?><!-- é --><plist><!----><string>a<!-- b -->c</string></plist><!-- - -->\n",
                "ac"
            ),
            ("<plist><string>😀 ]] > 中</string></plist>", "😀 ]] > 中"),
        ] as [(String, PropertyListValue)])
    func theQuickReadTakesTheCommonDocument(document: String, expected: PropertyListValue) throws {
        let bytes = Data(document.utf8)
        let (quick, _, inPieces) = try #require(bytes.withUnsafeBytes { XMLPropertyListReader().readAllWays($0) })
        #expect(quick == expected)
        #expect(try inPieces.get() == expected)
        #expect(try XMLPropertyListReader().read(bytes) == expected)
    }

    /// Documents the quick read gives up on, each read or refused as the
    /// parse in pieces reads or refuses it: what libxml2 must judge
    /// (comments, CDATA, character references, carriage returns, other
    /// attributes and declarations, bytes that are not XML characters in
    /// UTF-8, `]]>`, tags that do not match) and what the builder refuses.
    @Test(
        arguments: [
            ("<plist><!-- a -- b --><true/></plist>", "-- in a comment"),
            ("<plist><!-- a ---><true/></plist>", "comment ending --->"),
            ("<plist><true/></plist><!-- a -- b -->", "-- in a comment after the root"),
            ("<plist><true/></plist><!-- unterminated", "unterminated comment after the root"),
            ("<plist><?pi x?><true/></plist>", "processing instruction"),
            ("<plist><string><![CDATA[a<b]]></string></plist>", "CDATA section"),
            ("<plist><string>&#65;</string></plist>", "character reference"),
            ("<plist><string>a\r\nb</string></plist>", "carriage return"),
            ("<plist>\r\n<true/></plist>", "carriage return between tags"),
            ("<plist><string id=\"1\">a</string></plist>", "attribute"),
            ("<plist version=\"1.1\"><true/></plist>", "other version"),
            ("<?xml version=\"1.0\" standalone=\"yes\"?><plist><true/></plist>", "standalone declaration"),
            ("<!DOCTYPE plist SYSTEM \"file://localhost/System/Library/DTDs/PropertyList.dtd\"><plist><true/></plist>", "system DTD"),
            ("<plist><string>a]]>b</string></plist>", "]]> in text"),
            ("<plist><string>a</key></plist>", "mismatched end tag"),
            ("<plist><key >a</key></plist>", "space in a tag"),
            ("<plist><string>a &amp b</string></plist>", "unterminated entity"),
            ("<plist><dict><key>a</key></dict></plist>", "key without value"),
            ("<plist><string>a</string></plist>x", "text after the root"),
            ("<plist><string>a</string>", "unclosed"),
            ("<plist><Dict/></plist>", "unknown element"),
            ("\u{FEFF}<plist><true/></plist>", "byte order mark"),
            ("<plist><string>\u{FFFF}</string></plist>", "U+FFFF"),
        ] as [(String, String)])
    func theQuickReadLeavesTheRestToLibXML2(document: String, name: String) throws {
        try checkQuickReadGivesUp(Data(document.utf8), name: name)
    }

    /// Bytes that are not UTF-8, which libxml2 refuses.
    @Test(
        arguments: [
            [0xC0, 0x80], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xF8], [0x80], [0xC3],
            [0xEF, 0xBF, 0xBE],
        ] as [[UInt8]])
    func theQuickReadGivesUpOnBytesThatAreNotXMLCharacters(bytes: [UInt8]) throws {
        try checkQuickReadGivesUp(Data(Array("<plist><string>a".utf8) + bytes + Array("</string></plist>".utf8)), name: "\(bytes)")
    }

    /// The quick read gives nothing for `bytes`; the reader's outcome is
    /// the parse in pieces', value or error word for word.
    private func checkQuickReadGivesUp(_ bytes: Data, name: String) throws {
        let (quick, _, inPieces) = try #require(bytes.withUnsafeBytes { XMLPropertyListReader().readAllWays($0) })
        #expect(quick == nil, "\(name)")
        switch inPieces {
        case .success(let value): #expect(try XMLPropertyListReader().read(bytes) == value, "\(name)")
        case .failure(let expected):
            let error = #expect(throws: PropertyListError.self, "\(name)") { try XMLPropertyListReader().read(bytes) }
            #expect(error?.description == expected.description, "\(name)")
        }
    }
}
