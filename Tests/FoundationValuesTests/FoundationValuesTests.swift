import FoundationValues
import Testing

@Suite struct FoundationURLTests {
    /// RFC 3986, section 5.4.1 and 5.4.2: every normal and abnormal example, against its base `http://a/b/c/d;p?q`.
    @Test(arguments: [
        ("g:h", "g:h"), ("g", "http://a/b/c/g"), ("./g", "http://a/b/c/g"), ("g/", "http://a/b/c/g/"), ("/g", "http://a/g"),
        ("//g", "http://g"), ("?y", "http://a/b/c/d;p?y"), ("g?y", "http://a/b/c/g?y"), ("#s", "http://a/b/c/d;p?q#s"),
        ("g#s", "http://a/b/c/g#s"), ("g?y#s", "http://a/b/c/g?y#s"), (";x", "http://a/b/c/;x"), ("g;x", "http://a/b/c/g;x"),
        ("g;x?y#s", "http://a/b/c/g;x?y#s"), ("", "http://a/b/c/d;p?q"), (".", "http://a/b/c/"), ("./", "http://a/b/c/"),
        ("..", "http://a/b/"), ("../", "http://a/b/"), ("../g", "http://a/b/g"), ("../..", "http://a/"), ("../../", "http://a/"),
        ("../../g", "http://a/g"), ("../../../g", "http://a/g"), ("../../../../g", "http://a/g"), ("/./g", "http://a/g"),
        ("/../g", "http://a/g"), ("g.", "http://a/b/c/g."), (".g", "http://a/b/c/.g"), ("g..", "http://a/b/c/g.."),
        ("..g", "http://a/b/c/..g"), ("./../g", "http://a/b/g"), ("./g/.", "http://a/b/c/g/"), ("g/./h", "http://a/b/c/g/h"),
        ("g/../h", "http://a/b/c/h"), ("g;x=1/./y", "http://a/b/c/g;x=1/y"), ("g;x=1/../y", "http://a/b/c/y"),
        ("g?y/./x", "http://a/b/c/g?y/./x"), ("g?y/../x", "http://a/b/c/g?y/../x"), ("g#s/./x", "http://a/b/c/g#s/./x"),
        ("g#s/../x", "http://a/b/c/g#s/../x"),
    ])
    func resolvesAsRFC3986Says(reference: String, expected: String) {
        #expect(FoundationURL(string: reference, base: "http://a/b/c/d;p?q").absoluteString == expected)
    }

    /// The parts are found by their ASCII bytes: a combining mark after `/`
    /// or `#` (one Character with it) does not hide the delimiter.
    @Test func delimitersFollowedByCombiningMarksStillDelimit() {
        #expect(FoundationURL(string: "#\u{301}s", base: "http://a/b/c/d;p?q").absoluteString == "http://a/b/c/d;p?q#\u{301}s")
        #expect(FoundationURL(string: "../\u{301}", base: "http://a/b/c/d").absoluteString == "http://a/b/\u{301}")
    }

    @Test func withoutABaseIsItsString() {
        #expect(FoundationURL(string: "file:///tmp/x.ict").absoluteString == "file:///tmp/x.ict")
        #expect(FoundationURL(string: "docs/a.txt", base: "https://example.com/base/index.html").description == "https://example.com/base/docs/a.txt")
    }
}

@Suite struct FoundationTextTests {
    /// `"` and `\` escaped, also when a combining mark follows them and makes one Character with them.
    @Test func quotesEscapeEveryQuoteAndBackslash() {
        #expect(FoundationText.quoted("plain") == "\"plain\"")
        #expect(FoundationText.quoted("a\"b\\c") == "\"a\\\"b\\\\c\"")
        #expect(FoundationText.quoted("\"\u{301}") == "\"\\\"\u{301}\"")
    }
}

@Suite struct FoundationGeometryTests {
    /// The text forms: Apple's `NSStringFromRect` (`{{0, 0}, {10, 10}}`) and swift-corelibs-foundation's (`{{0.0, 0.0}, …}`).
    @Test func readsBothPlatformsTextAndWritesApples() throws {
        let rect = try #require(FoundationGeometry(text: "{{0.0, 0.0}, {10.0, 10.0}}", kind: .rect))
        #expect(rect == .rect(x: 0, y: 0, width: 10, height: 10))
        #expect(rect.description == "{{0, 0}, {10, 10}}")
        #expect(FoundationGeometry(text: "{1.5, -2}", kind: .point) == .point(x: 1.5, y: -2))
        #expect(FoundationGeometry(text: "{640, 480}", kind: .size)?.description == "{640, 480}")
    }

    @Test(arguments: ["{1, 2}", "{{1, 2}, {3}}", "{{1, 2}, {3, x}}", "{{1, 2}, {3, 4}", "{{1, 2}, {3, 4}} tail", ""])
    func refusesWhatIsNoRect(text: String) {
        #expect(FoundationGeometry(text: text, kind: .rect) == nil)
    }
}

@Suite struct FoundationColorTests {
    /// `NSRGB` as Terminal.app's profiles hold it (Solarized Dark's background, `Tests/KeyedArchiveTests/Fixtures/terminal`).
    @Test func readsArchivedComponents() {
        let bytes = Array("0.01592440531 0.1265209168 0.1596960127 0.96\0".utf8)
        #expect(FoundationColor.archivedComponents(bytes) == [0.01592440531, 0.1265209168, 0.1596960127, 0.96])
        #expect(FoundationColor.archivedComponents(Array("1 0.5".utf8)) == [1, 0.5])
        #expect(FoundationColor.archivedComponents(Array("1 x 0.5".utf8)) == nil)
        #expect(FoundationColor.archivedComponents(Array("1 nan".utf8)) == nil)
    }

    @Test func describesSpaceAndComponents() {
        #expect(FoundationColor(space: .calibratedRGB, components: [0.5, 0.25, 0, 1]).description == "calibratedRGB(red 0.5, green 0.25, blue 0, alpha 1)")
        #expect(FoundationColor(space: .named, components: [], catalog: "System", name: "controlColor").description == "named(System controlColor)")
        #expect(FoundationColor(space: .pattern, components: []).description == "pattern")
        // The numbers AppKit writes: 1 to 6, and 10 for a pattern (Tests/KeyedArchiveTests/Fixtures/apple-classes/SOURCES.md);
        // no other was found in 13,647 distinct nib archives.
        #expect(
            (1...6).map { FoundationColor.Space(archivedNumber: $0)?.rawValue } == [
                "calibratedRGB", "deviceRGB", "calibratedWhite", "deviceWhite", "deviceCMYK", "named",
            ])
        #expect(FoundationColor.Space(archivedNumber: 10) == .pattern)
        for unknown: Int64 in [0, 7, 8, 9, 11, -1] { #expect(FoundationColor.Space(archivedNumber: unknown) == nil) }
    }
}

@Suite struct FoundationCalendarValuesTests {
    @Test func describesIndexSetsAndDateComponents() {
        let set = FoundationIndexSet(ranges: [TextRange(location: 1, length: 2), TextRange(location: 10, length: 1), TextRange(location: 300, length: 5)])
        #expect(set.description == "(1-2, 10, 300-304)")
        #expect(set.count == 8)
        let components = FoundationDateComponents(values: [.hour: 13, .year: 2024, .day: 29, .month: 2])
        #expect(components.description == "year 2024, month 2, day 29, hour 13")
    }
}
