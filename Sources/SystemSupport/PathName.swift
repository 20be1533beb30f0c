/// A path's folder and last name: the one way the kit splits a path, joins
/// one again, trims it and tells whether one path is below another. A bare
/// name's folder is `.` (the current folder) unless the caller names another
/// (`""` for a path inside a package, whose bare name is at the package's
/// root), the root's own entries are in `/`, and trailing slashes are not a
/// name.
///
/// Everything here reads a path by its bytes, as the file system does, never
/// by Swift's characters: `/` followed by a combining mark (U+0301) is one
/// `Character`, and so is a prepended mark followed by `/` (U+0600 `/`), so
/// `lastIndex(of: "/")`, `split(separator: "/")` and `hasPrefix(folder + "/")`
/// miss that slash. A name that starts with a combining mark is a name like
/// any other to the file system. Comparisons are by bytes too: Swift's `==`
/// takes `é` and `e` + U+0301 for one string, which the file system keeps as
/// two names.
package enum PathName {
    private static let slash = UInt8(ascii: "/")

    /// `a/b/Friend.ict` → (`a/b`, `Friend.ict`); `Friend.ict` → (`.`,
    /// `Friend.ict`), or (`bareNameFolder`, `Friend.ict`); `/Friend.ict` →
    /// (`/`, `Friend.ict`); `a/b/` → (`a`, `b`); `/` → (`/`, ``).
    package static func split(_ path: String, bareNameFolder: String = ".") -> (folder: String, name: String) {
        let (end, lastSlash) = withBytes(path) { bytes in
            let end = trimmedCount(bytes)
            return (end, bytes[..<end].lastIndex(of: slash))
        }
        guard let lastSlash else { return (bareNameFolder, String(slice(path, 0, end))) }
        return (lastSlash == 0 ? "/" : String(slice(path, 0, lastSlash)), String(slice(path, lastSlash + 1, end)))
    }

    /// The folder holding `path`, as `split(_:)` gives it.
    package static func folder(of path: String) -> String { split(path).folder }

    /// What comes before `path`'s last name, to put before another name in
    /// the same folder: `a/b/` for `a/b/Friend.ict`, `/` for `/Friend.ict`,
    /// `""` for a bare name.
    package static func folderPrefix(of path: String) -> String {
        let folder = split(path, bareNameFolder: "").folder
        return folder.isEmpty || folder == "/" ? folder : folder + "/"
    }

    /// `folder/name`: the name alone in `.`, `/name` in `/`.
    package static func join(_ folder: String, _ name: String) -> String {
        folder == "/" ? "/" + name : folder == "." ? name : folder + "/" + name
    }

    /// `path` without its trailing slashes: `a/b//` → `a/b`; `/` and `//`
    /// → `/`; `""` stays `""`.
    package static func trimmingTrailingSlashes(_ path: String) -> String {
        let end = withBytes(path, trimmedCount)
        return end == path.utf8.count ? path : String(slice(path, 0, end))
    }

    /// `path`'s names between its slashes: `/a//b/` → `a`, `b` (`.` and
    /// `..` kept as written). With `keepingEmpty`, every stretch between two
    /// slashes, the empty ones too: `/a//b/` → ``, `a`, ``, `b`, ``.
    package static func components(_ path: String, keepingEmpty: Bool = false) -> [Substring] {
        let ranges = withBytes(path) { bytes in
            var ranges: [Range<Int>] = []
            var start = 0
            for offset in bytes.indices where bytes[offset] == slash {
                if keepingEmpty || offset != start { ranges.append(start..<offset) }
                start = offset + 1
            }
            if keepingEmpty || start != bytes.count { ranges.append(start..<bytes.count) }
            return ranges
        }
        return ranges.map { slice(path, $0.lowerBound, $0.upperBound) }
    }

    /// Whether `path` starts at the root (its first byte is `/`).
    package static func isAbsolute(_ path: some StringProtocol) -> Bool { path.utf8.first == slash }

    /// `path` below `folder`, both as written (no link resolved, no `.` or
    /// `..` read): `""` for the folder itself, `b/c` for `/a/b/c` below `/a`
    /// (or `/a/`), nil for a path neither the folder nor below it (`/a/bc`
    /// is not below `/a/b`).
    package static func relative(_ path: String, to folder: String) -> Substring? {
        let start: Int? = withBytes(path) { pathBytes in
            withBytes(folder) { folderBytes in
                let count = trimmedCount(folderBytes)
                guard pathBytes.count >= count, pathBytes[..<count].elementsEqual(folderBytes[..<count]) else { return nil }
                if pathBytes.count == count { return count }
                // Below the root, every absolute path is; below another folder, a slash must come next.
                if count > 0, folderBytes[count - 1] == slash { return count }
                return pathBytes[count] == slash ? count + 1 : nil
            }
        }
        return start.map { slice(path, $0, path.utf8.count) }
    }

    /// Whether `path` is `folder` itself or below it, as `relative(_:to:)` tells.
    package static func isInside(_ path: String, folder: String) -> Bool { relative(path, to: folder) != nil }

    /// Whether two paths are the same bytes (not Swift's `==`, which takes
    /// canonically equivalent names for one).
    package static func same(_ left: String, _ right: String) -> Bool {
        withBytes(left) { leftBytes in withBytes(right) { leftBytes.elementsEqual($0) } }
    }

    /// How many of `bytes` are left without the trailing slashes (a lone `/` stays).
    private static func trimmedCount(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var count = bytes.count
        while count > 1, bytes[count - 1] == slash { count -= 1 }
        return count
    }

    /// `body` over `text`'s UTF-8 bytes, in place when the string is stored
    /// as UTF-8 (a Swift string always is; one bridged from elsewhere is copied).
    /// Reading bytes from a buffer, not through `String.UTF8View`'s generic
    /// indices, is what keeps a query's per-item path checks cheap.
    private static func withBytes<Result>(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        if let result = text.utf8.withContiguousStorageIfAvailable(body) { return result }
        return Array(text.utf8).withUnsafeBufferPointer(body)
    }

    /// The bytes `start..<end` of `text` (offsets that fall on a slash or an end, so between characters' scalars).
    private static func slice(_ text: String, _ start: Int, _ end: Int) -> Substring {
        let utf8 = text.utf8
        let from = utf8.index(utf8.startIndex, offsetBy: start)
        return text[from..<utf8.index(from, offsetBy: end - start)]
    }
}
