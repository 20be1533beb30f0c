import PropertyList
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
