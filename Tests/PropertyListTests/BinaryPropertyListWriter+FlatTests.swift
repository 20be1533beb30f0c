import Foundation
import TestSupport
import Testing

@testable import PropertyList

struct BinaryPropertyListWriterFlatTests {
    /// The flat form of the binary property list `file`, as the binary reader writes it.
    private func flat(ofBinary file: [UInt8]) throws -> [UInt8] {
        let flat = try #require(try file.withUnsafeBytes { try BinaryPropertyListReader().readFlat($0) })
        defer { flat.deallocate() }
        return Array(flat)
    }

    private func encode(flat: [UInt8]) throws -> [UInt8] {
        let written = try flat.withUnsafeBytes { try BinaryPropertyListWriter().encode(flat: $0) }
        defer { written.deallocate() }
        return Array(written)
    }

    /// The references of the top array of `file` (one byte each: fewer than 256 objects).
    private func topReferences(_ file: [UInt8]) -> [UInt8] {
        let objectCount = file[(file.count - 24)..<(file.count - 16)].reduce(0) { $0 << 8 | Int($1) }
        let marker = file[8]
        let count = Int(marker & 0x0F)
        precondition(marker >> 4 == 0xA && count < 15 && objectCount < 256, "a short top array")
        return Array(file[9..<(9 + count)])
    }

    @Test func writesTheBytesPythonsPlistlibWritesForTheSameValue() throws {
        // plistlib's binary writer numbers and uniques objects as CoreFoundation does (a dictionary, its keys,
        // then its values; a repeated string, number, date or data once, every container again), with the
        // rules ICTKit keeps where CoreFoundation differs: 1, 1.0 and true stay apart. (The Linux build of
        // CoreFoundation that Foundation and plutil use here shares far fewer objects than Apple's, so it is
        // no reference.) Here: ASCII and UTF-16 strings, a string both key and value, "é" precomposed and not,
        // counts past 15, more than 255 objects (2-byte references), more than 65,535 bytes (4-byte offsets).
        let script = #"""
            import datetime, plistlib, sys
            when = datetime.datetime(2020, 1, 2, 3, 4, 5)
            records = [{"name": f"record {i % 7}", "title": "Straße 🙂" if i % 3 else "café", "count": i % 5,
                        "big": 2**40 + i, "negative": -i, "ratio": (i % 4) / 4, "when": when, "bytes": bytes([i % 2, 1]),
                        "tags": ["name", "alpha", "z" * 20], "one": [1, 1.0, True, False]} for i in range(120)]
            value = {"records": records, "blob": b"a" * 70000, "list": list(range(20)), "name": "name",
                     "accents": ["\u00e9", "e\u0301", "\u00e9"], "u": 2**64 - 1, "uid": plistlib.UID(300)}
            sys.stdout.buffer.write(plistlib.dumps(value, fmt=plistlib.FMT_BINARY, sort_keys=False))
            """#
        let plistlib = [UInt8](try PythonScript.run(script, arguments: []))
        #expect(try encode(flat: flat(ofBinary: plistlib)) == plistlib)
    }

    @Test func writesTheBytesTheValueWriterWritesForEveryKind() throws {
        let value: PropertyListValue = [
            "string": "Mässig, Maß", "repeated": ["Mässig, Maß", "string", "string"],
            "ints": [0, -5, 255, 256, 65_536, .integer(PropertyListInteger(Int64.min)), .integer(PropertyListInteger(UInt64.max))],
            "reals": [0.5, -0.0, .real(.infinity), .real32(3.25), .real32(3.25), 0.5],
            "bools": [true, false, true],
            "date": .date(Date(timeIntervalSinceReferenceDate: 120_000_000.5)),
            "data": .data(Data([0, 1, 2, 255])), "empty": ["": .data(Data()), "also": ""],
            "uid": .uid(70_000), "uids": [.uid(70_000), .uid(0), .uid(1 << 40)],
            "nested": ["deeper": [[:], [], ["ints": [0, -5]]]],
        ]
        let written = try BinaryPropertyListWriter().encode(value)
        #expect(try encode(flat: flat(ofBinary: written)) == written)
        #expect(try BinaryPropertyListReader().read(Data(try encode(flat: flat(ofBinary: written)))) == value)
    }

    @Test func uniquesThousandsOfScalarsPastTheTablesFirstSize() throws {
        // 5,000 strings and 5,000 integers, each twice: the table starts at 1,024 slots and doubles.
        let strings = (0..<5000).map { PropertyListValue.string("string \($0)") }
        let integers = (0..<5000).map { PropertyListValue.integer(PropertyListInteger($0 * 1000)) }
        let value = PropertyListValue.array(strings + integers + strings.reversed() + integers.reversed())
        let written = try BinaryPropertyListWriter().encode(value)
        // The array and 10,000 distinct scalars (a hand count: the repeats are stored once).
        #expect(written[(written.count - 24)..<(written.count - 16)].reduce(0) { $0 << 8 | Int($1) } == 10_001)
        #expect(try encode(flat: flat(ofBinary: written)) == written)
    }

    @Test func keepsApartScalarsThatDifferInKindOrBytes() throws {
        // 1, 1.0 and true (CoreFoundation would merge the first two), 0.0 and -0.0, two NaNs of different bits,
        // and "é" precomposed and decomposed (equal Swift strings, different bytes); then 1, 0.0 and "é" again.
        let otherNaN = Double(bitPattern: 0x7FF8_0000_0000_0001)
        let written: [UInt8] = [
            0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30,  // bplist00
            0xAC, 1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 4, 8,  // An array of 12: objects 1-9, then 1, 4 and 8 again.
        ]
        let value: PropertyListValue = [1, 1.0, true, 0.0, -0.0, .real(.nan), .real(otherNaN), "\u{E9}", "e\u{301}", 1, 0.0, "\u{E9}"]
        let file = try encode(flat: flat(ofBinary: try BinaryPropertyListWriter().encode(value)))
        #expect(Array(file.prefix(21)) == written)
        let objects = Array(file[21...].prefix(2 + 9 + 1 + 9 + 9 + 9 + 9 + 3 + 5))
        #expect(
            objects
                == [0x10, 0x01] + [0x23, 0x3F, 0xF0, 0, 0, 0, 0, 0, 0] + [0x09] + [0x23, 0, 0, 0, 0, 0, 0, 0, 0]
                + [0x23, 0x80, 0, 0, 0, 0, 0, 0, 0] + [0x23, 0x7F, 0xF8, 0, 0, 0, 0, 0, 0]
                + [0x23, 0x7F, 0xF8, 0, 0, 0, 0, 0, 1] + [0x61, 0x00, 0xE9] + [0x62, 0x00, 0x65, 0x03, 0x01])
        #expect(topReferences(file) == [1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 4, 8])
    }

    @Test func aKeyMetTwiceInOneDictionaryKeepsItsFirstPlaceAndItsLastValue() throws {
        // {"a": 1, "b": 2, "a": 3} by hand (tags: DICT 12, STRING 1, INT64 2), as building the dictionary
        // gives {"a": 3, "b": 2}; the "a" of another dictionary is no repeat.
        func string(_ text: String) -> [UInt8] { [1] + le32(text.utf8.count) + Array(text.utf8) }
        func int64(_ value: Int64) -> [UInt8] { [2] + withUnsafeBytes(of: value.littleEndian) { Array($0) } }
        func le32(_ value: Int) -> [UInt8] { withUnsafeBytes(of: UInt32(value).littleEndian) { Array($0) } }
        let inner = [12] + le32(1) + string("a") + int64(4)
        let flat = [12] + le32(4) + string("a") + int64(1) + string("b") + int64(2) + string("a") + int64(3) + string("c") + inner
        let expected = try BinaryPropertyListWriter().encode(["a": 3, "b": 2, "c": ["a": 4]])
        #expect(try encode(flat: flat) == expected)
    }

    @Test func refusesMalformedFlatBytesWithTheirPlace() throws {
        // An array of 2 whose second member has tag 13, one past DICT: bytes 0-4 the array, 5 a FALSE, 6 the bad tag.
        let error = try #require(throws: PropertyListError.self) { try encode(flat: [11, 2, 0, 0, 0, 6, 13]) }
        #expect(error.code == .invalidObject)
        #expect(error.location == .byteOffset(6))
        // Ten arrays of one, each in the one before, around an empty one: the eleventh is at depth 10.
        let tooDeep: [UInt8] = Array(repeatElement([11, 1, 0, 0, 0] as [UInt8], count: 10).joined()) + [11, 0, 0, 0, 0]
        let depth = try #require(throws: PropertyListError.self) {
            try tooDeep.withUnsafeBytes { try BinaryPropertyListWriter(maximumDepth: 10).encode(flat: $0) }
        }
        #expect(depth.code == .limitExceeded(.depth))
    }
}
