import Foundation
import PropertyList
import TestSupport
import Testing

/// UTF-16 strings (marker 0x6) of every kind of character and of lengths on
/// both sides of the 341 units that the reader transcodes on the stack, as
/// plistlib writes them; unpaired surrogates refused at the unit that is
/// wrong; ASCII strings (marker 0x5) of every length up to 40, and a byte
/// above 0x7F refused at its place. Offsets are counted by hand from the bytes.
@Suite struct BinaryPropertyListStringTests {
    /// One character of each UTF-8 length (1 to 4 bytes; the last a
    /// surrogate pair in UTF-16), and two of them side by side.
    static let pieces = ["a", " ", "é", "ж", "中", "€", "\u{FFFD}", "😀", "𝄞", "é中", "😀a"]

    /// Strings of `units` UTF-16 units made from `pieces`, starting at piece `first`.
    static func string(units: Int, first: Int) -> String {
        var text = ""
        var count = 0
        var index = first
        while count < units {
            let piece = pieces[index % pieces.count]
            let pieceUnits = piece.utf16.count
            if count + pieceUnits > units {
                text += "z"
                count += 1
            } else {
                text += piece
                count += pieceUnits
            }
            index += 1
        }
        return text
    }

    @Test func readsTheUTF16StringsPlistlibWritesAtEveryLength() throws {
        // Lengths in units around the stack buffer's limit (341), and long ones.
        let lengths = Array(1...24) + [339, 340, 341, 342, 343, 1_000, 4_096, 30_000]
        var strings: [String] = []
        for length in lengths {
            for first in 0..<Self.pieces.count {
                // plistlib writes an all-ASCII string as ASCII (0x5): each string here has one non-ASCII character.
                let text = "é" + Self.string(units: length, first: first).dropFirst()
                strings.append(String(text))
            }
        }
        let folder = try PlistlibInteropTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let files = try PlistlibInteropTests.plistlibWrites([.array(strings.map(PropertyListValue.string))], as: "binary", into: folder)
        let bytes = try Data(contentsOf: files[0])
        // Every string is a UTF-16 object (marker 0x6) in plistlib's file.
        #expect(try readObjectKinds(bytes).filter { $0 == 0x6 }.count == Set(strings).count)
        let decoded = try BinaryPropertyListReader().read(bytes)
        guard case .array(let items) = decoded else {
            Issue.record("not an array: \(decoded)")
            return
        }
        #expect(items.count == strings.count)
        for (item, expected) in zip(items, strings) where item != .string(expected) {
            Issue.record("\(expected.utf16.count) units: read \(item.stringValue.map { String($0.prefix(40)) } ?? "\(item)")")
        }
    }

    @Test func readsAUTF16StringOfASCIICharactersAsTheSameString() throws {
        // Another writer may write an ASCII string as UTF-16; it reads as the same string.
        let data = BinaryPropertyListBytes.file(objects: [[0x63, 0x00, 0x61, 0x00, 0x62, 0x00, 0x63]])
        let value = try BinaryPropertyListReader().read(data)
        #expect(value == "abc")
        #expect(value.stringValue?.utf8.count == 3)
    }

    @Test func refusesAnUnpairedSurrogateAtTheUnitThatIsWrong() {
        // Object 0 starts at byte 8: its marker, then units from byte 9, two bytes each.
        let cases: [(String, [UInt8], Int)] = [
            ("a high surrogate followed by a letter", [0x63, 0x00, 0x61, 0xD8, 0x3D, 0x00, 0x62], 11),
            ("a lone low surrogate", [0x62, 0x00, 0x61, 0xDC, 0x00], 11),
            ("a high surrogate at the end", [0x62, 0x00, 0x61, 0xD8, 0x00], 11),
            ("a high surrogate followed by another", [0x62, 0xD8, 0x3D, 0xD8, 0x3D], 9),
        ]
        for (name, object, offset) in cases {
            let data = BinaryPropertyListBytes.file(objects: [object])
            let error = readError(data)
            #expect(error?.code == .invalidString, "\(name)")
            #expect(error?.location == .byteOffset(offset), "\(name)")
        }
    }

    @Test func refusesAnUnpairedSurrogateFarIntoALongString() {
        // 600 units (past the stack buffer): "é" then a lone low surrogate at unit 500, then "e"s.
        var units = [UInt16](repeating: 0x65, count: 600)
        units[0] = 0xE9
        units[500] = 0xDC01
        // Marker 0x6F, then a length of 600 as a 2-byte integer (0x11 0x02 0x58): units from byte 8 + 4 = 12.
        let object: [UInt8] = [0x6F, 0x11, 0x02, 0x58] + units.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        let error = readError(BinaryPropertyListBytes.file(objects: [object], offsetSize: 2))
        #expect(error?.code == .invalidString)
        #expect(error?.location == .byteOffset(12 + 2 * 500))
        #expect(error?.message == "unpaired UTF-16 surrogate in the string at byte 8")
    }

    @Test func thePartialReaderReadsAndRefusesUTF16StringsAsTheWholeFileReaderDoes() throws {
        // Object 0: "é中😀" (units E9, 4E2D, D83D DE00); object 1: "a" then a lone high surrogate.
        let good: [UInt8] = [0x64, 0x00, 0xE9, 0x4E, 0x2D, 0xD8, 0x3D, 0xDE, 0x00]
        let bad: [UInt8] = [0x62, 0x00, 0x61, 0xD8, 0x3D]
        let file = try PartialBinaryPropertyListTests.ScratchFile(BinaryPropertyListBytes.file(objects: [good, bad]))
        let plist = try PartialBinaryPropertyList(path: file.path)
        #expect(try plist.object(0) == .string("é中😀"))
        // Object 1 starts at byte 8 + 9 = 17; its second unit at 17 + 1 + 2 = 20.
        #expect { try plist.object(1) } throws: { error in
            let error = error as? PropertyListError
            return error?.code == .invalidString && error?.location == .byteOffset(20)
                && error?.message == "unpaired UTF-16 surrogate in the string at byte 17"
        }
    }

    /// An ASCII string object of `bytes`: its marker (and length integer from 15 bytes), then the bytes.
    static func asciiObject(_ bytes: [UInt8]) -> [UInt8] {
        bytes.count < 15 ? [0x50 | UInt8(bytes.count)] + bytes : [0x5F, 0x10, UInt8(bytes.count)] + bytes
    }

    @Test func readsASCIIStringsOfEveryLengthAndRefusesAHighByteAtItsPlace() {
        for length in 1...40 {
            let text = (0..<length).map { UInt8(0x21 + ($0 * 7) % 94) }  // Printable ASCII, varied.
            let good = BinaryPropertyListBytes.file(objects: [Self.asciiObject(text)])
            #expect((try? BinaryPropertyListReader().read(good)) == .string(String(decoding: text, as: UTF8.self)), "\(length) bytes")
            // The object starts at byte 8; its bytes after one marker byte, or after three from 15 bytes on.
            let payload = length < 15 ? 9 : 11
            for position in 0..<length {
                var bad = text
                bad[position] = position.isMultiple(of: 2) ? 0x80 : 0xFF
                let error = readError(BinaryPropertyListBytes.file(objects: [Self.asciiObject(bad)]))
                #expect(error?.code == .invalidString, "\(length) bytes, position \(position)")
                #expect(error?.location == .byteOffset(payload + position), "\(length) bytes, position \(position)")
            }
        }
        let error = readError(BinaryPropertyListBytes.file(objects: [Self.asciiObject(Array("caf".utf8) + [0xE9])]))
        #expect(error?.message == "byte 0xe9 in an ASCII string (the string object starts at byte 8)")
    }

    private func readError(_ data: Data) -> PropertyListError? {
        do {
            _ = try BinaryPropertyListReader().read(data)
            return nil
        } catch {
            return error
        }
    }

    /// The marker kind (high nibble) of every object of a binary property list, read from its offset table.
    private func readObjectKinds(_ bytes: Data) throws -> [UInt8] {
        let trailer = bytes.suffix(32)
        let offsetSize = Int(trailer[trailer.startIndex + 6])
        func bigEndian(_ range: Range<Int>) -> Int { bytes[range].reduce(0) { $0 << 8 | Int($1) } }
        let count = bigEndian((bytes.count - 24)..<(bytes.count - 16))
        let table = bigEndian((bytes.count - 8)..<bytes.count)
        return (0..<count).map { index in
            let offset = bigEndian((table + index * offsetSize)..<(table + (index + 1) * offsetSize))
            return bytes[offset] >> 4
        }
    }
}
