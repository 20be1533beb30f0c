import PackageFormat
import SystemPackage
import SystemSupport

/// Whether a package on disk is the one its manifest says ICTKit saved —
/// whole, mixed or partial — after a sync engine carried it file by file.
///
/// The entries compared are every file, folder and link below the root but
/// the manifest itself, conflict copies (`ConflictName`: kept apart, in
/// `conflictCopies`, unless the manifest lists them, when they are entries
/// of that save as well) and a sync engine's transfer temporaries
/// (`.syncthing.NAME.tmp`, `~syncthing~NAME.tmp`: in `transfers`).
///
/// - **whole**: the manifest is read, every entry it lists is there with its
///   kind, size and digest (a link: its destination), and no other entry is.
/// - **mixed**: some entry present is not the one listed (another digest,
///   size or kind: an entry of another save), or an entry is present that the
///   manifest does not list — entries of two saves side by side. Entries
///   listed and missing may come with it.
/// - **partial**: a transfer is under way (a transfer temporary inside), or
///   entries listed are missing while every entry present is the one listed
///   (what is left of a package deleted on one device and edited on another).
/// - **unmanifested**: there is no manifest (a package no save of ICTKit
///   wrote since manifests exist, or another program's): nothing to tell by.
/// - **manifestUnreadable**: the manifest is garbage, too large, or not a
///   file: the package cannot be told whole (`manifestError` says why).
///
/// Per-entry conflict copies are listed whatever the state.
public struct PackageConsistency: Hashable, Sendable {
    /// What the package is, against its manifest.
    public enum State: String, Hashable, Sendable {
        /// Every entry is the one the manifest lists.
        case whole
        /// Entries of different saves side by side.
        case mixed
        /// Entries missing, or a transfer under way.
        case partial
        /// No manifest.
        case unmanifested
        /// A manifest that cannot be read.
        case manifestUnreadable
    }

    /// The state.
    public var state: State
    /// The manifest, when one was read.
    public var manifest: PackageManifest?
    /// Why the manifest could not be read, for `.manifestUnreadable`.
    public var manifestError: DocumentPackageError?
    /// Entries present that are not what the manifest lists (paths inside the package, sorted).
    public var differing: [String] = []
    /// Entries present that the manifest does not list.
    public var unlisted: [String] = []
    /// Entries the manifest lists that are not there.
    public var missing: [String] = []
    /// Sync engines' transfer temporaries inside the package.
    public var transfers: [String] = []
    /// Entries named as conflict copies (of entries, or of the manifest).
    public var conflictCopies: [String] = []
    /// Every entry present, conflict copies and transfers left out.
    var presentEntries: [String] = []

    /// Reads the package at `path` against its manifest. A file whose size
    /// and modification time are those listed is taken as the one listed
    /// without reading it (as a sync engine's scanner does) unless
    /// `readingEveryFile`; others are read once for their digest. A device,
    /// FIFO or socket inside is never opened: it is an entry that differs
    /// (or is unlisted). Links are never followed.
    ///
    /// - Throws: `DocumentVersionError` `.notFound` when nothing is at
    ///   `path`, `.kindMismatch` when it is not a folder, `.package` naming
    ///   the entry that cannot be read or the limit hit (more entries or
    ///   deeper folders than `limits` allow). Costs one listing per folder,
    ///   one `lstat` per entry, the manifest's read, and the reads above.
    public init(ofPackageAt path: FilePath, readingEveryFile: Bool = false, limits: DocumentPackageLimits = .default)
        throws(DocumentVersionError)
    {
        try self.init(ofPackageAt: RawFileName.text(path), readingEveryFile: readingEveryFile, limits: limits)
    }

    /// `init(ofPackageAt:readingEveryFile:limits:)` for a path held as text
    /// (bytes that are not UTF-8 carried as `RawFileName` carries them), for
    /// the kit's own callers.
    ///
    /// - Throws: as `init(ofPackageAt:readingEveryFile:limits:)`.
    package init(ofPackageAt path: String, readingEveryFile: Bool = false, limits: DocumentPackageLimits = .default)
        throws(DocumentVersionError)
    {
        guard let status = try FileStatus.of(path) else {
            throw DocumentVersionError(.notFound, pathText: path, "no such file or folder")
        }
        guard status.isDirectory, !status.isSymbolicLink else {
            throw DocumentVersionError(.kindMismatch, pathText: path, "not a package (a folder)")
        }
        do throws(DocumentPackageError) {
            manifest = try PackageManifest.read(fromPackageAt: path, limits: limits)
            state = manifest == nil ? .unmanifested : .whole
        } catch {
            manifestError = error
            state = .manifestUnreadable
        }
        var present: [String: PackageManifest.Entry] = [:]
        var walk = Walk(packagePath: path, limits: limits)
        try walk.collect(below: "", depth: 1, into: &present, copies: &conflictCopies, transfers: &transfers)
        if let manifest {
            // A conflict copy the manifest lists was saved with the package (a save of the folder as it was, its
            // copies in it): an entry of that save as well as a copy, so the save is not taken as missing it.
            for copy in conflictCopies where manifest.entries[copy] != nil {
                do throws(DocumentPackageError) {
                    present[copy] = try PackageManifest.entryOnDisk(path + "/" + copy, pathInPackage: copy, digesting: false)
                } catch {
                    throw DocumentVersionError(.package, pathText: path, entry: copy, error.message)
                }
            }
        }
        presentEntries = present.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        guard let manifest else { return }
        for (entryPath, listed) in manifest.entries {
            guard var found = present[entryPath] else {
                missing.append(entryPath)
                continue
            }
            if found.kind == .file, listed.kind == .file, found.size == listed.size {
                // Read only when its size and time leave a doubt (or every file is to be read).
                found.digest = !readingEveryFile && found.sameStatus(as: listed) ? listed.digest : try Self.digest(path, entryPath)
            }
            if !found.sameContent(as: listed) { differing.append(entryPath) }
        }
        unlisted = present.keys.filter { manifest.entries[$0] == nil }
        differing.sort { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        unlisted.sort { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        missing.sort { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        if !differing.isEmpty || !unlisted.isEmpty {
            state = .mixed
        } else if !missing.isEmpty || !transfers.isEmpty {
            state = .partial
        }
    }

    /// Whether the package is whole and has no conflict copies inside: the
    /// one state in which it is presented as a document without a word.
    public var isWholeWithoutConflicts: Bool { state == .whole && conflictCopies.isEmpty }

    /// Whether the manifest shows the package mixing saves (mixed), or
    /// missing entries it lists (partial with `missing`): a conflict to
    /// resolve even with no conflict copy, as a document opening it says (`inConflict`).
    public var isMixedOrMissingEntries: Bool { state == .mixed || (state == .partial && !missing.isEmpty) }

    /// The name of the manifest entry at a package's top (`.ictkit-manifest.plist`):
    /// without it a package has no consistency to check.
    public static let manifestName = PackageManifest.fileName

    /// A sentence for people saying what is wrong, naming entries; nil when
    /// the package is whole without conflicts or has no manifest.
    public var problem: String? {
        func list(_ paths: [String]) -> String {
            let shown = paths.prefix(5).map { "\"\($0)\"" }.joined(separator: ", ")
            return paths.count > 5 ? shown + " and \(paths.count - 5) more" : shown
        }
        var parts: [String] = []
        switch state {
        case .whole, .unmanifested: break
        case .manifestUnreadable:
            parts.append("its manifest (\(PackageManifest.fileName)) cannot be read: \(manifestError?.message ?? "")")
        case .mixed: parts.append("mixed: it holds entries of different saves, as a sync engine carried them one by one")
        case .partial: parts.append("partial: entries are missing or still arriving")
        }
        if !differing.isEmpty { parts.append("not the saved entry: \(list(differing))") }
        if !unlisted.isEmpty { parts.append("not in the manifest: \(list(unlisted))") }
        if !missing.isEmpty { parts.append("missing: \(list(missing))") }
        if !transfers.isEmpty { parts.append("transfer under way: \(list(transfers))") }
        if !conflictCopies.isEmpty { parts.append("conflict copies inside: \(list(conflictCopies))") }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }

    /// The digest of the file `entryPath` of the package at `path`.
    static func digest(_ path: String, _ entryPath: String) throws(DocumentVersionError) -> [UInt8]? {
        do throws(DocumentPackageError) {
            return try PackageManifest.entryOnDisk(path + "/" + entryPath, pathInPackage: entryPath, digesting: true)?.digest
        } catch {
            throw DocumentVersionError(.package, pathText: path, entry: entryPath, error.message)
        }
    }

    /// Whether `name` is a sync engine's temporary of a file being
    /// transferred: Syncthing's `.syncthing.NAME.tmp` (`~syncthing~NAME.tmp`
    /// on Windows; `lib/fs/tempname.go`).
    public static func isTransferTemporary(_ name: String) -> Bool {
        (name.hasPrefix(".syncthing.") || name.hasPrefix("~syncthing~")) && name.hasSuffix(".tmp") && name.utf8.count > 15
    }

    /// One walk of a package's folders.
    struct Walk {
        let packagePath: String
        let limits: DocumentPackageLimits
        var count = 0

        init(packagePath: String, limits: DocumentPackageLimits) {
            self.packagePath = packagePath
            self.limits = limits
        }

        mutating func collect(
            below relative: String, depth: Int, into present: inout [String: PackageManifest.Entry], copies: inout [String],
            transfers: inout [String]
        ) throws(DocumentVersionError) {
            let folder = relative.isEmpty ? packagePath : packagePath + "/" + relative
            for (name, _) in try FileStatus.entries(in: folder) {
                if relative.isEmpty, name == PackageManifest.fileName { continue }
                let entryPath = relative.isEmpty ? name : relative + "/" + name
                count += 1
                guard count <= limits.maximumEntryCount else {
                    throw DocumentVersionError(
                        .package, pathText: packagePath, entry: entryPath, "the package has more than \(limits.maximumEntryCount) entries")
                }
                if PackageConsistency.isTransferTemporary(name) {
                    transfers.append(entryPath)
                    continue
                }
                if ConflictName(parsing: name) != nil {
                    copies.append(entryPath)
                    continue
                }
                let entry: PackageManifest.Entry?
                do throws(DocumentPackageError) {
                    entry = try PackageManifest.entryOnDisk(folder + "/" + name, pathInPackage: entryPath, digesting: false)
                } catch {
                    throw DocumentVersionError(.package, pathText: packagePath, entry: entryPath, error.message)
                }
                guard let entry else { continue }  // Gone since listed.
                present[entryPath] = entry
                if entry.kind == .folder {
                    guard depth < limits.maximumDepth else {
                        throw DocumentVersionError(
                            .package, pathText: packagePath, entry: entryPath, "folders nest deeper than \(limits.maximumDepth) levels")
                    }
                    try collect(below: entryPath, depth: depth + 1, into: &present, copies: &copies, transfers: &transfers)
                }
            }
        }
    }
}
