import Testing

@testable import SystemSupport

/// `PathName`, the kit's one split of a path into folder and name. The
/// expected pairs are POSIX's `dirname`/`basename` (as GNU coreutils prints
/// them, checked on this machine), written out by hand, but for two: `/`,
/// whose name here is empty (it has none), not `/`; and `a//b`, whose folder
/// keeps the slashes as written (`a/`, the same folder as `dirname`'s `a`).
struct PathNameTests {
    @Test(arguments: [
        ("a/b/Friend.ict", "a/b", "Friend.ict"),
        ("Friend.ict", ".", "Friend.ict"),  // A bare name is in the current folder.
        ("/Friend.ict", "/", "Friend.ict"),
        ("a/b/", "a", "b"),  // A trailing slash is not a name.
        ("a/b///", "a", "b"),
        ("/", "/", ""),
        ("//x", "/", "x"),
        ("a//b", "a/", "b"),
        ("./x", ".", "x"),
        ("../x", "..", "x"),
    ])
    func splitsAsDirnameAndBasename(path: String, folder: String, name: String) {
        let split = PathName.split(path)
        #expect(split.folder == folder)
        #expect(split.name == name)
        #expect(PathName.folder(of: path) == folder)
    }

    /// Inside a package a bare name is at its root, the folder `""`; nothing else changes.
    @Test(arguments: [
        ("Data.plist", "", "Data.plist"),
        ("Images/photo.png", "Images", "photo.png"),
        ("a/b/c", "a/b", "c"),
    ])
    func aCallerNamesTheFolderOfABareName(path: String, folder: String, name: String) {
        let split = PathName.split(path, bareNameFolder: "")
        #expect(split.folder == folder)
        #expect(split.name == name)
    }

    /// Names that are not UTF-8 (each byte carried as U+10FF00 + byte), or hold a newline, a backslash or a
    /// space, split at the slash byte alone and come back byte for byte.
    @Test func namesWithOddBytesSplitByteForByte() {
        let folderBytes: [UInt8] = [0x64, 0xFF, 0x69, 0x72]  // "d", 0xFF (never UTF-8), "ir"
        let nameBytes: [UInt8] = [0x6E, 0x0A, 0x5C, 0x20, 0xC3, 0xA9, 0xE9]  // "n", LF, "\", " ", "é", a lone 0xE9
        let path = RawFileName.decoding(folderBytes + [UInt8(ascii: "/")] + nameBytes)
        let split = PathName.split(path)
        #expect(RawFileName.bytes(split.folder) == folderBytes)
        #expect(RawFileName.bytes(split.name) == nameBytes)
        #expect(RawFileName.bytes(PathName.join(split.folder, split.name)) == RawFileName.bytes(path))
    }

    @Test(arguments: [
        ("a/b", "c", "a/b/c"),
        (".", "c", "c"),  // The bare name again, not `./c`.
        ("/", "c", "/c"),
    ])
    func joinUndoesSplit(folder: String, name: String, path: String) {
        #expect(PathName.join(folder, name) == path)
        let split = PathName.split(path)
        #expect(split.folder == folder && split.name == name)
    }
}
