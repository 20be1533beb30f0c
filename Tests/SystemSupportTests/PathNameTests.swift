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

    /// A slash that Unicode joins to its neighbour into one character still splits the path, as it does
    /// for the file system: a name that starts with a combining mark (`/` + U+0301 is one character), a
    /// folder that ends with a prepended mark (U+0600 + `/` is one character), and trailing slashes after it.
    /// Split by characters, as before, neither had a slash, and the whole path came back as a bare name.
    /// (GNU `dirname` and `basename` give these pairs, checked on this machine.)
    @Test(arguments: [
        ("a/\u{301}b", "a", "\u{301}b"),
        ("\u{600}/x", "\u{600}", "x"),
        ("\u{600}//", ".", "\u{600}"),
    ])
    func aSlashInOneCharacterWithItsNeighbourStillSplits(path: String, folder: String, name: String) {
        let split = PathName.split(path)
        #expect(Array(split.folder.utf8) == Array(folder.utf8))
        #expect(Array(split.name.utf8) == Array(name.utf8))
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

    /// Below a folder or not, by bytes: the relative path (`""` for the folder itself), nil outside,
    /// whatever character follows the slash. The pairs follow `realpath --relative-base` for paths that
    /// exist (checked on this machine), which prints `.` where this gives `""`, and the path unchanged
    /// where this gives nil.
    @Test(
        arguments: [
            ("/a/b/c", "/a", "b/c"),
            ("/a/b/c", "/a/", "b/c"),
            ("/a", "/a", ""),
            ("/a/", "/a", ""),
            ("/ab", "/a", nil),  // A longer name is not below.
            ("/a/b", "/", "a/b"),
            ("/", "/", ""),
            ("/a/\u{301}x", "/a", "\u{301}x"),  // `/` + U+0301 is one Character, and still a slash.
            ("/a\u{301}/x", "/a", nil),  // `a` + U+0301 is another name than `a`.
            ("/e\u{301}/x", "/\u{e9}", nil),  // Canonically equivalent to Swift's `==`, another folder to the file system.
        ] as [(String, String, String?)])
    func relativeIsByBytes(path: String, folder: String, relative: String?) {
        let found = PathName.relative(path, to: folder).map { Array($0.utf8) }
        #expect(found == relative.map { Array($0.utf8) })
        #expect(PathName.isInside(path, folder: folder) == (relative != nil))
    }

    /// Names between slashes, by bytes, the empty ones dropped unless asked for; `.` and `..` as written.
    @Test func componentsAreTheNamesBetweenSlashes() {
        #expect(PathName.components("/a//b/").map(String.init) == ["a", "b"])
        #expect(PathName.components("/a//b/", keepingEmpty: true).map(String.init) == ["", "a", "", "b", ""])
        #expect(PathName.components("../\u{301}x").map { Array($0.utf8) } == [Array("..".utf8), Array("\u{301}x".utf8)])
        #expect(PathName.components("").isEmpty)
        #expect(PathName.components("", keepingEmpty: true).map(String.init) == [""])
        #expect(PathName.isAbsolute("/\u{301}etc"))
        #expect(!PathName.isAbsolute("\u{301}etc"))
    }

    /// Trailing slashes go, a lone root stays; the folder prefix is what to put before a sibling's name.
    @Test func trimmingAndTheFolderPrefix() {
        #expect(PathName.trimmingTrailingSlashes("a/b//") == "a/b")
        #expect(PathName.trimmingTrailingSlashes("//") == "/")
        #expect(PathName.trimmingTrailingSlashes("") == "")
        #expect(PathName.folderPrefix(of: "a/b/Friend.ict") == "a/b/")
        #expect(PathName.folderPrefix(of: "/Friend.ict") == "/")
        #expect(PathName.folderPrefix(of: "Friend.ict") == "")
        #expect(Array(PathName.folderPrefix(of: "a/\u{301}x").utf8) == Array("a/".utf8))
    }

    /// A path key is its bytes: `é` and `e` + U+0301, one to Swift's `==`, are two keys, as they are two names
    /// to a Linux file system; the same bytes are one key.
    @Test func pathKeysCompareBytes() {
        let composed = "/d/caf\u{e9}.ict", decomposed = "/d/cafe\u{301}.ict"
        #expect(composed == decomposed)  // Swift's view, which the key does not take.
        #expect(PathKey(composed) != PathKey(decomposed))
        var dictionary = PathDictionary<Int>()
        dictionary[composed] = 1
        dictionary[decomposed] = 2
        dictionary[String(decoding: Array(composed.utf8), as: UTF8.self)] = 3  // The same bytes again.
        #expect(dictionary.count == 2)
        #expect(dictionary[composed] == 3 && dictionary[decomposed] == 2)
        #expect(Set(dictionary.keys.map { Array($0.utf8) }) == [Array(composed.utf8), Array(decomposed.utf8)])
        #expect(dictionary.removeValue(forKey: decomposed) == 2 && dictionary.count == 1)
    }
}
