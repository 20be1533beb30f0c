import Foundation
import TestSupport
import Testing

/// End-to-end: `ict inspect` and `ict get` show Foundation's, AppKit's and
/// UIKit's values in keyed archives as they read (issue 24, item 3), on the
/// archives Foundation on Linux wrote from known values
/// (`Tests/KeyedArchiveTests/Fixtures/foundation-linux/make-archives.swift`)
/// and Terminal.app's Solarized profile; the expected texts are those values
/// as Apple's Foundation prints them (`NSStringFromRect`, `-[NSUUID UUIDString]`,
/// `-[NSURL absoluteString]`).
@Suite struct ArchiveReadableValuesTests {
    static let fixtures = Repository.root.appendingPathComponent("Tests/KeyedArchiveTests/Fixtures")

    static func fixture(_ name: String) -> String { fixtures.appendingPathComponent("foundation-linux/\(name).plist").path }

    @Test func inspectShowsValuesAsTheyRead() throws {
        let expected = [
            ("uuid", "NSUUID #1 = 68753A44-4D6F-1226-9C60-0050E4C00067"),
            ("url-relative", "NSURL #1 = https://example.com/base/docs/a%20b.txt?q=1"),
            ("value-rect", "NSValue #1 = {{0, 0}, {10, 10}}"),
            ("value-range", "NSValue #1 = {3, 7}"),
            ("index-set-many", "NSMutableIndexSet #1 = (1-2, 10, 300-304)"),
            ("date-components", "NSDateComponents #1 = year 2024, month 2, day 29, hour 13"),
            ("locale", "NSLocale #1 = fr_CA"),
            ("time-zone", "NSTimeZone #1 = Europe/Paris"),
            (
                "attributed-string",
                #"NSMutableAttributedString #1 = "Hello, wörld" {0, 5} {"NSLink" = "https://example.com"}; {5, 2} {}; {7, 5} {"Weight" = 7}"#
            ),
        ]
        for (name, line) in expected {
            let run = try ICTRunner.run(["inspect", Self.fixture(name)])
            #expect(run.status == 0, "\(name): \(run.stderr)")
            #expect(run.stdout.contains("\"root\" => " + line + "\n"), "\(name): \(run.stdout)")
        }
    }

    /// The JSON form keeps the raw fields (Foundation on Linux's `{{0.0, 0.0}, {10.0, 10.0}}`) and adds the readable text.
    @Test func inspectJSONKeepsTheFieldsBesideTheText() throws {
        let run = try ICTRunner.run(["inspect", "--json", Self.fixture("value-rect")])
        #expect(run.status == 0, "\(run.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let root = try #require(((report["archive"] as? [String: Any])?["top"] as? [String: Any])?["root"] as? [String: Any])
        #expect(root["readable"] as? String == "{{0, 0}, {10, 10}}")
        let fields = try #require(root["fields"] as? [String: Any])
        #expect(fields["NS.rectval"] as? String == "{{0.0, 0.0}, {10.0, 10.0}}")
        #expect(fields["NS.special"] as? Int == 3)
    }

    @Test func terminalProfileColourAndFont() throws {
        let profile = Self.fixtures.appendingPathComponent("terminal/Solarized Dark ansi.terminal").path
        let folder = try ScratchFolder.make("readable")
        defer { try? FileManager.default.removeItem(at: folder) }
        // The profile's <data> values, each a keyed archive, as Foundation reads them.
        let values = try #require(
            try PropertyListSerialization.propertyList(from: Data(contentsOf: URL(fileURLWithPath: profile)), format: nil) as? [String: Any])
        let colour = folder.appendingPathComponent("background.plist").path
        let font = folder.appendingPathComponent("font.plist").path
        try #require(values["BackgroundColor"] as? Data).write(to: URL(fileURLWithPath: colour))
        try #require(values["Font"] as? Data).write(to: URL(fileURLWithPath: font))
        let colourRun = try ICTRunner.run(["get", colour, "$top.root"])
        #expect(colourRun.stdout == "calibratedRGB(red 0.01592440531, green 0.1265209168, blue 0.1596960127, alpha 0.96)\n", "\(colourRun.stderr)")
        let fontRun = try ICTRunner.run(["inspect", font])
        #expect(fontRun.stdout.contains(#""root" => NSFont #1 = "Menlo-Regular" 11 pt"#), "\(fontRun.stdout)")
    }

    @Test func getPrintsValuesAsTheyRead() throws {
        let uuid = try ICTRunner.run(["get", Self.fixture("uuid"), "$top.root"])
        #expect(uuid.status == 0, "\(uuid.stderr)")
        #expect(uuid.stdout == "68753A44-4D6F-1226-9C60-0050E4C00067\n")
        #expect(try ICTRunner.run(["get", Self.fixture("url-relative"), "$top.root"]).stdout == "https://example.com/base/docs/a%20b.txt?q=1\n")
        #expect(try ICTRunner.run(["get", Self.fixture("value-point"), "$top.root"]).stdout == "{1.5, -2}\n")
        // A field below the object is the archive's own value, as stored: the attributed string's text object.
        #expect(try ICTRunner.run(["get", Self.fixture("attributed-string"), "$top.root.NSString"]).stdout == "Hello, wörld\n")
        // A key path that reaches nothing is still refused with where.
        let missing = try ICTRunner.run(["get", Self.fixture("uuid"), "$top.nothing"])
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("$top.nothing"), "\(missing.stderr)")
    }
}
