import AppleCompatibility
import Foundation
import TestSupport
import Testing

/// The notes app's document (`Note`) in conflict and out of it, as its
/// user sees it: the state, and the text after the conflict is resolved.
@MainActor
@Suite struct NoteTests {
    @Test func aNoteWithAConflictCopyIsInConflictUntilResolved() async throws {
        let folder = try ScratchFolder.make("AppleSourceTextTests")
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("Note.icfnote")
        try Data("mine".utf8).write(to: url)
        try Data("theirs".utf8).write(to: folder.appendingPathComponent("Note.sync-conflict-20261206-101010-ABCDEFG.icfnote"))

        let note = Note(fileURL: url)
        #expect(await note.open())
        #expect(note.text == "mine")
        #expect(note.documentState == .inConflict)

        // Marked resolved, as the app does before removing the others: out of conflict at once.
        for version in NSFileVersion.unresolvedConflictVersionsOfItem(at: url) ?? [] {
            version.isResolved = true
        }
        #expect(note.documentState == .normal)

        // Keeping theirs and reading it again.
        let theirs = try #require(NSFileVersion.otherVersionsOfItem(at: url)?.first)
        try ConflictResolution(documentURL: url).keep(theirs)
        note.updateConflictState()
        #expect(note.documentState == .normal)
        let reverted = await withCheckedContinuation { continuation in note.revert(toContentsOf: url) { continuation.resume(returning: $0) } }
        #expect(reverted)
        #expect(note.text == "theirs")
        #expect(await note.close())
    }
}
