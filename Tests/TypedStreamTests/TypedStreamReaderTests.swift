import Foundation
import PropertyList
import TestSupport
import Testing
import TypedStream

/// The fixtures Apple's code wrote (Fixtures/SOURCES.md).
enum TypedStreamFixtures {
    static let directory = Repository.root.appendingPathComponent("Tests/TypedStreamTests/Fixtures")
    static let iMessage = ["AttributedBodyTextOnly", "AttributedBodyTextOnly2", "Blank", "MultiPart", "URL", "WeirdText"]
    static let nibs = [
        "PathDemo-MainMenu.objects.nib", "ClipboardViewer-MainMenu.objects.nib", "TLayer-MainMenu.objects.nib",
        "TLayer-TLayerDemo.objects.nib",
    ]

    static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: directory.appendingPathComponent(name)))
    }

    static func document(_ name: String) throws -> TypedStreamDocument {
        try TypedStreamReader().read(try bytes(name))
    }
}

@Suite struct TypedStreamReaderTests {
    /// pytypedstream's reading of the fixture, in the JSON form's shape.
    private func pytypedstreamForm(_ name: String) throws -> PropertyListValue {
        let data = try PythonScript.run(arguments: [
            TypedStreamFixtures.directory.appendingPathComponent("typedstream_to_json.py").path,
            TypedStreamFixtures.directory.appendingPathComponent(name).path,
        ])
        return try JSONPropertyListReader().read(data)
    }

    /// The JSON form without the byte offsets, which pytypedstream's events do not carry.
    private func withoutOffsets(_ value: PropertyListValue) -> PropertyListValue {
        guard case .dictionary(var top) = value, case .array(let objects) = top["objects"] else { return value }
        top["objects"] = .array(
            objects.map { object in
                guard case .dictionary(var entry) = object else { return object }
                entry["offset"] = nil
                return .dictionary(entry)
            })
        return .dictionary(top)
    }

    @Test(
        "every value of every fixture is what pytypedstream reads", .externalTools(["/usr/bin/env"]),
        arguments: TypedStreamFixtures.iMessage + TypedStreamFixtures.nibs)
    func matchesPytypedstream(name: String) throws {
        let document = try TypedStreamFixtures.document(name)
        // Through the JSON text and back, as the peer's form comes: reals and integers compare as JSON has them.
        let ours = try JSONPropertyListReader().read(Data(try JSONPropertyListWriter().encode(document.jsonForm)))
        #expect(withoutOffsets(ours) == (try pytypedstreamForm(name)))
    }

    @Test("both byte orders: iMessage's blobs are little-endian, the PowerPC nibs big-endian")
    func byteOrders() throws {
        let blob = try TypedStreamFixtures.document("AttributedBodyTextOnly")
        #expect(blob.byteOrder == .littleEndian)
        #expect(blob.streamerVersion == 4)
        #expect(blob.systemVersion == 1000)
        let nib = try TypedStreamFixtures.document("TLayer-MainMenu.objects.nib")
        #expect(nib.byteOrder == .bigEndian)
        #expect(nib.systemVersion == 1000)
    }

    @Test("classes keep their versions and superclass chains, shared by reference")
    func classChains() throws {
        let document = try TypedStreamFixtures.document("AttributedBodyTextOnly")
        guard case .object(let rootIndex?) = document.rootValue else {
            Issue.record("the root is not an object")
            return
        }
        // From the bytes (xxd): 84 84 84 19 "NSMutableAttributedString" 00, 84 84 12 "NSAttributedString" 00,
        // 84 84 08 "NSObject" 00, 85 (nil superclass).
        let chain = document.classChain(of: document.objects[rootIndex])
        #expect(chain.map(\.name) == ["NSMutableAttributedString", "NSAttributedString", "NSObject"])
        #expect(chain.map(\.version) == [0, 0, 0])
        // The text's class chain ends in the same NSObject (a reference, not a second copy).
        guard case .object(let textIndex?) = document.fields(of: document.objects[rootIndex])[0].value else {
            Issue.record("the first field is not an object")
            return
        }
        #expect(document.classChain(of: document.objects[textIndex]).map(\.name) == ["NSMutableString", "NSString", "NSObject"])
        #expect(document.classChain(of: document.objects[textIndex]).first?.version == 1)
        #expect(document.classes.filter { $0.name == "NSObject" }.count == 1)
    }

    @Test("a C string is shared by reference: the second NSNumber's type encoding refers to the first's")
    func sharedCString() throws {
        let document = try TypedStreamFixtures.document("URL")
        let encodings = document.objects.filter { document.classes[$0.classIndex].name == "NSNumber" }.map {
            document.fields(of: $0)[0].value
        }
        #expect(encodings == [.string(Array("q".utf8)), .string(Array("q".utf8))])
    }

    @Test("an NSNumber NSArchiver wrote with the 8-byte integer tag 0x87 reads its value")
    func eightByteInteger() throws {
        let document = try TypedStreamFixtures.document("NumberInt64")
        let number = try #require(document.objects.first { document.classes[$0.classIndex].name == "NSNumber" })
        let fields = document.fields(of: number)
        // By hand from xxd: at 0x3f the group "q" (97, the shared string 5), at 0x40 the tag 87, then
        // 00 e6 8e e7 fd ff ff ff little-endian: 0xfffffffde78ee600 - 2^64 = -9,000,000,000 (crabstep's test says the same).
        #expect(fields.map(\.encoding) == ["*", "q"])
        #expect(fields.last?.value == .integer(-9_000_000_000))
    }

    // MARK: Malformed input

    /// A little-endian header, streamer version 4, system version 1000 (81 e8 03).
    private static let header: [UInt8] = [0x04, 0x0B] + Array("streamtyped".utf8) + [0x81, 0xE8, 0x03]

    private func error(_ bytes: [UInt8], limits: TypedStreamLimits = .default) -> TypedStreamError? {
        do {
            _ = try TypedStreamReader(limits: limits).read(bytes)
            return nil
        } catch {
            return error
        }
    }

    @Test("a blob whose string claims more bytes than follow is refused at the string's offset")
    func lyingLengthFixture() throws {
        let bytes = try TypedStreamFixtures.bytes("ExtraData")
        let found = try #require(error(bytes))
        #expect(found.code == .truncated)
        // By hand from xxd: the NSString's "+" group at 0x76 (84 01 2b), its value at 0x79: head 81 (a 2-byte
        // integer follows), 9d 00: a string of 157 bytes, where the file's last 120 bytes follow.
        #expect(found.byteOffset == 0x79)
        #expect(found.message == "a string of 157 bytes, but only 120 bytes follow")
    }

    @Test("every cut of a real stream is refused as truncated, at or before the cut")
    func truncated() throws {
        let bytes = try TypedStreamFixtures.bytes("URL")
        // The header and system version alone (16 bytes) are an empty stream, which reads.
        #expect(try TypedStreamReader().read(Array(bytes[..<16])).root.isEmpty)
        for length in 0..<bytes.count where length != 16 {
            guard let error = error(Array(bytes[..<length])) else {
                // A cut between top-level groups is a shorter stream, not a broken one; URL has one group.
                Issue.record("cut at \(length) was read")
                continue
            }
            #expect(error.byteOffset <= length)
        }
    }

    @Test("not a typed stream, or another streamer version")
    func header() {
        #expect(error(Array("bplist00".utf8))?.code == .notATypedStream)
        #expect(error([0x03, 0x0B] + Array("streamtyped".utf8) + [0x81, 0xE8, 0x03])?.code == .unsupportedVersion)
    }

    @Test("a reference to an object not yet read is refused with its offset")
    func danglingReference() {
        // Group "@" (84 01 40), then object reference 0x92 (number 0) before any object exists.
        let error = error(Self.header + [0x84, 0x01, 0x40, 0x92])
        #expect(error?.code == .danglingReference)
        #expect(error?.byteOffset == 19)
    }

    @Test("the 8-byte integer tag: any signed value, an unsigned one up to Int64.max; beyond, refused with its offset")
    func eightByteIntegerBounds() throws {
        let ones: [UInt8] = Array(repeating: 0xFF, count: 8)
        // Group "q" (84 01 71) at 16, the value's tag 87 at 19: eight ff bytes are -1 as a signed long long.
        #expect(try TypedStreamReader().read(Self.header + [0x84, 0x01, 0x71, 0x87] + ones).rootValue == .integer(-1))
        // Group "Q": 7f ff ... ff little-endian is Int64.max, kept; 8 ff bytes are 2^64 - 1, which .integer cannot hold.
        let largest: [UInt8] = Array(repeating: 0xFF, count: 7) + [0x7F]
        #expect(try TypedStreamReader().read(Self.header + [0x84, 0x01, 0x51, 0x87] + largest).rootValue == .integer(Int64.max))
        let above = error(Self.header + [0x84, 0x01, 0x51, 0x87] + ones)
        #expect(above?.code == .invalidValue)
        #expect(above?.byteOffset == 19)
        #expect(above?.message == "an unsigned 8-byte integer 18446744073709551615, above 9223372036854775807, the largest integer this reader keeps")
        // Cut inside the eight bytes.
        #expect(error(Self.header + [0x84, 0x01, 0x71, 0x87, 0x00, 0x00, 0x00])?.code == .truncated)
        // An object reference as an 8-byte number near Int64.max names no entry: refused at the tag, no overflow.
        let reference = error(Self.header + [0x84, 0x01, 0x40, 0x87] + largest)
        #expect(reference?.code == .danglingReference)
        #expect(reference?.byteOffset == 19)
    }

    @Test("a reference to a class where an object belongs is refused")
    func wrongKind() {
        // Object: new (84), class new (84) name new string (84 01 41 = "A") version 0, nil superclass (85);
        // group "@" by string reference 0x92 ("@"), value 0x93: the shared entry 1, the class A, not an object.
        let bytes = Self.header + [0x84, 0x01, 0x40, 0x84, 0x84, 0x84, 0x01, 0x41, 0x00, 0x85, 0x92, 0x93, 0x86]
        let error = error(bytes)
        #expect(error?.code == .wrongReferenceKind)
        #expect(error?.byteOffset == 27)
    }

    @Test("an object of another class that holds itself decodes with a reference; an NSArray that holds itself is refused")
    func cycle() throws {
        // Object 0 of class A whose one field "@" refers to object 0 (0x92).
        let other = Self.header + [0x84, 0x01, 0x40, 0x84, 0x84, 0x84, 0x01, 0x41, 0x00, 0x85, 0x92, 0x92, 0x86]
        let document = try TypedStreamReader().read(other)
        #expect(document.fields(of: document.objects[0]).map(\.value) == [.object(0)])
        var decoder = TypedStreamFoundationDecoder(document: document)
        #expect(try decoder.decodeRoot() == .other(FoundationOtherObject(classNames: ["A"], version: 0, fields: [.reference(0)])))
        // The same with class NSArray (84 01 "NSArray" string), count "i" 1 (84 01 69 = new string "i", 01), element "@" object 0.
        let array =
            Self.header + [0x84, 0x01, 0x40, 0x84, 0x84, 0x84, 0x07] + Array("NSArray".utf8)
            + [0x00, 0x85, 0x84, 0x01, 0x69, 0x01, 0x92, 0x92, 0x86]
        var arrayDecoder = TypedStreamFoundationDecoder(document: try TypedStreamReader().read(array))
        #expect(throws: TypedStreamError(.cycle, at: 19, "object 0 holds itself")) { try arrayDecoder.decodeRoot() }
    }

    @Test("deep nesting stops at the depth limit, with the offset where it passes it")
    func deepNesting() {
        // 600 objects each holding the next: 84 (new object) 84 84 01 41 00 85 (class A) then group "@".
        var bytes = Self.header + [0x84, 0x01, 0x40]
        bytes += [0x84, 0x84, 0x84, 0x01, 0x41, 0x00, 0x85]
        for _ in 0..<600 { bytes += [0x92, 0x84, 0x93] }  // Group "@" (string 0), a new object of class A (shared entry 1)…
        let error = error(bytes, limits: TypedStreamLimits(maximumDepth: 64))
        #expect(error?.code == .limitExceeded)
        #expect(error?.message.contains("maximum depth (64)") == true)
    }

    @Test("nesting just under the default depth limit reads and decodes (the stack holds it)")
    func deepButAllowed() throws {
        var bytes = Self.header + [0x84, 0x01, 0x40]
        bytes += [0x84, 0x84, 0x84, 0x01, 0x41, 0x00, 0x85]
        for _ in 0..<500 { bytes += [0x92, 0x84, 0x93] }
        bytes += [UInt8](repeating: 0x86, count: 501)  // Each object's end, innermost first.
        let document = try TypedStreamReader().read(bytes)
        #expect(document.objects.count == 501)
        var decoder = TypedStreamFoundationDecoder(document: document)
        var value = try decoder.decodeRoot()
        var depth = 0
        while case .other(let object) = value, let inner = object.fields.first {
            depth += 1
            value = inner
        }
        #expect(depth == 500)
        _ = try JSONPropertyListWriter().encode(document.jsonForm)
    }

    @Test("a vast array of empty values stops at the value count limit")
    func valueCount() {
        // Group "[999999999!]": no bytes, a billion values.
        let encoding = Array("[999999999!]".utf8)
        let error = error(Self.header + [0x84, UInt8(encoding.count)] + encoding, limits: TypedStreamLimits(maximumValueCount: 1000))
        #expect(error?.code == .limitExceeded)
        // Header 0–15, group head 16, length 17, the encoding 18–29: the array starts at 30.
        #expect(error?.byteOffset == 30)
    }

    @Test("bad type encodings are refused with the group's offset")
    func badEncodings() {
        for encoding in ["{a=i", "[i]", "[3", "Z", "{{{{", "[99999999999i]"] {
            let bytes = Array(encoding.utf8)
            let error = error(Self.header + [0x84, UInt8(bytes.count)] + bytes)
            #expect(error?.code == .invalidTypeEncoding, "\(encoding)")
            #expect(error?.byteOffset == 16, "\(encoding)")
        }
    }
}
