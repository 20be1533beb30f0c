import Foundation
import TestSupport
import Testing

@testable import PropertyList

/// The quick read of a whole binary property list against the careful
/// decoder it falls back to: whatever the quick read returns must be what
/// the careful decoder returns for the same bytes, and where the careful
/// decoder refuses a file, the quick read must give up.
struct BinaryPropertyListQuickDecoderTests {
    /// How the two read `bytes`: nil when the scanner refuses the header or
    /// trailer (neither decoder then runs).
    private func readings(
        _ bytes: Data, limits: PropertyListLimits = .default
    ) -> (quick: PropertyListValue?, careful: Result<PropertyListValue, PropertyListError>)? {
        bytes.withUnsafeBytes { raw in
            guard let scanner = try? BinaryPropertyListScanner(raw, limits: limits) else { return nil }
            let quick = BinaryPropertyListQuickRead.value(of: scanner, limits: limits)
            let careful = Result { () throws(PropertyListError) in try BinaryPropertyListReader(limits: limits).readCarefully(scanner) }
            return (quick, careful)
        }
    }

    /// Checks the rule on `bytes`; returns whether the quick read gave a value.
    @discardableResult
    private func checkAgreement(_ bytes: Data, _ name: String, limits: PropertyListLimits = .default) -> Bool {
        guard let (quick, careful) = readings(bytes, limits: limits) else { return false }
        guard let quick else { return false }
        switch careful {
        case .success(let value):
            #expect(identical(quick, value), "\(name): the quick read and the careful decoder disagree")
        case .failure(let error):
            Issue.record("\(name): the quick read gave a value where the careful decoder refuses the file: \(error)")
        }
        return true
    }

    /// Calls `body` with each file that starts `bplist0` under `folder` of
    /// the repository, one at a time (none is kept: a test of libxml2 in
    /// this process measures its growth); returns how many there were.
    @discardableResult
    private func forEachBinaryPropertyList(under folder: String, _ body: (String, Data) -> Void) throws -> Int {
        let root = Repository.root.appendingPathComponent(folder)
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey]) else { return 0 }
        var count = 0
        for case let url as URL in walker where (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
            let data = try Data(contentsOf: url)
            guard data.starts(with: Array("bplist0".utf8)) else { continue }
            body(url.path, data)
            count += 1
        }
        return count
    }

    @Test func everyBinaryPropertyListTheTestsHoldReadsTheSameBothWays() throws {
        var files = 0
        var quick = 0
        var careful = 0
        for folder in ["Tests", "SampleDocs", "Fuzz/Corpus"] {
            files += try forEachBinaryPropertyList(under: folder) { name, data in
                if checkAgreement(data, name) { quick += 1 }
                if case .success? = readings(data)?.careful { careful += 1 }
            }
        }
        #expect(files > 1_000, "found \(files) binary property lists")
        // Most well-formed files share no container: the quick read takes them.
        #expect(quick > careful / 2, "the quick read gave \(quick) values, the careful decoder \(careful)")
    }

    @Test(.interopCorpus) func everyBinaryPropertyListOfTheInteropCorpusReadsTheSameBothWays() throws {
        var read = 0
        for path in InteropCorpus.files(under: "") {
            let data = try InteropCorpus.bytes(path)
            guard data.starts(with: Array("bplist0".utf8)) else { continue }
            if checkAgreement(data, path) { read += 1 }
        }
        #expect(read > 100, "the quick read gave \(read) values")
    }

    /// Each file holds something only the careful decoder reads or refuses:
    /// the quick read must give up, and the careful decoder's outcome stands.
    @Test(
        arguments: [
            // A shared array: object 1 referenced twice from the top array.
            ("shared container", BinaryPropertyListBytes.file(objects: [[0xA2, 1, 1], [0xA1, 2], [0x10, 7]]), true),
            // An array that holds itself.
            ("cycle", BinaryPropertyListBytes.file(objects: [[0xA1, 0]]), false),
            // The key "a" twice: CoreFoundation keeps the last value.
            ("duplicate keys", BinaryPropertyListBytes.file(objects: [[0xD2, 1, 1, 2, 3], [0x51, 0x61], [0x10, 1], [0x10, 2]]), true),
            // A key that is an integer.
            ("integer key", BinaryPropertyListBytes.file(objects: [[0xD1, 1, 1], [0x10, 1]]), false),
            // A reference to object 9 of 2.
            ("bad reference", BinaryPropertyListBytes.file(objects: [[0xA1, 9], [0x10, 1]]), false),
            // Marker 0x70, which no kind has.
            ("unknown marker", BinaryPropertyListBytes.file(objects: [[0xA1, 1], [0x70]]), false),
            // An ASCII string with a byte above 0x7F.
            ("non-ASCII byte", BinaryPropertyListBytes.file(objects: [[0x52, 0x61, 0xE9]]), false),
            // A UTF-16 string of one unpaired high surrogate.
            ("unpaired surrogate", BinaryPropertyListBytes.file(objects: [[0x61, 0xD8, 0x00]]), false),
            // An array claiming 14 references where the object area has 1.
            ("lying length", BinaryPropertyListBytes.file(objects: [[0xAE, 1], [0x10, 1]]), false),
            // A set (0xC) holding one integer: read as an array by both.
            ("set", BinaryPropertyListBytes.file(objects: [[0xC1, 1], [0x10, 1]]), nil),
        ] as [(String, Data, Bool?)])
    func theQuickReadGivesUpWhereTheCarefulDecoderMustDecide(name: String, file: Data, carefulReads: Bool?) throws {
        let (quick, careful) = try #require(readings(file))
        switch carefulReads {
        case true?:
            #expect(quick == nil, "\(name): the quick read should give up")
            #expect(throws: Never.self, "\(name)") { try careful.get() }
        case false?:
            #expect(quick == nil, "\(name): the quick read should give up")
            #expect(throws: PropertyListError.self, "\(name)") { try careful.get() }
        case nil:
            // Read by both, the same way.
            #expect(quick != nil && quick == (try? careful.get()), "\(name)")
        }
    }

    @Test func theCarefulDecoderKeepsItsAnswersForWhatTheQuickReadGivesUpOn() throws {
        // Through the public reader: the shared container is read, once per use.
        let shared = BinaryPropertyListBytes.file(objects: [[0xA2, 1, 1], [0xA1, 2], [0x10, 7]])
        #expect(try BinaryPropertyListReader().read(shared) == [[7], [7]])
        // Duplicate keys: the later value wins, as CoreFoundation keeps it.
        let duplicate = BinaryPropertyListBytes.file(objects: [[0xD2, 1, 1, 2, 3], [0x51, 0x61], [0x10, 1], [0x10, 2]])
        #expect(try BinaryPropertyListReader().read(duplicate) == ["a": 2])
        // A cycle is an error with its place.
        let cycle = BinaryPropertyListBytes.file(objects: [[0xA1, 0]])
        let error = try #require(throws: PropertyListError.self) { try BinaryPropertyListReader().read(cycle) }
        #expect(error.code == .cycle)
    }

    @Test func theLimitsAreTheCarefulDecodersToEnforce() throws {
        // Three levels of arrays, over a depth limit of 2; an array of one
        // integer three times (two objects, four values), over an object-count limit of 3.
        let nested = BinaryPropertyListBytes.file(objects: [[0xA1, 1], [0xA1, 2], [0xA1, 3], [0x10, 1]])
        let repeated = BinaryPropertyListBytes.file(objects: [[0xA3, 1, 1, 1], [0x10, 1]])
        #expect(readings(nested)?.quick == [[[1]]])
        #expect(readings(repeated)?.quick == [1, 1, 1])
        for (file, limits) in [(nested, PropertyListLimits(maximumDepth: 2)), (repeated, PropertyListLimits(maximumObjectCount: 3))] {
            let (quick, careful) = try #require(readings(file, limits: limits))
            #expect(quick == nil)
            let error = try #require(throws: PropertyListError.self) { try careful.get() }
            #expect(error.code == .limitExceeded(limits.maximumDepth == 2 ? .depth : .objectCount))
        }
    }

    @Test func stringsAndDataMetAgainAreTheSameValues() throws {
        // A long ASCII string (1), a UTF-16 string (2) and a data object (7),
        // each referenced more than once, and two dictionaries (3, 6) whose
        // keys are the same objects ("k" 4, "l" 5).
        let long = Array("a string longer than fifteen bytes".utf8)
        let file = BinaryPropertyListBytes.file(objects: [
            [0xA8, 1, 2, 3, 1, 2, 6, 7, 7],
            [0x5F, 0x10, UInt8(long.count)] + long,
            [0x62, 0x00, 0xE9, 0x00, 0x74],
            [0xD2, 4, 5, 1, 2],
            [0x51, 0x6B],
            [0x51, 0x6C],
            [0xD2, 4, 5, 2, 1],
            [0x43, 1, 2, 3],
        ])
        let text = PropertyListValue.string(String(decoding: long, as: UTF8.self))
        let bytes = PropertyListValue.data(Data([1, 2, 3]))
        let expected: PropertyListValue = [text, "ét", ["k": text, "l": "ét"], text, "ét", ["k": "ét", "l": text], bytes, bytes]
        #expect(readings(file)?.quick == expected)
        #expect(try BinaryPropertyListReader().read(file) == expected)
        #expect(checkAgreement(file, "shared strings and data"))
    }
}
