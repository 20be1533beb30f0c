import Foundation
import OrderedCollections
import PropertyList
import TestSupport
import Testing
import TypedStream

@Suite struct TypedStreamFoundationDecoderTests {
    private func decodedRoot(_ name: String) throws -> FoundationObject {
        var decoder = TypedStreamFoundationDecoder(document: try TypedStreamFixtures.document(name))
        return try decoder.decodeRoot()
    }

    private func attributedText(_ name: String) throws -> AttributedText<FoundationObject> {
        guard case .attributedString(let text) = try decodedRoot(name) else {
            Issue.record("\(name) is not an attributed string")
            return AttributedText(string: "", runs: [])
        }
        return text
    }

    private func key(_ name: String) -> FoundationObject { .string(name) }

    // Expected texts and runs: imessage-exporter's own tests for these blobs, and pytypedstream's
    // reading of their groups (the (1, 10) run pair, the dictionaries), as printed by `python3 -m typedstream read`.

    @Test("an iMessage body: text and one run with its __kIM attribute")
    func textOnly() throws {
        let text = try attributedText("AttributedBodyTextOnly")
        #expect(text.string == "Noter test")
        #expect(
            text.runs == [
                AttributedTextRun(
                    range: TextRange(location: 0, length: 10),
                    attributes: [FoundationDictionaryEntry(key: key("__kIMMessagePartAttributeName"), value: .number(.integer(0)))])
            ])
    }

    @Test("an NSNumber whose value needs 8 bytes (tag 0x87) decodes to its number")
    func eightByteNumber() throws {
        // -9,000,000,000: the hand calculation beside TypedStreamReaderTests.eightByteInteger.
        #expect(try decodedRoot("NumberInt64") == .number(.integer(-9_000_000_000)))
    }

    @Test("run lengths count UTF-16 units: 10 mathematical letters outside the BMP and a space are 21")
    func astralText() throws {
        let text = try attributedText("WeirdText")
        #expect(text.string == "𝖍𝖊𝖑𝖑𝖔 𝖜𝖔𝖗𝖑𝖉")
        #expect(text.runs.map(\.range) == [TextRange(location: 0, length: 21)])
        #expect(text.runs.first?.text(in: text.string) == text.string)
    }

    @Test("several runs, each over its part; attachments are U+FFFC")
    func multiPart() throws {
        let text = try attributedText("MultiPart")
        #expect(text.string == "\u{FFFC}test 1\u{FFFC}test 2 \u{FFFC}test 3")
        #expect(text.runs.map { $0.text(in: text.string) } == ["\u{FFFC}", "test 1", "\u{FFFC}", "test 2 ", "\u{FFFC}", "test 3"])
        let first = text.runs[0].attributes
        #expect(first.first?.key == key("__kIMFileTransferGUIDAttributeName"))
        #expect(first.first?.value == .string("at_0_F0668F79-20C2-49C9-A87F-1B007ABB0CED"))
    }

    @Test("a link: NSURL under __kIMLinkAttributeName, NSData under __kIMDataDetectedAttributeName")
    func link() throws {
        let text = try attributedText("URL")
        #expect(text.string == "https://github.com/ReagentX/Logria")
        let attributes = try #require(text.runs.first?.attributes)
        #expect(
            attributes.map(\.key) == [
                key("__kIMLinkAttributeName"), key("__kIMMessagePartAttributeName"), key("__kIMBaseWritingDirectionAttributeName"),
                key("__kIMDataDetectedAttributeName"),
            ])
        #expect(attributes[0].value == .url(FoundationURL(string: "https://github.com/ReagentX/Logria")))
        #expect(attributes[2].value == .number(.integer(-1)))
        guard case .data(let data) = attributes[3].value else {
            Issue.record("not data")
            return
        }
        // pytypedstream: NSData of 582 bytes (the `i` group), a binary property list.
        #expect(data.count == 582)
        #expect(data.starts(with: Array("bplist00".utf8)))
    }

    @Test("an empty body has no runs")
    func blank() throws {
        #expect(try attributedText("Blank") == AttributedText<FoundationObject>(string: "", runs: []))
        #expect(try decodedRoot("Blank").text == "")
    }

    @Test("a nib's objects: unknown classes keep their names, versions and fields; colours and geometry by name")
    func nib() throws {
        let document = try TypedStreamFixtures.document("TLayer-TLayerDemo.objects.nib")
        var decoder = TypedStreamFoundationDecoder(document: document)
        guard case .other(let root) = try decoder.decodeRoot() else {
            Issue.record("the root is not an object of another class")
            return
        }
        // `python3 -m typedstream read`: NSIBObjectData v224 (NSObject v0).
        #expect(root.classNames == ["NSIBObjectData", "NSObject"])
        #expect(root.version == 224)
        var colours: [FoundationColor] = []
        for index in document.objects.indices where document.classes[document.objects[index].classIndex].name == "NSColor" {
            if case .color(let colour) = try decoder.decodeObject(at: index) { colours.append(colour) }
        }
        // pytypedstream's Unarchiver (types.appkit.NSColor, NSFont) over the same file:
        #expect(
            colours.contains(
                FoundationColor(
                    space: .calibratedRGB, components: [Double(Float(0.058130498975515366)), Double(Float(0.05554189905524254)), 1, 1])))
        #expect(colours.contains(FoundationColor(space: .named, components: [], catalog: "System", name: "controlTextColor")))
        #expect(colours.contains(FoundationColor(space: .calibratedWhite, components: [1, 1])))
        var fonts: [FoundationFont] = []
        for index in document.objects.indices where document.classes[document.objects[index].classIndex].name == "NSFont" {
            if case .font(let font) = try decoder.decodeObject(at: index) { fonts.append(font) }
        }
        // ('LucidaGrande', 13.0) twice and ('Helvetica', 12.0) once, as pytypedstream counts them.
        #expect(
            fonts.sorted { ($0.name ?? "", $0.size) < ($1.name ?? "", $1.size) } == [
                FoundationFont(name: "Helvetica", size: 12), FoundationFont(name: "LucidaGrande", size: 13),
                FoundationFont(name: "LucidaGrande", size: 13),
            ])
    }

    @Test("geometry prints as NSStringFromRect does")
    func geometryText() {
        #expect(FoundationGeometry.rect(x: 0, y: 0, width: 480, height: 360).description == "{{0, 0}, {480, 360}}")
        #expect(FoundationGeometry.point(x: 0.5, y: -2).description == "{0.5, -2}")
        #expect(FoundationGeometry.range(TextRange(location: 3, length: 4)).description == "{3, 4}")
    }

    @Test("a key path walks fields by index")
    func keyPath() throws {
        let document = try TypedStreamFixtures.document("AttributedBodyTextOnly")
        // Root object's field 0 is the NSMutableString; its field 0 the "+" bytes.
        #expect(try document.value(atKeyPath: "0.0") == .string(Array("Noter test".utf8)))
        #expect(try document.value(atKeyPath: "2") == .integer(10))
        #expect(throws: TypedStreamError.self) { try document.value(atKeyPath: "9") }
        #expect(throws: TypedStreamError.self) { try document.value(atKeyPath: "x") }
    }

    /// With shared objects referenced, every container comes once, and putting each back where it is named gives
    /// the value decoded without references: a nib whose views name their window and superview, and an iMessage body.
    @Test(arguments: ["PathDemo-MainMenu.objects.nib", "TLayer-TLayerDemo.objects.nib", "AttributedBodyTextOnly"])
    func sharedObjectsReferencedGiveTheSameValue(name: String) throws {
        let document = try TypedStreamFixtures.document(name)
        var full = TypedStreamFoundationDecoder(document: document)
        var shared = TypedStreamFoundationDecoder(document: document)
        shared.referencesSharedObjects = true
        let root = try shared.decodeRoot()
        guard case .reference(let index) = root else {
            Issue.record("\(name): the root is not given as a reference: \(root)")
            return
        }
        #expect(shared.decodedObject(at: index) != nil)
        #expect(shared.decodedObject(at: -1) == nil && shared.decodedObject(at: document.objects.count) == nil)
        // Each object is put back as it was first met: a reference to an object being put back is a cycle, kept
        // as the full decode keeps it, and a later naming gives the same value (the full decode reuses it too).
        var putBack: [Int: FoundationObject] = [:]
        func expanded(_ value: FoundationObject, open: Set<Int>) -> FoundationObject {
            switch value {
            case .reference(let index):
                if let done = putBack[index] { return done }
                guard !open.contains(index), let object = shared.decodedObject(at: index) else { return value }
                let result = expanded(object, open: open.union([index]))
                putBack[index] = result
                return result
            case .array(let items): return .array(items.map { expanded($0, open: open) })
            case .set(let items): return .set(items.map { expanded($0, open: open) })
            case .dictionary(let entries):
                return .dictionary(entries.map { FoundationDictionaryEntry(key: expanded($0.key, open: open), value: expanded($0.value, open: open)) })
            case .structure(let structName, let fields): return .structure(name: structName, fields: fields.map { expanded($0, open: open) })
            case .attributedString(let text):
                return .attributedString(
                    AttributedText(
                        string: text.string,
                        runs: text.runs.map { run in
                            AttributedTextRun(
                                range: run.range,
                                attributes: run.attributes.map {
                                    FoundationDictionaryEntry(key: expanded($0.key, open: open), value: expanded($0.value, open: open))
                                })
                        }))
            case .other(let object):
                return .other(
                    FoundationOtherObject(classNames: object.classNames, version: object.version, fields: object.fields.map { expanded($0, open: open) }))
            default: return value
            }
        }
        #expect(expanded(root, open: []) == (try full.decodeRoot()))
        #expect(!putBack.isEmpty)
    }
}

/// `writeRoot(to:)`, which the C library and Python's `ictkit.archive.typedstream_value` use, against the
/// decode it stands in for: each shared object put back where it is named again gives the full decode's JSON form.
@Suite struct TypedStreamGraphWritingTests {
    /// Builds the JSON form from `writeRoot(to:)`'s pieces; a shared object named again is its first value again.
    struct PuttingBackWriter: FoundationGraphWriter {
        typealias Failure = TypedStreamError
        private var open: [(items: [PropertyListValue], fields: OrderedDictionary<String, PropertyListValue>, isArray: Bool, key: String)] = []
        private(set) var result: PropertyListValue?
        private(set) var written: [Int: PropertyListValue] = [:]
        private(set) var namedAgain = 0

        private mutating func add(_ value: PropertyListValue) {
            guard !open.isEmpty else {
                result = value
                return
            }
            let last = open.count - 1
            if open[last].isArray { open[last].items.append(value) } else { open[last].fields[open[last].key] = value }
        }

        private var lastAdded: PropertyListValue? {
            guard let last = open.last else { return result }
            return last.isArray ? last.items.last : last.fields[last.key]
        }

        mutating func value(_ value: PropertyListValue) { add(value) }
        mutating func beginArray(count: Int) { open.append(([], [:], true, "")) }
        mutating func beginDictionary(count: Int) { open.append(([], [:], false, "")) }
        mutating func index(_ index: Int) {}
        mutating func key(_ key: String) { open[open.count - 1].key = key }
        mutating func end() {
            let container = open.removeLast()
            add(container.isArray ? .array(container.items) : .dictionary(container.fields))
        }
        mutating func reference(_ index: Int) { add(.dictionary(["objectReference": .integer(PropertyListInteger(Int64(index)))])) }
        mutating func beginShared(_ index: Int) -> Bool {
            guard let value = written[index] else { return true }
            namedAgain += 1
            add(value)
            return false
        }
        mutating func endShared(_ index: Int) { written[index] = lastAdded }
        mutating func failure(_ error: TypedStreamError) -> TypedStreamError { error }
    }

    static func inputs() throws -> [(name: String, bytes: [UInt8])] {
        let fixtures = TypedStreamFixtures.iMessage + TypedStreamFixtures.nibs + ["ExtraData", "NumberInt64"]
        var inputs = try fixtures.map { ($0, try TypedStreamFixtures.bytes($0)) }
        let corpus = Repository.root.appendingPathComponent("Fuzz/Corpus/typedstream")
        for name in try FileManager.default.contentsOfDirectory(atPath: corpus.path).sorted() {
            inputs.append(("Fuzz/Corpus/typedstream/" + name, Array(try Data(contentsOf: corpus.appendingPathComponent(name)))))
        }
        return inputs
    }

    @Test func everyFixtureAndCorpusFileGivesTheFullDecodesFormOrItsError() throws {
        var decoded = 0
        var refused = 0
        for (name, bytes) in try Self.inputs() {
            guard let document = try? TypedStreamReader().read(bytes) else { continue }
            var full = TypedStreamFoundationDecoder(document: document)
            let expected = Result { () throws(TypedStreamError) in try full.decodeRoot().jsonForm }
            var decoder = TypedStreamFoundationDecoder(document: document)
            var writer = PuttingBackWriter()
            let written = Result { () throws(TypedStreamError) in
                try decoder.writeRoot(to: &writer)
                return writer.result ?? .string("nothing written")
            }
            switch (expected, written) {
            case (.success(let value), .success(let result)):
                #expect(result == value, "\(name)")
                decoded += 1
            case (.failure(let error), .failure(let failure)):
                #expect(failure == error, "\(name)")
                refused += 1
            default:
                Issue.record("\(name): the full decode gives \(expected), writeRoot \(written)")
            }
        }
        // Both kinds are met: the fixtures decode, and the corpus holds streams a decoder refuses.
        #expect(decoded >= 12 && refused >= 1, "\(decoded) decoded, \(refused) refused")
    }

    /// Every typed stream of the interop corpus (found by its signature: Interface Builder's old nibs), likewise.
    @Test(.interopCorpus) func everyTypedStreamOfTheInteropCorpusGivesTheFullDecodesForm() throws {
        var checked = 0
        for path in InteropCorpus.files(under: "realworld") {
            let bytes = [UInt8](try InteropCorpus.bytes(path))
            guard bytes.withUnsafeBytes({ TypedStreamReader.isTypedStream($0) }) else { continue }
            let document = try TypedStreamReader().read(bytes)
            var full = TypedStreamFoundationDecoder(document: document)
            let expected = try full.decodeRoot().jsonForm
            var decoder = TypedStreamFoundationDecoder(document: document)
            var writer = PuttingBackWriter()
            try decoder.writeRoot(to: &writer)
            #expect(writer.result == expected, "\(path)")
            checked += 1
        }
        #expect(checked >= 1)
    }

    @Test func aNibsSharedObjectsAreOfferedOnceEach() throws {
        var decoder = TypedStreamFoundationDecoder(document: try TypedStreamFixtures.document("PathDemo-MainMenu.objects.nib"))
        var writer = PuttingBackWriter()
        try decoder.writeRoot(to: &writer)
        // 53 menu items name their menu, and their menus each other: the names after the first are not written again.
        #expect(writer.written.count > 50 && writer.namedAgain > 50, "\(writer.written.count) objects, \(writer.namedAgain) named again")
    }

    @Test("an object of another class met inside itself is an objectReference; an NSArray met inside itself through one is refused")
    func cycles() throws {
        // Object 0 of class A whose one field "@" refers to object 0 (0x92).
        let header: [UInt8] = [0x04, 0x0B] + Array("streamtyped".utf8) + [0x81, 0xE8, 0x03]
        var other = TypedStreamFoundationDecoder(
            document: try TypedStreamReader().read(header + [0x84, 0x01, 0x40, 0x84, 0x84, 0x84, 0x01, 0x41, 0x00, 0x85, 0x92, 0x92, 0x86]))
        var writer = PuttingBackWriter()
        try other.writeRoot(to: &writer)
        #expect(
            writer.result
                == .dictionary([
                    "class": .string("A"), "superclasses": .array([]), "version": .integer(0),
                    "fields": .array([.dictionary(["objectReference": .integer(0)])]),
                ]))
        // NSArray object 0 (count 1) whose element is object 1 of class A, whose field is object 0 again.
        let array =
            header + [0x84, 0x01, 0x40, 0x84, 0x84, 0x84, 0x07] + Array("NSArray".utf8)
            + [0x00, 0x85, 0x84, 0x01, 0x69, 0x01, 0x92, 0x84, 0x84, 0x84, 0x01, 0x41, 0x00, 0x85, 0x92, 0x92, 0x86, 0x86]
        let document = try TypedStreamReader().read(array)
        var full = TypedStreamFoundationDecoder(document: document)
        #expect(throws: TypedStreamError(.cycle, at: 19, "object 0 holds itself")) { try full.decodeRoot() }
        var decoder = TypedStreamFoundationDecoder(document: document)
        var arrayWriter = PuttingBackWriter()
        #expect(throws: TypedStreamError(.cycle, at: 19, "object 0 holds itself")) { try decoder.writeRoot(to: &arrayWriter) }
    }
}
