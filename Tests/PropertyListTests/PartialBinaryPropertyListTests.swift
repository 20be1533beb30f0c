import Foundation
import OrderedCollections
import PropertyList
import TestSupport
import Testing

/// `PartialBinaryPropertyList`: the same values as the whole-file reader,
/// object by object, reading only the bytes of the objects asked for.
struct PartialBinaryPropertyListTests {
    /// A scratch file holding `bytes`, removed with the value.
    final class ScratchFile {
        let path: String

        init(_ bytes: some DataProtocol, name: String = "plist") throws {
            path = ScratchFolder.filePath("partial", extension: name)
            try Data(bytes).write(to: URL(fileURLWithPath: path))
        }

        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    struct DepthExceeded: Error {}

    /// The whole value under object `number`, built by walking the partial reader.
    static func walk(_ plist: PartialBinaryPropertyList, _ number: Int, depth: Int = 0) throws -> PropertyListValue {
        guard depth < 64 else { throw DepthExceeded() }
        switch try plist.object(number) {
        case .bool(let flag): return .bool(flag)
        case .integer(let integer): return .integer(integer)
        case .real(let real): return .real(real)
        case .date(let seconds): return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case .data(let offset, let count): return .data(Data(try plist.bytes(at: offset, count: count)))
        case .string(let text): return .string(text)
        case .uid(let uid): return .uid(uid)
        case .array(let members): return .array(try members.map { try walk(plist, $0, depth: depth + 1) })
        case .dictionary(let keys, let values):
            var dictionary = OrderedDictionary<String, PropertyListValue>()
            for (key, value) in zip(keys, values) {
                guard case .string(let name) = try walk(plist, key, depth: depth + 1) else {
                    throw PropertyListError(.invalidKey, at: .none, "a key is not a string")
                }
                dictionary[name] = try walk(plist, value, depth: depth + 1)
            }
            return .dictionary(dictionary)
        }
    }

    /// `value` with 32-bit reals widened, as the partial reader gives them.
    static func widened(_ value: PropertyListValue) -> PropertyListValue {
        switch value {
        case .real32(let real): .real(Double(real))
        case .array(let members): .array(members.map(widened))
        case .dictionary(let dictionary): .dictionary(dictionary.mapValues(widened))
        default: value
        }
    }

    static let corpus = InteropCorpus.files(under: "bplist")

    @Test(.interopCorpus, arguments: corpus)
    func walksToTheWholeFileValue(_ relativePath: String) throws {
        let path = InteropCorpus.url(relativePath).path
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        // Files the whole-file reader refuses are covered by the malformed test below.
        guard bytes.starts(with: Array("bplist00".utf8)), let whole = try? BinaryPropertyListReader().read(bytes) else { return }
        let plist = try PartialBinaryPropertyList(path: path)
        #expect(try Self.walk(plist, plist.topObject) == Self.widened(whole), "\(relativePath)")
    }

    static let malformed = InteropCorpus.files(under: "malformed").filter { $0.hasSuffix("plist") || $0.hasSuffix(".bin") }

    /// Hostile files: a thrown `PropertyListError` or a value, never a crash;
    /// when the whole-file reader accepts the file, the same value.
    @Test(.interopCorpus, arguments: malformed)
    func malformedFilesFailCleanly(_ relativePath: String) throws {
        let path = InteropCorpus.url(relativePath).path
        let whole = try? BinaryPropertyListReader().read(Data(contentsOf: URL(fileURLWithPath: path)))
        do {
            let plist = try PartialBinaryPropertyList(path: path)
            let walked = try Self.walk(plist, plist.topObject)
            if let whole { #expect(walked == Self.widened(whole), "\(relativePath)") }
        } catch is PropertyListError {
        } catch is DepthExceeded {
        }
    }

    /// A 1 MB data object between two small strings: reading the strings and
    /// the data's place reads two 4 KB windows, not the megabyte.
    @Test func readsOnlyTheObjectsAskedFor() throws {
        var blob = [UInt8](repeating: 0, count: 1 << 20)
        for index in blob.indices { blob[index] = UInt8(truncatingIfNeeded: index &* 2_654_435_761 >> 13) }
        let value: PropertyListValue = ["name": "Ada", "blob": .data(Data(blob)), "tail": "end"]
        let file = try ScratchFile(try BinaryPropertyListWriter().encode(value))
        let plist = try PartialBinaryPropertyList(path: file.path)
        guard case .dictionary(let keys, let values) = try plist.object(plist.topObject) else {
            Issue.record("the top object is not a dictionary")
            return
        }
        var found: [String: PartialBinaryPropertyList.Object] = [:]
        for (key, value) in zip(keys, values) {
            guard case .string(let name) = try plist.object(key) else { continue }
            found[name] = try plist.object(value)
        }
        #expect(found["name"] == .string("Ada"))
        #expect(found["tail"] == .string("end"))
        guard case .data(let offset, let count)? = found["blob"] else {
            Issue.record("blob is not data")
            return
        }
        #expect(count == blob.count)
        #expect(plist.bytesRead <= 2 * PartialBinaryPropertyList.windowSize)
        #expect(try plist.bytes(at: offset, count: 16) == Array(blob.prefix(16)))
        #expect(try plist.bytes(at: offset + count - 5, count: 5) == Array(blob.suffix(5)))
        #expect(plist.bytesRead <= 4 * PartialBinaryPropertyList.windowSize)
    }

    @Test func refusesWhatIsNotABinaryPropertyList() throws {
        let xml = try ScratchFile(Array("<?xml version=\"1.0\"?><plist><true/></plist>".utf8))
        #expect { try PartialBinaryPropertyList(path: xml.path) } throws: { error in
            (error as? PropertyListError)?.code == .unrecognizedFormat && (error as? PropertyListError)?.location == .byteOffset(0)
        }
        let short = try ScratchFile(Array("bplist00".utf8) + [0x09])
        #expect { try PartialBinaryPropertyList(path: short.path) } throws: { ($0 as? PropertyListError)?.code == .truncated }
        #expect { try PartialBinaryPropertyList(path: "/nonexistent/file.plist") } throws: {
            ($0 as? PropertyListError)?.code == .io && "\($0)".contains("/nonexistent/file.plist")
        }
        #expect { try PartialBinaryPropertyList(path: FileManager.default.temporaryDirectory.path) } throws: {
            ($0 as? PropertyListError)?.code == .io && "\($0)".contains("not a regular file")
        }
    }

    /// The trailer's checks, each at the trailer byte concerned.
    @Test func refusesABadTrailerAtItsByte() throws {
        var bytes = [UInt8](try BinaryPropertyListWriter().encode(["a": 1]))
        let trailer = bytes.count - 32
        bytes[trailer + 6] = 0  // offset size 0
        let file = try ScratchFile(bytes)
        #expect { try PartialBinaryPropertyList(path: file.path) } throws: { error in
            (error as? PropertyListError)?.code == .invalidTrailer && (error as? PropertyListError)?.location == .byteOffset(trailer + 6)
        }
        var topOutside = [UInt8](try BinaryPropertyListWriter().encode(["a": 1]))
        topOutside[topOutside.count - 9] = 200  // top object 200 of 3
        let second = try ScratchFile(topOutside)
        #expect { try PartialBinaryPropertyList(path: second.path) } throws: { ($0 as? PropertyListError)?.code == .invalidTrailer }
    }

    /// A reference past the objects and a length running past the object
    /// area are errors at their byte, not reads outside the file.
    @Test func refusesReferencesAndLengthsOutsideTheFile() throws {
        // bplist00, array [obj 5] (only 2 objects), then `true`; offsets 8, 10.
        let array: [UInt8] =
            Array("bplist00".utf8) + [0xA1, 0x05, 0x09] + [0x08, 0x0A]
            + [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 2] + [0, 0, 0, 0, 0, 0, 0, 0] + [0, 0, 0, 0, 0, 0, 0, 11]
        let file = try ScratchFile(array)
        let plist = try PartialBinaryPropertyList(path: file.path)
        #expect { try plist.object(0) } throws: { error in
            (error as? PropertyListError)?.code == .invalidReference && (error as? PropertyListError)?.location == .byteOffset(9)
        }
        #expect(try plist.object(1) == .bool(true))
        #expect { try plist.object(2) } throws: { ($0 as? PropertyListError)?.code == .invalidReference }
        // A data object claiming 200 bytes in a 43-byte file.
        let data: [UInt8] =
            Array("bplist00".utf8) + [0x4F, 0x10, 200] + [0x08]
            + [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 1] + [0, 0, 0, 0, 0, 0, 0, 0] + [0, 0, 0, 0, 0, 0, 0, 11]
        let dataFile = try ScratchFile(data)
        #expect { try PartialBinaryPropertyList(path: dataFile.path).object(0) } throws: { error in
            (error as? PropertyListError)?.code == .truncated && (error as? PropertyListError)?.location == .byteOffset(8)
        }
    }

    @Test func refusesASymbolicLinkWhenAskedTo() throws {
        let file = try ScratchFile(try BinaryPropertyListWriter().encode(["a": 1]))
        let link = file.path + ".link"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: file.path)
        defer { try? FileManager.default.removeItem(atPath: link) }
        #expect(try PartialBinaryPropertyList(path: link).objectCount == 3)
        #expect { try PartialBinaryPropertyList(path: link, followingSymbolicLinks: false) } throws: { ($0 as? PropertyListError)?.code == .io }
    }
}
