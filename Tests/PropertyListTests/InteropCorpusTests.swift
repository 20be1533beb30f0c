import Foundation
import PropertyList
import TestSupport
import Testing

/// What a corpus file must decode to, as `../shared/interop/MANIFEST.md`
/// (column "expected (per upstream)") states it.
enum CorpusExpectation: Sendable {
    /// The MANIFEST states the whole value; it is transcribed by hand.
    /// Key order counts only where the MANIFEST says so.
    case value(PropertyListValue, keyOrderMatters: Bool = false)
    /// The MANIFEST states some facts (checked by the closure); the whole
    /// value must also equal CPython plistlib's reading of the file.
    case facts(@Sendable (PropertyListValue) -> Void)
    /// The MANIFEST says "equal to CPython plistlib", or states nothing:
    /// plistlib's reading of the file is the oracle.
    case plistlib
    /// plistlib cannot read this file; it must decode to plistlib's reading
    /// of the named twin file.
    case sameAsPlistlib(of: String)
}

/// One corpus file and its expectation; each is one case of a parameterised test.
struct CorpusFile: Sendable, CustomTestStringConvertible {
    /// The path under `../shared/interop`.
    var path: String
    var expectation: CorpusExpectation

    init(_ path: String, _ expectation: CorpusExpectation) {
        self.path = path
        self.expectation = expectation
    }

    var testDescription: String { path }

    /// Checks `decoded` against this file's expectation.
    func check(_ decoded: PropertyListValue) throws {
        switch expectation {
        case .value(let expected, let keyOrderMatters):
            var comparison = PropertyListComparison.manifest
            comparison.keyOrderMatters = keyOrderMatters
            #expect(comparison.firstDifference(decoded, expected) == nil)
        case .facts(let checkFacts):
            checkFacts(decoded)
            let oracle = try Fixtures.pythonPlistlib(InteropCorpus.url(path))
            #expect(PropertyListComparison.plistlib.firstDifference(decoded, oracle) == nil)
        case .plistlib:
            let oracle = try Fixtures.pythonPlistlib(InteropCorpus.url(path))
            #expect(PropertyListComparison.plistlib.firstDifference(decoded, oracle) == nil)
        case .sameAsPlistlib(let twin):
            let oracle = try Fixtures.pythonPlistlib(InteropCorpus.url(twin))
            #expect(PropertyListComparison.plistlib.firstDifference(decoded, oracle) == nil)
        }
    }
}

/// Values stated in MANIFEST.md, transcribed by hand, shared by the binary
/// and XML corpus tests (several XML files are twins of binary ones).
enum ManifestValues {
    /// CPython's `_create()` (TESTDATA_FMT_BINARY / TESTDATA_FMT_XML, made by Cocoa).
    static let cpythonTestData: PropertyListValue = {
        let gunk = Data(Array(repeating: Array("<lots of binary gunk>".utf8) + [0, 1, 2, 3], count: 10).joined())
        return [
            "aString": "Doodah",
            "aList": ["A", "B", 12, 32.5, [1, 2, 3]],
            "aFloat": 0.5,
            "anInt": 728,
            "aBigInt": .integer(PropertyListInteger(Int64.max - 43)),  // 2**63 - 44
            "aBigInt2": .integer(PropertyListInteger((UInt64(1) << 63) + 44)),  // 2**63 + 44
            "aNegativeInt": -5,
            "aNegativeBigInt": -80_000_000_000,
            "aDict": [
                "anotherString": "<hello & 'hi' there!>",
                "aUnicodeValue": "Mässig, Maß",
                "aTrueValue": true,
                "aFalseValue": false,
                "deeperDict": ["a": 17, "b": 32.5, "c": [1, 2, "text"]],
            ],
            "someData": .data(Data("<binary gunk>".utf8)),
            "someMoreData": .data(gunk),
            "nestedData": [.data(gunk)],
            "aDate": .date(Fixtures.date("2004-10-26T10:33:33Z")),
            "anEmptyDict": [:],
            "anEmptyList": [],
            "\u{C5}benraa": "That was a unicode key.",
        ]
    }()

    /// dd-plist test1-binary.plist and its XML twin test1.plist.
    static let ddPlistTest1: PropertyListValue = [
        "keyA": "valueA",
        "key&B": "value&B",
        "date": .date(Fixtures.date("2011-11-28T09:21:30Z")),
        "data": .data(Fixtures.bytes(hex: "00000004 10410820 82")),
        "array": [true, false, 87, 3.14159],
    ]

    /// dd-plist infinity-binary.plist and infinity-xml.plist.
    static let infinities: PropertyListValue = ["a": .real(.infinity), "b": .real(-.infinity)]

    /// dd-plist issue22-emoji.plist and issue22-emoji-xml.plist.
    static let emoji: PropertyListValue = ["emojiString": "Test Test, 😰❔👍👎🔥"]

    /// libplist dictref*/off*.bplist, which "must equal offxml.plist".
    static let libplistAB: PropertyListValue = ["A": "B"]

    /// libplist order.bplist, which "must equal order.plist".
    static let libplistOrder: PropertyListValue = ["test": [1, 1], "foo": [[1], ["test": "foo"], [1], [1]]]

    /// libplist signedunsigned.bplist, byte-exact with signedunsigned.plist.
    static let libplistSignedUnsigned: PropertyListValue = [
        -1,
        .integer(PropertyListInteger(UInt64.max)),
        .integer(PropertyListInteger(Int64.max)),
        .integer(PropertyListInteger(Int64.min)),
        .integer(PropertyListInteger(UInt64(9_223_372_036_854_775_808))),
    ]

    /// rust-plist binary.plist, key order as listed; xml.plist is its "XML twin".
    static let rustPlistBinary: PropertyListValue = [
        "Author": "William Shakespeare",
        "Birthdate": .date(Fixtures.date("1981-05-16T11:32:06Z")),
        "EmptyArray": [],
        "IsNotFalse": false,
        "SmallestNumber": .integer(PropertyListInteger(Int64.min)),
        "EmptyDictionary": [:],
        "Height": 1.6,
        "Lines": ["It is a tale told by an idiot,     ", "Full of sound and fury, signifying nothing."],
        "Death": 1564,
        "Blank": "",
        "BiggestNumber": .integer(PropertyListInteger(UInt64.max)),
        "IsTrue": true,
        "Data": .data(Fixtures.bytes(hex: "000000be 00000003 0000001e 000000")),
    ]

    /// swift-foundation Generic_XML_Properties.plist and its binary twin.
    static let genericXMLProperties: PropertyListValue = [
        "array1": [
            "arr0", 42, false, .date(Fixtures.date("1976-04-01T12:00:00Z")),
            .data(Fixtures.bytes(hex: "aabbccdd00112233")),
        ],
        "item1": "value1",
        "item2": "value2",
    ]
}

/// Every binary property list of `../shared/interop/bplist/` decodes to the
/// value MANIFEST.md states for it.
@Suite(.interopCorpus)
struct InteropCorpusTests {
    static let files: [CorpusFile] = bpylist2 + cpython + ddPlist + libplist + rustPlist + swiftFoundation

    static let bpylist2: [CorpusFile] = [
        CorpusFile("bplist/bpylist2/AccessibilityDefinitions.plist", .plistlib),  // "must decode equal to CPython plistlib"
        CorpusFile("bplist/bpylist2/array_empty.plist", .value([])),
        CorpusFile("bplist/bpylist2/array_long.plist", .value(arrayLong)),
        CorpusFile("bplist/bpylist2/array_short.plist", .value([1, true, 3.14, "four"])),
        CorpusFile("bplist/bpylist2/ascii_string_empty.plist", .value("")),
        CorpusFile("bplist/bpylist2/ascii_string_long.plist", .value("a relatively long string with ascii characters in it")),
        CorpusFile("bplist/bpylist2/ascii_string_short.plist", .value("yo")),
        CorpusFile("bplist/bpylist2/data_long.plist", .value(.data(Data("a relatively long string that is more than 32 characters long".utf8)))),
        CorpusFile("bplist/bpylist2/data_short.plist", .value(.data(Data("hi".utf8)))),
        CorpusFile("bplist/bpylist2/date_future.plist", .value(.date(Fixtures.date("2047-02-04T03:37:35.101460Z")))),
        CorpusFile("bplist/bpylist2/date_past.plist", .value(.date(Fixtures.date("2000-12-31T23:58:20Z")))),
        CorpusFile("bplist/bpylist2/date_recent.plist", .value(.date(Fixtures.date("2017-02-11T03:36:35.382174Z")))),
        CorpusFile("bplist/bpylist2/dict_big.plist", .value(dictBig)),
        CorpusFile("bplist/bpylist2/dict_empty.plist", .value([:])),
        CorpusFile("bplist/bpylist2/dict_nested.plist", .value(["outer": ["middle": ["inner": "value"]]])),
        CorpusFile("bplist/bpylist2/dict_small.plist", .value(["a": 1, "b": 2])),
        CorpusFile("bplist/bpylist2/false.plist", .value(false)),
        // The MANIFEST says "3.141592 (32-bit real)", but the file's only object
        // is marker 0x23 (an 8-byte real) at offset 8: bpylist2 named the
        // fixture after its test, not its encoding. The reader must report
        // what the file holds, a 64-bit real.
        CorpusFile("bplist/bpylist2/float32.plist", .value(.real(3.141592))),
        CorpusFile("bplist/bpylist2/float64.plist", .value(2.71828182845904)),
        CorpusFile("bplist/bpylist2/int16.plist", .value(9001)),
        CorpusFile("bplist/bpylist2/int32.plist", .value(80000)),
        CorpusFile("bplist/bpylist2/int64.plist", .value(5_000_000_000)),
        CorpusFile("bplist/bpylist2/int64_max.plist", .value(9_223_372_036_854_775_807)),
        CorpusFile("bplist/bpylist2/int8.plist", .value(42)),
        CorpusFile("bplist/bpylist2/negative1.plist", .value(-1)),
        CorpusFile("bplist/bpylist2/negative26.plist", .value(-26)),
        CorpusFile("bplist/bpylist2/negative_int_max.plist", .value(-9_223_372_036_854_775_807)),
        CorpusFile("bplist/bpylist2/true.plist", .value(true)),
        CorpusFile("bplist/bpylist2/utf16_string_empty.plist", .value("")),
        CorpusFile("bplist/bpylist2/utf16_string_long.plist", .value(.string(String(repeating: "☃❤✓☀★☂♞☯☢☎❄♫", count: 4)))),
        CorpusFile("bplist/bpylist2/utf16_string_short.plist", .value("☃")),
    ]

    static let arrayLong: PropertyListValue = {
        var items: [PropertyListValue] = [true, false]
        items += (0...9).map { .integer(PropertyListInteger($0)) }
        items += [-1, -2, -3.14, "four", "five", "six", "seven", [8], [[9]], "ten"]
        items += (11...20).map { .integer(PropertyListInteger($0)) }
        items += [21.22, 23, 24, 25, true]
        return .array(items)
    }()

    /// `{a..z -> 1..26, "0".."9" -> 27..36}`.
    static let dictBig: PropertyListValue = {
        let letters = "abcdefghijklmnopqrstuvwxyz".map(String.init)
        let digits = "0123456789".map(String.init)
        let entries = (letters + digits).enumerated().map { index, key in
            (key, PropertyListValue.integer(PropertyListInteger(index + 1)))
        }
        return .dictionary(.init(uniqueKeysWithValues: entries))
    }()

    static let cpython: [CorpusFile] = [
        CorpusFile("bplist/cpython-plistlib/TESTDATA_FMT_BINARY.bplist", .value(ManifestValues.cpythonTestData)),
        CorpusFile("bplist/cpython-plistlib/date_2345-06-07T08_00_00Z.bplist", .value(.date(Fixtures.date("2345-06-07T08:00:00Z")))),
        CorpusFile("bplist/cpython-plistlib/nonstandard_refs_size_24bit.bplist", .value(["a": "b"])),
    ]

    static let ddPlist: [CorpusFile] = [
        CorpusFile("bplist/dd-plist/infinity-binary.plist", .value(ManifestValues.infinities)),
        CorpusFile("bplist/dd-plist/issue16.plist", .value(.real32(2.71828))),
        CorpusFile("bplist/dd-plist/issue22-emoji.plist", .value(ManifestValues.emoji)),
        CorpusFile("bplist/dd-plist/test-gzipinputstream-issue.plist", .plistlib),
        CorpusFile("bplist/dd-plist/test1-binary.plist", .value(ManifestValues.ddPlistTest1)),
        CorpusFile("bplist/dd-plist/testNegative-bin.plist", .plistlib),
    ]

    static let libplist: [CorpusFile] = [
        CorpusFile(
            "bplist/libplist/data.bplist",
            .facts { value in
                // {"Some Data": <3.6 KB data>}
                #expect(value.dictionaryValue?.keys.elementsEqual(["Some Data"]) == true)
                guard case .data(let data)? = value["Some Data"] else {
                    Issue.record("\"Some Data\" is not data: \(value)")
                    return
                }
                #expect((3_550...3_700).contains(data.count), "about 3.6 KB")
            }),
        CorpusFile("bplist/libplist/dictref1byte.bplist", .value(ManifestValues.libplistAB)),
        CorpusFile("bplist/libplist/dictref2bytes.bplist", .value(ManifestValues.libplistAB)),
        CorpusFile("bplist/libplist/dictref3bytes.bplist", .value(ManifestValues.libplistAB)),
        CorpusFile("bplist/libplist/dictref4bytes.bplist", .value(ManifestValues.libplistAB)),
        CorpusFile("bplist/libplist/dictref5bytes.bplist", .value(ManifestValues.libplistAB)),
        CorpusFile("bplist/libplist/dictref6bytes.bplist", .value(ManifestValues.libplistAB)),
        CorpusFile("bplist/libplist/dictref7bytes.bplist", .value(ManifestValues.libplistAB)),
        CorpusFile("bplist/libplist/dictref8bytes.bplist", .value(ManifestValues.libplistAB)),
        CorpusFile("bplist/libplist/off1byte.bplist", .value(ManifestValues.libplistAB)),
        CorpusFile("bplist/libplist/off2bytes.bplist", .value(ManifestValues.libplistAB)),
        CorpusFile("bplist/libplist/off3bytes.bplist", .value(ManifestValues.libplistAB)),
        CorpusFile("bplist/libplist/off4bytes.bplist", .value(ManifestValues.libplistAB)),
        CorpusFile("bplist/libplist/off5bytes.bplist", .value(ManifestValues.libplistAB)),
        CorpusFile("bplist/libplist/off6bytes.bplist", .value(ManifestValues.libplistAB)),
        CorpusFile("bplist/libplist/off7bytes.bplist", .value(ManifestValues.libplistAB)),
        CorpusFile("bplist/libplist/off8bytes.bplist", .value(ManifestValues.libplistAB)),
        CorpusFile("bplist/libplist/order.bplist", .value(ManifestValues.libplistOrder)),
        CorpusFile("bplist/libplist/signed.bplist", .value(-1)),
        CorpusFile("bplist/libplist/signedunsigned.bplist", .value(ManifestValues.libplistSignedUnsigned)),
        CorpusFile("bplist/libplist/uid.bplist", .value(.uid(7))),
        CorpusFile("bplist/libplist/unsigned.bplist", .value(.integer(PropertyListInteger(UInt64.max)))),
    ]

    static let rustPlist: [CorpusFile] = [
        CorpusFile("bplist/rust-plist/binary.plist", .value(ManifestValues.rustPlistBinary, keyOrderMatters: true)),
        CorpusFile(
            "bplist/rust-plist/binary_three_byte_integer_offset_table.plist",
            .facts { value in
                // dict of 4; "data" -> dict of 2199 entries, first key "1838"
                #expect(value.dictionaryValue?.count == 4)
                let data = value["data"]?.dictionaryValue
                #expect(data?.count == 2199)
                #expect(data?.keys.first == "1838")
            }),
        CorpusFile("bplist/rust-plist/fuzzer_issue_20_binary_with_data_in_trailer.bplist", .value([:])),
        CorpusFile("bplist/rust-plist/fuzzer_issue_22_binary_with_byte_ref_size.bplist", .value(["Test": "1"])),
        CorpusFile(
            "bplist/rust-plist/utf16_bplist.plist",
            .facts { value in
                // name "★ or better"; longText 643 chars ending in "★". The 643 is
                // rust-plist's `str::len()`, a count of UTF-8 bytes.
                #expect(value["name"] == "★ or better")
                let longText = value["longText"]?.stringValue ?? ""
                #expect(longText.utf8.count == 643)
                #expect(longText.hasSuffix("★"))
            }),
    ]

    static let swiftFoundation: [CorpusFile] = [
        CorpusFile("bplist/swift-foundation/Generic_XML_Properties_Binary.plist", .value(ManifestValues.genericXMLProperties)),
        CorpusFile("bplist/swift-foundation/plistEmptyDictionaryBinary.bplist", .value([:])),
        CorpusFile("bplist/swift-foundation/test_uid_top_array_of_uid.bplist", .value([.uid(1)])),
    ]

    @Test func tableListsEveryFileOfTheBinaryCorpus() {
        #expect(Self.files.map(\.path).sorted() == InteropCorpus.files(under: "bplist"))
    }

    @Test(arguments: files)
    func decodesToTheManifestValue(_ file: CorpusFile) throws {
        let bytes = try InteropCorpus.bytes(file.path)
        let decoded = try BinaryPropertyListReader().read(bytes)
        try file.check(decoded)
    }

    /// Whatever we read, our writer writes and our reader reads back unchanged.
    @Test(arguments: files)
    func survivesOurBinaryWriter(_ file: CorpusFile) throws {
        let decoded = try BinaryPropertyListReader().read(try InteropCorpus.bytes(file.path))
        let rewritten = try BinaryPropertyListWriter().encode(decoded)
        let reread = try BinaryPropertyListReader().read(Data(rewritten))
        #expect(PropertyListComparison.exact.firstDifference(reread, decoded) == nil)
    }

    /// CPython's test_appleformatting: Cocoa's own bytes must come back byte for byte.
    @Test func rewritesCocoaTestDataByteIdentically() throws {
        let original = try InteropCorpus.bytes("bplist/cpython-plistlib/TESTDATA_FMT_BINARY.bplist")
        let decoded = try BinaryPropertyListReader().read(original)
        let rewritten = try BinaryPropertyListWriter().encode(decoded)
        #expect(rewritten == Array(original))
    }

    /// swift-foundation's test_5877417 reads Generic_XML_Properties_Binary.plist
    /// with its header changed to "bplist0x": any "bplist0?" version is accepted.
    @Test func acceptsAnyBplist0Version() throws {
        var bytes = try InteropCorpus.bytes("bplist/swift-foundation/Generic_XML_Properties_Binary.plist")
        bytes[7] = UInt8(ascii: "x")
        let decoded = try BinaryPropertyListReader().read(bytes)
        #expect(PropertyListComparison.manifest.firstDifference(decoded, ManifestValues.genericXMLProperties) == nil)
    }
}
