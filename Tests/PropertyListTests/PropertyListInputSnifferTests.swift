import Foundation
import PropertyList
import Testing

/// The sniffer refuses, at the first such byte, input no property list can
/// be, and lets every form the readers read pass, fed whole or a byte at a time.
struct PropertyListInputSnifferTests {
    /// The error for `bytes` fed in pieces of `piece` bytes, or nil when they pass.
    private func failure(_ bytes: [UInt8], piece: Int = 1) -> PropertyListError? {
        var sniffer = PropertyListInputSniffer()
        for start in stride(from: 0, to: bytes.count, by: piece) {
            let end = min(bytes.count, start + piece)
            let result: Result<Void, PropertyListError> = bytes[start..<end].withUnsafeBytes { chunk in
                Result { () throws(PropertyListError) in try sniffer.check(chunk) }
            }
            if case .failure(let error) = result { return error }
        }
        return nil
    }

    private func startFailure(_ bytes: [UInt8]) -> PropertyListError? {
        let result: Result<Void, PropertyListError> = bytes.withUnsafeBytes { all in
            Result { () throws(PropertyListError) in try PropertyListInputSniffer.checkStart(of: all) }
        }
        if case .failure(let error) = result { return error }
        return nil
    }

    static let readable: [[UInt8]] = [
        Array("bplist00\u{0}\u{0}\u{FF}".utf8),
        Array("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><plist><string>".utf8) + [0xE9, 0x00] + Array("</string></plist>".utf8),
        Array("<plist><string>a\u{0}b\u{1B}é</string></plist>".utf8),
        [0xEF, 0xBB, 0xBF] + Array(" \n{\"a\": [1, true]}".utf8),
        Array("{ a = (1, \"ü\"); }".utf8),
        Array("// comment\nkey = value;".utf8),
        [0xFE, 0xFF, 0x00, 0x3C, 0x00, 0x70, 0xD8, 0x3D, 0xDE, 0x00],  // UTF-16BE "<p" and a surrogate pair.
        [0x3C, 0x00, 0x3F, 0x00, 0x78, 0x00],  // UTF-16LE "<?x" without a byte order mark.
        [0x00, 0x00, 0x00, 0x3C, 0x00, 0x00, 0x00, 0x70],  // UTF-32BE "<p".
        [0x04, 0x0B] + Array("streamtyped".utf8) + [0x81, 0xE8, 0x03],
        Array("bpl".utf8), [], Array("1".utf8), [0xFF, 0xFE], [0xFE, 0xFF, 0x00],
    ]

    @Test(arguments: readable)
    func passesWhatTheReadersRead(_ bytes: [UInt8]) {
        #expect(failure(bytes) == nil)
        #expect(failure(bytes, piece: 4096) == nil)
        #expect(startFailure(bytes) == nil)
    }

    /// A PNG image or a NIBArchive file: no property-list reader reads
    /// one, so a stream of one is refused at its first bytes with the
    /// readers' own error (`NonPropertyListFormat`), not read to the limit;
    /// a whole file is left to its caller, which may read it as what it is.
    @Test(arguments: [
        ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00], "a PNG image, not a property list"),
        (Array("NIBArchive".utf8) + [0x01, 0x00, 0x00], "a NIBArchive file (a compiled nib), not a property list"),
    ])
    func aStreamOfAFormatNoReaderReadsIsRefusedAtItsStart(_ bytes: [UInt8], message: String) throws {
        for error in [failure(bytes), failure(bytes + [UInt8](repeating: 0, count: 1 << 16), piece: 4096)] {
            let refused = try #require(error)
            #expect(refused.code == .unrecognizedFormat)
            #expect(refused.location == .byteOffset(0))
            #expect(refused.message == message)
        }
        #expect(startFailure(bytes) == nil)
    }

    /// `bplist` and a version other than `0x`: the binary reader insists on
    /// `bplist0`, so the input is refused at byte 0 with its message, once the seventh byte is in.
    @Test func aBinaryPropertyListOfAnotherVersionIsRefusedAtOnce() throws {
        let bytes = Array("bplist17".utf8) + [UInt8](repeating: 0, count: 4096)
        for error in [failure(bytes), failure(bytes, piece: 4096), startFailure(bytes)] {
            let refused = try #require(error)
            #expect(refused.code == .unrecognizedFormat)
            #expect(refused.location == .byteOffset(0))
            #expect(refused.message == "not a binary property list: it does not start with 'bplist0'")
        }
        #expect(failure(Array("bplist".utf8)) == nil, "six bytes cannot tell yet")
    }

    /// XML after its declaration: a NUL before the root element is refused
    /// where it stands (`<?xml version="1.0"?>` is 21 bytes, so `/dev/zero`
    /// after it at byte 21, through a comment and a doctype too); after the
    /// root element's start the bytes are left to the reader, which takes a
    /// NUL inside a string.
    @Test func declaredXMLIsCheckedForNULUpToItsRootElement() throws {
        let declaration = Array(#"<?xml version="1.0"?>"#.utf8)
        let zeros = [UInt8](repeating: 0, count: 4096)
        for error in [failure(declaration + zeros), failure(declaration + zeros, piece: 4096)] {
            let refused = try #require(error)
            #expect(refused.code == .malformedXML)
            #expect(refused.location == .byteOffset(21))
            #expect(refused.message == "byte 0x00 (NUL) before the root element: XML allows no NUL there")
        }
        let prologue = Array("<?xml version=\"1.0\"?>\n<!-- c -->\n<!DOCTYPE plist>\n".utf8)
        #expect(failure(prologue + [0]).map(\.location) == .byteOffset(prologue.count))
        #expect(failure(prologue + Array("<plist><string>a".utf8) + [0] + Array("</string></plist>".utf8)) == nil)
        #expect(failure(prologue + Array("<_x>".utf8) + zeros) == nil)
        #expect(startFailure(declaration + zeros) == nil, "a whole file is left to its reader")
    }

    @Test func refusesNULBytesAtByteZero() throws {
        let zeros = [UInt8](repeating: 0, count: 1 << 16)
        for error in [failure(zeros), failure(zeros, piece: 1 << 16), startFailure(zeros)] {
            let refused = try #require(error)
            #expect(refused.code == .unrecognizedFormat)
            #expect(refused.location == .byteOffset(0))
            #expect(refused.message == "byte 0x00 (NUL) starts no property list: not a binary one (bplist00), nor XML, JSON or OpenStep text")
        }
    }

    @Test func refusesAFirstCharacterNoFormatStartsWith() throws {
        let control = try #require(failure(Array("  \u{1}{}".utf8)))
        #expect(control.location == .byteOffset(2))
        #expect(control.message.hasPrefix("byte 0x01 starts no property list"))
        let high = try #require(failure([0xC3, 0xA9, 0x20, 0x20]))
        #expect(high.location == .byteOffset(0))
        let utf16 = try #require(failure([0xFE, 0xFF, 0x00, 0x00, 0x00, 0x3C]))
        #expect(utf16.code == .unrecognizedFormat)
        #expect(utf16.location == .byteOffset(2))
        #expect(utf16.message.hasPrefix("U+0000 (NUL) starts no property list"))
    }

    @Test func refusesTextThatIsNotWellFormedWhereItGoesWrong() throws {
        let utf8 = try #require(failure(Array("{ a = \"".utf8) + [0xC3, 0x28]))
        #expect(utf8.code == .invalidString)
        #expect(utf8.location == .byteOffset(7))
        #expect(utf8.message == "bytes 0xC3 0x28 are not valid UTF-8, which this text property list is written in")
        let utf16 = try #require(failure([0xFE, 0xFF, 0x00, 0x3C, 0xDC, 0x00]))
        #expect(utf16.location == .byteOffset(4))
        #expect(utf16.message == "the UTF-16 code unit 0xDC00 is an unpaired low surrogate")
        let brokenMark = try #require(failure([0xEF, 0xBB, 0x3C, 0x20]))
        #expect(brokenMark.location == .byteOffset(0))
        #expect(brokenMark.message.hasPrefix("bytes 0xEF 0xBB 0x3C are not valid UTF-8"))
    }

    @Test func aWholeInputIsCheckedOnlyAtItsStart() throws {
        // What follows the first character is left to the reader, which says where in its own terms.
        let bytes = Array("<a".utf8) + [0x98] + Array("bc>".utf8)
        #expect(startFailure(bytes) == nil)
        #expect(failure(bytes)?.location == .byteOffset(2))
        #expect(startFailure([0x20, 0x0A, 0x00, 0x3C])?.location == .byteOffset(2))
    }

    @Test func randomBytesAreRefusedWithinTheirFirstKilobytes() throws {
        // As /dev/urandom: whatever the first bytes, random bytes soon break UTF-8.
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let bytes = (0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) }
            guard !bytes.starts(with: Array("bplist".utf8)) else { continue }
            let error = try #require(failure(bytes, piece: 512))
            guard case .byteOffset(let offset) = error.location else {
                Issue.record("not at a byte: \(error)")
                continue
            }
            #expect(offset < 4096)
        }
    }
}
