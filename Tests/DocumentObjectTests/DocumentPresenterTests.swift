import DocumentObject
import FileCoordination
import Foundation
import SystemPackage
import Testing

/// An open document presents its item: what other coordinated readers and
/// writers, and sync tools that do not coordinate, do to it reaches it
/// without a call from the test. Every wait is bounded (`nextState`).
@MainActor
@Suite struct DocumentPresenterTests {
    /// The next state of `states` that satisfies `accept`, or nil when none
    /// came within `seconds` (a bound on the wait, not a synchronisation).
    static func nextState(
        _ states: AsyncStream<DocumentState>, within seconds: Int = 10, where accept: @escaping @Sendable (DocumentState) -> Bool
    ) async -> DocumentState? {
        await withTaskGroup(of: DocumentState?.self) { group in
            group.addTask {
                for await state in states where accept(state) { return state }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(seconds))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    @Test func aConflictCopyAppearingBesideAnOpenDocumentGivesInConflict() async throws {
        let folder = try ScratchFolder()
        let document = NoteDocument(path: FilePath(try folder.file("Note.icfnote", "mine")), scheduler: ManualScheduler())
        try document.open()
        let states = document.stateChanges()
        // Syncthing writes its conflict copy under a temporary name and renames it into place.
        let temporary = try folder.file(".syncthing.Note.tmp", "theirs")
        #expect(rename(temporary, folder.path + "/Note.sync-conflict-20261125-013000-ABCDEFG.icfnote") == 0)

        let state = await Self.nextState(states) { $0.contains(.inConflict) }
        #expect(state == .inConflict, "told by the presenter, without updateConflictState()")
        #expect(document.conflictVersions.count == 1)

        try document.resolveConflict()
        #expect(document.documentState == .normal)
        try document.close()
    }

    @Test func anotherCoordinatedReaderGetsTheUnsavedChangeSavedFirst() async throws {
        let folder = try ScratchFolder()
        let path = try folder.file("Note.icfnote", "old")
        let document = NoteDocument(path: FilePath(path), scheduler: ManualScheduler())
        try document.open()
        document.text = "unsaved here"
        document.updateChangeCount(.done)

        // Another thread reads through its own coordinator, as another program would.
        let read = try await Task.detached {
            try FileCoordinator().coordinate(reading: path, timeout: .seconds(10)) {
                String(decoding: try Data(contentsOf: URL(fileURLWithPath: $0)), as: UTF8.self)
            }
        }.value
        #expect(read == "unsaved here", "the document saved before the read went on")
        #expect(!document.hasUnsavedChanges)
        try document.close()
    }

    @Test func anotherWritersChangeIsReadWhenNothingIsUnsavedHere() async throws {
        let folder = try ScratchFolder()
        let path = try folder.file("Note.icfnote", "old")
        let document = NoteDocument(path: FilePath(path), scheduler: ManualScheduler())
        try document.open()
        let states = document.stateChanges()

        try await Task.detached {
            try FileCoordinator().coordinate(writing: path, timeout: .seconds(10)) {
                try Data("written elsewhere".utf8).write(to: URL(fileURLWithPath: $0), options: .atomic)
            }
        }.value
        // Reverting shows as editingDisabled, then normal again.
        _ = await Self.nextState(states) { $0.contains(.editingDisabled) }
        _ = await Self.nextState(states) { $0 == .normal }
        #expect(document.text == "written elsewhere")
        try document.close()
    }
}
