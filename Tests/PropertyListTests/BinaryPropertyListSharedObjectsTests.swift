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
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("ict-shared-\(UUID().uuidString).plist")
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
}
