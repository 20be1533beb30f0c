import Foundation
import Testing

@testable import SystemSupport

/// `FileURL.path(of:)`, the one conversion every module's `URL` forms use:
/// percent-decoded, without a directory's trailing slash, nil for other schemes.
struct FileURLTests {
    @Test(arguments: [
        ("file:///tmp/a%20b/Doc.ict/", "/tmp/a b/Doc.ict"),
        ("file:///tmp/caf%C3%A9.plist", "/tmp/café.plist"),
        ("file:///tmp/folder//", "/tmp/folder"),
        ("file:///", "/"),
    ])
    func fileURLsGiveTheirDecodedPath(url: String, path: String) throws {
        #expect(FileURL.path(of: try #require(URL(string: url))) == path)
    }

    @Test(arguments: ["https://example.com/Doc.ict", "ftp://host/file.plist", "data:,hello"])
    func otherSchemesGiveNil(url: String) throws {
        #expect(FileURL.path(of: try #require(URL(string: url))) == nil)
    }

    /// The refusal a module names at the call, made from the URL given.
    private struct NotAFileURL: Error, Equatable { var url: String }

    @Test func fileSystemPathGivesTheDecodedPathOfAFileURL() throws {
        let url = try #require(URL(string: "file:///tmp/a%20b/Doc.ict/"))
        #expect(try FileURL.fileSystemPath(of: url) { NotAFileURL(url: $0.absoluteString) } == "/tmp/a b/Doc.ict")
    }

    @Test(arguments: ["https://example.com/Doc.ict", "data:,hello"])
    func fileSystemPathThrowsTheCallersErrorNamingTheURL(url: String) throws {
        let given = try #require(URL(string: url))
        #expect(throws: NotAFileURL(url: url)) {
            try FileURL.fileSystemPath(of: given) { NotAFileURL(url: $0.absoluteString) }
        }
    }
}
