import Foundation
import TestSupport
import Testing

@testable import PropertyList

/// The quick read's two outputs: the flat form written straight from a
/// binary file's object table (`BinaryPropertyListFlatSink`) must describe
/// the value the careful decoder reads from the same bytes, bytes for bytes
/// as the flat form lays it out (ictkit.h), and must give up wherever the
/// tree's quick read gives up.
struct BinaryPropertyListSinkTests {
    /// The value the flat bytes describe, read by a decoder written here from
    /// ictkit.h's description of the form (not the library's): nil for bytes
    /// that are not exactly one value.
    private func value(ofFlat flat: UnsafeRawBufferPointer) -> PropertyListValue? {
        var offset = 0
        func load<T: FixedWidthInteger>(_: T.Type) -> T? {
            guard flat.count - offset >= MemoryLayout<T>.size else { return nil }
            defer { offset += MemoryLayout<T>.size }
            return T(littleEndian: flat.loadUnaligned(fromByteOffset: offset, as: T.self))
        }
        func double() -> Double? { load(UInt64.self).map(Double.init(bitPattern:)) }
        func bytes() -> [UInt8]? {
            guard let count = load(UInt32.self).map(Int.init), flat.count - offset >= count else { return nil }
            defer { offset += count }
            return Array(flat[offset..<offset + count])
        }
        func next() -> PropertyListValue? {
            switch load(UInt8.self) {
            case 1: return bytes().flatMap { String(validating: $0, as: UTF8.self) }.map { .string($0) }
            case 2: return load(Int64.self).map { .integer(PropertyListInteger($0)) }
            case 3: return load(UInt64.self).map { .integer(PropertyListInteger($0)) }
            case 4: return double().map { .real($0) }
            case 5: return double().map { .real32(Float($0)) }
            case 6: return .bool(false)
            case 7: return .bool(true)
            case 8: return double().map { .date(Date(timeIntervalSinceReferenceDate: $0)) }
            case 9: return bytes().map { .data(Data($0)) }
            case 10: return load(UInt64.self).map { .uid($0) }
            case 11:
                guard let count = load(UInt32.self) else { return nil }
                var items: [PropertyListValue] = []
                for _ in 0..<count {
                    guard let item = next() else { return nil }
                    items.append(item)
                }
                return .array(items)
            case 12:
                guard let count = load(UInt32.self) else { return nil }
                var pairs: [(String, PropertyListValue)] = []
                for _ in 0..<count {
                    guard case .string(let key)? = next(), let item = next() else { return nil }
                    pairs.append((key, item))
                }
                return .dictionary(.init(uniqueKeysWithValues: pairs))
            default: return nil
            }
        }
        let value = next()
        return offset == flat.count ? value : nil
    }

    /// The flat form the quick read writes for `bytes`, read back, in one walk and in parts on three
    /// threads; nil when the scanner refuses the header or trailer.
    private func flatReadings(_ bytes: Data) -> (whole: PropertyListValue??, inParts: PropertyListValue??)? {
        bytes.withUnsafeBytes { raw in
            guard let scanner = try? BinaryPropertyListScanner(raw, limits: .default) else { return nil }
            func read(_ splitting: BinaryPropertyListSplitting) -> PropertyListValue?? {
                guard
                    let flat = BinaryPropertyListQuickRead.output(
                        of: scanner, into: BinaryPropertyListFlatSink.self, limits: .default, splitting: splitting)
                else { return .none }
                defer { flat.deallocate() }
                return .some(value(ofFlat: UnsafeRawBufferPointer(flat)))
            }
            return (read(.none), read(.everyContainer(threads: 3)))
        }
    }

    /// The chunks the quick read hands over for `bytes` in up to `chunkCount` chunks (libICTKitC's
    /// `ictkit_plist_read_flat_chunks`), each copied; nil when it gave up or the header is refused.
    private func chunks(_ bytes: Data, chunkCount: Int, stopAfter: Int = .max) -> [[UInt8]]? {
        bytes.withUnsafeBytes { raw in
            var chunks: [[UInt8]] = []
            let whole = try? BinaryPropertyListReader().readFlat(raw, chunkCount: chunkCount) { chunk in
                chunks.append(Array(UnsafeRawBufferPointer(chunk)))
                chunk.deallocate()
                return chunks.count < stopAfter
            }
            return whole == true ? chunks : nil
        }
    }

    /// The bytes of the one-walk flat form of `bytes`; nil when the quick read gives up.
    private func flatBytes(_ bytes: Data) -> [UInt8]? {
        bytes.withUnsafeBytes { raw in
            guard let flat = try? BinaryPropertyListReader().readFlat(raw) else { return nil }
            defer { flat.deallocate() }
            return Array(UnsafeRawBufferPointer(flat))
        }
    }

    /// The careful decoder's outcome for `bytes` (nil when the scanner refuses them).
    private func careful(_ bytes: Data) -> Result<PropertyListValue, PropertyListError>? {
        bytes.withUnsafeBytes { raw in
            guard let scanner = try? BinaryPropertyListScanner(raw, limits: .default) else { return nil }
            return Result { () throws(PropertyListError) in try BinaryPropertyListReader().readCarefully(scanner) }
        }
    }

    @Test func everyBinaryPropertyListTheTestsHoldGivesTheCarefulDecodersValueInTheFlatForm() throws {
        var files = 0
        var written = 0
        for folder in ["Tests", "SampleDocs", "Fuzz/Corpus"] {
            let root = Repository.root.appendingPathComponent(folder)
            guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey]) else { continue }
            for case let url as URL in walker where (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
                let data = try Data(contentsOf: url)
                guard data.starts(with: Array("bplist0".utf8)), let (whole, inParts) = flatReadings(data) else { continue }
                files += 1
                let quickTree = data.withUnsafeBytes { raw in
                    (try? BinaryPropertyListScanner(raw, limits: .default)).flatMap { BinaryPropertyListQuickRead.value(of: $0, limits: .default) }
                }
                // The flat form is written exactly where the tree's quick read gives a value.
                #expect((whole != nil) == (quickTree != nil), "\(url.path): the flat and the tree quick reads differ in giving up")
                for (how, reading) in [("in one walk", whole), ("in parts", inParts)] {
                    guard case .some(let flat) = reading else { continue }
                    let flatValue = try #require(flat, "\(url.path) \(how): the flat bytes are not one value")
                    switch careful(data) {
                    case .success(let value)?:
                        #expect(identical(flatValue, value), "\(url.path) \(how): the flat form and the careful decoder disagree")
                    case .failure(let error)?:
                        Issue.record("\(url.path) \(how): written flat where the careful decoder refuses the file: \(error)")
                    case nil:
                        Issue.record("\(url.path): the scanner refused the file on its second read")
                    }
                }
                // In chunks, end to end, the same bytes, given up on where the one walk gives up.
                let inChunks = chunks(data, chunkCount: 3)
                #expect(inChunks.map { Array($0.joined()) } == flatBytes(data), "\(url.path): the chunks differ from the one walk")
                if whole != nil { written += 1 }
            }
        }
        #expect(files > 1_000, "found \(files) binary property lists")
        #expect(written > files / 4, "written flat: \(written) of \(files)")
    }

    @Test func theFlatFormIsLaidOutAsIctkitHDescribesIt() throws {
        // An array (0) of: "a" (1), "ét" in UTF-16 (2), a dictionary (3) {"a": 1 (4)}, "ét" again, true (5),
        // 2.5 (6), the UID 7 (7). Expected bytes by hand: tag, then the little-endian count or payload.
        let file = BinaryPropertyListBytes.file(objects: [
            [0xA7, 1, 2, 3, 2, 5, 6, 7],
            [0x51, 0x61],
            [0x62, 0x00, 0xE9, 0x00, 0x74],
            [0xD1, 1, 4],
            [0x10, 0x01],
            [0x09],
            [0x23, 0x40, 0x04, 0, 0, 0, 0, 0, 0],
            [0x80, 0x07],
        ])
        var expected: [UInt8] = [11, 7, 0, 0, 0]
        expected += [1, 1, 0, 0, 0, 0x61]
        expected += [1, 3, 0, 0, 0, 0xC3, 0xA9, 0x74]
        expected += [12, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0x61, 2, 1, 0, 0, 0, 0, 0, 0, 0]
        expected += [1, 3, 0, 0, 0, 0xC3, 0xA9, 0x74]
        expected += [7]
        expected += [4, 0, 0, 0, 0, 0, 0, 0x04, 0x40]
        expected += [10, 7, 0, 0, 0, 0, 0, 0, 0]
        let flat = try file.withUnsafeBytes { raw in
            let written = try #require(try BinaryPropertyListReader().readFlat(raw))
            defer { written.deallocate() }
            return Array(UnsafeRawBufferPointer(written))
        }
        #expect(flat == expected)

        // In three chunks: the array's tag and count, then its members 0-1, 2-3 and 4-6 (7·i/3 for i = 0...3).
        let members: [[UInt8]] = [
            [1, 1, 0, 0, 0, 0x61], [1, 3, 0, 0, 0, 0xC3, 0xA9, 0x74],
            [12, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0x61, 2, 1, 0, 0, 0, 0, 0, 0, 0], [1, 3, 0, 0, 0, 0xC3, 0xA9, 0x74],
            [7], [4, 0, 0, 0, 0, 0, 0, 0x04, 0x40], [10, 7, 0, 0, 0, 0, 0, 0, 0],
        ]
        let expectedChunks = [[11, 7, 0, 0, 0], members[0] + members[1], members[2] + members[3], members[4] + members[5] + members[6]]
        #expect(chunks(file, chunkCount: 3) == expectedChunks)
        // More chunks than members: the whole value in one.
        #expect(chunks(file, chunkCount: 8) == [expected])
        // The handler stops the read after the first chunk: no other is handed over, and the read is not whole.
        var handed = 0
        let whole = try file.withUnsafeBytes { raw in
            try BinaryPropertyListReader().readFlat(raw, chunkCount: 3) { chunk in
                handed += 1
                chunk.deallocate()
                return false
            }
        }
        #expect(!whole && handed == 1)
    }

    @Test(
        arguments: [
            ("shared container", BinaryPropertyListBytes.file(objects: [[0xA2, 1, 1], [0xA1, 2], [0x10, 7]])),
            ("cycle", BinaryPropertyListBytes.file(objects: [[0xA1, 0]])),
            ("duplicate keys", BinaryPropertyListBytes.file(objects: [[0xD2, 1, 1, 2, 3], [0x51, 0x61], [0x10, 1], [0x10, 2]])),
            ("integer key", BinaryPropertyListBytes.file(objects: [[0xD1, 1, 1], [0x10, 1]])),
            ("bad reference", BinaryPropertyListBytes.file(objects: [[0xA1, 9], [0x10, 1]])),
            ("non-ASCII byte", BinaryPropertyListBytes.file(objects: [[0x52, 0x61, 0xE9]])),
            ("unpaired surrogate", BinaryPropertyListBytes.file(objects: [[0x61, 0xD8, 0x00]])),
            ("lying length", BinaryPropertyListBytes.file(objects: [[0xAE, 1], [0x10, 1]])),
        ] as [(String, Data)])
    func theFlatReadGivesUpWhereTheCarefulDecoderMustDecide(name: String, file: Data) throws {
        let (whole, inParts) = try #require(flatReadings(file))
        #expect(whole == nil, "\(name): written flat in one walk")
        #expect(inParts == nil, "\(name): written flat in parts")
        let flat = try file.withUnsafeBytes { raw in try BinaryPropertyListReader().readFlat(raw) }
        #expect(flat == nil, "\(name)")
        flat?.deallocate()
        for chunkCount in [1, 2] { #expect(chunks(file, chunkCount: chunkCount) == nil, "\(name): handed over whole in chunks") }
    }

    @Test func aHeaderTheReaderRefusesIsRefusedAtTheSamePlace() throws {
        let truncated = Data("bplist00".utf8) + Data([0x08])
        let read = try #require(throws: PropertyListError.self) { try PropertyListReader().read(truncated) }
        let flat = try #require(throws: PropertyListError.self) {
            try truncated.withUnsafeBytes { raw in try PropertyListReader().readFlat(raw)?.deallocate() }
        }
        #expect(flat.code == read.code && flat.location == read.location)
        // Not binary: nothing is written, and the caller reads the input itself.
        let xml = try Data("<plist><true/></plist>".utf8).withUnsafeBytes { raw in try PropertyListReader().readFlat(raw) }
        #expect(xml == nil)
    }
}
