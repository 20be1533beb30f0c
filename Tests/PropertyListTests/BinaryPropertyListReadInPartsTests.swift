import Foundation
import TestSupport
import Testing

@testable import PropertyList

/// The quick read with the top-level container's values in parts, each part
/// on a thread of its own: it must return what the one-thread walk returns,
/// and give up where that walk gives up (a container shared between parts
/// or with the top, a limit that only the parts together pass), so that the
/// careful decoder's answer stands.
struct BinaryPropertyListReadInPartsTests {
    /// How `bytes` is read: by the one-thread walk, in parts on `threads`
    /// threads (whatever the file's size), and by the careful decoder.
    private func readings(
        _ bytes: Data, threads: Int, limits: PropertyListLimits = .default
    ) -> (quick: PropertyListValue?, inParts: PropertyListValue?, careful: Result<PropertyListValue, PropertyListError>)? {
        bytes.withUnsafeBytes { raw in
            guard let scanner = try? BinaryPropertyListScanner(raw, limits: limits) else { return nil }
            let quick = BinaryPropertyListQuickRead.value(of: scanner, limits: limits)
            let inParts = BinaryPropertyListQuickRead.value(of: scanner, limits: limits, splitting: .everyContainer(threads: threads))
            let careful = Result { () throws(PropertyListError) in try BinaryPropertyListReader(limits: limits).readCarefully(scanner) }
            return (quick, inParts, careful)
        }
    }

    @Test func everyBinaryPropertyListTheTestsHoldReadsTheSameInParts() throws {
        var split = 0
        for folder in ["Tests", "SampleDocs", "Fuzz/Corpus"] {
            let root = Repository.root.appendingPathComponent(folder)
            let walker = try #require(FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey]))
            for case let url as URL in walker where (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
                let data = try Data(contentsOf: url)
                guard data.starts(with: Array("bplist0".utf8)) else { continue }
                for threads in [2, 3, 4] {
                    guard let (quick, inParts, _) = readings(data, threads: threads) else { continue }
                    switch (quick, inParts) {
                    case (nil, nil): continue
                    case (let quick?, let inParts?):
                        #expect(identical(quick, inParts), "\(url.path), \(threads) threads")
                    default:
                        Issue.record(
                            "\(url.path), \(threads) threads: one walk \(quick == nil ? "gave up" : "read it"), in parts \(inParts == nil ? "gave up" : "read it")"
                        )
                    }
                    if threads == 2, (quick?.arrayValue?.count ?? quick?.dictionaryValue?.count ?? 0) >= 2 { split += 1 }
                }
            }
        }
        // Most files' top-level container has two values or more, and so was read in parts.
        #expect(split > 500, "\(split) files read in parts")
    }

    /// Each file is read in parts, one value of the top-level container to a
    /// part: `expected` is the value, or nil where the read in parts gives up
    /// (and the careful decoder reads or refuses the file).
    @Test(
        arguments: [
            // Two parts meet array 1: a container shared between parts.
            ("shared between parts", BinaryPropertyListBytes.file(objects: [[0xA2, 1, 1], [0xA1, 2], [0x10, 7]]), nil, true),
            // The second part meets the top array again: a cycle through the top.
            ("cycle through the top", BinaryPropertyListBytes.file(objects: [[0xA2, 1, 2], [0x10, 1], [0xA1, 0]]), nil, false),
            // The third part meets the second part's array 2 inside array 3.
            ("shared deeper", BinaryPropertyListBytes.file(objects: [[0xA3, 1, 2, 3], [0x10, 1], [0xA1, 1], [0xA1, 2]]), nil, true),
            // A reference past the objects in the last part.
            ("bad reference in a part", BinaryPropertyListBytes.file(objects: [[0xA2, 1, 2], [0x10, 1], [0xA1, 9]]), nil, false),
            // Dictionary keys given twice, with their values in two parts.
            ("duplicate keys", BinaryPropertyListBytes.file(objects: [[0xD2, 1, 1, 2, 3], [0x51, 0x61], [0x10, 1], [0x10, 2]]), nil, true),
            // A string (1) and a data object (2), each in every part: decoded in each, equal.
            (
                "strings and data shared between parts",
                BinaryPropertyListBytes.file(objects: [[0xA4, 1, 2, 1, 2], [0x51, 0x61], [0x41, 0xFF]]),
                ["a", .data(Data([0xFF])), "a", .data(Data([0xFF]))] as PropertyListValue, true
            ),
            // A dictionary whose values are in three parts, one a dictionary with the same key object.
            (
                "dictionary",
                BinaryPropertyListBytes.file(objects: [
                    [0xD3, 1, 2, 3, 4, 5, 6], [0x51, 0x61], [0x51, 0x62], [0x51, 0x63], [0x10, 1], [0xD1, 1, 4], [0x22, 0x3F, 0xC0, 0, 0],
                ]),
                ["a": 1, "b": ["a": 1], "c": .real32(1.5)] as PropertyListValue, true
            ),
        ] as [(String, Data, PropertyListValue?, Bool)])
    func theReadInPartsGivesUpWhereTheOneThreadWalkDoes(name: String, file: Data, expected: PropertyListValue?, carefulReads: Bool)
        throws
    {
        for threads in [2, 3, 4] {
            let (quick, inParts, careful) = try #require(readings(file, threads: threads), "\(name)")
            #expect(inParts == expected, "\(name), \(threads) threads")
            #expect(quick == expected, "\(name), \(threads) threads: the one-thread walk")
            if carefulReads {
                #expect(throws: Never.self, "\(name)") { try careful.get() }
            } else {
                #expect(throws: PropertyListError.self, "\(name)") { try careful.get() }
            }
            if let expected { #expect(try careful.get() == expected, "\(name)") }
        }
    }

    @Test func aLimitOnlyThePartsTogetherPassIsPassed() throws {
        // Top array (1 value) of two arrays (2) of three integers each (6): 9 values.
        let file = BinaryPropertyListBytes.file(objects: [[0xA2, 1, 2], [0xA3, 3, 3, 3], [0xA3, 3, 3, 3], [0x10, 5]])
        let nine = try #require(readings(file, threads: 2, limits: PropertyListLimits(maximumObjectCount: 9)))
        #expect(nine.inParts == [[5, 5, 5], [5, 5, 5]])
        // With 8 allowed, each part alone is under the limit (the first counts 6 with the top, the second 3).
        let eight = try #require(readings(file, threads: 2, limits: PropertyListLimits(maximumObjectCount: 8)))
        #expect(eight.inParts == nil)
        #expect(eight.quick == nil)
        let error = try #require(throws: PropertyListError.self) { try eight.careful.get() }
        #expect(error.code == .limitExceeded(.objectCount))
        // The depth limit holds in every part: the top is depth 0, its arrays depth 1.
        let shallow = try #require(readings(file, threads: 2, limits: PropertyListLimits(maximumDepth: 1)))
        #expect(shallow.inParts == nil)
        #expect(readings(file, threads: 2, limits: PropertyListLimits(maximumDepth: 2))?.inParts == [[5, 5, 5], [5, 5, 5]])
    }

    /// A file of more than 1 MiB that plistlib wrote, of records that share
    /// strings across the parts, read through the public reader with up to 4
    /// threads and with one, and compared with plistlib's own reading.
    @Test func aLargeFilePlistlibWroteReadsAsPlistlibReadsIt() throws {
        let folder = try ScratchFolder.make("read-in-parts")
        defer { try? FileManager.default.removeItem(at: folder) }
        let words = ["alpha", "bravo", "café", "東京", "delta", "🙂 echo"]
        let records = (0..<7_000).map { index -> PropertyListValue in
            [
                "name": .string("record \(index): \(words[index % 6]) and \(words[(index / 6) % 6])"),
                "tag": .string(words[index % 6]),
                "count": .integer(PropertyListInteger(index * 7919)),
                "ratio": .real(Double(index) / 7),
                "thumbnail": .data(Data((0..<64).map { UInt8(truncatingIfNeeded: index &* 31 &+ $0) })),
                "frame": [.real(Double(index)), .real(2), .real(3.5), .real(-4)],
                "nested": ["visible": .bool(index.isMultiple(of: 2)), "words": .array(words.prefix(index % 6).map(PropertyListValue.string))],
            ]
        }
        let tree = PropertyListValue.dictionary(.init(uniqueKeysWithValues: records.enumerated().map { ("record-\($0.offset)", $0.element) }))
        let file = try #require(try PlistlibInteropTests.plistlibWrites([tree], as: "binary", into: folder).first)
        let bytes = try Data(contentsOf: file)
        #expect(bytes.count > 1 << 20, "plistlib wrote \(bytes.count) bytes")
        let oracle = try Fixtures.pythonPlistlib(file)
        for threads in [4, 1] {
            let value = try BinaryPropertyListReader(maximumThreadCount: threads).read(bytes)
            #expect(PropertyListComparison.plistlib.firstDifference(value, oracle) == nil, "\(threads) threads")
        }
        // In parts on 2, 3 and 4 threads, whatever the processors.
        for threads in [2, 3, 4] {
            let inParts = try #require(readings(bytes, threads: threads)?.inParts, "\(threads) threads")
            #expect(PropertyListComparison.plistlib.firstDifference(inParts, oracle) == nil, "\(threads) threads")
        }
    }

    @Test(.interopCorpus) func everyBinaryPropertyListOfTheInteropCorpusReadsTheSameInParts() throws {
        var split = 0
        for path in InteropCorpus.files(under: "") {
            let data = try InteropCorpus.bytes(path)
            guard data.starts(with: Array("bplist0".utf8)), let (quick, inParts, _) = readings(data, threads: 3) else { continue }
            switch (quick, inParts) {
            case (let quick?, let inParts?):
                #expect(identical(quick, inParts), "\(path)")
                if (quick.arrayValue?.count ?? quick.dictionaryValue?.count ?? 0) >= 2 { split += 1 }
            case (nil, nil): continue
            default: Issue.record("\(path): one walk \(quick == nil ? "gave up" : "read it"), in parts \(inParts == nil ? "gave up" : "read it")")
            }
        }
        #expect(split > 100, "\(split) files read in parts")
    }

    /// A file of more than 1 MiB whose last top-level value is wrong, read
    /// through the public reader: with up to 4 threads (in parts, the parts
    /// give up and the careful decoder speaks) the error is the one thread's,
    /// word for word.
    @Test(
        arguments: [
            // The last value holds the top array: a cycle.
            ("cycle", [UInt8]([0xA1, 0]), PropertyListError.Code.cycle),
            // The last value refers to object 9 of 3.
            ("bad reference", [UInt8]([0xA1, 9]), PropertyListError.Code.invalidReference),
        ])
    func aLargeFilesErrorIsTheSameOnEveryNumberOfThreads(name: String, lastValue: [UInt8], code: PropertyListError.Code) throws {
        // Object 0: an array of 40 references, 39 to object 1 (1.1 MB of data, shared), the last to object 2.
        let payload = 1_100_000
        let data: [UInt8] = [0x4F, 0x12] + (0..<4).reversed().map { UInt8(truncatingIfNeeded: payload >> ($0 * 8)) } + [UInt8](repeating: 0xAB, count: payload)
        let file = BinaryPropertyListBytes.file(
            objects: [[0xAF, 0x10, 40] + [UInt8](repeating: 1, count: 39) + [2], data, lastValue], offsetSize: 4)
        // Read in parts, the quick read gives up, as in one walk.
        #expect(readings(file, threads: 2)?.inParts == nil, "\(name)")
        let oneThread = try #require(throws: PropertyListError.self) { try BinaryPropertyListReader(maximumThreadCount: 1).read(file) }
        let fourThreads = try #require(throws: PropertyListError.self) { try BinaryPropertyListReader(maximumThreadCount: 4).read(file) }
        #expect(oneThread.code == code, "\(name): \(oneThread)")
        #expect(String(describing: fourThreads) == String(describing: oneThread), "\(name)")
        #expect(fourThreads.code == oneThread.code)
    }
}
