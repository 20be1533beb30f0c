import Foundation
import PropertyList
import TestSupport
import Testing

/// A binary property list whose arrays hold one another twice over, `levels`
/// objects in all, that expands to 2^levels − 1 values:
///
/// - `bplist00`, the header (bytes 0–7);
/// - object 0, the integer 1: `10 01` (bytes 8–9);
/// - objects 1 to levels − 1, each an array of two references to the object
///   before it: `A2 k−1 k−1` (3 bytes each);
/// - the offset table: one byte per object;
/// - the trailer: six zero bytes, offset and reference sizes 1, the object
///   count, the top object (the last) and the table's offset, 8 bytes each.
///
/// With 60 levels it is the 279 bytes of `SampleDocs/malformed/expansion-bomb.plist`.
func expansionBomb(levels: Int = 60) -> Data {
    precondition((2...80).contains(levels), "one-byte offsets and references")
    var bytes = Array("bplist00".utf8)
    var offsets = [UInt8(bytes.count)]
    bytes += [0x10, 0x01]
    for level in 1..<levels {
        offsets.append(UInt8(bytes.count))
        bytes += [0xA2, UInt8(level - 1), UInt8(level - 1)]
    }
    let table = bytes.count
    bytes += offsets
    func bigEndian64(_ value: Int) -> [UInt8] { (0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }
    bytes += [0, 0, 0, 0, 0, 0, 1, 1] + bigEndian64(levels) + bigEndian64(levels - 1) + bigEndian64(table)
    return Data(bytes)
}

/// Shared objects are counted in their expansion before anything is decoded
/// or written: the reader, the value-by-path reader and the streaming
/// converter all refuse a file that expands past the object-count limit,
/// and read one under it with each shared object decoded once.
struct BinaryPropertyListSharedObjectsTests {
    private func mapped(_ bytes: Data) throws -> MappedFile {
        let url = URL(fileURLWithPath: ScratchFolder.filePath("ict-shared", extension: "plist"))
        try bytes.write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        return try MappedFile(path: url.path)  // The mapping outlives the removed name.
    }

    @Test func theSampleBombIsTheGeneratedOne() throws {
        let sample = try Data(contentsOf: Repository.root.appendingPathComponent("SampleDocs/malformed/expansion-bomb.plist"))
        #expect(sample.count == 279)
        #expect(sample == expansionBomb())
    }

    @Test func readerRefusesTheBombByTheLimitsName() throws {
        let error = try #require(throws: PropertyListError.self) { try BinaryPropertyListReader().read(expansionBomb()) }
        #expect(error.code == .limitExceeded(.objectCount))
        #expect(error.message.contains("more than 32000000 values"))
        #expect(error.message.contains("maximumObjectCount"))
    }

    @Test func theErrorIsAtTheContainerWhoseCountFirstGoesOver() throws {
        // Object k expands to 2^(k+1) − 1 values: object 19 is the first over
        // 1,000,000, at its second reference; it lies at byte 8 + 2 + 3 × 18 and
        // is reached from the top (object 39) through 20 first elements.
        let limits = PropertyListLimits(maximumObjectCount: 1_000_000)
        let error = try #require(throws: PropertyListError.self) {
            try BinaryPropertyListReader(limits: limits).read(expansionBomb(levels: 40))
        }
        #expect(error.code == .limitExceeded(.objectCount))
        #expect(error.location == .byteOffset(64))
        #expect(error.keyPath.description == String(repeating: "[0]", count: 20))
    }

    @Test func theCountIsExactlyTheValuesDecoded() throws {
        // Ten levels: 2^10 − 1 = 1023 values, read at the limit, refused one below it.
        let bomb = expansionBomb(levels: 10)
        let value = try BinaryPropertyListReader(limits: PropertyListLimits(maximumObjectCount: 1023)).read(bomb)
        var expected: PropertyListValue = 1
        for _ in 1..<10 { expected = .array([expected, expected]) }
        #expect(value == expected)
        #expect(throws: PropertyListError.self) { try BinaryPropertyListReader(limits: PropertyListLimits(maximumObjectCount: 1022)).read(bomb) }
    }

    @Test func converterRefusesTheBombWithNothingWritten() throws {
        let file = try mapped(expansionBomb())
        var pieces = 0
        let error = try #require(throws: PropertyListError.self) {
            try XMLPropertyListWriter().encode(binaryPropertyList: file, chunkSize: 1) { (_) throws(PropertyListError) in pieces += 1 }
        }
        #expect(error.code == .limitExceeded(.objectCount))
        #expect(error.message.contains("maximumObjectCount"))
        #expect(pieces == 0)
    }

    @Test func converterWritesASharedValueUnderTheLimitAsTheReaderReadsIt() throws {
        let bomb = expansionBomb(levels: 10)
        var output: [UInt8] = []
        try XMLPropertyListWriter().encode(binaryPropertyList: try mapped(bomb), limits: PropertyListLimits(maximumObjectCount: 1023)) {
            (bytes) throws(PropertyListError) in output += bytes
        }
        #expect(output == (try XMLPropertyListWriter().encode(try BinaryPropertyListReader().read(bomb))))
        #expect(throws: PropertyListError.self) {
            try XMLPropertyListWriter().encode(binaryPropertyList: try mapped(bomb), limits: PropertyListLimits(maximumObjectCount: 1022)) { _ in }
        }
    }

    @Test func valueByPathCountsTheValueItReturns() throws {
        let document = try BinaryPropertyListDocument(data: expansionBomb())
        let error = try #require(throws: PropertyListError.self) { try document.value(at: [.index(1), .index(0)]) }
        #expect(error.code == .limitExceeded(.objectCount))
        #expect(error.keyPath.components.prefix(2) == [.index(1), .index(0)])
        // Deep enough down, the value is small and read, shared objects once.
        let path = PropertyListKeyPath(Array(repeating: .index(1), count: 50))
        let small = try #require(try document.value(at: path))
        let whole = try BinaryPropertyListReader().read(expansionBomb(levels: 10))
        #expect(small == whole)
    }

    @Test func aKeyThatIsAContainerIsNotDecodedOnTheWay() throws {
        // {<the 60-level bomb>: 1}: looking up a key compares string keys only.
        var bomb = [UInt8](expansionBomb())
        let objectsEnd = 8 + 2 + 3 * 59
        var bytes = Array(bomb[0..<objectsEnd])
        let dictionaryOffset = bytes.count
        bytes += [0xD1, 59, 0]  // Key: the top array; value: the integer 1.
        let table = bytes.count
        bytes += Array(bomb[objectsEnd..<(objectsEnd + 60)]) + [UInt8(dictionaryOffset)]
        bomb =
            bytes + [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 61] + [0, 0, 0, 0, 0, 0, 0, 60]
            + [0, 0, 0, 0, 0, 0, 0, UInt8(table)]
        let document = try BinaryPropertyListDocument(data: Data(bomb))
        #expect(try document.value(at: PropertyListKeyPath(parsing: "x")) == nil)
        #expect(throws: PropertyListError.self) { try BinaryPropertyListReader().read(Data(bomb)) }
    }

    /// A binary property list of `objects` (each object's bytes, one-byte
    /// references), the last one the top: the header, the objects, a
    /// one-byte offset table and the trailer.
    private func bplist(_ objects: [[UInt8]]) -> Data {
        var bytes = Array("bplist00".utf8)
        var offsets: [UInt8] = []
        for object in objects {
            offsets.append(UInt8(bytes.count))
            bytes += object
        }
        let table = bytes.count
        bytes += offsets
        bytes += [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, UInt8(objects.count)]
        bytes += [0, 0, 0, 0, 0, 0, 0, UInt8(objects.count - 1)] + [0, 0, 0, 0, 0, 0, 0, UInt8(table)]
        return Data(bytes)
    }

    @Test func dictionariesThatShareTheirKeyObjectsEachKeepTheirOwnValues() throws {
        // Objects 0 "a", 1 "b", 2…4 the integers 1, 2, 3; 5 {a: 1, b: 2}, 6 {a: 3, b: 1}
        // (the same key references as 5), 7 {b: 2, a: 3} (the same keys, the other
        // order), 8 {a: 1} (a shorter run of the same references); 9 the top array.
        let file = bplist([
            [0x51, 0x61], [0x51, 0x62], [0x10, 1], [0x10, 2], [0x10, 3],
            [0xD2, 0, 1, 2, 3], [0xD2, 0, 1, 4, 2], [0xD2, 1, 0, 3, 4], [0xD1, 0, 2],
            [0xA5, 5, 6, 7, 8, 5],
        ])
        let value = try BinaryPropertyListReader().read(file)
        let first: PropertyListValue = .dictionary(["a": 1, "b": 2])
        #expect(value == .array([first, .dictionary(["a": 3, "b": 1]), .dictionary(["b": 2, "a": 3]), .dictionary(["a": 1]), first]))
        // Keys in their file order: 7's "b" first.
        #expect(value.arrayValue?[2].dictionaryValue?.keys.elements == ["b", "a"])
        // Changing one dictionary's keys leaves the others with the same key objects as they were.
        var second = try #require(value.arrayValue?[1].dictionaryValue)
        second["c"] = 4
        second.removeValue(forKey: "a")
        #expect(value.arrayValue?[0].dictionaryValue?.keys.elements == ["a", "b"])
        #expect(value.arrayValue?[1].dictionaryValue?.keys.elements == ["a", "b"])
        #expect(second.keys.elements == ["b", "c"])
    }

    @Test func aRepeatedKeyStillKeepsItsLastValueInEveryDictionaryThatRepeatsIt() throws {
        // Objects 0 "a", 1 and 2 the integers 1 and 2; 3 and 4 both {a: 1, a: 2}
        // (the same key references twice over); 5 {a: 2}; 6 the top array.
        // CoreFoundation keeps the last value set for a repeated key.
        let file = bplist([[0x51, 0x61], [0x10, 1], [0x10, 2], [0xD2, 0, 0, 1, 2], [0xD2, 0, 0, 2, 1], [0xD1, 0, 2], [0xA3, 3, 4, 5]])
        let value = try BinaryPropertyListReader().read(file)
        #expect(value == .array([.dictionary(["a": 2]), .dictionary(["a": 1]), .dictionary(["a": 2])]))
    }

    @Test func keysReusedFromAnEarlierDictionaryCountAsValuesDecoded() throws {
        // Objects 0 "a", 1 "b", 2 the integer 1; 3 and 4 both {a: 1, b: 1}; 5 the
        // top array [3, 4]: 1 + 2 × (1 + 2 keys + 2 values) = 11 values.
        let file = bplist([[0x51, 0x61], [0x51, 0x62], [0x10, 1], [0xD2, 0, 1, 2, 2], [0xD2, 0, 1, 2, 2], [0xA2, 3, 4]])
        let inner: PropertyListValue = .dictionary(["a": 1, "b": 1])
        #expect(try BinaryPropertyListReader(limits: PropertyListLimits(maximumObjectCount: 11)).read(file) == .array([inner, inner]))
        let error = try #require(throws: PropertyListError.self) {
            try BinaryPropertyListReader(limits: PropertyListLimits(maximumObjectCount: 10)).read(file)
        }
        #expect(error.code == .limitExceeded(.objectCount))
    }
    // MARK: Expanded size (issue 38, item 5)

    /// The issue's file: 4 million references (64 × 64 × 1024, through two
    /// shared arrays) to one 64 KB data object, 256 GiB written out.
    private let issueDataBomb = BinaryPropertyListBytes.nestedSharing(
        fanOuts: [64, 64, 1024], leaf: BinaryPropertyListBytes.dataObject(count: 65536))

    @Test func theIssuesDataBombIsRefusedByTheExpandedSizeLimitsName() throws {
        #expect(issueDataBomb.count < 70_000)
        let error = try #require(throws: PropertyListError.self) { try BinaryPropertyListReader().read(issueDataBomb) }
        #expect(error.code == .limitExceeded(.expandedSize))
        #expect(error.message.contains("more than 2147483648 bytes of strings and data"))
        #expect(error.message.contains("maximumExpandedSize"))
        // Object 1 (after the 8-byte header and object 0: a 6-byte marker and
        // 64 two-byte references, so at byte 142) expands to 64 × 64 MiB:
        // its 33rd reference passes 2 GiB. It is reached as element 0 of the top.
        #expect(error.location == .byteOffset(142))
        #expect(error.keyPath.description == "[0]")
    }

    @Test func eachSharedLeafKindIsCountedInTheBytesTheFileStores() throws {
        // 3 × 4 = 12 uses of a leaf of 10 stored bytes: 120 bytes expanded.
        let leaves: [([UInt8], PropertyListValue)] = [
            (BinaryPropertyListBytes.dataObject(count: 10), .data(Data(repeating: 0x61, count: 10))),
            (BinaryPropertyListBytes.asciiStringObject(count: 10), .string(String(repeating: "a", count: 10))),
            // Five UTF-16 units, two bytes each in the file.
            (BinaryPropertyListBytes.utf16StringObject(units: 5), .string(String(repeating: "é", count: 5))),
        ]
        for (leaf, leafValue) in leaves {
            let file = BinaryPropertyListBytes.nestedSharing(fanOuts: [3, 4], leaf: leaf)
            let inner = PropertyListValue.array(Array(repeating: leafValue, count: 4))
            #expect(try BinaryPropertyListReader(limits: PropertyListLimits(maximumExpandedSize: 120)).read(file) == .array([inner, inner, inner]))
            let error = try #require(throws: PropertyListError.self) {
                try BinaryPropertyListReader(limits: PropertyListLimits(maximumExpandedSize: 119)).read(file)
            }
            #expect(error.code == .limitExceeded(.expandedSize))
        }
    }

    @Test func oneSharedStringWithNoSharedContainerIsCountedAtEachReference() throws {
        // The top array's 1000 references to one 100-byte string: 100,000
        // bytes. Nothing but the string is shared, so the quick read takes it
        // and must count it too.
        let file = BinaryPropertyListBytes.nestedSharing(fanOuts: [1000], leaf: BinaryPropertyListBytes.asciiStringObject(count: 100))
        let value = try BinaryPropertyListReader(limits: PropertyListLimits(maximumExpandedSize: 100_000)).read(file)
        #expect(value.arrayValue?.count == 1000)
        for threads in [1, 4] {
            let reader = BinaryPropertyListReader(limits: PropertyListLimits(maximumExpandedSize: 99_999), maximumThreadCount: threads)
            let error = try #require(throws: PropertyListError.self) { try reader.read(file) }
            #expect(error.code == .limitExceeded(.expandedSize))
            #expect(error.location == .byteOffset(8))  // The top array, whose count goes over.
        }
    }

    @Test func aDictionaryWhoseValuesAreOneSharedArrayIsCountedPerKey() throws {
        // 1000 keys, each the same array of 1000 references to one 4 KB
        // string: 4 × 10^9 bytes written out, from a 14 KB file. The
        // dictionary's count goes over at its 525th value (524 × 4,096,000 ≤ 2^31).
        let file = BinaryPropertyListBytes.dictionaryOfOneSharedArray(
            keyCount: 1000, fanOut: 1000, leaf: BinaryPropertyListBytes.asciiStringObject(count: 4096))
        #expect(file.count < 20_000)
        let error = try #require(throws: PropertyListError.self) { try BinaryPropertyListReader().read(file) }
        #expect(error.code == .limitExceeded(.expandedSize))
        #expect(error.location == .byteOffset(8))
        #expect(error.keyPath.components.isEmpty)
    }

    @Test func objectsThatShareTheirBytesThroughTheOffsetTableAreCountedToo() throws {
        // 100 object numbers whose offsets all point at one 1000-byte string:
        // no reference is repeated, yet 100,000 bytes are read.
        let file = BinaryPropertyListBytes.aliasedOffsets(count: 100, leaf: BinaryPropertyListBytes.asciiStringObject(count: 1000))
        #expect(try BinaryPropertyListReader(limits: PropertyListLimits(maximumExpandedSize: 100_000)).read(file).arrayValue?.count == 100)
        let error = try #require(throws: PropertyListError.self) {
            try BinaryPropertyListReader(limits: PropertyListLimits(maximumExpandedSize: 99_999)).read(file)
        }
        #expect(error.code == .limitExceeded(.expandedSize))
        #expect(error.keyPath.description == "[99]")  // The 100th element is the one over.
    }

    @Test func keysReusedFromAnEarlierDictionaryCountTheirBytesAgain() throws {
        // Objects 0 a 1000-byte key, 1 the integer 1, 2…101 each {key: 1}
        // (the same key reference), 102 the top array of the 100 dictionaries:
        // 100 × 1000 key bytes.
        var objects: [[UInt8]] = [BinaryPropertyListBytes.asciiStringObject(count: 1000), [0x10, 1]]
        for _ in 0..<100 { objects.append([0xD1, 0, 0, 0, 1]) }
        objects.append([0xAF, 0x10, 100] + (2..<102).flatMap { [UInt8(0), UInt8($0)] })
        let file = BinaryPropertyListBytes.file(objects: objects, top: 102, offsetSize: 2, referenceSize: 2)
        let read = try BinaryPropertyListReader(limits: PropertyListLimits(maximumExpandedSize: 100_000)).read(file)
        #expect(read.arrayValue?.count == 100)
        let error = try #require(throws: PropertyListError.self) {
            try BinaryPropertyListReader(limits: PropertyListLimits(maximumExpandedSize: 99_999)).read(file)
        }
        #expect(error.code == .limitExceeded(.expandedSize))
    }

    @Test func theConverterAndTheValueByPathRefuseTheDataBombWithNothingWritten() throws {
        var pieces = 0
        let error = try #require(throws: PropertyListError.self) {
            try XMLPropertyListWriter().encode(binaryPropertyList: try mapped(issueDataBomb), chunkSize: 1) { (_) throws(PropertyListError) in pieces += 1 }
        }
        #expect(error.code == .limitExceeded(.expandedSize))
        #expect(pieces == 0)
        let document = try BinaryPropertyListDocument(data: issueDataBomb)
        let byPath = try #require(throws: PropertyListError.self) { try document.value(at: [.index(0)]) }
        #expect(byPath.code == .limitExceeded(.expandedSize))
        // One level down, 1024 × 64 KB = 64 MiB is under the limit and read.
        #expect(try document.value(at: [.index(0), .index(0)])?.arrayValue?.count == 1024)
    }
}
