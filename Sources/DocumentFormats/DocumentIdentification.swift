import SystemSupport

extension ICTDocumentFormat {
    /// Whether `path` names an `.ict` package: a directory (a symbolic link
    /// to one is followed, as a user's path is) whose name ends in `.ict` in
    /// any case, trailing slashes aside.
    ///
    /// Reads the item's status only.
    package static func isPackage(atPath path: String) -> Bool {
        guard isPackageName(trimmingTrailingSlashes(path)) else { return false }
        return (try? FileInfo.of(path: path))?.kind == .directory
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
    package static func isDocument(atPath path: String) -> Bool {
        isPackage(atPath: path) && (try? FileInfo.of(path: "\(path)/\(metadataEntryName)")) != nil
    }

    /// `path` without slashes at its end (`/` stays `/`): a folder named with
    /// one (`Coffee.ict/`, as shells complete it) as it is named without.
    package static func trimmingTrailingSlashes(_ path: String) -> String {
        PathName.trimmingTrailingSlashes(path)
    }
}
