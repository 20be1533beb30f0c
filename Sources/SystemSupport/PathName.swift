/// A path's folder and last name: the one way the kit splits a path and
/// joins one again. A bare name's folder is `.` (the current folder) unless
/// the caller names another (`""` for a path inside a package, whose bare
/// name is at the package's root), the root's own entries are in `/`, and
/// trailing slashes are not a name.
package enum PathName {
    /// `a/b/Friend.ict` → (`a/b`, `Friend.ict`); `Friend.ict` → (`.`,
    /// `Friend.ict`), or (`bareNameFolder`, `Friend.ict`); `/Friend.ict` →
    /// (`/`, `Friend.ict`); `a/b/` → (`a`, `b`); `/` → (`/`, ``).
    package static func split(_ path: String, bareNameFolder: String = ".") -> (folder: String, name: String) {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return (bareNameFolder, String(trimmed)) }
        let folder = slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
        return (folder, String(trimmed[trimmed.index(after: slash)...]))
    }

    /// The folder holding `path`, as `split(_:)` gives it.
    package static func folder(of path: String) -> String { split(path).folder }

    /// `folder/name`: the name alone in `.`, `/name` in `/`.
    package static func join(_ folder: String, _ name: String) -> String {
        folder == "/" ? "/" + name : folder == "." ? name : folder + "/" + name
    }
}
