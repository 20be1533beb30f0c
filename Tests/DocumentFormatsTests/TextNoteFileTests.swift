import DocumentFormats
import Foundation
import TestSupport
import Testing

/// `TextNoteFile` on the sample notes and damaged ones. Expected texts and
/// offsets are Python's: `open(p, 'rb').read().decode('utf-8')` and, for
/// the damaged ones, the `start` of its `UnicodeDecodeError`
/// (SampleDocs/malformed-notes/README.md).
struct TextNoteFileTests {
    static let samples = Repository.root.appendingPathComponent("SampleDocs").path

    @Test func theSampleNotesRead() throws {
        let note = try TextNoteFile(contentsOf: Self.samples + "/Shopping List.icfnote")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Self.samples + "/Shopping List.icfnote"))
        #expect(note.kind == .icfnote)
        #expect(note.text == String(decoding: bytes, as: UTF8.self))
        #expect(note.byteCount == bytes.count)
        #expect(note.droppedByteCount == 0)
        #expect(note.truncationOffset == nil)
        #expect(note.firstLine == String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)[0])
        let dox = try TextNoteFile(contentsOf: Self.samples + "/Tutorial Note.dox")
        #expect(dox.kind == .dox)
        #expect(dox.droppedByteCount == 0)
    }

    @Test func aDoxCutInsideACharacterReadsWhatIsWholeAndSaysWhere() throws {
        // "Grüße aus Köln" cut to 14 bytes: the first byte of "ö" is at offset 13.
        let note = try TextNoteFile(contentsOf: Self.samples + "/malformed-notes/truncated-utf8.dox")
        #expect(note.text == "Grüße aus K")
        #expect(note.droppedByteCount == 1)
        #expect(note.truncationOffset == 13)
        #expect(note.byteCount == 14)
    }

    @Test func anIcfnoteCutInsideACharacterIsAnError() {
        let cut: [UInt8] = [0x47, 0x72, 0xC3]  // "Gr" and the first byte of "ü"
        #expect { try TextNoteFile(bytes: cut, kind: .icfnote) } throws: {
            ($0 as? ICTDocumentError)?.code == .invalidText && ($0 as? ICTDocumentError)?.byteOffset == 2
        }
        #expect((try? TextNoteFile(bytes: cut, kind: .dox))?.text == "Gr")
    }

    @Test func invalidUTF8IsAnErrorAtItsByteOffset() {
        #expect { try TextNoteFile(contentsOf: Self.samples + "/malformed-notes/invalid-utf8.icfnote") } throws: {
            let error = $0 as? ICTDocumentError
            return error?.code == .invalidText && error?.byteOffset == 20 && error?.description == "byte 20: not UTF-8 text: byte 0xFF here"
        }
    }

    @Test func anEmptyNoteAndOneWithAByteOrderMarkRead() throws {
        #expect(try TextNoteFile(bytes: [], kind: .icfnote).text == "")
        #expect(try TextNoteFile(bytes: [], kind: .icfnote).firstLine == "")
        // U+FEFF is a character of the text: kept, as Python's utf-8 (not utf-8-sig) codec keeps it.
        let withMark = try TextNoteFile(bytes: [0xEF, 0xBB, 0xBF, 0x41], kind: .icfnote)
        #expect(withMark.text == "\u{FEFF}A")
    }

    @Test func aFolderOrAMissingFileIsUnreadable() throws {
        let folder = try ScratchFolder()
        try FileManager.default.createDirectory(atPath: folder.path + "/x.icfnote", withIntermediateDirectories: false)
        for path in [folder.path + "/x.icfnote", folder.path + "/missing.dox"] {
            #expect { try TextNoteFile(contentsOf: path) } throws: { ($0 as? ICTDocumentError)?.code == .unreadableFile }
        }
    }

    @Test func writingReplacesTheWholeFileAndCreatingNeverReplaces() throws {
        let folder = try ScratchFolder()
        let path = folder.path + "/N.icfnote"
        try TextNoteFile.write("Milch\nBrot", to: path, replacingExisting: false)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("Milch\nBrot".utf8))
        #expect { try TextNoteFile.write("x", to: path, replacingExisting: false) } throws: {
            ($0 as? ICTDocumentError)?.code == .alreadyExists
        }
        try TextNoteFile.write("Käse", to: path, replacingExisting: true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data([0x4B, 0xC3, 0xA4, 0x73, 0x65]))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["N.icfnote"])  // no temporary left
    }

    @Test func theJSONFormHasTheTextAndWhatWasDropped() throws {
        let note = try TextNoteFile(contentsOf: Self.samples + "/malformed-notes/truncated-utf8.dox")
        let object = try JSONSerialization.jsonObject(with: Data(note.jsonBytes())) as? [String: Any]
        #expect(object?["kind"] as? String == "dox")
        #expect(object?["text"] as? String == "Grüße aus K")
        #expect(object?["bytes"] as? Int == 14)
        #expect(object?["droppedBytes"] as? Int == 1)
    }
}
