import Foundation
import TestSupport
import Testing

@_spi(Fuzzing) @testable import PropertyList

/// The XML reader's first try (libxml2's pull parser over the whole
/// document) against the parse in pieces it falls back to, which reads as
/// libxml2's tree reader read: where the first try gives a value, the parse
/// in pieces must give the same one; where the parse in pieces refuses a
/// document, the first try must refuse it too (and the reader then reports
/// the parse in pieces' error, so messages do not change).
struct XMLPropertyListFirstTryTests {
    /// What agreement on one document found.
    private struct Tally {
        var documents = 0
        var firstTryValues = 0
        var inPiecesValues = 0
    }

    /// Checks the rule on `bytes`, counting into `tally`.
    private func checkAgreement(_ bytes: Data, _ name: String, limits: PropertyListLimits = .default, into tally: inout Tally) {
        guard let (firstTry, inPieces) = bytes.withUnsafeBytes({ XMLPropertyListReader(limits: limits).readBothWays($0) }) else { return }
        tally.documents += 1
        if case .success = inPieces { tally.inPiecesValues += 1 }
        guard case .success(let value) = firstTry else { return }
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
        // The first try takes every document the parse in pieces reads.
        #expect(
            tally.firstTryValues == tally.inPiecesValues,
            "the first try read \(tally.firstTryValues) documents, the parse in pieces \(tally.inPiecesValues)")
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
            let (firstTry, inPieces) = try #require(bytes.withUnsafeBytes { reader.readBothWays($0) })
            #expect(try firstTry.get() == inPieces.get(), "\(name)")
            return
        }
        let error = #expect(throws: PropertyListError.self, "\(name)") { try reader.read(bytes) }
        guard let (_, inPieces) = bytes.withUnsafeBytes({ reader.readBothWays($0) }) else {
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
}
