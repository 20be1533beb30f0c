import Foundation
import PropertyList
import TestSupport
import Testing

/// Every XML property list of `../shared/interop/xmlplist/` decodes to the
/// value MANIFEST.md states for it (or, where it states none, to what
/// CPython's plistlib reads).
@Suite(.interopCorpus)
struct InteropXMLCorpusTests {
    static let files: [CorpusFile] = cpython + ddPlist + libplist + rustPlist + swiftCorelibsFoundation + swiftFoundation

    static let cpython: [CorpusFile] = [
        // "Cocoa-generated XML of the same value" as TESTDATA_FMT_BINARY.
        CorpusFile("xmlplist/cpython-plistlib/TESTDATA_FMT_XML.plist", .value(ManifestValues.cpythonTestData))
    ]

    /// plistlib reads the UTF-16 files with a byte-order mark; the others
    /// (UTF-16 without one, UTF-32 with or without) must decode to the same value.
    static let utfTwin = "xmlplist/dd-plist/test-xml-utf-16be-bom.plist"

    static let ddPlist: [CorpusFile] = [
        CorpusFile(
            "xmlplist/dd-plist/github-issue31.plist",
            .facts { value in
                // <data> whose bytes start with gzip magic 1f8b (must not be treated as gzip)
                let entry = value["files2"]?["Base.lproj/Main.storyboardc/MainController.nib"]
                guard case .data(let hash)? = entry?["hash"] else {
                    Issue.record("no data at files2.…MainController.nib.hash: \(value)")
                    return
                }
                #expect(hash.prefix(2) == Data([0x1F, 0x8B]))
            }),
        CorpusFile("xmlplist/dd-plist/infinity-xml.plist", .value(ManifestValues.infinities)),
        CorpusFile(
            "xmlplist/dd-plist/issue21.plist",
            .facts { value in
                // top-level string with escaped & " ' < > and €
                let text = value.stringValue ?? ""
                for character in ["&", "\"", "'", "<", ">", "€"] {
                    #expect(text.contains(character), "missing \(character)")
                }
            }),
        CorpusFile("xmlplist/dd-plist/issue22-emoji-xml.plist", .value(ManifestValues.emoji)),
        CorpusFile("xmlplist/dd-plist/issue30.plist", .value([[:], 0, [:]])),
        CorpusFile("xmlplist/dd-plist/issue4.plist", .value(["Device Name": "Kid\u{2019}s iPhone"])),
        CorpusFile("xmlplist/dd-plist/test-xml-utf-16be-bom.plist", .plistlib),
        // "UTF-16BE XML WITHOUT BOM (CF accepts; CPython plistlib rejects)"
        CorpusFile("xmlplist/dd-plist/test-xml-utf-16be.plist", .sameAsPlistlib(of: utfTwin)),
        CorpusFile("xmlplist/dd-plist/test-xml-utf-16le-bom.plist", .plistlib),
        CorpusFile("xmlplist/dd-plist/test-xml-utf-16le.plist", .sameAsPlistlib(of: utfTwin)),
        // plistlib cannot read UTF-32 at all, with or without a BOM.
        CorpusFile("xmlplist/dd-plist/test-xml-utf-32be-bom.plist", .sameAsPlistlib(of: utfTwin)),
        CorpusFile("xmlplist/dd-plist/test-xml-utf-32be.plist", .sameAsPlistlib(of: utfTwin)),
        CorpusFile("xmlplist/dd-plist/test-xml-utf-32le-bom.plist", .sameAsPlistlib(of: utfTwin)),
        CorpusFile("xmlplist/dd-plist/test-xml-utf-32le.plist", .sameAsPlistlib(of: utfTwin)),
        // "XML twin of test1-binary.plist"
        CorpusFile("xmlplist/dd-plist/test1.plist", .value(ManifestValues.ddPlistTest1)),
        CorpusFile("xmlplist/dd-plist/testNegative-xml.plist", .plistlib),
    ]

    static let libplist: [CorpusFile] = [
        CorpusFile("xmlplist/libplist/1.plist", .plistlib),
        CorpusFile("xmlplist/libplist/2.plist", .plistlib),
        CorpusFile("xmlplist/libplist/3.plist", .plistlib),
        CorpusFile("xmlplist/libplist/4.plist", .plistlib),
        CorpusFile("xmlplist/libplist/6.plist", .plistlib),
        CorpusFile(
            "xmlplist/libplist/7.plist",
            .facts { value in
                // dates Time1 2010-11-12T13:14:15Z, Time2 2008-07-06T05:04:03Z...
                #expect(value["Time1"] == .date(Fixtures.date("2010-11-12T13:14:15Z")))
                #expect(value["Time2"] == .date(Fixtures.date("2008-07-06T05:04:03Z")))
            }),
        CorpusFile("xmlplist/libplist/cdata.plist", .plistlib),  // "CDATA in key and string"
        CorpusFile("xmlplist/libplist/empty_keys.plist", .plistlib),  // two empty keys: the last one wins
        CorpusFile("xmlplist/libplist/entities.plist", .plistlib),  // numeric character references
        CorpusFile(
            "xmlplist/libplist/hex.plist",
            .facts { value in
                // "hex integers in XML"
                guard case .integer = value else {
                    Issue.record("not an integer: \(value)")
                    return
                }
            }),
        // dictref*/off*.bplist "must equal offxml.plist"
        CorpusFile("xmlplist/libplist/offxml.plist", .value(ManifestValues.libplistAB)),
        // order.bplist "must equal order.plist"
        CorpusFile("xmlplist/libplist/order.plist", .value(ManifestValues.libplistOrder)),
        // "signed.plist<->signed.bplist byte-exact round trip"
        CorpusFile("xmlplist/libplist/signed.plist", .value(-1)),
        // "byte-exact vs signedunsigned.plist"
        CorpusFile("xmlplist/libplist/signedunsigned.plist", .value(ManifestValues.libplistSignedUnsigned)),
        // "unsigned.plist<->unsigned.bplist byte-exact"
        CorpusFile("xmlplist/libplist/unsigned.plist", .value(.integer(PropertyListInteger(UInt64.max)))),
    ]

    static let rustPlist: [CorpusFile] = [
        CorpusFile(
            "xmlplist/rust-plist/book.plist",
            .facts { value in
                // {Title:"Great Expectations", Author:"Charles Dickens", Excerpt:...}
                #expect(value["Title"] == "Great Expectations")
                #expect(value["Author"] == "Charles Dickens")
                #expect(value["Excerpt"]?.stringValue != nil)
            }),
        CorpusFile("xmlplist/rust-plist/xml-animals.plist", .plistlib),
        CorpusFile(
            "xmlplist/rust-plist/xml.plist",
            .facts { value in
                // "XML twin of binary.plist". Not quite: only binary.plist has
                // EmptyArray and EmptyDictionary, only xml.plist HexademicalNumber
                // and Pets, and the key order differs. So the keys both files have
                // must hold the same values (11 of them); plistlib checks the rest.
                guard let entries = value.dictionaryValue, case .dictionary(let twin) = ManifestValues.rustPlistBinary else {
                    Issue.record("not a dictionary: \(value)")
                    return
                }
                let shared = twin.filter { entries[$0.key] != nil }
                #expect(shared.count == 11)
                for (key, expected) in shared {
                    #expect(PropertyListComparison.manifest.firstDifference(entries[key]!, expected, at: key) == nil)
                }
            }),
    ]

    static let swiftCorelibsFoundation: [CorpusFile] = [
        CorpusFile("xmlplist/swift-corelibs-foundation/Info.plist", .plistlib),
        CorpusFile(
            "xmlplist/swift-corelibs-foundation/Test.plist",
            .value(["Foo": "Bar", "emptyValue": "", "Baz": ["hello", "property", "lists"]])),
    ]

    static let swiftFoundation: [CorpusFile] = [
        CorpusFile("xmlplist/swift-foundation/Generic_XML_Properties.plist", .value(ManifestValues.genericXMLProperties))
    ]

    @Test func tableListsEveryFileOfTheXMLCorpus() {
        #expect(Self.files.map(\.path).sorted() == InteropCorpus.files(under: "xmlplist"))
    }

    @Test(arguments: files)
    func decodesToTheManifestValue(_ file: CorpusFile) throws {
        let decoded = try XMLPropertyListReader().read(try InteropCorpus.bytes(file.path))
        try file.check(decoded)
    }

    /// libplist's tests require CDATA, entities and dates to survive
    /// xml -> bin -> xml; this does it for every file, through our writers.
    @Test(arguments: files)
    func survivesOurXMLAndBinaryWriters(_ file: CorpusFile) throws {
        let decoded = try XMLPropertyListReader().read(try InteropCorpus.bytes(file.path))
        let viaXML = try XMLPropertyListReader().read(Data(try XMLPropertyListWriter().encode(decoded)))
        #expect(PropertyListComparison.exact.firstDifference(viaXML, decoded) == nil)
        let viaBinary = try BinaryPropertyListReader().read(Data(try BinaryPropertyListWriter().encode(decoded)))
        #expect(PropertyListComparison.exact.firstDifference(viaBinary, decoded) == nil)
    }

    /// CPython's test_appleformatting: Cocoa's XML (tabs, <data> line
    /// wrapping) must come back byte for byte.
    @Test func rewritesCocoaTestDataByteIdentically() throws {
        let original = try InteropCorpus.bytes("xmlplist/cpython-plistlib/TESTDATA_FMT_XML.plist")
        let decoded = try XMLPropertyListReader().read(original)
        let rewritten = try XMLPropertyListWriter().encode(decoded)
        #expect(rewritten == Array(original))
        if rewritten != Array(original) {
            Issue.record("rewritten:\n\(String(decoding: rewritten, as: UTF8.self))")
        }
    }
}
