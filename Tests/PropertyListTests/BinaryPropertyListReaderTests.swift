import Foundation
import PropertyList
import TestSupport
import Testing

/// Builds a binary property list from object bytes, with a trailer that
/// points at them; tests then break one part at a time.
private func bplist(
    objects: [[UInt8]], top: UInt64 = 0, offsetSize: UInt8 = 1, referenceSize: UInt8 = 1,
    objectCount: UInt64? = nil, tableOffset: UInt64? = nil
) -> Data {
    BinaryPropertyListBytes.file(
        objects: objects, top: top, offsetSize: offsetSize, referenceSize: referenceSize, objectCount: objectCount,
        tableOffset: tableOffset)
}

private func readError(_ data: Data, limits: PropertyListLimits = .default) -> PropertyListError? {
    do {
        _ = try BinaryPropertyListReader(limits: limits).read(data)
        return nil
    } catch {
        return error
    }
}

struct BinaryPropertyListReaderTests {
    @Test func readsScalarsOfEveryKind() throws {
        let reader = BinaryPropertyListReader()
        #expect(try reader.read(bplist(objects: [[0x09]])) == true)
        #expect(try reader.read(bplist(objects: [[0x11, 0x23, 0x29]])) == 9001)
        #expect(try reader.read(bplist(objects: [[0x13, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xE6]])) == -26)
        #expect(try reader.read(bplist(objects: [[0x22, 0x40, 0x49, 0x0F, 0xD8]])) == .real32(3.141592))
        #expect(try reader.read(bplist(objects: [[0x23, 0x3F, 0xE0, 0, 0, 0, 0, 0, 0]])) == 0.5)
        #expect(try reader.read(bplist(objects: [[0x33, 0, 0, 0, 0, 0, 0, 0, 0]])) == .date(Date(timeIntervalSinceReferenceDate: 0)))
        #expect(try reader.read(bplist(objects: [[0x42, 0x68, 0x69]])) == .data(Data("hi".utf8)))
        #expect(try reader.read(bplist(objects: [[0x52, 0x79, 0x6F]])) == "yo")
        #expect(try reader.read(bplist(objects: [[0x61, 0x26, 0x03]])) == "☃")
        #expect(try reader.read(bplist(objects: [[0x81, 0x01, 0x00]])) == .uid(256))
    }

    @Test func readsSixteenByteIntegersAsCoreFoundationWritesThem() throws {
        let above = [UInt8](repeating: 0, count: 8) + [0x80, 0, 0, 0, 0, 0, 0, 0x2B]
        #expect(try BinaryPropertyListReader().read(bplist(objects: [[0x14] + above])) == .integer(PropertyListInteger(UInt64(1) << 63 + 43)))
        let negative = [UInt8](repeating: 0xFF, count: 8) + [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFB]
        #expect(try BinaryPropertyListReader().read(bplist(objects: [[0x14] + negative])) == -5)
        let tooLarge = [0, 0, 0, 0, 0, 0, 0, 1] + [UInt8](repeating: 0, count: 8)
        #expect(readError(bplist(objects: [[0x14] + tooLarge]))?.code == .invalidValue)
    }

    @Test func readsSetsAsArraysAndSharedObjectsOnce() throws {
        // A set of two references to one string, and a dictionary using it twice.
        let data = bplist(objects: [[0xA2, 1, 2], [0xC2, 3, 3], [0xD1, 3, 3], [0x51, 0x78]])
        #expect(try BinaryPropertyListReader().read(data) == [["x", "x"], ["x": "x"]])
    }

    @Test func rejectsAMissingHeader() {
        let error = readError(Data("bplist15".utf8 + [UInt8](repeating: 0, count: 40)))
        #expect(error?.code == .unrecognizedFormat)
        #expect(error?.location == .byteOffset(0))
    }

    @Test func rejectsATrailerThatPointsPastTheFile() {
        // Offset table offset 200 in a 42-byte file.
        let error = readError(bplist(objects: [[0x09]], tableOffset: 200))
        #expect(error?.code == .invalidTrailer)
        #expect(error?.description == "byte 34: the offset table offset 200 is outside the object area 9..<10")
    }

    @Test func rejectsAnObjectCountTheTableCannotHold() {
        let error = readError(bplist(objects: [[0x09]], objectCount: UInt64.max))
        #expect(error?.code == .invalidTrailer)
        #expect(error?.location == .byteOffset(18))
    }

    @Test func rejectsZeroOffsetAndReferenceSizes() {
        #expect(readError(bplist(objects: [[0x09]], offsetSize: 0))?.code == .invalidTrailer)
        #expect(readError(bplist(objects: [[0x09]], referenceSize: 0))?.code == .invalidTrailer)
    }

    @Test func rejectsAReferenceToNoObjectWithTheKeyPath() {
        // ["ok", <reference 9>]: the second element points at a missing object.
        let error = readError(bplist(objects: [[0xA2, 1, 9], [0x52, 0x6F, 0x6B]]))
        #expect(error?.code == .invalidReference)
        #expect(error?.location == .byteOffset(10))  // The second reference byte of the array.
        #expect(error?.keyPath.description == "[1]")
    }

    @Test func rejectsAnArrayLongerThanTheFile() {
        // An array claiming 0x7FFF_FFFF elements, its length in a following 4-byte integer.
        let error = readError(bplist(objects: [[0xAF, 0x12, 0x7F, 0xFF, 0xFF, 0xFF]]))
        #expect(error?.code == .truncated)
        #expect(error?.location == .byteOffset(8))
    }

    @Test func rejectsNonASCIIBytesInAnASCIIString() {
        let error = readError(bplist(objects: [[0x52, 0x61, 0xE9]]))
        #expect(error?.code == .invalidString)
        #expect(error?.location == .byteOffset(10))
    }

    /// ASCII strings are checked eight bytes at a time: a non-ASCII byte in
    /// a whole word or in the tail is still found, at its own offset (the
    /// payload starts at byte 11, after the marker and the length's integer).
    @Test(arguments: [3, 9, 15])
    func findsANonASCIIByteAnywhereInALongASCIIString(index: Int) {
        var payload = [UInt8](repeating: 0x61, count: 16)
        payload[index] = 0x80
        let error = readError(bplist(objects: [[0x5F, 0x10, 0x10] + payload]))
        #expect(error?.code == .invalidString)
        #expect(error?.location == .byteOffset(11 + index))
    }

    @Test(arguments: [0, 1, 7, 8, 9, 15, 16, 17])
    func readsASCIIStringsOfEveryLengthAroundAWord(length: Int) throws {
        let text = "abcdefghijklmnopq".prefix(length)
        let object: [UInt8] = length < 15 ? [0x50 | UInt8(length)] + Array(text.utf8) : [0x5F, 0x10, UInt8(length)] + Array(text.utf8)
        #expect(try BinaryPropertyListReader().read(bplist(objects: [object])) == .string(String(text)))
    }

    @Test func rejectsAnUnpairedSurrogate() {
        let error = readError(bplist(objects: [[0x61, 0xD8, 0x3D]]))
        #expect(error?.code == .invalidString)
    }

    @Test func rejectsNonStringKeysWithTheirOffset() {
        let error = readError(bplist(objects: [[0xD1, 1, 1], [0x10, 0x01]]))
        #expect(error?.code == .invalidKey)
        #expect(error?.description == "byte 11: dictionary key 0 is an integer, not a string")
    }

    @Test func rejectsADateThatIsNotFinite() {
        let error = readError(bplist(objects: [[0x33, 0x7F, 0xF8, 0, 0, 0, 0, 0, 0]]))
        #expect(error?.code == .invalidValue)
    }

    @Test func rejectsACycleInsteadOfRecursingForever() {
        // An array that contains itself through a dictionary.
        let error = readError(bplist(objects: [[0xA1, 1], [0xD1, 2, 0], [0x51, 0x6B]]))
        #expect(error?.code == .cycle)
        #expect(error?.keyPath.description == "[0].k")
    }

    @Test func stopsAtTheDepthLimitByName() {
        // Ten arrays, each holding the next.
        var objects: [[UInt8]] = (0..<9).map { [0xA1, UInt8($0 + 1)] }
        objects.append([0xA0])
        let error = readError(bplist(objects: objects), limits: PropertyListLimits(maximumDepth: 4))
        #expect(error?.code == .limitExceeded(.depth))
        #expect(error?.keyPath.description == "[0][0][0][0]")
    }

    @Test func decodesSharedReferencesOnceSoDoublingBombsStayLinear() throws {
        // 40 levels, each an array holding the next level twice: 2^40 values if expanded.
        var objects: [[UInt8]] = (0..<40).map { [0xA2, UInt8($0 + 1), UInt8($0 + 1)] }
        objects.append([0x09])
        let limited = readError(bplist(objects: objects), limits: PropertyListLimits(maximumObjectCount: 1_000_000))
        #expect(limited?.code == .limitExceeded(.objectCount))
    }

    @Test func readsOneValueByPathWithoutTheRest() throws {
        // {"a": {"b": [10, 20]}, "z": <broken reference>}: the broken part is never read.
        let data = bplist(objects: [
            [0xD2, 1, 2, 3, 9], [0x51, 0x61], [0x51, 0x7A], [0xD1, 4, 5], [0x51, 0x62],
            [0xA2, 6, 7], [0x10, 10], [0x10, 20],
        ])
        let document = try BinaryPropertyListDocument(data: data)
        #expect(try document.value(at: PropertyListKeyPath(parsing: "a.b[1]")) == 20)
        #expect(try document.value(at: PropertyListKeyPath(parsing: "a.missing")) == nil)
        #expect(try document.value(at: PropertyListKeyPath(parsing: "a.b[2]")) == nil)
        #expect(throws: PropertyListError.self) { try document.value(at: PropertyListKeyPath(parsing: "a.b.c")) }
        #expect(throws: PropertyListError.self) { try document.decode() }
        // plutil's syntax: a decimal key indexes an array (as PropertyListValue.value(at:) does); not a dictionary.
        #expect(try document.value(at: PropertyListKeyPath(plutilSyntax: "a.b.1")) == 20)
        #expect(try document.value(at: PropertyListKeyPath(plutilSyntax: "a.b.2")) == nil)
        #expect(try document.value(at: PropertyListKeyPath(plutilSyntax: "a.b.-1")) == nil)
        #expect(try document.value(at: PropertyListKeyPath(plutilSyntax: "a.0")) == nil)
    }

    @Test func neverCrashesOnRandomDamage() throws {
        let value: PropertyListValue = ["list": [1, "two", 3.5, [true, .data(Data([1, 2]))]], "name": "Maß", "n": -7]
        let original = try BinaryPropertyListWriter().encode(value)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<3000 {
            var damaged = original
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let index = Int.random(in: 0..<damaged.count, using: &generator)
                damaged[index] = UInt8.random(in: 0...255, using: &generator)
            }
            if Bool.random(using: &generator) { damaged.removeLast(Int.random(in: 0..<20, using: &generator)) }
            _ = try? BinaryPropertyListReader().read(Data(damaged))
            _ = try? BinaryPropertyListDocument(data: Data(damaged)).value(at: PropertyListKeyPath(parsing: "list[3][1]"))
        }
    }

    @Test func readingAMappedFileGivesBackPassedPagesAndTheSameValue() throws {
        // About 4 MB of objects: past the 2 MB the reader keeps before releasing.
        let records: [PropertyListValue] = (0..<40_000).map { index in
            [
                "name": .string("record \(index) " + String(repeating: "x", count: index % 90)),
                "blob": .data(Data(repeating: UInt8(index % 251), count: 64)), "n": .integer(PropertyListInteger(index)),
            ]
        }
        let bytes = try BinaryPropertyListWriter().encode(.array(records))
        #expect(bytes.count > 3 << 20)
        let url = URL(fileURLWithPath: ScratchFolder.filePath("ict-mapped", extension: "plist"))
        try Data(bytes).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let file = try MappedFile(path: url.path)
        #expect(try BinaryPropertyListReader().read(file) == .array(records))
        // The released pages read back from the page cache: a second read agrees.
        #expect(try BinaryPropertyListReader().read(file.bytes) == .array(records))
    }
}
