import Foundation
import TestSupport
import Testing

/// `ict list --html PAGE`: what the command does around the page
/// (`ContactSheetBrowserTests` opens the page in a browser).
struct ListHTMLCommandTests {
    static let sampleDocs = Repository.path("SampleDocs")

    static func makeFolder() throws -> String {
        let folder = try ScratchFolder.make("ict-list-html").path
        try FileManager.default.createDirectory(atPath: folder + "/nested/deeper", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: "\(sampleDocs)/Coffee.ict", toPath: "\(folder)/Coffee.ict")
        try FileManager.default.copyItem(atPath: "\(sampleDocs)/Rocket.ict", toPath: "\(folder)/nested/deeper/Rocket.ict")
        return folder
    }

    /// The page replaces an older file whole, nothing is printed, and -r reaches the nested document.
    @Test func writesThePageOverAnOldOneAndListsSubfoldersWithR() throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let page = folder + "/sheet.html"
        try Data("old page".utf8).write(to: URL(fileURLWithPath: page))
        let flat = try ICTRunner.run(["list", "--html", page, folder])
        #expect(flat.status == 0, "\(flat.stderr)")
        #expect(flat.stdout == "" && flat.stderr == "")
        let first = try String(contentsOfFile: page, encoding: .utf8)
        #expect(first.hasPrefix("<!DOCTYPE html>\n") && first.hasSuffix("</html>\n"))
        #expect(first.contains(">Coffee</h2>") && !first.contains(">Rocket</h2>"))
        #expect(first.contains("<p>1 document</p>"))

        let recursive = try ICTRunner.run(["list", "-r", "--html", page, folder])
        #expect(recursive.status == 0, "\(recursive.stderr)")
        let second = try String(contentsOfFile: page, encoding: .utf8)
        #expect(second.contains(">Coffee</h2>") && second.contains(">Rocket</h2>"))
        #expect(second.contains("\(folder)/nested/deeper/Rocket.ict"))
        // No temporary file left beside the page.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["Coffee.ict", "nested", "sheet.html"])
    }

    /// Documents named in a list, one of them not a document: a marked card, reported, exit status 1.
    @Test func marksADocumentThatCannotBeRead() throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let page = folder + "/sheet.html"
        let missing = "\(folder)/Missing.ict"
        let run = try ICTRunner.run(["list", "--html", page, "--files-from", "-"], stdin: Data("\(folder)/Coffee.ict\n\(missing)\n".utf8))
        #expect(run.status == 1)
        #expect(run.stdout == "")
        #expect(run.stderr.contains(missing))
        let html = try String(contentsOfFile: page, encoding: .utf8)
        #expect(html.contains("<article class=\"card unreadable\">"))
        #expect(html.contains(">Missing</h2>"))
        #expect(html.contains("<p>2 documents, 1 unreadable</p>"))
    }

    /// A page that cannot be written: exit 1, the page's path in the message, nothing half written.
    @Test func reportsAPageThatCannotBeWritten() throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let page = folder + "/no/such/sheet.html"
        let run = try ICTRunner.run(["list", "--html", page, folder])
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("\(page): error: cannot write the contact sheet"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/no"))
    }

    @Test(arguments: [
        (["--json"], "--html writes a page instead of the listing; it cannot be combined with --json or --jsonl"),
        (["--jsonl"], "--html writes a page instead of the listing; it cannot be combined with --json or --jsonl"),
        (["--data"], "--html shows what the metadata holds; --data has no place on it"),
    ])
    func refusesOptionsThePageHasNoPlaceFor(_ option: [String], _ message: String) throws {
        let run = try ICTRunner.run(["list", "--html", "/tmp/never-written.html", "SampleDocs"] + option)
        #expect(run.status == 64)
        #expect(run.stderr.contains(message), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "/tmp/never-written.html"))
    }

    /// The help describes the option (the man page is made from it).
    @Test func theHelpDescribesTheOption() throws {
        let help = try ICTRunner.run(["list", "--help"]).stdout
        #expect(help.contains("--html <page.html>"))
        #expect(help.contains("contact sheet"))
    }
}
