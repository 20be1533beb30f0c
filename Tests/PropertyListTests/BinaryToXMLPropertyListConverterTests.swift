import Foundation
import PropertyList
import TestSupport
import Testing

/// The streaming binary → XML conversion writes exactly what decoding then
/// writing the value does, and reports problems as the reader does.
struct BinaryToXMLPropertyListConverterTests {
    private func mapped(_ bytes: Data) throws -> MappedFile {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("ict-stream-\(UUID().uuidString).plist")
        try bytes.write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        return try MappedFile(path: url.path)  // The mapping outlives the removed name.
    }

    private func streamed(_ file: MappedFile, chunkSize: Int = 64) throws(PropertyListError) -> [UInt8] {
        var output: [UInt8] = []
        try XMLPropertyListWriter().encode(binaryPropertyList: file, chunkSize: chunkSize) { (bytes) throws(PropertyListError) in
            output.append(contentsOf: bytes)
        }
        return output
    }

    @Test(
        .interopCorpus,
        arguments: InteropCorpus.files(under: "bplist") + InteropCorpus.files(under: "keyedarchive"))
    func matchesDecodingThenWriting(_ path: String) throws {
        let data = try InteropCorpus.bytes(path)
        guard data.starts(with: Data("bplist".utf8)) else { return }  // XML keyed archives are not binary input.
        let file = try mapped(data)
        let expected: Result<[UInt8], PropertyListError> = Result { () throws(PropertyListError) in
            try XMLPropertyListWriter().encode(try BinaryPropertyListReader().read(file.bytes))
        }
        let actual: Result<[UInt8], PropertyListError> = Result { () throws(PropertyListError) in try streamed(file) }
        switch (expected, actual) {
        case (.success(let tree), .success(let stream)): #expect(stream == tree)
        case (.failure(let treeError), .failure(let streamError)): #expect(streamError.code == treeError.code)
        default: Issue.record("tree \(expected), stream \(actual)")
        }
    }

    @Test func duplicateKeysComeOutAsTheReaderReadsThem() throws {
        // {"a": 1, "b": 2, "a": 3} as written by a careless writer: the reader keeps
        // "a" first with the last value.
        var bytes = Array("bplist00".utf8)
        let objects: [[UInt8]] = [[0xD3, 1, 2, 1, 3, 4, 5], [0x51, 0x61], [0x51, 0x62], [0x10, 1], [0x10, 2], [0x10, 3]]
        var offsets: [UInt8] = []
        for object in objects { offsets.append(UInt8(bytes.count)); bytes += object }
        let table = bytes.count
        bytes += offsets
        bytes +=
            [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, UInt8(objects.count)] + [UInt8](repeating: 0, count: 8)
            + [0, 0, 0, 0, 0, 0, 0, UInt8(table)]
        let file = try mapped(Data(bytes))
        #expect(try BinaryPropertyListReader().read(file.bytes) == ["a": 3, "b": 2])
        #expect(try streamed(file) == XMLPropertyListWriter().encode(["a": 3, "b": 2]))
    }

    @Test func aCycleIsAnErrorWithItsPath() throws {
        // [{"k": <the array itself>}]
        var bytes = Array("bplist00".utf8)
        let objects: [[UInt8]] = [[0xA1, 1], [0xD1, 2, 0], [0x51, 0x6B]]
        var offsets: [UInt8] = []
        for object in objects { offsets.append(UInt8(bytes.count)); bytes += object }
        let table = bytes.count
        bytes += offsets
        bytes += [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 3] + [UInt8](repeating: 0, count: 8) + [0, 0, 0, 0, 0, 0, 0, UInt8(table)]
        let file = try mapped(Data(bytes))
        do {
            _ = try streamed(file)
            Issue.record("a cycle was written")
        } catch {
            #expect(error.code == .cycle)
            #expect(error.keyPath.description == "[0].k")
        }
    }

    @Test func aLargeValueStreamsInPiecesEqualToTheWholeDocument() throws {
        let value: PropertyListValue = .array(
            (0..<5_000).map { index in
                [
                    "name": .string("item \(index) & <more>"), "when": .date(Date(timeIntervalSinceReferenceDate: Double(index))),
                    "ratio": .real(Double(index) / 7), "blob": .data(Data(repeating: UInt8(index % 256), count: index % 100)),
                ]
            })
        let file = try mapped(Data(try BinaryPropertyListWriter().encode(value)))
        var pieces = 0
        var output: [UInt8] = []
        try XMLPropertyListWriter().encode(binaryPropertyList: file, chunkSize: 4096) { (bytes) throws(PropertyListError) in
            pieces += 1
            output.append(contentsOf: bytes)
        }
        #expect(output == (try XMLPropertyListWriter().encode(value)))
        #expect(pieces > 10)
    }
}
