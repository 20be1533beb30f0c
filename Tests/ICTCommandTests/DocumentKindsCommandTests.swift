import Foundation
import TestSupport
import Testing

/// `ict inspect/validate/list/create/set/convert` on each of the four kinds
/// of document (.ict, .ptk, .icfnote, .dox), the damaged ones included.
/// Expected values: the samples' bytes as Python reads them (lengths,
/// `UnicodeDecodeError.start` offsets, SampleDocs/malformed-notes/README.md),
/// the PNG sizes ImageMagick's `identify` gives (Coffee.ptk: 145×145
/// thumbnail, 320×320 photo), the damaged .ptk samples' README.
struct DocumentKindsCommandTests {
    static let samples = Repository.root.appendingPathComponent("SampleDocs").path

    static func scratch() throws -> String {
        let folder = try ScratchFolder.make("kinds").path
        return folder
    }

    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    // MARK: inspect

    @Test func inspectShowsANotesNameLengthAndFirstLine() throws {
        let path = Self.samples + "/Shopping List.icfnote"
        let run = try ICTRunner.run(["inspect", path])
        #expect(run.status == 0, "\(run.stderr)")
        // Python: len(b) == 44, len(b.decode()) == 43 ("café" has one two-byte character).
        #expect(
            run.stdout == """
                \(path): .icfnote note
                  display name: Shopping List
                  text: 43 characters, 44 bytes
                  first line: Shopping list

                """)
        let json = try Self.json(try ICTRunner.run(["inspect", "--json", path]).stdout)
        let document = try #require(json["document"] as? [String: Any])
        #expect(document["kind"] as? String == "icfnote")
        let text = try #require(document["text"] as? [String: Any])
        #expect(text["characters"] as? Int == 43)
        #expect(text["bytes"] as? Int == 44)
        #expect(text["truncatedAt"] is NSNull)
    }

    @Test func inspectShowsAPTKsThumbnailAndWithDataItsPhoto() throws {
        let path = Self.samples + "/Coffee.ptk"
        let run = try ICTRunner.run(["inspect", path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.hasPrefix("\(path): .ptk document\n  display name: Coffee\n  version: 1\n  thumbnail: 145×145 PNG, "))
        #expect(run.stdout.contains("read: photo.metadata ("))
        let data = try ICTRunner.run(["inspect", "--data", path])
        #expect(data.stdout.contains("  photo: 320×320 PNG, "))
        let json = try Self.json(try ICTRunner.run(["inspect", "--json", path]).stdout)
        let document = try #require(json["document"] as? [String: Any])
        #expect(document["kind"] as? String == "ptk")
        #expect((document["thumbnail"] as? [String: Any])?["width"] as? Int == 145)
    }

    @Test func aTruncatedDoxIsAWarningAtItsByteAndInvalidUTF8AnErrorAtIts() throws {
        let dox = Self.samples + "/malformed-notes/truncated-utf8.dox"
        let run = try ICTRunner.run(["inspect", dox])
        #expect(run.status == 0)
        #expect(run.stderr.contains("\(dox):byte 13: warning: the note ends inside a UTF-8 character (1 byte dropped)"))
        #expect(run.stdout.contains("  text: 11 characters, 14 bytes\n"))
        let invalid = Self.samples + "/malformed-notes/invalid-utf8.icfnote"
        let bad = try ICTRunner.run(["inspect", invalid])
        #expect(bad.status == 1)
        #expect(bad.stderr == "\(invalid):byte 20: error: not UTF-8 text: byte 0xFF here\n")
    }

    // MARK: validate

    @Test func validateChecksEachKind() throws {
        let good = [
            Self.samples + "/Coffee.ict", Self.samples + "/Coffee.ptk", Self.samples + "/Shopping List.icfnote",
            Self.samples + "/Tutorial Note.dox",
        ]
        let run = try ICTRunner.run(["validate"] + good)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            run.stdout == """
                \(good[0]): valid .ict document
                \(good[1]): valid .ptk document
                \(good[2]): valid .icfnote note (UTF-8 text)
                \(good[3]): valid .dox note (UTF-8 text)

                """)
        let dox = Self.samples + "/malformed-notes/truncated-utf8.dox"
        let truncated = try ICTRunner.run(["validate", dox])
        #expect(truncated.status == 0)
        #expect(truncated.stderr.contains("\(dox):byte 13: warning: "))
        #expect(try ICTRunner.run(["validate", "--strict", dox]).status == 1)
        let invalid = try ICTRunner.run(["validate", Self.samples + "/malformed-notes/invalid-utf8.icfnote"])
        #expect(invalid.status == 1)
        #expect(invalid.stderr.contains("invalid-utf8.icfnote:byte 20: error: not UTF-8 text"))
    }

    /// Each damaged .ptk: an error naming the entry (and key), as its README says.
    @Test(arguments: [
        ("missing-metadata.ptk", "missing-metadata.ptk:photo.metadata: error: required entry is missing"),
        ("wrong-class.ptk", "wrong-class.ptk:photo.metadata: error: the root object is of class PTKData, expected PTKMetadata (at data)"),
        ("damaged-thumbnail.ptk", "damaged-thumbnail.ptk:photo.metadata: error: Thumbnail: "),
    ])
    func validateNamesTheDamagedPTKsEntry(name: String, message: String) throws {
        let run = try ICTRunner.run(["validate", Self.samples + "/malformed-ptk/" + name])
        #expect(run.status == 1)
        #expect(run.stderr.contains(message), "\(run.stderr)")
        #expect(!run.stderr.contains("atal"))  // never a crash
    }

    @Test func listAndInspectReportADamagedPTKWithItsEntry() throws {
        let folder = Self.samples + "/malformed-ptk"
        let list = try ICTRunner.run(["list", folder])
        #expect(list.status == 1)
        #expect(list.stderr.contains("\(folder)/missing-metadata.ptk:photo.metadata: error: the entry is missing"))
        #expect(list.stderr.contains("\(folder)/wrong-class.ptk/photo.metadata:byte "))
        #expect(list.stderr.contains("class PTKData is not allowed here (expected PTKMetadata)"))
        // The thumbnail's header is whole, but its image data is cut short: the size is not trusted.
        #expect(list.stderr.contains("\(folder)/damaged-thumbnail.ptk:photo.metadata: error: not a readable PNG: "))
        #expect(list.stderr.contains("(at data.Thumbnail)"))
        #expect(list.stdout == "NAME  THUMBNAIL  PATH\n")
    }

    // MARK: list

    @Test func listShowsEveryKindWithAKindColumn() throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let files = FileManager.default
        try files.copyItem(atPath: Self.samples + "/Coffee.ict", toPath: folder + "/Coffee.ict")
        try files.copyItem(atPath: Self.samples + "/Coffee.ptk", toPath: folder + "/Beans.ptk")
        try files.copyItem(atPath: Self.samples + "/Shopping List.icfnote", toPath: folder + "/Shopping List.icfnote")
        try files.copyItem(atPath: Self.samples + "/malformed-notes/truncated-utf8.dox", toPath: folder + "/Köln.dox")
        let run = try ICTRunner.run(["list", folder])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            run.stdout == """
                NAME           KIND     THUMBNAIL  PATH
                Beans          ptk      145×145    \(folder)/Beans.ptk
                Coffee         ict      280×280    \(folder)/Coffee.ict
                Köln           dox      none       \(folder)/Köln.dox
                Shopping List  icfnote  none       \(folder)/Shopping List.icfnote

                """)
        #expect(run.stderr.contains("\(folder)/Köln.dox:byte 13: warning: "))
        let json = try Self.json(try ICTRunner.run(["list", "--json", folder]).stdout)
        let documents = try #require(json["documents"] as? [[String: Any]])
        #expect(documents.map { $0["kind"] as? String } == ["ptk", "ict", "dox", "icfnote"])
    }

    /// A note's Syncthing conflict copy is a version of it, not a document (SampleDocs/conflict/README.md).
    @Test func aNotesConflictCopyIsAVersionNotADocument() throws {
        let folder = Self.samples + "/conflict"
        let run = try ICTRunner.run(["list", folder])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            run.stdout == """
                NAME       KIND     THUMBNAIL  CONFLICTS  STATE       PATH
                Groceries  icfnote  none       1          inConflict  \(folder)/Groceries.icfnote

                """)
    }

    // MARK: create, set

    @Test func createMakesEachKindAtItsPath() throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let note = try ICTRunner.run(["create", folder + "/Note.icfnote", "--text", "Milch\nKäse"])
        #expect(note.status == 0, "\(note.stderr)")
        #expect(note.stdout == folder + "/Note.icfnote\n")
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/Note.icfnote")) == Data("Milch\nKäse".utf8))
        #expect(try ICTRunner.run(["create", folder + "/Tut.dox", "--text", "Hi"]).status == 0)
        #expect(try String(contentsOfFile: folder + "/Tut.dox", encoding: .utf8) == "Hi")
        // Never replaced.
        let again = try ICTRunner.run(["create", folder + "/Note.icfnote", "--text", "x"])
        #expect(again.status == 1)
        #expect(again.stderr.contains("already exists"))

        let photo = folder + "/photo.png"
        // Coffee.ict's photo, as plistlib reads it out of the data entry.
        let extract = try ProgramRunner.run(
            "/usr/bin/env",
            [
                "python3", "-c",
                "import plistlib,sys; a=plistlib.load(open(sys.argv[1],'rb')); r=a['$objects'][a['$top']['DATA'].data]; "
                    + "open(sys.argv[2],'wb').write(a['$objects'][r['PHOTO'].data])",
                Self.samples + "/Coffee.ict/ctdocument.data", photo,
            ])
        try #require(extract.status == 0, "\(extract.stderr)")
        let ptk = try ICTRunner.run(["create", folder + "/Photo.ptk", "--photo", photo])
        #expect(ptk.status == 0, "\(ptk.stderr)")
        let inspect = try ICTRunner.run(["inspect", "--data", folder + "/Photo.ptk"])
        #expect(inspect.stdout.contains("thumbnail: 145×145 PNG"))
        #expect(inspect.stdout.contains("photo: 320×320 PNG"))
        #expect(try ICTRunner.run(["validate", folder + "/Photo.ptk"]).status == 0)
        #expect(try ICTRunner.run(["create", folder + "/Friend.ict", "--first-name", "Ada"]).status == 0)
        #expect(try ICTRunner.run(["validate", folder + "/Friend.ict"]).status == 0)
    }

    @Test(arguments: [
        (["create", "x.icfnote", "--first-name", "A"], "a note holds only its text"),
        (["create", "x.ptk", "--text", "A"], "a .ptk document holds only a photo"),
        (["create", "x.txt", "--text", "A"], "does not end in .ict, .ptk, .icfnote or .dox"),
        (["create", "--text", "A"], "--text makes a note"),
        (["create", "x.icfnote", "--text", "A", "-o", "/tmp"], "the path names the folder"),
    ])
    func createRefusesFieldsTheKindHasNot(arguments: [String], message: String) throws {
        let run = try ICTRunner.run(arguments)
        #expect(run.status == 64)
        #expect(run.stderr.contains(message), "\(run.stderr)")
    }

    @Test func setTextReplacesANotesTextWhole() throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/Köln.dox"
        try FileManager.default.copyItem(atPath: Self.samples + "/malformed-notes/truncated-utf8.dox", toPath: path)
        let run = try ICTRunner.run(["set", path, "--text", "Grüße aus Köln"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "\(path): saved\n")
        // Python: "Grüße aus Köln".encode() is 17 bytes.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(bytes.count == 17)
        #expect(String(decoding: bytes, as: UTF8.self) == "Grüße aus Köln")
        #expect(try ICTRunner.run(["set", path, "--text", "Grüße aus Köln"]).stdout == "\(path): unchanged\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["Köln.dox"])  // no temporary left
        #expect(try ICTRunner.run(["set", path, "--display-name", "x"]).status == 64)
    }

    // MARK: convert

    @Test func convertGivesEachKindsJSONForm() throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let note = try ICTRunner.run(["convert", Self.samples + "/malformed-notes/truncated-utf8.dox", "--format", "json"])
        #expect(note.status == 0)
        #expect(note.stderr.contains("byte 13: warning: "))
        let form = try Self.json(note.stdout)
        #expect(form["kind"] as? String == "dox")
        #expect(form["text"] as? String == "Grüße aus K")
        #expect(form["bytes"] as? Int == 14)
        #expect(form["droppedBytes"] as? Int == 1)

        let ptk = try ICTRunner.run(["convert", Self.samples + "/Coffee.ptk", "--format", "json", "-o", folder + "/c.json"])
        #expect(ptk.status == 0, "\(ptk.stderr)")
        let ptkForm = try Self.json(try String(contentsOfFile: folder + "/c.json", encoding: .utf8))
        #expect(ptkForm["version"] as? Int == 1)
        #expect((ptkForm["photo"] as? [String: Any])?["file"] as? String == "c.photo.png")
        #expect(ptkForm["firstName"] == nil)
        // The photo written beside the JSON is the entry's PNG, byte for byte (as plistlib reads it).
        let python = try ProgramRunner.run(
            "/usr/bin/env",
            [
                "python3", "-c",
                "import plistlib,sys; a=plistlib.load(open(sys.argv[1],'rb')); sys.stdout.write(str(a['$objects'][2]==open(sys.argv[2],'rb').read()))",
                Self.samples + "/Coffee.ptk/photo.data", folder + "/c.photo.png",
            ])
        #expect(python.stdout == "True")
        let ict = try ICTRunner.run(["convert", Self.samples + "/Coffee.ict", "--format", "json", "--embed"])
        #expect(try Self.json(ict.stdout)["lastName"] as? String == "Cup")
    }
}
