import SystemSupport
/// Conflict copies of entries inside a package.
///
/// A package synced as a plain folder (Syncthing, Nextcloud, Dropbox do not
/// know packages) gets a conflict copy per entry that changed on two
/// devices: `ctdocument.sync-conflict-20261123-101500-ABCDEF7.data` beside
/// `ctdocument.data`. The copies made by one tool at one time on one device
/// belong together: swapped in for the entries they are copies of, they make
/// one whole-package version. A copy that is a symbolic link is found as
/// any other (it is there) and marked, so that the version is refused
/// rather than its link moved in; a folder that is a link is not looked into.
enum PackageEntryConflicts {
    /// The entry conflicts below `packagePath`, grouped into versions (by
    /// tool, date and device), oldest first. Lists every folder of the
    /// package; reads no file.
    static func versions(inPackageAt packagePath: String) throws(DocumentVersionError)
        -> [(name: ConflictName, swaps: [DocumentVersion.EntrySwap], newest: FileStatus)]
    {
        var groups: [ConflictName: ([DocumentVersion.EntrySwap], FileStatus)] = [:]
        try collect(in: packagePath, below: "", into: &groups)
        return groups.map { key, value in
            var group = key
            group.originalName = ""
            return (group, value.0.sorted { $0.entryPathText < $1.entryPathText }, value.1)
        }.sorted { ($0.name.date, $0.name.device ?? "") < ($1.name.date, $1.name.device ?? "") }
    }

    private static func collect(
        in packagePath: String, below relative: String,
        into groups: inout [ConflictName: ([DocumentVersion.EntrySwap], FileStatus)]
    )
        throws(DocumentVersionError)
    {
        let folder = relative.isEmpty ? packagePath : PathName.join(packagePath, relative)
        for (name, isDirectory) in try FileStatus.entries(in: folder) {
            let entryPath = relative.isEmpty ? name : relative + "/" + name
            // Only folders (to look into) and conflict copies need their status.
            let conflict = ConflictName(parsing: name)
            if isDirectory == false, conflict == nil { continue }
            guard let status = try FileStatus.of(PathName.join(folder, name)) else { continue }
            if status.isDirectory {
                try collect(in: packagePath, below: entryPath, into: &groups)
                continue
            }
            guard let conflict else { continue }
            var key = conflict
            key.originalName = ""
            let original = relative.isEmpty ? conflict.originalName : relative + "/" + conflict.originalName
            var group = groups[key] ?? ([], status)
            group.0.append(DocumentVersion.EntrySwap(entryPathText: original, conflictEntryPathText: entryPath, isSymbolicLink: status.isSymbolicLink))
            if (status.seconds, status.nanoseconds) > (group.1.seconds, group.1.nanoseconds) { group.1 = status }
            groups[key] = group
        }
    }
}
