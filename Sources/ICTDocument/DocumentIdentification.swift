import SystemSupport

extension ICTDocumentFormat {
    /// Whether `path` names an `.ict` package: a directory (a symbolic link
    /// to one is followed, as a user's path is) whose name ends in `.ict` in
    /// any case, trailing slashes aside.
    ///
    /// Reads the item's status only.
    public static func isPackage(atPath path: String) -> Bool {
        guard isPackageName(trimmingTrailingSlashes(path)) else { return false }
        return (try? FileInfo.of(path: path))?.kind == .directory
    }

    /// The `.ict` package that `path` is or lies inside, as the start of
    /// `path` naming it (or, reached through a symbolic link, its resolved
    /// path); nil when no folder on the way is one. A writer checks an
    /// output against it: a package's contents are its document's own, so
    /// nothing else is written in it (`ict list --html Doc.ict/page.html`).
    ///
    /// Reads the status of each folder on the way whose name is a package
    /// name, and resolves the nearest one that exists (`realpath`).
    public static func enclosingPackage(ofPath path: String) -> String? {
        if let package = packageOnTheWay(path) { return package }
        // Through a link (`-o Link/x` with `Link -> Doc.ict`): the folder the path really is in.
        var existing = trimmingTrailingSlashes(path)
        while !existing.isEmpty, (try? FileInfo.of(path: existing)) == nil {
            guard let slash = existing.lastIndex(of: "/") else { existing = "."; break }
            existing = slash == existing.startIndex ? "/" : String(existing[..<slash])
        }
        guard let resolved = try? SymbolicLink.resolvedPath(existing.isEmpty ? "." : existing) else { return nil }
        return packageOnTheWay(resolved)
    }

    /// The first folder on the way of `path`, by its parts as written, that is a package.
    private static func packageOnTheWay(_ path: String) -> String? {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for part in path.split(separator: "/") {
            prefix += prefix.isEmpty || prefix.hasSuffix("/") ? part : "/" + part
            if isPackageName(part), isPackage(atPath: prefix) { return prefix }
        }
        return nil
    }

    /// Whether `name` (a file name, or a path's last part) is a package
    /// name: it ends in `.ict` in any case (`Coffee.ict`, `Upper.ICT`).
    /// Nothing is looked up on disk: what the name alone says, for a
    /// directory already known to be one, as when listing a folder.
    public static func isPackageName(_ name: some StringProtocol) -> Bool {
        name.lowercased().hasSuffix(".\(packageExtension)")
    }

    /// Whether `path` names an `.ict` document: an `.ict` package
    /// (`isPackage(atPath:)`) with an item named `ctdocument.metadata` in it.
    /// Whether the entry is readable is left to opening the document.
    ///
    /// Reads the status of the package and of the entry only.
    public static func isDocument(atPath path: String) -> Bool {
        isPackage(atPath: path) && (try? FileInfo.of(path: "\(path)/\(metadataEntryName)")) != nil
    }

    /// `path` without slashes at its end (`/` stays `/`): a folder named with
    /// one (`Coffee.ict/`, as shells complete it) as it is named without.
    package static func trimmingTrailingSlashes(_ path: String) -> String {
        var result = path
        while result.count > 1, result.hasSuffix("/") { result.removeLast() }
        return result
    }
}
