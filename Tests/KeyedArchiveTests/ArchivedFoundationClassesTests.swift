import Foundation
import KeyedArchive
import PropertyList
import TestSupport
import Testing

/// Foundation's, AppKit's and UIKit's classes decoded by name from keyed
/// archives Apple's code wrote: Terminal.app's profiles, Foundation on
/// macOS 10.14 (swift-corelibs-foundation's fixtures) and Foundation on Linux
/// (`Fixtures/foundation-linux`, written by its `make-archives.swift`). Each
/// decoded value is checked against the values the archive was made from
/// and against PyPI's nska-deserialize reading the same file.
@Suite struct ArchivedFoundationClassesTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// nska-deserialize's reading of the archive in `file` (or held as `<data>` under `key` of the property list in it).
    /// A fixture's path: `file` under `Fixtures`, or `file` itself when it is absolute.
    static func fixturePath(_ file: String) -> String {
        file.hasPrefix("/") ? file : fixtures.appendingPathComponent(file).path
    }

    static func peer(_ file: String, key: String? = nil) throws -> PropertyListValue {
        // nska_fields.py needs nska-deserialize (scripts/install-deps.sh test installs it).
        let data = try PythonScript.run(
            arguments: [fixtures.appendingPathComponent("nska_fields.py").path, fixturePath(file)] + (key.map { [$0] } ?? []))
        return try JSONPropertyListReader().read(data)
    }

    static func root(_ file: String) throws -> ArchivedValue {
        try KeyedArchiveReader().read(try Data(contentsOf: URL(fileURLWithPath: fixturePath(file)))).decodeValue(forTopKey: "root")
    }

    static func string(_ value: PropertyListValue?) -> String? {
        if case .string(let text)? = value { text } else { nil }
    }

    // MARK: Foundation on Linux

    @Test func uuidAndURLs() throws {
        let uuid = try Self.root("foundation-linux/uuid.plist")
        #expect(uuid == .uuid(UUID(uuidString: "68753A44-4D6F-1226-9C60-0050E4C00067")!))
        #expect(uuid.readableText == Self.string(try Self.peer("foundation-linux/uuid.plist").value(at: [.key("root")])))

        let relative = try Self.root("foundation-linux/url-relative.plist")
        #expect(relative == .url(relative: "docs/a%20b.txt?q=1", base: "https://example.com/base/index.html"))
        #expect(relative.readableText == "https://example.com/base/docs/a%20b.txt?q=1")
        let peer = try Self.peer("foundation-linux/url-relative.plist")
        #expect(Self.string(peer.value(at: [.key("NS.relative")])) == "docs/a%20b.txt?q=1")
        #expect(Self.string(peer.value(at: [.key("NS.base"), .key("NS.relative")])) == "https://example.com/base/index.html")

        #expect(try Self.root("foundation-linux/url-absolute.plist").readableText == "file:///tmp/x.ict")
    }

    /// Foundation on Linux writes `{{0.0, 0.0}, {10.0, 10.0}}`; the readable form is Apple's `NSStringFromRect`'s.
    @Test(arguments: [
        ("value-range", ArchivedNSValue.range(location: 3, length: 7), "{3, 7}", ""),
        ("value-point", .geometry(.point(x: 1.5, y: -2), text: "{1.5, -2.0}"), "{1.5, -2}", "NS.pointval"),
        ("value-size", .geometry(.size(width: 640, height: 480), text: "{640.0, 480.0}"), "{640, 480}", "NS.sizeval"),
        ("value-rect", .geometry(.rect(x: 0, y: 0, width: 10, height: 10), text: "{{0.0, 0.0}, {10.0, 10.0}}"), "{{0, 0}, {10, 10}}", "NS.rectval"),
    ])
    func values(name: String, expected: ArchivedNSValue, readable: String, textKey: String) throws {
        let value = try Self.root("foundation-linux/\(name).plist")
        #expect(value == .nsValue(expected))
        #expect(value.readableText == readable)
        if case .geometry(_, let text) = expected {
            #expect(Self.string(try Self.peer("foundation-linux/\(name).plist").value(at: [.key(textKey)])) == text)
        }
    }

    @Test func collectionsAndData() throws {
        #expect(try Self.root("foundation-linux/null.plist") == .nsNull)
        #expect(try Self.root("foundation-linux/mutable-data.plist") == .data(Data([0xDE, 0xAD, 0xBE, 0xEF])))
        let ordered = try Self.root("foundation-linux/ordered-set.plist")
        #expect(ordered == .orderedSet([.string("b"), .string("a"), .string("c")]))
        let peer = try Self.peer("foundation-linux/ordered-set.plist")
        #expect((0..<3).map { Self.string(peer.value(at: [.key("NS.object.\($0)")])) } == ["b", "a", "c"])

        let one = try Self.root("foundation-linux/index-set-one.plist")
        #expect(one == .indexSet(FoundationIndexSet(ranges: [TextRange(location: 5, length: 3)])))
        #expect(one.readableText == "(5-7)")
        let many = try Self.root("foundation-linux/index-set-many.plist")
        #expect(
            many
                == .indexSet(
                    FoundationIndexSet(ranges: [TextRange(location: 1, length: 2), TextRange(location: 10, length: 1), TextRange(location: 300, length: 5)])))
        #expect(many.readableText == "(1-2, 10, 300-304)")
        #expect(try Self.peer("foundation-linux/index-set-many.plist").value(at: [.key("NSRangeCount")]) == .integer(3))
    }

    @Test func datesAndPlaces() throws {
        let components = try Self.root("foundation-linux/date-components.plist")
        #expect(components == .dateComponents(FoundationDateComponents(values: [.year: 2024, .month: 2, .day: 29, .hour: 13], isLeapMonth: false)))
        #expect(components.readableText == "year 2024, month 2, day 29, hour 13")
        let peer = try Self.peer("foundation-linux/date-components.plist")
        #expect(peer.value(at: [.key("NS.year")]) == .integer(2024))
        #expect(peer.value(at: [.key("NS.minute")]) == .integer(PropertyListInteger(Int64.max)))

        #expect(try Self.root("foundation-linux/locale.plist") == .locale(FoundationLocale(identifier: "fr_CA")))
        guard case .timeZone(let zone) = try Self.root("foundation-linux/time-zone.plist") else {
            Issue.record("time-zone.plist is no NSTimeZone")
            return
        }
        #expect(zone.name == "Europe/Paris")
        #expect(zone.data?.prefix(4) == Array("TZif".utf8)[...])
        #expect(Self.string(try Self.peer("foundation-linux/time-zone.plist").value(at: [.key("NS.name")])) == "Europe/Paris")
    }

    /// The runs `make-archives.swift` set: NSLink on "Hello", nothing on ", ", Weight 7 on "wörld"; NSAttributeInfo's (length, index) pairs.
    @Test func attributedStrings() throws {
        let text = try Self.root("foundation-linux/attributed-string.plist")
        let expected = AttributedText<ArchivedValue>(
            string: "Hello, wörld",
            runs: [
                AttributedTextRun(range: TextRange(location: 0, length: 5), attributes: [.init(key: .string("NSLink"), value: .string("https://example.com"))]),
                AttributedTextRun(range: TextRange(location: 5, length: 2), attributes: []),
                AttributedTextRun(range: TextRange(location: 7, length: 5), attributes: [.init(key: .string("Weight"), value: .integer(7))]),
            ])
        #expect(text == .attributedString(expected))
        #expect(text.readableText == #""Hello, wörld" {0, 5} {"NSLink" = "https://example.com"}; {5, 2} {}; {7, 5} {"Weight" = 7}"#)
        let peer = try Self.peer("foundation-linux/attributed-string.plist")
        #expect(Self.string(peer.value(at: [.key("NSString")])) == "Hello, wörld")
        #expect(Self.string(peer.value(at: [.key("NSAttributes"), .index(0), .key("NSLink")])) == "https://example.com")
        #expect(peer.value(at: [.key("NSAttributeInfo"), .key("NS.data"), .key("$bytes")]) == .string("050002010502"))

        let plain = try Self.root("foundation-linux/attributed-string-plain.plist")
        #expect(
            plain == .attributedString(AttributedText(string: "plain", runs: [AttributedTextRun(range: TextRange(location: 0, length: 5), attributes: [])])))
    }

    // MARK: Apple's Foundation on macOS 10.14 (swift-corelibs-foundation's fixtures, MANIFEST.md)

    /// MANIFEST: NSIndexSet {0..<50, 100..<150, 1000..<1050, Int.max-50..<Int.max}.
    @Test func appleIndexSetOfManyRanges() throws {
        for name in ["NSIndexSet-ManyRanges", "NSMutableIndexSet-ManyRanges"] {
            let archive = try Fixtures.archive("keyedarchive/swift-corelibs-foundation/macOS-10.14/\(name).archive")
            let expected = [(0, 50), (100, 50), (1000, 50), (Int.max - 50, 50)].map { TextRange(location: $0, length: $1) }
            #expect(try archive.decodeValue(forTopKey: "root") == .indexSet(FoundationIndexSet(ranges: expected)), "\(name)")
        }
    }

    /// MANIFEST: "0123456789"; {Font: Helvetica, Size: 123} on 1…8, {Font: Times, Size: 456} on 2…3, 4…5 and 8.
    @Test func appleAttributedStringRuns() throws {
        for name in ["NSAttributedString", "NSMutableAttributedString"] {
            let archive = try Fixtures.archive("keyedarchive/swift-corelibs-foundation/macOS-10.14/\(name).archive")
            guard case .attributedString(let text) = try archive.decodeValue(forTopKey: "root") else {
                Issue.record("\(name) is no attributed string")
                continue
            }
            #expect(text.string == "0123456789")
            #expect(text.runs.map(\.range.location) == [0, 1, 2, 6, 8, 9], "\(name)")
            #expect(text.runs.map(\.range.length) == [1, 1, 4, 2, 1, 1], "\(name)")
            func font(_ run: AttributedTextRun<ArchivedValue>) -> String? {
                run.attributes.first { $0.key == .string("Font") }.flatMap { if case .string(let name) = $0.value { name } else { nil } }
            }
            #expect(text.runs.map(font) == [nil, "Helvetica", "Times", "Helvetica", "Times", nil], "\(name)")
        }
    }

    // MARK: Terminal.app (AppKit's NSColor and NSFont)

    static let terminalProfile = "terminal/Solarized Dark ansi.terminal"

    /// The archive held as `<data>` under `key` of the Terminal profile, decoded.
    static func terminalValue(_ key: String) throws -> ArchivedValue {
        let profile = try PropertyListReader().read(try Data(contentsOf: fixtures.appendingPathComponent(terminalProfile)))
        guard case .data(let bytes)? = profile.value.value(at: [.key(key)]) else { throw CocoaError(.fileReadCorruptFile) }
        return try KeyedArchiveReader().read(bytes).decodeValue(forTopKey: "root", allowedClassNames: ArchivedValue.builtInClassNames)
    }

    /// Hand-annotated from the file's bytes (terminal/SOURCES.md), and nska-deserialize's NSRGB bytes.
    @Test func terminalColoursAndFont() throws {
        let background = try Self.terminalValue("BackgroundColor")
        #expect(background == .color(FoundationColor(space: .calibratedRGB, components: [0.01592440531, 0.1265209168, 0.1596960127, 0.96])))
        #expect(background.readableText == "calibratedRGB(red 0.01592440531, green 0.1265209168, blue 0.1596960127, alpha 0.96)")
        let peerRGB = try Self.peer(Self.terminalProfile, key: "BackgroundColor").value(at: [.key("NSRGB"), .key("$bytes")])
        #expect(peerRGB == .string(Array("0.01592440531 0.1265209168 0.1596960127 0.96\0".utf8).map { String(format: "%02x", $0) }.joined()))

        #expect(
            try Self.terminalValue("TextColor") == .color(FoundationColor(space: .calibratedRGB, components: [0.4405802488, 0.5096293092, 0.5168579817, 1])))

        let font = try Self.terminalValue("Font")
        #expect(font == .font(FoundationFont(name: "Menlo-Regular", size: 11, flags: 16)))
        #expect(font.readableText == #""Menlo-Regular" 11 pt"#)
        let peer = try Self.peer(Self.terminalProfile, key: "Font")
        #expect(Self.string(peer.value(at: [.key("NSName")])) == "Menlo-Regular")
        #expect(peer.value(at: [.key("NSSize")]) == .real(11))
    }

    /// The allow-list holds for the new classes: a colour is refused when NSColor is not allowed.
    @Test func allowListCoversTheNewClasses() throws {
        let profile = try PropertyListReader().read(try Data(contentsOf: Self.fixtures.appendingPathComponent(Self.terminalProfile)))
        guard case .data(let bytes)? = profile.value.value(at: [.key("BackgroundColor")]) else { throw CocoaError(.fileReadCorruptFile) }
        let error = #expect(throws: KeyedArchiveError.self) {
            try KeyedArchiveReader().read(bytes).decodeValue(forTopKey: "root", allowedClassNames: ["NSString"])
        }
        #expect(error?.code == .disallowedClass)
        #expect(error?.keyPath.description == "$top.root")
        #expect(ArchivedValue.builtInClassNames.isSuperset(of: ["NSColor", "UIColor", "NSFont", "UIFont", "NSAttributedString", "NSError", "NSIndexSet"]))
    }
}
