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
        let trimmed = trimmedSlice(path)
        guard let slash = trimmed.utf8.lastIndex(of: slash) else { return (bareNameFolder, String(trimmed)) }
        let folder = slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
        return (folder, String(trimmed[trimmed.utf8.index(after: slash)...]))
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
        let trimmed = trimmedSlice(path)
        return trimmed.endIndex == path.endIndex ? path : String(trimmed)
    }

    /// `path`'s names between its slashes: `/a//b/` → `a`, `b` (`.` and
    /// `..` kept as written). With `keepingEmpty`, every stretch between two
    /// slashes, the empty ones too: `/a//b/` → ``, `a`, ``, `b`, ``.
    package static func components(_ path: String, keepingEmpty: Bool = false) -> [Substring] {
        var names: [Substring] = []
        var start = path.startIndex
        for index in path.utf8.indices where path.utf8[index] == slash {
            if keepingEmpty || index != start { names.append(path[start..<index]) }
            start = path.utf8.index(after: index)
        }
        if keepingEmpty || start != path.endIndex { names.append(path[start...]) }
        return names
    }

    /// Whether `path` starts at the root (its first byte is `/`).
    package static func isAbsolute(_ path: some StringProtocol) -> Bool { path.utf8.first == slash }

    /// `path` below `folder`, both as written (no link resolved, no `.` or
    /// `..` read): `""` for the folder itself, `b/c` for `/a/b/c` below `/a`
    /// (or `/a/`), nil for a path neither the folder nor below it (`/a/bc`
    /// is not below `/a/b`).
    package static func relative(_ path: String, to folder: String) -> Substring? {
        let folder = trimmedSlice(folder)
        var rest = path.utf8[...]
        guard rest.starts(with: folder.utf8) else { return nil }
        rest = rest.dropFirst(folder.utf8.count)
        if rest.isEmpty { return path[path.endIndex...] }
        // Below the root, every absolute path is; below another folder, a slash must come next.
        if folder.utf8.last != slash {
            guard rest.first == slash else { return nil }
            rest = rest.dropFirst()
        }
        return path[rest.startIndex...]
    }

    /// Whether `path` is `folder` itself or below it, as `relative(_:to:)` tells.
    package static func isInside(_ path: String, folder: String) -> Bool { relative(path, to: folder) != nil }

    /// Whether two paths are the same bytes (not Swift's `==`, which takes
    /// canonically equivalent names for one).
    package static func same(_ left: String, _ right: String) -> Bool { left.utf8.elementsEqual(right.utf8) }

    /// `path` without its trailing slashes, as a slice of it.
    private static func trimmedSlice(_ path: String) -> Substring {
        var trimmed = path[...]
        while trimmed.utf8.count > 1, trimmed.utf8.last == slash { trimmed = trimmed[..<trimmed.utf8.index(before: trimmed.endIndex)] }
        return trimmed
    }
}
