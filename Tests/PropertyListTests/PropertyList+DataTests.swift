import Foundation
import PropertyList
import TestSupport
import Testing

/// The `Data` forms of the writers, `detect`, `locations` and
/// `PartialBinaryPropertyList.bytes`: the same bytes and answers as the
/// `[UInt8]` and buffer forms, checked against CPython plistlib and the
/// corpus MANIFEST.
@Suite(.interopCorpus)
struct PropertyListDataTests {
    static let binaryFile = "bplist/cpython-plistlib/TESTDATA_FMT_BINARY.bplist"
    static let xmlFile = "xmlplist/cpython-plistlib/TESTDATA_FMT_XML.plist"

    /// A scratch file holding `data`, for plistlib to read; removed afterwards.
    static func plistlibValue(of data: Data) throws -> PropertyListValue {
        let file = URL(fileURLWithPath: ScratchFolder.filePath("data-overloads", extension: "plist"))
        defer { try? FileManager.default.removeItem(at: file) }
        try data.write(to: file)
        return try Fixtures.pythonPlistlib(file)
    }

    @Test func detectOnDataMatchesBytes() throws {
        let binary = try InteropCorpus.bytes(Self.binaryFile)
        let xml = try InteropCorpus.bytes(Self.xmlFile)
        #expect(PropertyListFormat.detect(binary) == .binary)
        #expect(PropertyListFormat.detect(xml) == .xml)
        #expect(PropertyListFormat.detect(Data("{\"a\": 1}".utf8)) == .json)
        #expect(PropertyListFormat.detect(Data()) == Data().withUnsafeBytes { PropertyListFormat.detect($0) })
        #expect(NonPropertyListFormat.detect(binary) == nil)
        let nib = Data(Array("NIBArchive".utf8) + [1, 0, 0, 0, 9, 0, 0, 0])
        #expect(NonPropertyListFormat.detect(nib)?.format == .nibArchive)
    }

    @Test func writersEncodedDataMatchesBytesAndPlistlibReadsIt() throws {
        let original = try InteropCorpus.bytes(Self.binaryFile)
        let value = try PropertyListReader().read(original).value
        let expected = try Fixtures.pythonPlistlib(InteropCorpus.url(Self.binaryFile))
        let binary = try BinaryPropertyListWriter().encodedData(value)
        let xml = try XMLPropertyListWriter().encodedData(value)
        #expect(binary == Data(try BinaryPropertyListWriter().encode(value)))
        #expect(xml == Data(try XMLPropertyListWriter().encode(value)))
        #expect(PropertyListComparison.plistlib.firstDifference(try Self.plistlibValue(of: binary), expected) == nil)
        #expect(PropertyListComparison.plistlib.firstDifference(try Self.plistlibValue(of: xml), expected) == nil)
        for format in [PropertyListFormat.binary, .xml, .json] {
            let data = try PropertyListWriter().encodedData(value, format: format)
            #expect(data == Data(try PropertyListWriter().encode(value, format: format)))
            #expect(try PropertyListReader().read(data, format: format).value == value)
        }
        let json = try JSONPropertyListWriter().encodedData(value)
        #expect(json == Data(try JSONPropertyListWriter().encode(value)))
        #expect((try? JSONSerialization.jsonObject(with: json)) != nil, "not JSON")
    }

    @Test func objectTableEncodedDataMatchesBytes() throws {
        let table: [BinaryPropertyListObject] = [.scalar(.string("yo"))]
        let data = BinaryPropertyListWriter().encodedData(objectTable: table)
        #expect(data == Data(BinaryPropertyListWriter().encode(objectTable: table)))
        // bpylist2's ascii_string_short.plist holds "yo" (44 bytes).
        let expected = try Self.plistlibValue(of: data)
        #expect(expected == .string("yo"))
        #expect(data.count == 44)
    }

    @Test func openStepEncodedDataIsRefused() throws {
        let error = try #require(throws: PropertyListError.self) {
            _ = try PropertyListWriter().encodedData(.string("x"), format: .openStep)
        }
        #expect(error.code == .unsupportedValue)
    }

    @Test func locationsOnDataMatchBytes() throws {
        let xml = try InteropCorpus.bytes(Self.xmlFile)
        let paths: [PropertyListKeyPath] = [[.key("aString")], [.key("aDict"), .key("aTrueValue")], [.key("absent")]]
        let byData = PropertyListLocator.locations(of: paths, in: xml)
        #expect(byData == xml.withUnsafeBytes { PropertyListLocator.locations(of: paths, in: $0) })
        // The value of aString (`<string>Doodah</string>`) starts on the line after its key.
        let line = try #require(Self.line(of: "<key>aString</key>", in: xml))
        guard case .lineColumn(let found, _) = byData[0] else { Issue.record("no line: \(byData[0])"); return }
        #expect(found == line + 1)
    }

    /// The 1-based line of the first line holding `needle`, computed here from the text.
    static func line(of needle: String, in data: Data) -> Int? {
        String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            .firstIndex { $0.contains(needle) }.map { $0 + 1 }
    }

    @Test func partialDataMatchesBytesAndManifest() throws {
        let plist = try PartialBinaryPropertyList(path: InteropCorpus.url(Self.binaryFile).path)
        guard case .dictionary(let keys, let values) = try plist.object(plist.topObject) else {
            Issue.record("the top object is not a dictionary"); return
        }
        var found: (offset: Int, count: Int)?
        for (key, value) in zip(keys, values) {
            if case .string("someData") = try plist.object(key), case .data(let offset, let count) = try plist.object(value) {
                found = (offset, count)
            }
        }
        let (offset, count) = try #require(found)
        let data = try plist.data(at: offset, count: count)
        #expect(data == Data(try plist.bytes(at: offset, count: count)))
        // The MANIFEST: someData is b"<binary gunk>".
        #expect(data == Data("<binary gunk>".utf8))
        let error = try #require(throws: PropertyListError.self) { _ = try plist.data(at: plist.size - 2, count: 10) }
        #expect(error.code == .truncated)
    }
}
