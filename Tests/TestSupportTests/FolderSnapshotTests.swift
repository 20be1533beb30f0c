import Foundation
import TestSupport
import Testing

/// `FolderSnapshot`: a change of one byte, a new item or a link's new destination shows.
struct FolderSnapshotTests {
    /// FNV-1a 64 of "a" is 0xaf63dc4c8601ec8c (the FNV specification's test vector).
    @Test func theChecksumIsFNV1a() {
        #expect(FolderSnapshot.checksum(Data("a".utf8)) == 0xaf63_dc4c_8601_ec8c)
        #expect(FolderSnapshot.checksum(Data()) == 0xcbf2_9ce4_8422_2325)
    }

    @Test func aChangeOfOneByteOrANewItemShows() throws {
        let root = try ScratchFolder.make("snapshot").path
        try FileManager.default.createDirectory(atPath: root + "/sub", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        try Data("abc".utf8).write(to: URL(fileURLWithPath: root + "/sub/f"))
        try FileManager.default.createSymbolicLink(atPath: root + "/link", withDestinationPath: "sub/f")
        let before = try FolderSnapshot.take(root)
        #expect(before["sub"] == "folder")
        #expect(before["link"] == "link sub/f")
        #expect(before["sub/f"]?.hasPrefix("file 3 ") == true)
        #expect(try FolderSnapshot.take(root) == before)
        try Data("abd".utf8).write(to: URL(fileURLWithPath: root + "/sub/f"))
        #expect(try FolderSnapshot.take(root) != before)
    }
}
