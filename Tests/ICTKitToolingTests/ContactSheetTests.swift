import DocumentFormats
import Foundation
import TestSupport
import Testing

@testable import ICTKitTooling

/// `ContactSheet`: the page `ict list --html` writes — escaped text, the
/// policy that lets nothing load, `ict list`'s order, the thumbnail read from
/// the metadata entry, and the page and stamp written for watching.
/// (ICTCommandTests' `ContactSheetBrowserTests` opens the page in chromium.)
struct ContactSheetTests {
    static let sampleDocs = Repository.root.appendingPathComponent("SampleDocs")

    static func card(_ name: String, path: String = "x.ict", conflicts: Int? = 0) -> ContactSheet.Card {
        ContactSheet.Card(path: path, displayName: name, kind: "iCloudTest Document", conflictCount: conflicts)
    }

    /// The five characters, by hand: `&<>"'` as `&amp;` `&lt;` `&gt;` `&quot;` `&#39;`, in text and in attributes.
    @Test func escapesEveryTextFromADocumentOrAFileName() {
        let hostile = "<img src=x onerror=alert(1)>"
        let card = ContactSheet.Card(path: "a/\"quoted\" & 'single'.ict", displayName: hostile, kind: "<b>kind</b>", problem: "bad <script>")
        let page = ContactSheet(title: "</title><script>alert(2)</script>", cards: [card]).html()
        #expect(page.contains(">&lt;img src=x onerror=alert(1)&gt;</h2>"))
        #expect(page.contains("title=\"&lt;img src=x onerror=alert(1)&gt;\""))
        #expect(page.contains("a/&quot;quoted&quot; &amp; &#39;single&#39;.ict"))
        #expect(page.contains("&lt;b&gt;kind&lt;/b&gt;"))
        #expect(page.contains("bad &lt;script&gt;"))
        #expect(page.contains("<title>&lt;/title&gt;&lt;script&gt;alert(2)&lt;/script&gt;</title>"))
        #expect(!page.contains("<img src=x"))
        #expect(!page.contains("<script"))
        #expect(!page.contains("<b>"))
    }

    /// Control and reordering characters shown as `ict` shows them on a terminal: `\u{202E}`, `\n`.
    @Test func showsControlAndReorderingCharactersEscaped() {
        let page = ContactSheet(title: "t", cards: [Self.card("evil\u{202E}gpj.exe\nline")]).html()
        #expect(page.contains(">evil\\u{202E}gpj.exe\\nline</h2>"))
        #expect(!page.contains("\u{202E}"))
    }

    /// By display name regardless of case, then by path: `ict list`'s table order.
    @Test func putsTheCardsInListOrder() {
        let cards = [
            Self.card("beta", path: "1.ict"), Self.card("Alpha", path: "3.ict"), Self.card("alpha", path: "2.ict"),
            Self.card("Gamma", path: "0.ict"),
        ]
        #expect(ContactSheet(title: "t", cards: cards).cards.map(\.path) == ["2.ict", "3.ict", "1.ict", "0.ict"])
    }

    /// Without watching: no script at all, and a policy that forbids every load but `data:` images and the inline style.
    @Test func aPageLoadsNothing() {
        let page = ContactSheet(title: "t", cards: [Self.card("a")]).html()
        #expect(
            page.contains(
                "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src data:; style-src 'unsafe-inline'\">"))
        #expect(!page.contains("<script"))
        #expect(!page.contains("http-equiv=\"refresh\""))
        // Nothing names a place to load from: no URL but data: images, no style that loads.
        for place in ["http://", "https://", "ws://", "wss://", "=\"//", "url(", "@import", "@font-face"] {
            #expect(!page.contains(place), "\(place)")
        }
    }

    /// A card shows the conflict copies, the date in UTC and, for an unreadable document, its problem.
    @Test func marksConflictsAndProblemsAndShowsTheDate() {
        // 1_732_500_000 s after 1970 is 2024-11-25 02:00:00 UTC (date -u -d @1732500000).
        var conflicted = Self.card("Rocket", conflicts: 2)
        conflicted.contentChangeDate = Date(timeIntervalSince1970: 1_732_500_000)
        var unreadable = Self.card("Broken")
        unreadable.problem = "ctdocument.metadata: not a readable keyed archive"
        let page = ContactSheet(title: "t", cards: [conflicted, unreadable, Self.card("Plain", conflicts: nil)]).html()
        #expect(page.contains("<article class=\"card conflicted\">"))
        #expect(page.contains("<p class=\"conflict\">in conflict: 2 copies</p>"))
        #expect(page.contains("<time datetime=\"2024-11-25T02:00:00Z\">2024-11-25 02:00:00 UTC</time>"))
        #expect(page.contains("<article class=\"card unreadable\">"))
        #expect(page.contains("<span>metadata unreadable</span>"))
        #expect(page.contains("ctdocument.metadata: not a readable keyed archive"))
        #expect(page.contains("<p>3 documents, 1 unreadable</p>"))
        #expect(page.components(separatedBy: "class=\"conflict\"").count == 2)
    }

    /// The thumbnail's bytes, read from the metadata entry, are those Python's
    /// plistlib finds in it; the card embeds them as a `data:image/png;base64,` URL.
    @Test func readsTheThumbnailFromTheMetadataEntry() throws {
        let path = Self.sampleDocs.appendingPathComponent("Coffee.ict").path
        let summary = try ICTDocumentSummary(ofDocumentAt: path, readingThumbnailUpTo: ContactSheet.defaultThumbnailByteLimit)
        let thumbnail = try #require(summary.thumbnailPNG)
        let script = """
            import plistlib, sys, base64
            objects = plistlib.load(open(sys.argv[1] + "/ctdocument.metadata", "rb"))["$objects"]
            print(base64.b64encode(next(o for o in objects if isinstance(o, bytes) and o.startswith(b"\\x89PNG"))).decode())
            """
        let python = try Self.run("/usr/bin/env", ["python3", "-c", script, path])
        let expected = python.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(Data(thumbnail).base64EncodedString() == expected)
        #expect(summary.bytesRead < 2 * 4096 + thumbnail.count + 4096)
        let card = ContactSheet.Card(location: DocumentLocation(folder: "", name: path, conflictCount: nil), summary: summary)
        #expect(ContactSheet(title: "t", cards: [card]).html().contains("src=\"data:image/png;base64,\(expected)\""))
        // Without the option, as `ict list` reads it: no bytes.
        #expect(try ICTDocumentSummary(ofDocumentAt: path).thumbnailPNG == nil)
    }

    /// A thumbnail over the limit is not read; the card says so.
    @Test func leavesAThumbnailOverTheLimitUnread() throws {
        let path = Self.sampleDocs.appendingPathComponent("Coffee.ict").path
        let summary = try ICTDocumentSummary(ofDocumentAt: path, readingThumbnailUpTo: 1000)
        #expect(summary.thumbnailPNG == nil)
        // Coffee's thumbnail is 123,962 bytes (`ict diff` in the README shows it).
        #expect(summary.thumbnailByteCount == 123_962)
        let card = ContactSheet.Card(location: DocumentLocation(folder: "", name: path, conflictCount: nil), summary: summary)
        #expect(ContactSheet(title: "t", cards: [card]).html().contains("<span>thumbnail of 123962 bytes not shown</span>"))
    }

    /// The `.ict` type's description in `Schemas/ict-types.plist`, and a fallback for an undeclared extension.
    @Test func namesTheKindFromTheTypeRegistry() {
        #expect(ContactSheet.kind(ofDocumentNamed: "some/folder/Coffee.ict") == "iCloudTest Document")
        #expect(ContactSheet.kind(ofDocumentNamed: "Thing.zzqx") == "zzqx document")
        #expect(ContactSheet.kind(ofDocumentNamed: ".hidden") == "document")
    }

    /// The date is the package's modification time, read when the card is made from a location.
    @Test func datesACardByThePackagesModificationTime() throws {
        let folder = try ScratchFolder()
        let path = folder.path + "/Friend.ict"
        try FileManager.default.copyItem(atPath: Repository.root.appendingPathComponent("SampleDocs/Coffee.ict").path, toPath: path)
        // 2001-09-09 01:46:40 UTC, set by `touch`, not by the code under test.
        _ = try Self.run("/usr/bin/env", ["touch", "-d", "@1000000000", path])
        let location = DocumentLocation(folder: folder.path, name: "Friend.ict", conflictCount: 0)
        let card = ContactSheet.Card(location: location, summary: try ICTDocumentSummary(ofDocumentAt: path))
        #expect(card.contentChangeDate == Date(timeIntervalSince1970: 1_000_000_000))
        let unreadable = ContactSheet.Card(location: location, unreadable: ICTDocumentError(.package, "broken"))
        #expect(unreadable.displayName == "Friend")
        #expect(unreadable.contentChangeDate == Date(timeIntervalSince1970: 1_000_000_000))
        #expect(unreadable.problem == "broken")
    }

    /// A watching page's one script is the one its policy allows by hash: Python's
    /// hashlib computes the hash of the script as the page holds it.
    @Test func aWatchingPageAllowsItsScriptByItsHash() throws {
        let page = ContactSheet(title: "t", cards: [Self.card("a")]).html(watching: true, generation: 42)
        #expect(page.contains("<meta name=\"ict-generation\" content=\"42\">"))
        #expect(!page.contains("http-equiv=\"refresh\""))
        #expect(page.components(separatedBy: "<script>").count == 2)
        let start = try #require(page.range(of: "<script>")).upperBound
        let end = try #require(page.range(of: "</script>")).lowerBound
        let script = String(page[start..<end])
        let hash = try Self.run(
            "/usr/bin/env",
            ["python3", "-c", "import base64, hashlib, sys; print(base64.b64encode(hashlib.sha256(sys.argv[1].encode()).digest()).decode())", script]
        ).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(
            page.contains(
                "content=\"default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'self' 'sha256-\(hash)'\""))
        // It reloads only for a newer stamp, and loads nothing but the stamp beside the page.
        #expect(script.contains("Number(window.ictStamp)>built"))
        #expect(script.contains("\".stamp.js\""))
    }

    /// Writing for watching puts the page in place, then the stamp naming its generation; each write a newer one.
    @Test func writesThePageThenItsStamp() throws {
        let folder = try ScratchFolder()
        let page = folder.path + "/sheet.html"
        let sheet = ContactSheet(title: "first", cards: [Self.card("a")])
        let first = try sheet.write(toPage: page, watching: true)
        #expect(try String(contentsOfFile: page, encoding: .utf8) == sheet.html(watching: true, generation: first))
        #expect(try String(contentsOfFile: page + ".stamp.js", encoding: .utf8) == "window.ictStamp = \"\(first)\";\n")
        let second = try ContactSheet(title: "second", cards: []).write(toPage: page, watching: true)
        #expect(second > first)
        #expect(try String(contentsOfFile: page, encoding: .utf8).contains("<title>second</title>"))
        #expect(try String(contentsOfFile: page + ".stamp.js", encoding: .utf8) == "window.ictStamp = \"\(second)\";\n")
        // Not watching: the page alone, without a script, and no stamp of its own.
        let plain = folder.path + "/plain.html"
        #expect(try sheet.write(toPage: plain) == 0)
        #expect(!FileManager.default.fileExists(atPath: plain + ".stamp.js"))
        #expect(try !String(contentsOfFile: plain, encoding: .utf8).contains("<script"))
        // Nothing but the two pages and the stamp: no temporary file left.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["plain.html", "sheet.html", "sheet.html.stamp.js"])
    }

    /// A page that cannot be written is an error naming it; a folder in its place is left as it was.
    @Test func reportsAPageThatCannotBeWritten() throws {
        let folder = try ScratchFolder()
        let missing = folder.path + "/no/such/folder/sheet.html"
        let error = #expect(throws: ICTDocumentError.self) { try ContactSheet(title: "t", cards: []).write(toPage: missing) }
        #expect(error?.code == .package)
        #expect(error?.packageError?.fileSystemPathText == missing)
        #expect(error?.message.contains("cannot write the contact sheet") == true)
        try FileManager.default.createDirectory(atPath: folder.path + "/taken.html", withIntermediateDirectories: false)
        #expect(throws: ICTDocumentError.self) { try ContactSheet(title: "t", cards: []).write(toPage: folder.path + "/taken.html") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["taken.html"])
    }

    /// Runs a program and returns its standard output; fails when it exits non-zero.
    static func run(_ program: String, _ arguments: [String]) throws -> String {
        let run = try ProgramRunner.run(program, arguments)
        #expect(run.status == 0, "\(arguments): \(run.stderr)")
        return run.stdout
    }
}
