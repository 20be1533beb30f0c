import Foundation
import PropertyList
import TestSupport
import Testing

/// The streaming binary → XML conversion writes exactly what decoding then
/// writing the value does, and reports problems as the reader does.
struct BinaryToXMLPropertyListConverterTests {
    private func mapped(_ bytes: Data) throws -> MappedFile {
        let url = URL(fileURLWithPath: ScratchFolder.filePath("ict-stream", extension: "plist"))
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

    /// A binary dictionary of `keys` (each its own object, raw string bytes
    /// with their marker) to the integers 0, 1, 2, …, written by hand with
    /// 2-byte offsets and 1-byte references.
    private func dictionaryFile(keys: [[UInt8]]) throws -> MappedFile {
        var bytes = Array("bplist00".utf8)
        let count = keys.count
        var objects: [[UInt8]] = [[0xDF, 0x10, UInt8(count)] + (1...count).map(UInt8.init) + (1...count).map { UInt8(count + $0) }]
        objects += keys
        objects += (0..<count).map { [0x10, UInt8($0)] }
        var offsets: [UInt8] = []
        for object in objects {
            offsets += [UInt8(bytes.count >> 8), UInt8(bytes.count & 0xFF)]
            bytes += object
        }
        let table = bytes.count
        bytes += offsets
        bytes +=
            [0, 0, 0, 0, 0, 0, 2, 1] + [0, 0, 0, 0, 0, 0, 0, UInt8(objects.count)] + [UInt8](repeating: 0, count: 8)
            + [0, 0, 0, 0, 0, 0, UInt8(table >> 8), UInt8(table & 0xFF)]
        return try mapped(Data(bytes))
    }

    @Test func aDuplicateAmongManyASCIIKeysIsFoundByItsBytes() throws {
        // 40 keys, each its own object; "key-07" written again as the 31st key.
        var names = (0..<40).map { "key-\($0 < 10 ? "0" : "")\($0)" }
        names[30] = "key-07"
        let file = try dictionaryFile(keys: names.map { [0x50 | UInt8($0.utf8.count)] + Array($0.utf8) })
        // By hand: "key-07" stays seventh (index 7) with the later value, 30; "key-30" is gone.
        let value = try BinaryPropertyListReader().read(file.bytes)
        let expectedKeys = names.enumerated().filter { $0.offset != 30 }.map(\.element)
        #expect(value.dictionaryValue?.keys.elementsEqual(expectedKeys) == true)
        for (index, name) in names.enumerated() where index != 30 {
            #expect(value[name] == .integer(PropertyListInteger(Int64(index == 7 ? 30 : index))))
        }
        #expect(try streamed(file) == XMLPropertyListWriter().encode(value))
        // Without the duplicate, all 40, in order.
        let distinct = (0..<40).map { "key-\($0 < 10 ? "0" : "")\($0)" }
        let plain = try dictionaryFile(keys: distinct.map { [0x50 | UInt8($0.utf8.count)] + Array($0.utf8) })
        #expect(try BinaryPropertyListReader().read(plain.bytes).dictionaryValue?.keys.elementsEqual(distinct) == true)
        // Reversed (not sorted, so through the table), all 40; with two equal neighbours, 39.
        let reversed = try dictionaryFile(keys: distinct.reversed().map { [0x50 | UInt8($0.utf8.count)] + Array($0.utf8) })
        #expect(try BinaryPropertyListReader().read(reversed.bytes).dictionaryValue?.keys.elementsEqual(distinct.reversed()) == true)
        #expect(try streamed(reversed) == XMLPropertyListWriter().encode(BinaryPropertyListReader().read(reversed.bytes)))
        var neighbours = distinct
        neighbours[6] = "key-05"
        let twice = try dictionaryFile(keys: neighbours.map { [0x50 | UInt8($0.utf8.count)] + Array($0.utf8) })
        let read = try BinaryPropertyListReader().read(twice.bytes)
        #expect(read.dictionaryValue?.count == 39)
        #expect(read["key-05"] == .integer(6))
        #expect(try streamed(twice) == XMLPropertyListWriter().encode(read))
    }

    @Test func aDuplicateAmongFewSortedASCIIKeysIsFound() throws {
        // Few keys in sorted order take a one-pass path; equal neighbours, a key that is a prefix of the
        // next and a key of 20 bytes (its length in a following integer) must still come out as by hand.
        func ascii(_ key: String) -> [UInt8] {
            key.utf8.count < 15 ? [0x50 | UInt8(key.utf8.count)] + Array(key.utf8) : [0x5F, 0x10, UInt8(key.utf8.count)] + Array(key.utf8)
        }
        let long = "a-key-of-twenty-byte"
        let distinct = ["a", "ab", long, "b"]
        let plain = try dictionaryFile(keys: distinct.map(ascii))
        #expect(try BinaryPropertyListReader().read(plain.bytes) == ["a": 0, "ab": 1, long: 2, "b": 3])
        // "b" twice at the end: three keys, "b" with the later value, 4.
        let twiceAtTheEnd = try dictionaryFile(keys: (distinct + ["b"]).map(ascii))
        let read = try BinaryPropertyListReader().read(twiceAtTheEnd.bytes)
        #expect(read.dictionaryValue?.keys.elementsEqual(distinct) == true)
        #expect(read["b"] == .integer(4))
        #expect(try streamed(twiceAtTheEnd) == XMLPropertyListWriter().encode(read))
        // The long key twice, side by side: it keeps its place with the later value, 3.
        let longTwice = try dictionaryFile(keys: ["a", long, long, "b"].map(ascii))
        let readLong = try BinaryPropertyListReader().read(longTwice.bytes)
        #expect(readLong.dictionaryValue?.keys.elementsEqual(["a", long, "b"]) == true)
        #expect(readLong[long] == .integer(2))
        #expect(readLong["b"] == .integer(3))
    }

    @Test func fewKeysOutOfOrderAreWrittenAsTheReaderReadsThem() throws {
        // Keys in hash order, as CoreFoundation writes them: distinct ones in their order; a key
        // given twice keeps its first place and its last value (by hand: "b" first, 2).
        func ascii(_ key: String) -> [UInt8] { [0x50 | UInt8(key.utf8.count)] + Array(key.utf8) }
        let distinct = try dictionaryFile(keys: ["c&d", "a", "<b>"].map(ascii))
        #expect(try BinaryPropertyListReader().read(distinct.bytes).dictionaryValue?.keys.elementsEqual(["c&d", "a", "<b>"]) == true)
        #expect(
            String(decoding: try streamed(distinct), as: UTF8.self).contains(
                "<dict>\n\t<key>c&amp;d</key>\n\t<integer>0</integer>\n\t<key>a</key>\n\t<integer>1</integer>\n"
                    + "\t<key>&lt;b&gt;</key>\n\t<integer>2</integer>\n</dict>"))
        let twice = try dictionaryFile(keys: ["b", "a", "b"].map(ascii))
        let read = try BinaryPropertyListReader().read(twice.bytes)
        #expect(read.dictionaryValue?.keys.elementsEqual(["b", "a"]) == true)
        #expect(read["b"] == .integer(2))
        #expect(try streamed(twice) == XMLPropertyListWriter().encode(read))
    }

    @Test func theKelvinSignAmongManyKeysIsTheLetterKAsSwiftComparesThem() throws {
        // 20 keys: "a0"…"a18" in ASCII, then U+212A KELVIN SIGN as UTF-16, after an ASCII "K" (key 0):
        // canonically equivalent, so one key, "K", with the last value (19).
        var keys: [[UInt8]] = [[0x51, UInt8(ascii: "K")]]
        keys += (1..<19).map { index in
            let name = Array("a\(index)".utf8); return [0x50 | UInt8(name.count)] + name
        }
        keys.append([0x61, 0x21, 0x2A])
        let file = try dictionaryFile(keys: keys)
        let value = try BinaryPropertyListReader().read(file.bytes)
        #expect(value.dictionaryValue?.count == 19)
        #expect(value.dictionaryValue?["K"] == .integer(19))
        #expect(try streamed(file) == XMLPropertyListWriter().encode(value))
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

    /// A binary property list of `objects` (object 0 on top), with 1-byte
    /// offsets and references, mapped.
    private func smallFile(_ objects: [[UInt8]]) throws -> MappedFile {
        try mapped(BinaryPropertyListBytes.file(objects: objects))
    }

    /// The conversion's error and the reader's for the same file.
    private func errors(_ file: MappedFile) -> (converted: PropertyListError?, read: PropertyListError?) {
        var converted: PropertyListError?
        do { _ = try streamed(file) } catch { converted = error }
        var read: PropertyListError?
        do { _ = try BinaryPropertyListReader().read(file.bytes) } catch { read = error }
        return (converted, read)
    }

    @Test func anErrorUnderKeysWrittenFromTheFileHasTheReadersPath() throws {
        // {"a": {"b": [1, "\u{80}"]}}: ASCII keys in order, written straight
        // from the file; the bad string's path is made from their objects.
        let file = try smallFile([
            [0xD1, 1, 2], [0x51, 0x61], [0xD1, 3, 4], [0x51, 0x62], [0xA2, 5, 6], [0x10, 1], [0x51, 0x80],
        ])
        let (converted, read) = errors(file)
        #expect(converted?.code == .invalidString)
        #expect(converted?.keyPath.description == "a.b[1]")
        #expect(converted?.location == read?.location)
        #expect(converted?.keyPath == read?.keyPath)
    }

    @Test func aKeyStoredAsASCIIWithAByteOver127IsTheReadersError() throws {
        // {"a": 1, "\u{C3}b": 2}: the second key's bytes are not ASCII.
        let file = try smallFile([[0xD2, 1, 2, 3, 4], [0x51, 0x61], [0x52, 0xC3, 0x62], [0x10, 1], [0x10, 2]])
        let (converted, read) = errors(file)
        #expect(converted?.code == .invalidString)
        #expect(converted?.location == .byteOffset(8 + 5 + 2 + 1))
        #expect(converted?.location == read?.location)
        #expect(converted?.keyPath == read?.keyPath)
    }

    @Test func aBadValueGivenUpForALaterOneOfTheSameKeyIsRefusedAsTheReaderRefusesIt() throws {
        // {"a": <a real cut short>, "b": 1, "a": 2}: the reader reads every value, the first "a"'s too, and
        // refuses the file; the conversion, which writes "a" with 2, must refuse it as well (the fuzzer's find).
        let file = try smallFile([[0xD3, 1, 2, 1, 5, 3, 4], [0x51, 0x61], [0x51, 0x62], [0x10, 1], [0x10, 2], [0x23]])
        let (converted, read) = errors(file)
        #expect(read?.code == .truncated)
        #expect(converted?.code == read?.code)
        #expect(converted?.location == read?.location)
    }

    @Test func aDateXMLCannotCarryIsRefusedWithItsPath() throws {
        // {"a": {"when": 1e300 seconds from 2001}}: read, but too far away to write.
        var seconds = Array(withUnsafeBytes(of: (1e300 as Double).bitPattern.bigEndian) { Array($0) })
        seconds.insert(0x33, at: 0)
        let file = try smallFile([[0xD1, 1, 2], [0x51, 0x61], [0xD1, 3, 4], [0x54] + Array("when".utf8), seconds])
        let value = try BinaryPropertyListReader().read(file.bytes)
        var written: PropertyListError?
        do { _ = try XMLPropertyListWriter().encode(value) } catch { written = error }
        var converted: PropertyListError?
        do { _ = try streamed(file) } catch { converted = error }
        #expect(converted?.code == .unsupportedValue)
        #expect(converted?.keyPath.description == "a.when")
        #expect(converted?.keyPath == written?.keyPath)
        #expect(converted?.message == written?.message)
    }

    @Test func keysAndStringsNeedingEscapesAreEscapedWhereverTheyFall() throws {
        // Each of & < > at each position of a 19-byte text (the escaping looks
        // at eight bytes at a time), as a key and as a string, in ascending key order.
        var entries: [(key: String, value: String)] = []
        for (n, special) in ["&", "<", ">"].enumerated() {
            for position in 0..<19 {
                var characters = Array("\(n)-\(position < 10 ? "0" : "")\(position)-abcdefghijklmnop")
                characters[position] = Character(special)
                entries.append((String(characters), String(characters.reversed())))
            }
        }
        entries.sort { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }
        // Apple's prologue, as plutil writes it.
        var expected = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>

            """
        func escaped(_ text: String) -> String {
            text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
                .replacingOccurrences(of: ">", with: "&gt;")
        }
        for entry in entries {
            expected += "\t<key>\(escaped(entry.key))</key>\n\t<string>\(escaped(entry.value))</string>\n"
        }
        expected += "</dict>\n</plist>\n"
        let value = PropertyListValue.dictionary(.init(uniqueKeysWithValues: entries.map { ($0.key, .string($0.value)) }))
        let file = try mapped(Data(try BinaryPropertyListWriter().encode(value)))
        #expect(String(decoding: try streamed(file), as: UTF8.self) == expected)
        #expect(String(decoding: try XMLPropertyListWriter().encode(value), as: UTF8.self) == expected)
    }
}
