import Foundation
import Testing

@testable import PropertyList

struct BinaryPropertyListWriterTests {
    private func encode(_ value: PropertyListValue) throws -> [UInt8] {
        try BinaryPropertyListWriter().encode(value)
    }

    /// The bytes between the header and the offset table.
    private func objectBytes(_ file: [UInt8]) -> ArraySlice<UInt8> {
        let tableOffset = file.suffix(8).reduce(0) { $0 << 8 | Int($1) }
        return file[8..<tableOffset]
    }

    @Test func writesTheSmallestIntegerEncodingCoreFoundationUses() throws {
        #expect(objectBytes(try encode(0)) == [0x10, 0x00])
        #expect(objectBytes(try encode(255)) == [0x10, 0xFF])
        #expect(objectBytes(try encode(256)) == [0x11, 0x01, 0x00])
        #expect(objectBytes(try encode(65_536)) == [0x12, 0x00, 0x01, 0x00, 0x00])
        #expect(objectBytes(try encode(4_294_967_296)) == [0x13, 0, 0, 0, 1, 0, 0, 0, 0])
        #expect(objectBytes(try encode(-1)) == [0x13, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
    }

    @Test func writesIntegersAboveInt64MaxAsSixteenBytes() throws {
        let bytes = Array(objectBytes(try encode(.integer(PropertyListInteger(UInt64.max)))))
        #expect(bytes == [0x14] + [UInt8](repeating: 0, count: 8) + [UInt8](repeating: 0xFF, count: 8))
    }

    @Test func storesRepeatedScalarsOnceButContainersEachTime() throws {
        let value: PropertyListValue = ["a": "x", "b": "x", "c": [], "d": []]
        let file = try encode(value)
        // dict, 4 keys, "x" once, two empty arrays = 8 objects.
        let objectCount = file[(file.count - 24)..<(file.count - 16)].reduce(0) { $0 << 8 | Int($1) }
        #expect(objectCount == 8)
        #expect(try BinaryPropertyListReader().read(Data(file)) == value)
    }

    @Test func keepsIntegerAndRealApartWhereCoreFoundationWouldMergeThem() throws {
        let value: PropertyListValue = [1, 1.0, .real32(1), true]
        #expect(try BinaryPropertyListReader().read(Data(try encode(value))) == value)
    }

    @Test func writesNonASCIIStringsAsUTF16WithSurrogatePairs() throws {
        let bytes = objectBytes(try encode("é😰"))
        #expect(bytes == [0x63, 0x00, 0xE9, 0xD8, 0x3D, 0xDE, 0x30])
    }

    @Test func writesLongLengthsAsAFollowingInteger() throws {
        let text = String(repeating: "z", count: 15)
        let bytes = objectBytes(try encode(.string(text)))
        #expect(Array(bytes.prefix(3)) == [0x5F, 0x10, 0x0F])
    }

    @Test func widensReferencesPastTwoHundredFiftyFiveObjects() throws {
        let value = PropertyListValue.array((0..<300).map { .integer(PropertyListInteger($0)) })
        let file = try encode(value)
        #expect(file[file.count - 25] == 2)  // Reference size in the trailer.
        #expect(try BinaryPropertyListReader().read(Data(file)) == value)
    }

    @Test func refusesNestingDeeperThanTheLimit() throws {
        var value: PropertyListValue = []
        for _ in 0..<10 { value = [value] }
        #expect(throws: PropertyListError.self) { try BinaryPropertyListWriter(maximumDepth: 5).encode(value) }
        do {
            _ = try BinaryPropertyListWriter(maximumDepth: 5).encode(value)
        } catch {
            #expect(error.code == .limitExceeded(.depth))
            #expect(error.keyPath.description == "[0][0][0][0][0]")
        }
    }

    @Test func roundTripsEveryKindOfValue() throws {
        let value: PropertyListValue = [
            "string": "Mässig, Maß",
            "ints": [0, -5, .integer(PropertyListInteger(Int64.min)), .integer(PropertyListInteger(UInt64.max))],
            "reals": [0.5, -0.0, .real(.infinity), .real32(3.25)],
            "bools": [true, false],
            "date": .date(Date(timeIntervalSinceReferenceDate: 120_000_000.5)),
            "data": .data(Data([0, 1, 2, 255])),
            "uid": .uid(70_000),
            "nested": ["deeper": [[:], []]],
        ]
        #expect(try BinaryPropertyListReader().read(Data(try encode(value))) == value)
    }

    @Test func aDataValueHeldAMillionTimesIsWrittenAndReservedForOnce() throws {
        // Issue 38, item 5: one 64 KB data value at each of 1,000,000 places
        // made the writer reserve 64 GB and abort. Stored once, the file is
        // the header (8), the array (a 6-byte marker and 1,000,000 one-byte
        // references), the data (a 6-byte marker and 65,536 bytes), a table
        // of two 4-byte offsets and the 32-byte trailer: 1,065,596 bytes.
        let data = Data(repeating: 0x61, count: 65536)
        let value = PropertyListValue.array(Array(repeating: .data(data), count: 1_000_000))
        let bytes = try BinaryPropertyListWriter().encode(value)
        #expect(bytes.count == 8 + 6 + 1_000_000 + 6 + 65536 + 2 * 4 + 32)
        // Read back (past the expanded-size limit, 64 GB, on purpose): the
        // elements are one value, so comparing two of them says nothing more.
        let read = try BinaryPropertyListReader(limits: PropertyListLimits(maximumExpandedSize: .max)).read(Data(bytes)).arrayValue
        #expect(read?.count == 1_000_000)
        #expect(read?.last == .data(data))
    }
}
