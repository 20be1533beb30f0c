import Foundation
import KeyedArchive
import PropertyList
import TestSupport
import Testing

/// AppKit's and UIKit's classes in keyed archives Apple's code wrote, from public
/// repositories (`Fixtures/apple-classes/SOURCES.md`): fonts with their
/// descriptors (`UIFontDescriptor`, `NSFontDescriptor`) and colours with an
/// ICC-profiled `NSCustomColorSpace`, as Xcode archived status labels, an
/// `NSColorList` colour list, and `UIColor`s an iOS 17 app's Core Data store holds. Each value is checked
/// against a hand annotation from the bytes (SOURCES.md) and against PyPI's
/// nska-deserialize reading the same file; malformed descriptors, made from
/// the real file by changing one object, are refused at their object.
@Suite struct AppleWrittenClassesTests {
    /// Xcode's find-bar label: the archive Xcode stored as `NS.data` of
    /// `$objects[14541]` in Adium's `.xcuserstate` in the interop corpus,
    /// cut out when the tests run into a temporary file (an absolute path, which the
    /// fixture helpers take as it is). Adium is GPL-licensed, so its bytes
    /// are not copied into this repository (SOURCES.md). Tests reading it carry
    /// the `.interopCorpus` trait.
    static var findBar: String {
        get throws { try FindBar.path.get() }
    }

    private enum FindBar {
        static let corpusFile =
            "realworld/adium-adium/Adium.xcodeproj/project.xcworkspace/xcuserdata/asher.xcuserdatad/UserInterfaceState.xcuserstate"
        /// The cut-out archive's size, as SOURCES.md records it.
        static let bytes = 5799
        static let path: Result<String, any Error> = Result {
            guard case .dictionary(let state) = try PropertyListReader().read(try InteropCorpus.bytes(corpusFile)).value,
                case .array(let objects)? = state["$objects"], objects.count > 14541,
                case .dictionary(let holder) = objects[14541], case .data(let archive)? = holder["NS.data"]
            else { throw CocoaError(.fileReadCorruptFile) }
            guard archive.count == bytes else { throw CocoaError(.fileReadCorruptFile) }
            let path = ScratchFolder.filePath("find-bar", extension: "archive")
            try archive.write(to: URL(fileURLWithPath: path))
            written = path
            atexit { if let written = FindBar.written { unlink(written) } }
            return path
        }
        /// The temporary file, removed when the test process exits.
        nonisolated(unsafe) static var written: String?
    }

    static func findBarPropertyList() throws -> PropertyListValue {
        try PropertyListReader().read(try Data(contentsOf: URL(fileURLWithPath: try findBar))).value
    }

    /// The find bar archive with `$objects[index]` replaced by `object` (and `more` objects appended), decoded.
    static func decodeFindBar(replacing index: Int, with object: PropertyListValue, more: [PropertyListValue] = []) throws -> ArchivedValue {
        guard case .dictionary(var top) = try findBarPropertyList(), case .array(var objects)? = top["$objects"] else {
            throw CocoaError(.fileReadCorruptFile)
        }
        objects[index] = object
        objects += more
        top["$objects"] = .array(objects)
        return try KeyedArchiveObjectGraph(propertyList: .dictionary(top)).decodeValue(forTopKey: "root")
    }

    /// Hand annotation (SOURCES.md): `$objects[6]` is an `NSFont` (`NSName` `.SFNS-Bold`, `NSSize` 11,
    /// `NSfFlags` 34832) whose `NSDescriptor` is `$objects[8]`, a `UIFontDescriptor` with four attributes.
    static let expectedFont = FoundationFont(
        name: ".SFNS-Bold", size: 11, flags: 34832,
        descriptor: FoundationFontDescriptor(
            size: 11, usage: "CTFontEmphasizedUsage", features: [.aat(type: 6, selector: 0)],
            otherAttributeNames: ["NSCTFontUIUsageOverrideAttribute"]))

    /// The bytes of nska_fields.py's `{"$bytes": "<hex>"}` hex string.
    static func bytes(_ hex: PropertyListValue?) -> [UInt8]? {
        guard case .string(let text)? = hex else { return nil }
        let digits = Array(text.utf8)
        return stride(from: 0, to: digits.count - 1, by: 2).compactMap { UInt8(String(decoding: digits[$0...$0 + 1], as: UTF8.self), radix: 16) }
    }

    static func hex(_ bytes: some Sequence<UInt8>) -> PropertyListValue { .string(bytes.map { String(format: "%02x", $0) }.joined()) }

    @Test(.interopCorpus) func fontWithItsDescriptor() throws {
        let value = try ArchivedFoundationClassesTests.root(try Self.findBar)
        guard case .attributedString(let text) = value else {
            Issue.record("the root is not an attributed string: \(value.readableText)")
            return
        }
        #expect(text.string == "Canceled")
        #expect(text.runs.count == 1)
        #expect(text.runs.first?.range == TextRange(location: 0, length: 8))
        let font = text.runs.first?.attributes.first { $0.key == .string("NSFont") }?.value
        #expect(font == .font(Self.expectedFont))
        #expect(font?.readableText == #"".SFNS-Bold" 11 pt, usage CTFontEmphasizedUsage, features 6:0"#)

        let peer = try ArchivedFoundationClassesTests.peer(try Self.findBar)
        let peerFont: [PropertyListPathComponent] = [.key("NSAttributes"), .key("NSFont")]
        #expect(ArchivedFoundationClassesTests.string(peer.value(at: [.key("NSString")])) == "Canceled")
        #expect(ArchivedFoundationClassesTests.string(peer.value(at: PropertyListKeyPath(peerFont + [.key("NSName")]))) == ".SFNS-Bold")
        #expect(peer.value(at: PropertyListKeyPath(peerFont + [.key("NSSize")])) == .real(11))
        #expect(peer.value(at: PropertyListKeyPath(peerFont + [.key("NSfFlags")])) == .integer(34832))
        let attributes = peerFont + [.key("NSDescriptor"), .key("UIFontDescriptorAttributes")]
        #expect(peer.value(at: PropertyListKeyPath(attributes + [.key("NSFontSizeAttribute")])) == .real(11))
        #expect(
            ArchivedFoundationClassesTests.string(peer.value(at: PropertyListKeyPath(attributes + [.key("NSCTFontUIUsageAttribute")])))
                == "CTFontEmphasizedUsage")
        #expect(
            ArchivedFoundationClassesTests.string(peer.value(at: PropertyListKeyPath(attributes + [.key("NSCTFontUIUsageOverrideAttribute")])))
                == "CTFontBoldUsage")
        let feature = attributes + [.key("NSCTFontFeatureSettingsAttribute"), .index(0)]
        #expect(peer.value(at: PropertyListKeyPath(feature + [.key("CTFeatureTypeIdentifier")])) == .integer(6))
        #expect(peer.value(at: PropertyListKeyPath(feature + [.key("CTFeatureSelectorIdentifier")])) == .integer(0))
        #expect(peer.value(at: PropertyListKeyPath(attributes + [.key("NSCTFontFeatureSettingsAttribute"), .index(1)])) == nil)
    }

    /// Newer Xcode (2022): `NSFontDescriptor` with `NSFontDescriptorAttributes` (SOURCES.md's hand annotation), and nska-deserialize's reading.
    @Test func fontWithAnNSFontDescriptor() throws {
        let file = "apple-classes/xcode-build-status-failed.archive"
        guard case .attributedString(let text) = try ArchivedFoundationClassesTests.root(file) else {
            Issue.record("the root is not an attributed string")
            return
        }
        #expect(text.string == "Failed")
        #expect(text.runs.map(\.range) == [TextRange(location: 0, length: 6)])
        let expected = FoundationFont(
            name: ".AppleSystemUIFontBold", size: 11, flags: 34832,
            descriptor: FoundationFontDescriptor(size: 11, usage: "CTFontBoldUsage", features: [.aat(type: 6, selector: 0)]))
        #expect(text.runs.first?.attributes.first { $0.key == .string("NSFont") }?.value == .font(expected))
        let peer = try ArchivedFoundationClassesTests.peer(file)
        let attributes: [PropertyListPathComponent] = [.key("NSAttributes"), .key("NSFont"), .key("NSDescriptor"), .key("NSFontDescriptorAttributes")]
        #expect(ArchivedFoundationClassesTests.string(peer.value(at: [.key("NSAttributes"), .key("NSFont"), .key("NSName")])) == ".AppleSystemUIFontBold")
        #expect(peer.value(at: PropertyListKeyPath(attributes + [.key("NSFontSizeAttribute")])) == .real(11))
        #expect(
            ArchivedFoundationClassesTests.string(peer.value(at: PropertyListKeyPath(attributes + [.key("NSCTFontUIUsageAttribute")]))) == "CTFontBoldUsage")
        let feature = attributes + [.key("NSCTFontFeatureSettingsAttribute"), .index(0)]
        #expect(peer.value(at: PropertyListKeyPath(feature + [.key("CTFeatureTypeIdentifier")])) == .integer(6))
        #expect(peer.value(at: PropertyListKeyPath(feature + [.key("CTFeatureSelectorIdentifier")])) == .integer(0))
    }

    /// iOS's pasteboard (SOURCES.md, `aztec-pasteboard-bullet-list.archive`): an attributed string whose run holds a
    /// `UIFont` with its `UIFontDescriptor` and a system `UIColor`, by the hand annotation and nska-deserialize's reading.
    @Test func uikitFontAndSystemColourFromThePasteboard() throws {
        let file = "apple-classes/aztec-pasteboard-bullet-list.archive"
        guard case .attributedString(let text) = try ArchivedFoundationClassesTests.root(file) else {
            Issue.record("the root is not an attributed string")
            return
        }
        #expect(text.string == "Test")
        #expect(text.runs.map(\.range) == [TextRange(location: 0, length: 4)])
        let attributes = text.runs.first?.attributes ?? []
        let expectedFont = FoundationFont(
            name: ".SFUI-Regular", size: 14, descriptor: FoundationFontDescriptor(size: 14, usage: "CTFontRegularUsage"))
        #expect(attributes.first { $0.key == .string("NSFont") }?.value == .font(expectedFont))
        guard case .color(let colour)? = attributes.first(where: { $0.key == .string("NSColor") })?.value else {
            Issue.record("no NSColor in the run")
            return
        }
        #expect(colour.space == .uikitSystem)
        #expect(colour.name == "labelColor")

        let peer = try ArchivedFoundationClassesTests.peer(file)
        let font: [PropertyListPathComponent] = [.key("NSAttributes"), .key("NSFont")]
        #expect(ArchivedFoundationClassesTests.string(peer.value(at: PropertyListKeyPath(font + [.key("UIFontName")]))) == ".SFUI-Regular")
        #expect(Self.number(peer.value(at: PropertyListKeyPath(font + [.key("UIFontPointSize")]))) == 14)
        let descriptor = font + [.key("UIFontDescriptor"), .key("UIFontDescriptorAttributes")]
        #expect(Self.number(peer.value(at: PropertyListKeyPath(descriptor + [.key("NSFontSizeAttribute")]))) == 14)
        #expect(
            ArchivedFoundationClassesTests.string(peer.value(at: PropertyListKeyPath(descriptor + [.key("NSCTFontUIUsageAttribute")])))
                == "CTFontRegularUsage")
        let colourPath: [PropertyListPathComponent] = [.key("NSAttributes"), .key("NSColor"), .key("UISystemColorName")]
        #expect(ArchivedFoundationClassesTests.string(peer.value(at: PropertyListKeyPath(colourPath))) == "labelColor")
    }

    /// Hand annotation (SOURCES.md): `$objects[28]`, `NSColorSpace` 3 (calibrated white), `NSComponents` "0 1",
    /// `NSCustomColorSpace` `$objects[29]` (`NSID` 9, `NSModel` 0) whose `NSICC` is a 4,456-byte
    /// "Generic Gray Gamma 2.2 Profile"; the profile's bytes are checked against nska-deserialize's.
    @Test(.interopCorpus) func colourWithAnICCProfiledSpace() throws {
        guard case .attributedString(let text) = try ArchivedFoundationClassesTests.root(try Self.findBar),
            case .color(let colour)? = text.runs.first?.attributes.first(where: { $0.key == .string("NSColor") })?.value
        else {
            Issue.record("no NSColor attribute")
            return
        }
        #expect(colour.space == .calibratedWhite)
        #expect(colour.components == [0, 1])
        #expect(colour.iccProfile?.count == 4456)
        #expect(ArchivedValue.color(colour).readableText == "calibratedWhite(white 0, alpha 1)")
        let peer = try ArchivedFoundationClassesTests.peer(try Self.findBar)
        let peerColour: [PropertyListPathComponent] = [.key("NSAttributes"), .key("NSColor")]
        #expect(peer.value(at: PropertyListKeyPath(peerColour + [.key("NSColorSpace")])) == .integer(3))
        #expect(peer.value(at: PropertyListKeyPath(peerColour + [.key("NSWhite"), .key("$bytes")])) == Self.hex(Array("0\0".utf8)))
        #expect(peer.value(at: PropertyListKeyPath(peerColour + [.key("NSComponents"), .key("$bytes")])) == Self.hex(Array("0 1".utf8)))
        guard case .string(let profileHex)? = peer.value(at: PropertyListKeyPath(peerColour + [.key("NSCustomColorSpace"), .key("NSICC"), .key("$bytes")]))
        else {
            Issue.record("nska-deserialize gives no NSICC")
            return
        }
        #expect(profileHex.count == 2 * 4456)
        #expect(colour.iccProfile.map { $0.map { String(format: "%02x", $0) }.joined() } == profileHex)
        #expect(profileHex.contains(Array("Generic Gray Gamma 2.2 Profile".utf8).map { String(format: "%02x", $0) }.joined()))
    }

    // MARK: Pattern and CMYK colours Interface Builder archived (keyed nibs)

    /// `$objects[index]` of the keyed archive `file` (under `Fixtures`), decoded as `ict inspect` shows it.
    static func readableObject(_ file: String, _ index: Int) throws -> ArchivedValue? {
        let data = try Data(contentsOf: ArchivedFoundationClassesTests.fixtures.appendingPathComponent(file))
        return try KeyedArchiveReader().read(data).readableValue(ofObjectAt: index)
    }

    /// Hand annotation (SOURCES.md): `$objects[254]` of BWToolkit's library nib, `NSColorSpace` 10 with an
    /// `NSImage` and no other key, is a pattern colour; nska-deserialize reads the same object's fields.
    @Test func patternColourAppKitArchived() throws {
        let file = "apple-classes/bwtoolkit-library-pattern-colour.nib"
        let colour = try Self.readableObject(file, 254)
        #expect(colour == .color(FoundationColor(space: .pattern, components: [])))
        #expect(colour?.readableText == "pattern")
        let peer = try ArchivedFoundationClassesTests.peer(file, key: "#254")
        #expect(peer.value(at: [.key("NSColorSpace")]) == .integer(10))
        #expect(ArchivedFoundationClassesTests.string(peer.value(at: [.key("NSImage"), .key("NSSize")])) == "{38, 17}")
        #expect(peer.dictionaryValue.map { Set($0.keys) } == ["NSColorSpace", "NSImage"])
    }

    /// Hand annotation (SOURCES.md): `$objects[39]` of MyMediaPlayer's built `MyDocument.nib`, `NSColorSpace` 5
    /// with AppKit's `NSCMYK` key and a "Generic CMYK Profile" of 54,500 bytes; checked against nska-deserialize.
    @Test func cmykColourWithItsProfileAppKitArchived() throws {
        let file = "apple-classes/mymediaplayer-cmyk-colour.nib"
        guard case .color(let colour)? = try Self.readableObject(file, 39) else {
            Issue.record("$objects[39] is not read as a colour")
            return
        }
        #expect(colour.space == .deviceCMYK)
        #expect(colour.components == [0.1499999911, 1, 1, 0, 1])
        #expect(ArchivedValue.color(colour).readableText == "deviceCMYK(cyan 0.1499999911, magenta 1, yellow 1, black 0, alpha 1)")
        #expect(colour.iccProfile?.count == 54500)
        let peer = try ArchivedFoundationClassesTests.peer(file, key: "#39")
        #expect(peer.value(at: [.key("NSColorSpace")]) == .integer(5))
        #expect(peer.value(at: [.key("NSCMYK"), .key("$bytes")]) == Self.hex(Array("0.1499999911 1 1 0\0".utf8)))
        #expect(
            peer.value(at: [.key("NSCustomColorSpace"), .key("NSICC"), .key("NS.data"), .key("$bytes")])
                == colour.iccProfile.map { Self.hex($0) })
    }

    // MARK: NSError, in an archive its author says Apple's Foundation wrote on macOS 26

    static let finchArchive = "apple-classes/finch-apple-foundation-macos26.archive"

    /// Hand annotation (SOURCES.md): `$objects[33]` of Finch's embedded archive is
    /// `[NSError errorWithDomain:@"D" code:3 userInfo:@{@"k": @"v"}]`; nska-deserialize reads the same object's fields.
    @Test func errorAsItsAuthorSaysFoundationArchivedIt() throws {
        let error = try Self.readableObject(Self.finchArchive, 33)
        #expect(error == .error(FoundationError(domain: "D", code: 3, userInfo: [FoundationEntry(key: .string("k"), value: .string("v"))])))
        #expect(error?.readableText == #"Error Domain=D Code=3 UserInfo={"k" = "v"}"#)
        let peer = try ArchivedFoundationClassesTests.peer(Self.finchArchive, key: "#33")
        #expect(peer.value(at: [.key("NSCode")]) == .integer(3))
        #expect(ArchivedFoundationClassesTests.string(peer.value(at: [.key("NSDomain")])) == "D")
        #expect(ArchivedFoundationClassesTests.string(peer.value(at: [.key("NSUserInfo"), .key("k")])) == "v")
        #expect(peer.dictionaryValue.map { Set($0.keys) } == ["NSCode", "NSDomain", "NSUserInfo"])
    }

    /// The same archive's other Foundation values, by the hand annotation (SOURCES.md), as `ict inspect` shows them.
    @Test func foundationValuesBesideTheError() throws {
        let expected: [(Int, ArchivedValue?, String)] = [
            (18, .date(Date(timeIntervalSinceReferenceDate: 1000)), "2001-01-01 00:16:40 +0000"),
            (20, .url(relative: "b/c", base: "http://x.org/a/"), "http://x.org/a/b/c"),
            (25, nil, "{1, 2}"),
            (29, nil, "{{1, 2}, {3, 4}}"),
            (31, .nsNull, "NSNull"),
            (37, .indexSet(FoundationIndexSet(ranges: [TextRange(location: 1, length: 3), TextRange(location: 300, length: 1)])), "(1-3, 300)"),
            (40, .locale(FoundationLocale(identifier: "fr_CA")), "fr_CA"),
            (45, .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!), "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"),
        ]
        for (index, value, text) in expected {
            let read = try Self.readableObject(Self.finchArchive, index)
            if let value { #expect(read == value, "$objects[\(index)]") }
            #expect(read?.readableText == text, "$objects[\(index)]")
        }
        guard case .nsValue(.range(location: 1, length: 2))? = try Self.readableObject(Self.finchArchive, 25) else {
            Issue.record("$objects[25] is not read as the range {1, 2}")
            return
        }
    }

    // MARK: A colour list AppKit wrote (NSColorList, .clr)

    static let colourList = "apple-classes/DarkMailTopBar.clr"

    /// Each of the 12 colours (`$top.NSColors`) against nska-deserialize's `NSRGB` bytes, read as
    /// the ASCII numbers AppKit writes (SOURCES.md: the first is "0.9861047268 0 0.0832362771");
    /// the names (`$top.NSKeys`) against its strings.
    @Test func colourListColoursAndNames() throws {
        let archive = try KeyedArchiveReader().read(try Data(contentsOf: ArchivedFoundationClassesTests.fixtures.appendingPathComponent(Self.colourList)))
        guard case .array(let colours) = try archive.decodeValue(forTopKey: "NSColors"),
            case .array(let names) = try archive.decodeValue(forTopKey: "NSKeys")
        else {
            Issue.record("NSColors or NSKeys is not an array")
            return
        }
        guard case .color(let first)? = colours.first else {
            Issue.record("the first of NSColors is not a colour")
            return
        }
        #expect(first.space == .calibratedRGB)
        #expect(first.components == [0.9861047268, 0, 0.0832362771, 1])
        // Each colour's NSCustomColorSpace holds an sRGB profile of 3,144 bytes (SOURCES.md).
        #expect(first.iccProfile?.count == 3144)
        // nska-deserialize gives one dictionary per $top key: [{"NSColors": [...]}, {"NSKeys": [...]}].
        guard case .array(let tops) = try ArchivedFoundationClassesTests.peer(Self.colourList), tops.count == 2,
            case .array(let peerColours)? = tops[0].value(at: [.key("NSColors")]), case .array(let peerNames)? = tops[1].value(at: [.key("NSKeys")])
        else {
            Issue.record("nska-deserialize's reading has another shape")
            return
        }
        #expect(colours.count == 12)
        #expect(peerColours.count == colours.count)
        for (colour, peer) in zip(colours, peerColours) {
            guard case .string(let hex)? = peer.value(at: [.key("NSRGB"), .key("$bytes")]) else {
                Issue.record("no NSRGB bytes in \(peer)")
                continue
            }
            let bytes = stride(from: 0, to: hex.count, by: 2).map { UInt8(hex.dropFirst($0).prefix(2), radix: 16) ?? 0 }
            let numbers = String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self).split(separator: " ").compactMap { Double($0) }
            #expect(peer.value(at: [.key("NSColorSpace")]) == .integer(1))
            let profile = peer.value(at: [.key("NSCustomColorSpace"), .key("NSICC"), .key("NS.data"), .key("$bytes")])
            #expect(profile != nil)
            #expect(colour == .color(FoundationColor(space: .calibratedRGB, components: numbers + [1], iccProfile: Self.bytes(profile))))
        }
        #expect(names == peerNames.compactMap(ArchivedFoundationClassesTests.string).map(ArchivedValue.string))
        #expect(names.first == .string("0 0"))
    }

    // MARK: UIColors UIKit on iOS 17 archived (an app's Core Data store)

    /// The three colours of the one group in the MeWe app's Core Data store (`ZGROUP`'s `ZDEFAULTCOLOR`,
    /// `ZDARKCOLOR`, `ZLIGHTCOLOR`, SOURCES.md), each cut out byte for byte, with its red, green and blue in
    /// 255ths and its `NSRGB` text as SOURCES.md's hand annotation gives them.
    static let groupColours: [(file: String, red: Double, green: Double, blue: Double, rgbText: String)] = [
        ("apple-classes/mewe-group-default-color.archive", 45, 42, 130, "0.176 0.165 0.51"),
        ("apple-classes/mewe-group-dark-color.archive", 0, 0, 88, "0 0 0.345"),
        ("apple-classes/mewe-group-light-color.archive", 115, 113, 171, "0.451 0.443 0.671"),
    ]

    static func number(_ value: PropertyListValue?) -> Double? {
        switch value {
        case .real(let real)?: real
        case .integer(let integer)?: integer.int64Value.map(Double.init)
        default: nil
        }
    }

    /// Each colour is UIKit's extended sRGB at full precision (the components are n/255, by hand), not the
    /// `NSColorSpace` 2 and three-decimal `NSRGB` UIKit writes beside them for AppKit; nska-deserialize reads
    /// each component's 32-bit value under its key and, where that differs, the 64-bit one under `-Double`.
    @Test(arguments: groupColours.indices) func uikitColourFromItsDoubleComponents(_ position: Int) throws {
        let (file, red, green, blue, rgbText) = Self.groupColours[position]
        let expected = [red / 255, green / 255, blue / 255, 1]
        let colour = try ArchivedFoundationClassesTests.root(file)
        #expect(colour == .color(FoundationColor(space: .uikitRGB, components: expected)))

        let peer = try ArchivedFoundationClassesTests.peer(file)
        for (key, value) in zip(["UIRed", "UIGreen", "UIBlue", "UIAlpha"], expected) {
            #expect(Self.number(peer.value(at: [.key(key)])) == Double(Float(value)), "\(file) \(key)")
            let double = Self.number(peer.value(at: [.key(key + "-Double")]))
            #expect(double == (Double(Float(value)) == value ? nil : value), "\(file) \(key)-Double")
        }
        #expect(peer.value(at: [.key("UIColorComponentCount")]) == .integer(4))
        #expect(peer.value(at: [.key("NSColorSpace")]) == .integer(2))
        #expect(peer.value(at: [.key("NSRGB"), .key("$bytes")]) == Self.hex(Array(rgbText.utf8)))
    }

    /// The default group colour's archive with `$objects[1]`'s `keys` taken out and `fields` set, decoded.
    static func decodeGroupColour(removing keys: [String] = [], setting fields: [String: PropertyListValue] = [:]) throws -> ArchivedValue {
        let path = ArchivedFoundationClassesTests.fixturePath(groupColours[0].file)
        guard case .dictionary(var top) = try PropertyListReader().read(try Data(contentsOf: URL(fileURLWithPath: path))).value,
            case .array(var objects)? = top["$objects"], case .dictionary(var colour) = objects[1]
        else { throw CocoaError(.fileReadCorruptFile) }
        for key in keys { colour.removeValue(forKey: key) }
        for (key, value) in fields { colour[key] = value }
        objects[1] = .dictionary(colour)
        top["$objects"] = .array(objects)
        return try KeyedArchiveObjectGraph(propertyList: .dictionary(top)).decodeValue(forTopKey: "root")
    }

    /// The default colour as `ict` shows it; without its `-Double` keys (as UIKit wrote colours before
    /// them) the 32-bit values are read; without UIKit's keys, the `NSColorSpace` 2 and `NSRGB` AppKit would read.
    @Test func uikitColourWithoutDoubleOrUIKitKeys() throws {
        #expect(
            try Self.decodeGroupColour().readableText
                == "uikitRGB(red 0.17647058823529413, green 0.16470588235294117, blue 0.5098039215686274, alpha 1)")
        let single = try Self.decodeGroupColour(removing: ["UIRed-Double", "UIGreen-Double", "UIBlue-Double"])
        let floats = [45.0, 42, 130].map { Double(Float($0 / 255)) } + [1]
        #expect(single == .color(FoundationColor(space: .uikitRGB, components: floats)))
        let appKit = try Self.decodeGroupColour(removing: ["UIRed", "UIGreen", "UIBlue", "UIAlpha", "UIRed-Double", "UIGreen-Double", "UIBlue-Double"])
        #expect(appKit == .color(FoundationColor(space: .deviceRGB, components: [0.176, 0.165, 0.51, 1])))
    }

    /// A `-Double` component that is not a number is refused, named, at the colour.
    @Test func uikitColourWithADoubleThatIsNotANumber() throws {
        let error = #expect(throws: KeyedArchiveError.self) {
            try Self.decodeGroupColour(setting: ["UIGreen-Double": .string("0.16")])
        }
        #expect(error?.code == .invalidObject)
        #expect(error?.message.contains("UIGreen-Double that is not a number") == true, "\(error?.message ?? "")")
        #expect(error?.keyPath.description.hasPrefix("$top.root") == true, "\(error?.keyPath.description ?? "")")
    }

    /// An allow-list that does not name UIFontDescriptor: the font is read from its own fields, without the descriptor.
    @Test(.interopCorpus) func allowListWithoutTheDescriptorClass() throws {
        let archive = try KeyedArchiveReader().read(try Data(contentsOf: URL(fileURLWithPath: try Self.findBar)))
        guard case .attributedString(let text) = try archive.decodeValue(forTopKey: "root", allowedClassNames: ArchivedValue.builtInClassNames) else {
            Issue.record("the root is not an attributed string")
            return
        }
        let font = text.runs.first?.attributes.first { $0.key == .string("NSFont") }?.value
        #expect(font == .font(FoundationFont(name: ".SFNS-Bold", size: 11, flags: 34832)))
    }

    /// The real file with its feature setting (`$objects[16]`) made an OpenType one, as newer macOS writes them.
    @Test(.interopCorpus) func openTypeFeatureSetting() throws {
        let value = try Self.decodeFindBar(
            replacing: 16, with: ["$class": .uid(21), "NS.keys": [.uid(34), .uid(35)], "NS.objects": [.uid(36), .uid(37)]],
            more: ["CTFeatureOpenTypeTag", "CTFeatureOpenTypeValue", "smcp", .integer(1)])
        guard case .attributedString(let text) = value, case .font(let font)? = text.runs.first?.attributes.first?.value else {
            Issue.record("no font in \(value.readableText)")
            return
        }
        #expect(font.descriptor?.features == [.openType(tag: "smcp", value: 1)])
        #expect(font.description == #"".SFNS-Bold" 11 pt, usage CTFontEmphasizedUsage, features smcp=1"#)
    }

    /// `$objects[9]` is the attributes dictionary, `[8]` the descriptor, `[26]` its class; `more` objects start at 34.
    static let malformed: [(String, Int, PropertyListValue, [PropertyListValue], String)] = [
        ("attributes not a dictionary", 8, ["$class": .uid(26), "UIFontDescriptorAttributes": .uid(7)], [], "that is not a dictionary"),
        ("no attributes", 8, ["$class": .uid(26)], [], "has neither UIFontDescriptorAttributes nor NSFontDescriptorAttributes"),
        ("attributes referring back to the descriptor", 8, ["$class": .uid(26), "UIFontDescriptorAttributes": .uid(8)], [], "that is not a dictionary"),
        (
            "a size that is a string", 9,
            ["$class": .uid(25), "NS.keys": [.uid(10)], "NS.objects": [.uid(7)]], [], "NSFontSizeAttribute that is not a size"
        ),
        (
            "a negative size", 9,
            ["$class": .uid(25), "NS.keys": [.uid(10)], "NS.objects": [.uid(34)]], [.real(-11)], "NSFontSizeAttribute that is not a size"
        ),
        (
            "feature settings not an array", 9,
            ["$class": .uid(25), "NS.keys": [.uid(11)], "NS.objects": [.uid(7)]], [], "NSCTFontFeatureSettingsAttribute that is not an array"
        ),
        (
            "a feature without its selector", 9,
            ["$class": .uid(25), "NS.keys": [.uid(11)], "NS.objects": [.uid(34)]],
            [["$class": .uid(22), "NS.objects": [.uid(35)]], ["$class": .uid(21), "NS.keys": [.uid(18)], "NS.objects": [.uid(20)]]],
            "[0] without CTFeatureTypeIdentifier and CTFeatureSelectorIdentifier integers"
        ),
        (
            "a feature that is a string", 15, ["$class": .uid(22), "NS.objects": [.uid(7)]], [],
            "NSCTFontFeatureSettingsAttribute[0] that is not a dictionary"
        ),
        (
            "a usage that is a number", 9, ["$class": .uid(25), "NS.keys": [.uid(13)], "NS.objects": [.uid(14)]], [],
            "NSCTFontUIUsageAttribute that is not a string"
        ),
        (
            "an attribute name that is a number", 9, ["$class": .uid(25), "NS.keys": [.uid(14)], "NS.objects": [.uid(7)]], [],
            "a key in UIFontDescriptorAttributes"
        ),
        (
            "a descriptor that is a colour", 6,
            ["$class": .uid(27), "NSName": .uid(7), "NSSize": .real(11), "NSDescriptor": .uid(28)], [],
            "NSDescriptor that is not a UIFontDescriptor or NSFontDescriptor"
        ),
    ]

    @Test(.interopCorpus, arguments: malformed.indices)
    func malformedDescriptorRefused(_ position: Int) throws {
        let (name, index, object, more, words) = Self.malformed[position]
        let error = #expect(throws: KeyedArchiveError.self, "\(name)") {
            try Self.decodeFindBar(replacing: index, with: object, more: more)
        }
        #expect(error?.code == .invalidObject, "\(name)")
        #expect(error?.message.contains(words) == true, "\(name): \(error?.message ?? "")")
        // The error names the font and where it is: NSAttributes' NSFont value, object 6.
        #expect(error?.keyPath.description.hasPrefix("$top.root.NSAttributes") == true, "\(name): \(error?.keyPath.description ?? "")")
        #expect(error?.message.hasPrefix("NSFont ") == true, "\(name): \(error?.message ?? "")")
    }
}
