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
}
