import Foundation
import TestSupport
import Testing

/// `ict inspect`, `convert`, `validate` and `get` on NSArchiver typed
/// streams (Tests/TypedStreamTests/Fixtures, SOURCES.md there), run as the
/// built binary. Expected texts: imessage-exporter's tests for the same
/// blobs, and pytypedstream's reading of them.
struct TypedStreamCommandTests {
    static func fixture(_ name: String) -> String {
        Repository.root.appendingPathComponent("Tests/TypedStreamTests/Fixtures/\(name)").path
    }

    @Test("convert --format text prints an iMessage body's text")
    func convertText() throws {
        let run = try ICTRunner.run(["convert", Self.fixture("URL"), "--format", "text"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "https://github.com/ReagentX/Logria\n")
        let weird = try ICTRunner.run(["convert", Self.fixture("WeirdText"), "--format", "text"])
        #expect(weird.stdout == "𝖍𝖊𝖑𝖑𝖔 𝖜𝖔𝖗𝖑𝖉\n")
    }

    @Test("convert --format text of a nib names the root's class; of a property list says it is not a typed stream")
    func convertTextRefused() throws {
        let nib = try ICTRunner.run(["convert", Self.fixture("TLayer-MainMenu.objects.nib"), "--format", "text"])
        #expect(nib.status == 1)
        #expect(nib.stdout.isEmpty)
        #expect(nib.stderr.contains("the root is of class NSIBObjectData (version 224)"), "\(nib.stderr)")
        let plist = URL(fileURLWithPath: ScratchFolder.filePath("ict-ts", extension: "plist"))
        try Data("{ a = b; }".utf8).write(to: plist)
        defer { try? FileManager.default.removeItem(at: plist) }
        let other = try ICTRunner.run(["convert", plist.path, "--format", "text"])
        #expect(other.status == 1)
        #expect(other.stderr.contains("this is not a typed stream"), "\(other.stderr)")
    }

    @Test("convert --format json: the lossless form and the runs")
    func convertJSON() throws {
        let run = try ICTRunner.run(["convert", Self.fixture("MultiPart"), "--format", "json"])
        #expect(run.status == 0, "\(run.stderr)")
        let top = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let lossless = try #require(top["typedStream"] as? [String: Any])
        #expect(lossless["byteOrder"] as? String == "little")
        let classes = try #require(lossless["classes"] as? [[String: Any]])
        #expect(classes.first?["name"] as? String == "NSMutableAttributedString")
        #expect(classes.first?["version"] as? Int == 0)
        let decoded = try #require(top["decoded"] as? [String: Any])
        let runs = try #require(decoded["runs"] as? [[String: Any]])
        // pytypedstream: six (number, length) pairs, lengths 1, 6, 1, 7, 1, 6.
        #expect(runs.map { $0["length"] as? Int } == [1, 6, 1, 7, 1, 6])
        #expect(runs.map { $0["location"] as? Int } == [0, 1, 7, 8, 15, 16])
    }

    @Test("inspect shows the attributed string as its text and runs; a nib as classes with versions")
    func inspect() throws {
        let run = try ICTRunner.run(["inspect", Self.fixture("AttributedBodyTextOnly")])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("NSMutableAttributedString v0 #0: \"Noter test\""), "\(run.stdout)")
        #expect(run.stdout.contains("{0, 10} \"Noter test\""))
        #expect(run.stdout.contains("\"__kIMMessagePartAttributeName\" = 0"))
        let nib = try ICTRunner.run(["inspect", Self.fixture("PathDemo-MainMenu.objects.nib")])
        #expect(nib.status == 0, "\(nib.stderr)")
        #expect(nib.stdout.hasPrefix("typed stream (big-endian), streamer version 4, system version 1000\n"))
        #expect(nib.stdout.contains("NSIBObjectData v224 #0 : NSObject v0"))
        let json = try ICTRunner.run(["inspect", "--json", Self.fixture("Blank")])
        let top = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(top["kind"] as? String == "typedStream")
        #expect(((top["typedStream"] as? [String: Any])?["decoded"] as? [String: Any])?["string"] as? String == "")
    }

    @Test("validate: a good stream is valid; a lying length is an error at its byte")
    func validate() throws {
        let good = try ICTRunner.run(["validate", Self.fixture("ClipboardViewer-MainMenu.objects.nib")])
        #expect(good.status == 0, "\(good.stderr)")
        #expect(good.stdout.hasSuffix("valid typed stream (big-endian)\n"))
        let bad = try ICTRunner.run(["validate", Self.fixture("ExtraData")])
        #expect(bad.status == 1)
        // 0x79: the NSString's length, 157, where 120 bytes follow (TypedStreamReaderTests).
        #expect(bad.stderr.contains("ExtraData:byte 121: error: a string of 157 bytes, but only 120 bytes follow"), "\(bad.stderr)")
    }

    @Test("get walks fields by index from the root object")
    func get() throws {
        let text = try ICTRunner.run(["get", Self.fixture("AttributedBodyTextOnly"), "0"])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout == "Noter test\n")
        let length = try ICTRunner.run(["get", Self.fixture("AttributedBodyTextOnly"), "2"])
        #expect(length.stdout == "10\n")
        let missing = try ICTRunner.run(["get", Self.fixture("AttributedBodyTextOnly"), "9"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("has 4 fields, so no '9'"), "\(missing.stderr)")
    }
}
