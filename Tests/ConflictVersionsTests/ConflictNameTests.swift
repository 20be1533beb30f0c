import Testing

@testable import ConflictVersions

/// Acceptance 1: every scheme's names, read by hand-written expectations —
/// spaces, dots, Unicode, no extension — and look-alikes that are not conflicts.
struct ConflictNameTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var original: String
        var tool: SyncTool
        var date: String
        var device: String?
        var testDescription: String { name }
    }

    static let conflicts: [Case] = [
        // Syncthing (lib/model/folder_sendrecv.go conflictName).
        Case(
            name: "Friend.sync-conflict-20261123-101500-ABCDEF7.ict", original: "Friend.ict", tool: .syncthing,
            date: "2026-11-23 10:15:00", device: "ABCDEF7"),
        Case(
            name: "My Friend 2.0.sync-conflict-20260101-000059-Z2Z2Z2Z.ict", original: "My Friend 2.0.ict", tool: .syncthing,
            date: "2026-01-01 00:00:59", device: "Z2Z2Z2Z"),
        Case(
            name: "Zoë Ünïcødé.sync-conflict-20251231-235959-QRSTUV2.ict", original: "Zoë Ünïcødé.ict", tool: .syncthing,
            date: "2025-12-31 23:59:59", device: "QRSTUV2"),
        Case(
            name: "README.sync-conflict-20261123-101500-ABCDEF7", original: "README", tool: .syncthing,
            date: "2026-11-23 10:15:00", device: "ABCDEF7"),
        Case(
            name: ".sync-conflict-20261123-101500-ABCDEF7.hidden", original: ".hidden", tool: .syncthing,
            date: "2026-11-23 10:15:00", device: "ABCDEF7"),
        Case(
            name: "archive.tar.sync-conflict-20261123-101500-ABCDEF7.gz", original: "archive.tar.gz", tool: .syncthing,
            date: "2026-11-23 10:15:00", device: "ABCDEF7"),
        Case(
            name: "ctdocument.sync-conflict-20261123-101500-ABCDEF7.data", original: "ctdocument.data", tool: .syncthing,
            date: "2026-11-23 10:15:00", device: "ABCDEF7"),
        // Nextcloud / ownCloud (src/common/utility.cpp makeConflictFileName), with and without a user.
        Case(
            name: "Friend (conflicted copy 2026-11-23 101500).ict", original: "Friend.ict", tool: .nextcloud,
            date: "2026-11-23 10:15:00", device: nil),
        Case(
            name: "Friend (conflicted copy ada lovelace 2026-11-23 101500).ict", original: "Friend.ict", tool: .nextcloud,
            date: "2026-11-23 10:15:00", device: "ada lovelace"),
        Case(
            name: "v1.2 notes (conflicted copy 2026-02-28 235900).txt", original: "v1.2 notes.txt", tool: .nextcloud,
            date: "2026-02-28 23:59:00", device: nil),
        Case(
            name: "Makefile (conflicted copy 2026-11-23 101500)", original: "Makefile", tool: .nextcloud,
            date: "2026-11-23 10:15:00", device: nil),
        // The older ownCloud pattern.
        Case(
            name: "Friend_conflict-20261123-101500.ict", original: "Friend.ict", tool: .nextcloud,
            date: "2026-11-23 10:15:00", device: nil),
        Case(
            name: "Straße_conflict-20200229-120000", original: "Straße", tool: .nextcloud,
            date: "2020-02-29 12:00:00", device: nil),
        // Dropbox (help.dropbox.com/syncing-uploads/conflicted-copy).
        Case(
            name: "Friend (Ada's MacBook Pro's conflicted copy 2026-11-23).ict", original: "Friend.ict", tool: .dropbox,
            date: "2026-11-23", device: "Ada's MacBook Pro"),
        Case(
            name: "Budget 2026.v2 (Büro-PC's conflicted copy 2026-11-23 (1)).numbers", original: "Budget 2026.v2.numbers",
            tool: .dropbox, date: "2026-11-23", device: "Büro-PC"),
        Case(
            name: "notes (laptop's conflicted copy 2026-01-05)", original: "notes", tool: .dropbox,
            date: "2026-01-05", device: "laptop"),
    ]

    @Test(arguments: conflicts)
    func readsConflictName(_ expected: Case) throws {
        let name = try #require(ConflictName(parsing: expected.name))
        #expect(name.originalName == expected.original)
        #expect(name.tool == expected.tool)
        #expect(name.date.description == expected.date)
        #expect(name.device == expected.device)
    }

    static let lookAlikes = [
        "Friend.ict",
        "Friend sync-conflict notes.ict",
        "Friend.sync-conflict-2026112-101500-ABCDEF7.ict",  // 7-digit date
        "Friend.sync-conflict-20261323-101500-ABCDEF7.ict",  // month 13
        "Friend.sync-conflict-20261123-101500-abcdef7.ict",  // lower-case device
        "Friend.sync-conflict-20261123-101500-ABCDEF7.ict.bak",  // not one extension after the tag
        "Notes.txt.sync-conflict-20261123-101500-ABCDEF7",  // Syncthing keeps the extension last
        "Friend (conflicted copy).ict",  // no date
        "Friend (conflicted copy 2026-11-23 1015).ict",  // short time
        "Friend (conflicted copy 2026-11-23 101500).ict.zip",
        "Friend_conflict-resolution.ict",
        "Friend (Ada's conflicted copy 23-11-2026).ict",
        "Friend (Ada's conflicted copy 2026-11-23 (x)).ict",
        "Ada's conflicted copy 2026-11-23).ict",
        "Friend 2.ict",
    ]

    @Test(arguments: lookAlikes)
    func ignoresLookAlike(_ name: String) {
        #expect(ConflictName(parsing: name) == nil)
    }

    /// The tag search compares Unicode scalars (by their UTF-8 bytes): the
    /// last occurrence wins, a scalar matches inside a grapheme, and the
    /// range it gives slices the original text.
    @Test func findsTheLastOccurrenceOfATagByScalars() throws {
        let text = "a_conflict-b_conflict-c"[...]
        let last = try #require(ConflictNameText.lastRange(of: "_conflict-", in: text))
        #expect(text[..<last.lowerBound] == "a_conflict-b")
        #expect(text[last.upperBound...] == "c")
        let accented = "Zoe\u{301} (Büro's conflicted copy 2026-11-23).ict"[...]
        let marker = try #require(ConflictNameText.lastRange(of: "'s conflicted copy ", in: accented))
        #expect(accented[..<marker.lowerBound] == "Zoe\u{301} (Büro")
        let combined = "e\u{301}x"[...]
        #expect(ConflictNameText.lastRange(of: "e", in: combined) == combined.startIndex..<combined.unicodeScalars.index(after: combined.startIndex))
        #expect(ConflictNameText.lastRange(of: "ü", in: "Büro"[...]) != nil)
        #expect(ConflictNameText.lastRange(of: "_conflict-", in: "Friend.ict"[...]) == nil)
        #expect(ConflictNameText.lastRange(of: "longer than the text", in: "short"[...]) == nil)
        #expect(ConflictNameText.lastRange(of: "", in: "anything"[...]) == nil)
    }

    @Test func countsConflictsAmongAListing() {
        let counts = DocumentVersion.conflictCounts(amongNames: [
            "Friend.ict", "Friend.sync-conflict-20261123-101500-ABCDEF7.ict", "Friend (conflicted copy 2026-11-23 101500).ict",
            "Other.ict", "Other 2.ict",
        ])
        #expect(counts == ["Friend.ict": 2])
    }

    @Test func ordersDatesWithAndWithoutTime() throws {
        let day = try #require(ConflictNameDate(year: 2026, month: 11, day: 23))
        let morning = try #require(ConflictNameDate(year: 2026, month: 11, day: 23, time: (8, 0, 0)))
        #expect(day < morning)
        #expect(ConflictNameDate(year: 2026, month: 11, day: 23, time: (24, 0, 0)) == nil)
    }
}
