import DataLayers
import EmbeddedLayers
import Foundation
import KeyedArchive
import PropertyList
import TestSupport
import Testing

/// Notes' note data (`ZICNOTEDATA.ZDATA`: gzip of a protocol buffer, as
/// Apple Notes writes it), read layer by layer and checked against
/// Python's `gzip` and `protoc --decode_raw`; and hostile layers refused by
/// the limits with the byte where they were hit.
@Suite(.externalTools(["/usr/bin/protoc"]))
struct DataLayersTests {
    static let fixtures = Repository.root.appendingPathComponent("Tests/DataLayersTests/Fixtures/AppleNotes")
    static let notes = [
        "block_quotes_gzipped.bin", "color_formatting_gzipped.bin", "emoji_formatting_1_gzipped.bin", "emoji_formatting_2_gzipped.bin",
        "emoji_formatting_3_gzipped.bin", "html_gzipped.bin", "list_indents_gzipped.bin", "right_to_left_table_gzipped.bin",
        "simple_note_protobuf_gzipped.bin", "table_formats_gzipped.bin", "table_gzipped.bin", "text_decorations_gzipped.bin",
        "url_gzipped.bin", "wide_characters_gzipped.bin",
    ]

    static func bytes(_ name: String) throws -> Data { try Data(contentsOf: fixtures.appendingPathComponent(name)) }

    /// Python's `gzip.decompress` of `bytes`, then what `protoc --decode_raw` prints of that (or its failure).
    static func oracle(_ bytes: Data) throws -> (inflated: Data, protoc: String) {
        let script = """
            import gzip, subprocess, sys
            inflated = gzip.decompress(sys.stdin.buffer.read())
            run = subprocess.run(["protoc", "--decode_raw"], input=inflated, capture_output=True)
            text = run.stdout if run.returncode == 0 else b"FAILED " + run.stderr
            sys.stdout.buffer.write(len(inflated).to_bytes(8, "big") + inflated + text)
            """
        let output = try PythonScript.run(script, arguments: [], input: bytes)
        let count = Int(output.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
        return (output.dropFirst(8).prefix(count), String(decoding: output.dropFirst(8 + count), as: UTF8.self))
    }

    static func inflate(_ bytes: Data, limit: Int = 1 << 20) throws(DataLayerError) -> Data {
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(DataLayerError) in try Inflate.inflate(buffer, form: .gzip, limit: limit) }
        }
        return Data(try result.get())
    }

    @Test(arguments: notes)
    func aNotesNoteIsGzipOfAProtocolBufferReadAsPythonAndProtocReadIt(_ name: String) throws {
        let bytes = try Self.bytes(name)
        #expect(bytes.withUnsafeBytes { CompressedForm.detect($0) } == .gzip)
        let (expectedInflated, protocText) = try Self.oracle(bytes)
        let inflated = try Self.inflate(bytes)
        #expect(inflated == expectedInflated)
        let fields = try ProtocolBufferReader().read(inflated)
        #expect(ProtocolBufferText.text(of: fields) == protocText)
    }

    @Test func theNotesTextsAreTheOnesTheirParserKnows() throws {
        let simple = try ProtocolBufferReader().read(Self.inflate(Self.bytes("simple_note_protobuf_gzipped.bin")))
        #expect(Self.noteText(simple) == "Title")
        #expect(try Self.inflate(Self.bytes("simple_note_protobuf_gzipped.bin")) == Self.bytes("simple_note_protobuf.bin"))
        let wide = try ProtocolBufferReader().read(Self.inflate(Self.bytes("wide_characters_gzipped.bin")))
        let text = try #require(Self.noteText(wide))
        #expect(text.contains("但他還是希望") && text.contains("體驗看法覺得很大"))
    }

    /// Field 2 (the document), its field 3 (the note), its field 2 (the text).
    static func noteText(_ fields: [ProtocolBufferField]) -> String? {
        func field(_ number: Int, in fields: [ProtocolBufferField]) -> ProtocolBufferValue? { fields.first { $0.number == number }?.value }
        guard case .message(let document)? = field(2, in: fields), case .message(let note)? = field(3, in: document) else { return nil }
        return field(2, in: note)?.text
    }

    /// zlib (as Python's zlib module writes it) of a Notes note's protocol
    /// buffer, held in a data value: inflated, then read as the protocol buffer.
    @Test func aZlibLayerAsPythonWritesItHoldsTheNotesProtocolBuffer() throws {
        let note = try Self.bytes("simple_note_protobuf.bin")
        let zlib = try PythonScript.run("import sys, zlib; sys.stdout.buffer.write(zlib.compress(sys.stdin.buffer.read(), 9))", arguments: [], input: note)
        #expect(zlib.withUnsafeBytes { CompressedForm.detect($0) } == .zlib)
        let inflated = zlib.withUnsafeBytes { buffer in
            Result { () throws(DataLayerError) in try Inflate.inflate(buffer, form: .zlib, limit: 1 << 20) }
        }
        #expect(try Data(inflated.get()) == note)
        let found = try EmbeddedArchives().find(in: .dictionary(["ZDATA": .data(zlib)]))
        #expect(found.first?.form == .compressed(.zlib) && found.first?.nested.first?.form == .protocolBuffer)
        #expect(try EmbeddedArchives().value(in: .dictionary(["ZDATA": .data(zlib)]), at: EmbeddedKeyPath(parsing: "ZDATA!.2.3.2")) == .string("Title"))
    }

    // MARK: Hostile layers

    /// 1 GiB of zeros compressed by Python's zlib into a gzip of about 1 MB.
    @Test func aGzipBombStopsAtTheLimitSayingWhere() throws {
        let bomb = try PythonScript.run(
            """
            import gzip, sys
            sys.stdout.buffer.write(gzip.compress(bytes(1 << 30), compresslevel=9))
            """, arguments: [])
        #expect(bomb.count < 2 << 20)
        #expect(throws: DataLayerError.self) { try Self.inflate(bomb, limit: 64 << 20) }
        do throws(DataLayerError) {
            _ = try Self.inflate(bomb, limit: 64 << 20)
        } catch {
            #expect(error.code == .sizeLimit)
            #expect(error.offset > 0 && error.offset < bomb.count, "where the input was when the limit was hit: \(error.offset)")
            #expect(error.description.contains("inflates past 67108864 bytes"))
        }
    }

    @Test func aGzipCutShortOrFollowedByOtherBytesSaysWhere() throws {
        let whole = try Self.bytes("url_gzipped.bin")
        do throws(DataLayerError) {
            _ = try Self.inflate(whole.prefix(whole.count - 20))
            Issue.record("a cut gzip inflated")
        } catch {
            #expect(error.code == .truncated && error.offset == whole.count - 20)
        }
        do throws(DataLayerError) {
            _ = try Self.inflate(whole + Data("garbage".utf8))
            Issue.record("trailing bytes were taken")
        } catch {
            #expect(error.code == .trailingBytes && error.offset == whole.count)
        }
        // Two members one after the other, as `cat a.gz b.gz` makes: both, as Python's gzip reads them.
        let two = whole + (try Self.bytes("simple_note_protobuf_gzipped.bin"))
        #expect(try Self.inflate(two) == (try Self.oracle(two).inflated))
        var corrupt = whole
        corrupt[20] ^= 0xFF
        #expect(throws: DataLayerError.self) { try Self.inflate(corrupt) }
    }

    /// 100,000 messages each the only field of the one around it.
    @Test func aProtocolBufferOf100000NestedMessagesIsRefusedAtTheDepthLimit() throws {
        var message: [UInt8] = [0x08, 0x01]  // field 1, varint 1
        var lengths: [Int] = []
        for _ in 0..<100_000 {
            lengths.append(message.count)
            var length = message.count
            var prefix: [UInt8] = [0x12]  // field 2, length-delimited
            while length >= 0x80 {
                prefix.append(UInt8(length & 0x7F) | 0x80)
                length >>= 7
            }
            prefix.append(UInt8(length))
            message = prefix + message
        }
        do throws(DataLayerError) {
            _ = try ProtocolBufferReader().read(Data(message))
            Issue.record("100,000 nested messages were read")
        } catch {
            #expect(error.code == .depthLimit)
            #expect(error.description.contains("more than 100 deep"))
            #expect(error.offset > 0 && error.offset < message.count)
        }
        // Within the limit, the same nesting reads whole.
        #expect(try ProtocolBufferReader(maximumDepth: 200).read(Data(message.suffix(lengths[60] + 2))).count == 1)
    }

    @Test(
        arguments: [
            ([0x0A, 0x05, 0x41], DataLayerError.Code.truncated, 0, "field 1's 5 bytes run past the end"),
            ([0x08, 0x80, 0x80], .truncated, 1, "a varint runs past the end"),
            ([0x0F], .corrupt, 0, "wire type 7, which no field has"),
            ([0x00, 0x01], .corrupt, 0, "field number 0 is not one a message can have"),
            ([0x08, 0x01, 0x0C], .corrupt, 2, "the end of group 1, which was not begun"),
            ([0x0B, 0x08, 0x01], .truncated, 3, "group 1 has no end"),
            ([0x08, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F], .corrupt, 1, "a varint longer than 64 bits"),
        ] as [([UInt8], DataLayerError.Code, Int, String)])
    func aBrokenProtocolBufferSaysWhatAndWhere(_ bytes: [UInt8], _ code: DataLayerError.Code, _ offset: Int, _ message: String) throws {
        do throws(DataLayerError) {
            let fields = try ProtocolBufferReader().read(Data(bytes))
            Issue.record("read as \(fields)")
        } catch {
            #expect(error.code == code && error.offset == offset && error.message == message)
        }
    }

    @Test func aLengthDelimitedValueIsAMessageOnlyWhenItParsesWholeAsProtocDoes() throws {
        // "Title" is not a message (0x54 is field 10, wire type 4, an end not begun); "\u{8}\u{1}" is field 1 = 1; empty is bytes.
        let bytes: [UInt8] = [0x12, 0x05] + Array("Title".utf8) + [0x12, 0x02, 0x08, 0x01, 0x12, 0x00, 0x1D, 0x01, 0x02, 0x03, 0x04]
        let fields = try ProtocolBufferReader().read(Data(bytes))
        let protoc = try PythonScript.run(
            "import subprocess, sys; sys.stdout.buffer.write(subprocess.run(['protoc', '--decode_raw'], input=sys.stdin.buffer.read(), capture_output=True).stdout)",
            arguments: [], input: Data(bytes))
        #expect(ProtocolBufferText.text(of: fields) == String(decoding: protoc, as: UTF8.self))
        #expect(fields.map(\.value.wireType) == [2, 2, 2, 5])
        #expect(fields[0].value.text == "Title" && fields[2].value == .bytes(Data()))
    }
}

/// The layers inside a data value, as `ict inspect --expand` and key paths
/// (`ZDATA!.2.3.2`) reach them: a real Notes blob held in a property list.
struct EmbeddedLayerTests {
    static func holding(_ name: String) throws -> PropertyListValue {
        .dictionary(["ZDATA": .data(try DataLayersTests.bytes(name))])
    }

    @Test func aKeyPathStepsThroughTheGzipIntoTheProtocolBuffer() throws {
        let root = try Self.holding("simple_note_protobuf_gzipped.bin")
        #expect(try EmbeddedArchives().value(in: root, at: EmbeddedKeyPath(parsing: "ZDATA!.2.3.2")) == .string("Title"))
        let wide = try Self.holding("wide_characters_gzipped.bin")
        guard case .string(let text) = try EmbeddedArchives().value(in: wide, at: EmbeddedKeyPath(parsing: "ZDATA!.2.3.2")) else {
            Issue.record("no text")
            return
        }
        #expect(text.contains("但他還是希望"))
    }

    @Test func findMarksEachLayer() throws {
        let found = try EmbeddedArchives().find(in: Self.holding("url_gzipped.bin"))
        try #require(found.count == 1)
        #expect(found[0].form == .compressed(.gzip) && found[0].keyPath.description == "ZDATA")
        #expect(found[0].inflated?.count == 914)  // gzip's own trailer: "original size modulo 2^32 914"
        let layer = try #require(found[0].nested.first)
        #expect(layer.form == .protocolBuffer && layer.fields?.isEmpty == false)
        #expect(layer.value?.value(at: PropertyListKeyPath(parsing: "2.3.2"))?.stringValue?.hasPrefix("Link test") == true)
    }

    @Test func anEditThroughACompressedLayerIsRefusedAndNothingChanges() throws {
        var root = try Self.holding("simple_note_protobuf_gzipped.bin")
        let before = root
        do throws(EmbeddedKeyPathError) {
            try EmbeddedArchives().edit(&root, at: EmbeddedKeyPath(parsing: "ZDATA!.2.3.2"), followingLast: true) {
                (value: inout PropertyListValue, path: PropertyListKeyPath) throws(PropertyListKeyPathError) in
                try value.setValue(.string("Changed"), at: path, mode: .replace)
            }
            Issue.record("edited through gzip")
        } catch {
            #expect(error.code == .readOnlyForm && error.message.contains("compressed"))
        }
        #expect(root == before)
    }

    @Test func aBombInsideADataValueIsRefusedWithItsKeyPathAndOffset() throws {
        let bomb = try PythonScript.run("import gzip, sys; sys.stdout.buffer.write(gzip.compress(bytes(1 << 28), compresslevel=9))", arguments: [])
        let root = PropertyListValue.dictionary(["notes": .array([.data(bomb)])])
        do throws(EmbeddedKeyPathError) {
            _ = try EmbeddedArchives().find(in: root)
            Issue.record("a 256 MB gzip was inflated")
        } catch {
            #expect(error.code == .layerLimit && error.keyPath.description == "notes.0")
            #expect(error.layerError?.code == .sizeLimit && (error.layerError?.offset ?? 0) > 0)
        }
        #expect(throws: EmbeddedKeyPathError.self) { try EmbeddedArchives().value(in: root, at: EmbeddedKeyPath(parsing: "notes.0!.x")) }
    }

    /// gzip of gzip of … 40 deep: the nesting limit, not the stack, ends it.
    @Test func compressedLayersNestOnlyToTheLimit() throws {
        let nested = try PythonScript.run(
            "import gzip, sys\nd = b'x'\nfor _ in range(40): d = gzip.compress(d)\nsys.stdout.buffer.write(d)", arguments: [])
        do throws(EmbeddedKeyPathError) {
            _ = try EmbeddedArchives().find(in: .dictionary(["d": .data(nested)]))
            Issue.record("40 layers were read")
        } catch {
            #expect(error.code == .nestingLimit)
        }
    }
}
