import Foundation
import TestSupport
import Testing

@testable import SystemSupport

/// `FileInfo.birthTime` against coreutils' `stat -c %W` (the birth time in
/// seconds, 0 where the file system does not keep it), and for a link
/// with and without following it.
struct BirthTimeTests {
    static func statBirth(_ path: String, followingLink: Bool) throws -> String {
        try ProgramRunner.run("/usr/bin/stat", (followingLink ? ["-L"] : []) + ["-c", "%W", path]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/stat"), "needs coreutils' stat"))
    func theBirthTimeIsTheFileSystemsOrNil() throws {
        let folder = try ScratchFolder.make("birth").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data("x".utf8).write(to: URL(fileURLWithPath: folder + "/file"))
        try FileManager.default.createSymbolicLink(atPath: folder + "/link", withDestinationPath: folder + "/file")
        for (path, following) in [(folder + "/file", true), (folder + "/link", false), (folder + "/link", true)] {
            let seconds = FileInfo.birthTime(ofPath: path, followingLink: following).map { String($0 / 1_000_000_000) } ?? "0"
            #expect(seconds == (try Self.statBirth(path, followingLink: following)), "\(path), following: \(following)")
        }
        #expect(FileInfo.birthTime(ofPath: folder + "/missing") == nil)
    }
}
