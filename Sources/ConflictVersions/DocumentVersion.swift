import PackageFormat
import SystemPackage
import SystemSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One version of a document — a plain file or a package — as Apple's
/// `NSFileVersion` shows it, for folders synced by tools that keep
/// conflicting changes as conflict copies beside the document (see
/// `SyncTool`) or, for a package synced as a folder, beside its entries.
///
/// The current version is the document itself; the others are the conflict
/// copies found by name. Unlike `NSFileVersion`, whose conflicts live in a
/// store the system keeps, a conflict here is its copy on disk: it stays
/// unresolved until it is removed (`remove()`, `removeOtherVersionsOfItem(at:)`)
/// or moved in (`replaceItem(at:options:)` with `.byMoving`).
public final class DocumentVersion {
    /// One entry of a whole-package version: the conflict copy that is swapped
    /// in for an entry of the package.
    public struct EntrySwap: Hashable, Sendable {
        /// The entry the copy stands for, `ctdocument.data`, relative to the
        /// package. Reads nothing.
        public var entryPath: FilePath {
            get { RawFileName.filePath(entryPathText) }
            set { entryPathText = RawFileName.text(newValue) }
        }
        /// The conflict copy inside the package, `ctdocument.sync-conflict-…data`,
        /// relative to the package. Reads nothing.
        public var conflictEntryPath: FilePath {
            get { RawFileName.filePath(conflictEntryPathText) }
            set { conflictEntryPathText = RawFileName.text(newValue) }
        }
        /// `entryPath` as the kit's text (bytes that are not UTF-8 carried as
        /// `RawFileName` carries them).
        package var entryPathText: String
        /// `conflictEntryPath` as the kit's text.
        package var conflictEntryPathText: String
        /// Whether the copy is a symbolic link (then the version is refused:
        /// see `DocumentVersion.symbolicLinkError`).
        public var isSymbolicLink = false
    }

    /// Options for `replaceItem(at:options:)`, as `NSFileVersion.ReplacingOptions`.
    public struct ReplacingOptions: OptionSet, Hashable, Sendable {
        /// The options' bits.
        public let rawValue: Int
        /// Makes options from their bits.
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Move the version into place instead of copying it: the version
        /// is gone afterwards (resolved).
        public static let byMoving = ReplacingOptions(rawValue: 1)
    }

    /// The document this is a version of, byte for byte. Reads nothing.
    public var itemPath: FilePath { RawFileName.filePath(itemPathText) }
    /// Where the version is: the document itself for the current version and
    /// for a version made of entry conflicts (`entrySwaps`), the conflict
    /// copy otherwise; byte for byte. Reads nothing.
    public var path: FilePath { RawFileName.filePath(pathText) }
    /// `itemPath` as the kit's text (bytes that are not UTF-8 carried as
    /// `RawFileName` carries them), for the kit's own callers.
    package let itemPathText: String
    /// `path` as the kit's text, for the kit's own callers.
    package let pathText: String
    /// What the conflict copy's name says (tool, date, device); nil for the current version.
    public let conflictName: ConflictName?
    /// For a version made of conflict copies inside the package: which copy
    /// stands for which entry. Empty otherwise.
    public let entrySwaps: [EntrySwap]
    /// For a package saved with a manifest (`PackageManifest`) that a sync
    /// engine left mixed, partial or with conflict copies: the save this
    /// version rebuilds whole from the entries and their copies, or nil for
    /// the package as it is (its copies left out). Nil for every other version.
    let rebuild: PackageRebuild?
    /// The save this version is, for a version rebuilt from a package's
    /// entries and copies by its manifest (`PackageManifest.Generation`);
    /// nil for any other version, and for the package as it is.
    public var generation: PackageManifest.Generation? { rebuild?.manifest?.generation }
    /// Whether this version is a package rebuilt by its manifest from its
    /// entries and their conflict copies (`generation` says which save), or
    /// the package as it is with its conflict copies left out.
    public var isRebuiltPackage: Bool { rebuild != nil }
    /// The modification time of the version on disk (for entry conflicts, of the newest copy).
    public let modificationDate: Date?
    /// Whether the version is a directory (a package).
    public let isDirectory: Bool
    /// Whether the version is a symbolic link, or for entry copies whether
    /// one of them is: such a version is listed, never moved or copied in
    /// (`symbolicLinkError`).
    public let isSymbolicLink: Bool
    /// Whether the version is a device, FIFO or socket — never a document:
    /// such a version is listed, never read, moved or copied in (`specialFileError`).
    public let isSpecialFile: Bool
    /// Whether this is a conflict version (every version but the current one).
    public var isConflict: Bool { conflictName != nil }
    /// Whether the conflict has been resolved by this process: the version
    /// was removed or moved in. Always false for the current version.
    public private(set) var isResolved = false
    /// The device that saved the version, where the name carries one
    /// (Syncthing's short device ID, Dropbox's computer name, the Nextcloud
    /// user) or, for a rebuilt package, the computer its manifest names.
    public var localizedNameOfSavingComputer: String? { rebuild?.manifest?.savingComputer ?? conflictName?.device }
    /// The name the version is shown by: its file name, or for entry
    /// conflicts the document's name.
    public var localizedName: String { PathName.split(pathText).name }

    init(
        itemPath: String, path: String, conflictName: ConflictName?, entrySwaps: [EntrySwap] = [], rebuild: PackageRebuild? = nil,
        status: FileStatus
    ) {
        self.itemPathText = itemPath
        self.pathText = path
        self.conflictName = conflictName
        self.entrySwaps = entrySwaps
        self.rebuild = rebuild
        self.modificationDate = rebuild?.manifest?.savedDate ?? status.modificationDate
        self.isDirectory = status.isDirectory || !entrySwaps.isEmpty
        self.isSymbolicLink = entrySwaps.isEmpty ? status.isSymbolicLink : entrySwaps.contains(where: \.isSymbolicLink)
        self.isSpecialFile = entrySwaps.isEmpty && status.isSpecialFile
        self.kind = status.kind
    }

    /// The kind of the item at `path` when it was listed.
    private let kind: FileKind

    /// Why this conflict version can never become the document, or nil: it
    /// is a device, FIFO or socket (a sync engine never makes one; a peer or
    /// another program may plant one). Reading it could wait forever, and
    /// moved in it would leave no document: `replaceItem(at:options:)` throws
    /// this error (code `.specialFile`) and changes nothing. Costs nothing.
    public var specialFileError: DocumentVersionError? {
        guard isConflict, isSpecialFile else { return nil }
        return Self.specialFileError(pathText, kind, "the version")
    }

    /// `.specialFile` for the device, FIFO or socket at `path`.
    private static func specialFileError(_ path: String, _ kind: FileKind, _ subject: String) -> DocumentVersionError {
        DocumentVersionError(
            .specialFile, pathText: path,
            "\(subject) is \(kind.phrase), not a document; it is never read, moved or copied into the document's place")
    }

    /// Why this conflict version can never become the document, or nil: it
    /// is a symbolic link, or one of its entry copies is. A link moved into the
    /// document's place would be followed by every later edit, writing to
    /// whatever it points to (maybe outside the folder); so
    /// `replaceItem(at:options:)` and `packageWrapper(movingEntries:)` throw
    /// this error (code `.symbolicLink`) and change nothing. Costs one
    /// `readlink` for such a version, nothing for any other.
    public var symbolicLinkError: DocumentVersionError? {
        if let swap = entrySwaps.first(where: \.isSymbolicLink) {
            return Self.linkError(path: pathText, entry: swap.conflictEntryPathText, "the entry copy")
        }
        guard isConflict, isSymbolicLink, entrySwaps.isEmpty else { return nil }
        return Self.linkError(path: pathText, entry: "", "the version")
    }

    /// `.symbolicLink` for a document that is itself a link.
    private static func documentLinkError(_ path: String) -> DocumentVersionError {
        let destination = FileStatus.linkDestination(path).map { " (to \"\($0)\")" } ?? ""
        return DocumentVersionError(
            .symbolicLink, pathText: path,
            "the document is a symbolic link\(destination); its versions are beside the item it points to, named after it: name that item instead")
    }

    /// `.symbolicLink` for the link at `path` (or at `entry` inside it).
    private static func linkError(path: String, entry: String, _ subject: String) -> DocumentVersionError {
        let destination = FileStatus.linkDestination(entry.isEmpty ? path : PathName.join(path, entry)).map { " (to \"\($0)\")" } ?? ""
        return DocumentVersionError(
            .symbolicLink, pathText: path, entry: entry,
            "\(subject) is a symbolic link\(destination); a link is never moved or copied into the document's place, where later edits would write through it")
    }

    /// Throws `symbolicLinkError` or `specialFileError`, or the same error
    /// when the version's path has become a link or special file since it was listed.
    private func refuseLinks() throws(DocumentVersionError) {
        if let error = symbolicLinkError ?? specialFileError { throw error }
        guard entrySwaps.isEmpty, isConflict, let now = try FileStatus.of(pathText) else { return }
        if now.isSymbolicLink { throw Self.linkError(path: pathText, entry: "", "the version") }
        if now.isSpecialFile { throw Self.specialFileError(pathText, now.kind, "the version") }
    }

    /// Throws when the document at `path` (as `status` describes it) is a
    /// link or special file: neither has versions beside it to resolve.
    private static func refuseDocument(_ path: String, _ status: FileStatus) throws(DocumentVersionError) {
        if status.isSymbolicLink { throw documentLinkError(path) }
        if status.isSpecialFile { throw specialFileError(path, status.kind, "the document") }
    }

    // MARK: Finding versions

    /// The document as it is now.
    ///
    /// - Throws: `DocumentVersionError` `.notFound` when there is no item at
    ///   `path`, `.io` when its status cannot be read. Costs one `lstat`.
    package static func currentVersionOfItem(at path: String) throws(DocumentVersionError) -> DocumentVersion {
        guard let status = try FileStatus.of(path) else {
            throw DocumentVersionError(.notFound, pathText: path, "no such file or folder")
        }
        return DocumentVersion(itemPath: path, path: path, conflictName: nil, status: status)
    }

    /// Every conflict version of the document: copies beside it named by a
    /// supported tool after the document's name, and for a package the
    /// versions made of conflict copies of its entries. Oldest first (by the
    /// date in the name).
    ///
    /// - Throws: `DocumentVersionError` `.notFound` when the document is not
    ///   there, `.symbolicLink` when it is a link (its versions are beside
    ///   what it points to, named after that), `.specialFile` when it is a
    ///   device, FIFO or socket, `.io` when a folder cannot be
    ///   listed. Costs one listing of the document's folder and, for a
    ///   package, of each of its folders, and one `lstat` per candidate; no
    ///   file is read.
    package static func otherVersionsOfItem(at path: String) throws(DocumentVersionError) -> [DocumentVersion] {
        let current = try currentVersionOfItem(at: path)
        if current.isSymbolicLink { throw documentLinkError(path) }
        if current.isSpecialFile { throw specialFileError(path, current.kind, "the document") }
        let (folder, name) = PathName.split(path)
        var versions: [DocumentVersion] = []
        for sibling in try FileStatus.names(in: folder) where sibling != name {
            guard let conflict = ConflictName(parsing: sibling), conflict.originalName == name else { continue }
            let siblingPath = PathName.join(folder, sibling)
            guard let status = try FileStatus.of(siblingPath) else { continue }
            versions.append(DocumentVersion(itemPath: path, path: siblingPath, conflictName: conflict, status: status))
        }
        if current.isDirectory {
            versions += try packageVersions(ofPackageAt: path, named: name)
        }
        return versions.sorted(by: oldestFirst)
    }

    /// By the date in the name, then path, copies beside before entry copies.
    private static func oldestFirst(_ a: DocumentVersion, _ b: DocumentVersion) -> Bool {
        (a.conflictName!.date, a.pathText, a.entrySwaps.isEmpty ? 0 : 1) < (b.conflictName!.date, b.pathText, b.entrySwaps.isEmpty ? 0 : 1)
    }

    /// The conflict versions of every item in a folder, keyed by the item's
    /// name — as `otherVersionsOfItem(at:)` for each, from one listing of the
    /// folder and one of each package in it (as `ls -R` lists them), rather
    /// than a listing of the folder per item. Items without conflicts are left out.
    ///
    /// - Throws: `DocumentVersionError` `.io` when the folder or a package
    ///   in it cannot be listed.
    public static func otherVersionsOfItems(inFolder folder: FilePath) throws(DocumentVersionError) -> [String: [DocumentVersion]] {
        try otherVersionsOfItems(inFolder: RawFileName.text(folder))
    }

    /// `otherVersionsOfItems(inFolder:)` for a folder held as text (bytes
    /// that are not UTF-8 carried as `RawFileName` carries them), for the
    /// kit's own callers.
    ///
    /// - Throws: as `otherVersionsOfItems(inFolder:)`.
    package static func otherVersionsOfItems(inFolder folder: String) throws(DocumentVersionError) -> [String: [DocumentVersion]] {
        let entries = try FileStatus.entries(in: folder)
        let names = Set(entries.map(\.name))
        var versions: [String: [DocumentVersion]] = [:]
        for (name, isDirectory) in entries {
            if let conflict = ConflictName(parsing: name), names.contains(conflict.originalName) {
                guard let status = try FileStatus.of(PathName.join(folder, name)) else { continue }
                versions[conflict.originalName, default: []].append(
                    DocumentVersion(
                        itemPath: PathName.join(folder, conflict.originalName), path: PathName.join(folder, name), conflictName: conflict,
                        status: status))
                continue
            }
            let path = PathName.join(folder, name)
            var isPackage = isDirectory
            if isPackage == nil { isPackage = try FileStatus.of(path)?.isDirectory }
            guard isPackage == true else { continue }
            let inside = try packageVersions(ofPackageAt: path, named: name)
            if !inside.isEmpty { versions[name, default: []] += inside }
        }
        return versions.mapValues { $0.sorted(by: Self.oldestFirst) }
    }

    /// The versions made inside the package at `path` (named `name`): for a
    /// package with a manifest that is not whole or holds conflict copies,
    /// each save that can be rebuilt from its entries and their copies and
    /// the package as it is (`PackageGenerations`), and the copies no such
    /// version takes grouped as before; for any other package, its entry
    /// conflict copies grouped by tool, date and device (`PackageEntryConflicts`).
    private static func packageVersions(ofPackageAt path: String, named name: String) throws(DocumentVersionError) -> [DocumentVersion] {
        let groups = try PackageEntryConflicts.versions(inPackageAt: path)
        let consistency = try PackageConsistency(ofPackageAt: path)
        func grouped(keeping keep: (EntrySwap) -> Bool) -> [DocumentVersion] {
            groups.compactMap { group in
                // A copy of the manifest is never swapped in as an entry: the save writes its own.
                let swaps = group.swaps.filter { $0.entryPathText != PackageManifest.fileName && keep($0) }
                guard !swaps.isEmpty else { return nil }
                var conflict = group.name
                conflict.originalName = name
                return DocumentVersion(itemPath: path, path: path, conflictName: conflict, entrySwaps: swaps, status: group.newest)
            }
        }
        guard let found = try PackageGenerations.find(inPackageAt: path, consistency: consistency),
            let status = try FileStatus.of(path)
        else { return grouped { _ in true } }
        let tool = groups.first?.name.tool ?? .syncthing
        var versions = found.conflicts.map { rebuild in
            DocumentVersion(
                itemPath: path, path: path,
                conflictName: PackageGenerations.conflictName(of: rebuild, itemName: name, tool: tool, newest: status.modificationDate),
                rebuild: rebuild, status: status)
        }
        versions += grouped { found.unusedCopies.contains($0.conflictEntryPathText) }
        return versions
    }

    /// The conflict versions not yet resolved: with conflicts kept as copies
    /// on disk, every one found (`otherVersionsOfItem(at:)`).
    ///
    /// - Throws: as `otherVersionsOfItem(at:)`.
    package static func unresolvedConflictVersionsOfItem(at path: String) throws(DocumentVersionError) -> [DocumentVersion] {
        try otherVersionsOfItem(at: path).filter { $0.isConflict && !$0.isResolved }
    }

    /// How many conflict copies each name in one folder listing has beside
    /// it, keyed by the name they are copies of — for marking documents with
    /// conflicts while listing a folder, from the names alone.
    public static func conflictCounts(amongNames names: some Sequence<String>) -> [String: Int] {
        var counts: [String: Int] = [:]
        for name in names {
            if let conflict = ConflictName(parsing: name) { counts[conflict.originalName, default: 0] += 1 }
        }
        return counts
    }

    // MARK: Reading

    /// The version as a package wrapper, read lazily: the package itself, or
    /// the document's package with each entry conflict in place of its entry.
    ///
    /// - Throws: `DocumentVersionError` `.symbolicLink` for a version that is
    ///   a link or holds one (`symbolicLinkError`), `.kindMismatch` for a
    ///   version that is not a directory, `.package` when it cannot be read.
    public func packageWrapper(movingEntries: Bool = false) throws(DocumentVersionError) -> PackageWrapper {
        try refuseLinks()
        guard isDirectory else {
            throw DocumentVersionError(.kindMismatch, pathText: pathText, "a file, not a package")
        }
        // A rebuilt save, or the current version of a package its manifest does not find whole: rebuilt.
        var rebuilt = rebuild
        if rebuilt == nil, !isConflict { rebuilt = try Self.currentRebuild(ofPackageAt: pathText) }
        if let rebuilt {
            do throws(DocumentPackageError) {
                return try PackageWrapper(readingEntries: rebuilt.sources, fromPackageAt: path)
            } catch {
                throw DocumentVersionError(.package, pathText: pathText, entry: error.pathInPackage, error.message)
            }
        }
        do {
            let package = try PackageWrapper(readingFrom: path)
            for swap in entrySwaps {
                try swapIn(swap, in: package, moving: movingEntries)
            }
            return package
        } catch {
            throw DocumentVersionError(.package, pathText: pathText, entry: error.pathInPackage, error.message)
        }
    }

    /// The version the package at `path` opens as when its manifest does
    /// not find it whole or it holds conflict copies (`PackageGenerations`); nil otherwise.
    static func currentRebuild(ofPackageAt path: String) throws(DocumentVersionError) -> PackageRebuild? {
        try PackageGenerations.find(inPackageAt: path, consistency: PackageConsistency(ofPackageAt: path))?.current
    }

    private func swapIn(_ swap: EntrySwap, in package: PackageWrapper, moving: Bool) throws(DocumentPackageError) {
        let (conflictFolder, conflictName) = PathName.split(swap.conflictEntryPathText, bareNameFolder: "")
        let (_, entryName) = PathName.split(swap.entryPathText, bareNameFolder: "")
        guard let parent = conflictFolder.isEmpty ? package : package.descendant(atPath: conflictFolder),
            let copy = parent.child(named: conflictName)
        else {
            throw DocumentPackageError(.notFound, pathInPackage: swap.conflictEntryPathText, "the conflict copy is gone")
        }
        // As read now, not as listed: a copy that became a link or a folder since is refused too.
        guard copy.kind == .regularFile else {
            throw DocumentPackageError(
                .wrongKind, pathInPackage: swap.conflictEntryPathText,
                copy.kind == .symbolicLink
                    ? Self.linkError(path: pathText, entry: swap.conflictEntryPathText, "the entry copy").message
                    : "the entry copy is a folder, not a file; it cannot replace an entry")
        }
        if moving {
            parent.removeChild(named: entryName)
            try parent.renameChild(named: conflictName, to: entryName)
        } else {
            try parent.replaceChild(named: entryName, with: PackageWrapper(regularFileWithContents: copy.contents(), permissions: copy.permissions))
        }
    }

    // MARK: Resolving

    /// Makes this version the document's contents, in one step: a package is
    /// saved safely (`PackageWrapper.save`: written beside, swapped in with
    /// `renameat2(RENAME_EXCHANGE)`), a file written beside and renamed over
    /// it; at every moment the document is the old version or this one.
    /// With `.byMoving` the version is moved in and is resolved afterwards;
    /// else it stays. Returns the document's path.
    ///
    /// - Throws: `DocumentVersionError` `.kindMismatch` when the version is a
    ///   file and the document a package or the other way round,
    ///   `.symbolicLink` when the version is a link or holds one
    ///   (`symbolicLinkError`) or the document is a link, `.specialFile` when
    ///   either is a device, FIFO or socket, `.package` or `.io` when reading or writing
    ///   fails (the document is left as it was).
    @discardableResult
    package func replaceItem(at path: String, options: ReplacingOptions = []) throws(DocumentVersionError) -> String {
        guard isConflict else { return path }
        try refuseLinks()
        let lock = try Self.lock(path)
        defer { lock.release() }
        guard let target = try FileStatus.of(path) else {
            throw DocumentVersionError(.notFound, pathText: path, "no such file or folder")
        }
        try Self.refuseDocument(path, target)
        guard target.isDirectory == isDirectory else {
            throw DocumentVersionError(
                .kindMismatch, pathText: self.pathText,
                isDirectory ? "a folder, but the document is a file" : "a file, but the document is a package (a folder)")
        }
        if isDirectory {
            let package = try packageWrapper(movingEntries: options.contains(.byMoving))
            do {
                try package.save(to: path)
            } catch {
                throw DocumentVersionError(.package, pathText: path, entry: error.pathInPackage, error.message)
            }
            // A version beside the document goes; one made inside it went with the save.
            if options.contains(.byMoving), entrySwaps.isEmpty, rebuild == nil { try Self.removeAside(self.pathText) }
        } else if options.contains(.byMoving) {
            try refuseLinks()
            do throws(SystemCallError) {
                try Directory.rename(self.pathText, in: CurrentDirectory.descriptor, to: path, in: CurrentDirectory.descriptor)
            } catch {
                throw Self.ioError(self.pathText, "cannot move the version in", errno: error.code)
            }
        } else {
            try Self.copyFileAtomically(from: self.pathText, over: path)
        }
        if options.contains(.byMoving) { isResolved = true }
        return path
    }

    /// Removes this conflict version (the copy, or the entry copies inside
    /// the package, saved safely); the document itself is never touched.
    ///
    /// - Throws: `DocumentVersionError` `.io` or `.package` when removing fails.
    public func remove() throws(DocumentVersionError) {
        precondition(isConflict, "remove() of the current version")
        if let rebuild {
            // Its copies, but those the version the package opens as takes.
            var copies = rebuild.copiesUsed
            if let manifestCopy = rebuild.manifestCopyPath { copies.insert(manifestCopy) }
            if let current = try Self.currentRebuild(ofPackageAt: pathText) { copies.subtract(current.copiesUsed) }
            if !copies.isEmpty { try Self.removeEntryCopies(copies.sorted(), inPackageAt: pathText) }
        } else if entrySwaps.isEmpty {
            try Self.removeAside(pathText)
        } else {
            try Self.removeEntryCopies(entrySwaps.map(\.conflictEntryPathText), inPackageAt: pathText)
        }
        isResolved = true
    }

    /// Removes every conflict version of the document, leaving the current one.
    ///
    /// - Throws: as `otherVersionsOfItem(at:)` and `remove()`.
    package static func removeOtherVersionsOfItem(at path: String) throws(DocumentVersionError) {
        let lock = try lock(path)
        defer { lock.release() }
        removeStrays(in: PathName.split(path).folder)
        if try FileStatus.of(path)?.isDirectory == true, let current = try currentRebuild(ofPackageAt: path) {
            // Saved as the version it opens as: one whole package with a fresh manifest, no copies inside.
            do throws(DocumentPackageError) {
                try PackageWrapper(readingEntries: current.sources, fromPackageAt: path).save(to: path)
            } catch {
                throw DocumentVersionError(.package, pathText: path, entry: error.pathInPackage, error.message)
            }
        }
        let versions = try otherVersionsOfItem(at: path)
        let entryCopies = versions.flatMap { $0.entrySwaps.map(\.conflictEntryPathText) }
        if !entryCopies.isEmpty { try removeEntryCopies(entryCopies, inPackageAt: path) }
        for version in versions where version.entrySwaps.isEmpty {
            try version.remove()
        }
    }

    // MARK: File-system steps

    /// The exclusive `ItemLock` of the document at `path`, held while it is resolved.
    private static func lock(_ path: String) throws(DocumentVersionError) -> ItemLock {
        do throws(ItemLock.Failure) {
            return try ItemLock.acquire(path, .exclusive)
        } catch {
            throw DocumentVersionError(.io, pathText: path, "cannot lock the document: \(error.description)")
        }
    }

    /// The prefix of a version renamed aside to be removed by runs before
    /// `TemporaryItem` named every temporary.
    static let removingPrefix = ".ict-removing-"

    /// Renames `path` aside under a temporary name (one step, so a version
    /// is there whole or not at all), then removes it with everything in
    /// it; a signal meanwhile removes it too.
    private static func removeAside(_ path: String) throws(DocumentVersionError) {
        let (folder, name) = PathName.split(path)
        let asideName = TemporaryItem.name(for: name, role: .old)
        let aside = PathName.join(folder, asideName)
        let held = InterruptCleanup.holdSignals()
        var failure: SystemCallError?
        do throws(SystemCallError) {
            try Directory.rename(path, in: CurrentDirectory.descriptor, to: aside, in: CurrentDirectory.descriptor)
            TemporaryItem.adopt(asideName, folder: folder)
        } catch {
            failure = error
        }
        InterruptCleanup.release(held)
        if let failure { throw ioError(path, "cannot remove the version", errno: failure.code) }
        Directory.removeTreeIgnoringErrors(aside, in: CurrentDirectory.descriptor)
        TemporaryItem.finished(asideName, folder: folder)
    }

    /// Handles what earlier runs killed while writing beside the document
    /// or removing a version left behind (`TemporaryItem.removeStale`: an
    /// old version aside is put back when its name is free, else removed).
    private static func removeStrays(in folder: String) {
        guard let directory = try? Directory.openDescriptor(atPath: folder) else { return }
        defer { DescriptorCalls.close(directory) }
        for entry in TemporaryItem.candidates(in: directory) {
            if entry.starts(with: Array(removingPrefix.utf8)) {
                let pid = entry.dropFirst(removingPrefix.utf8.count).prefix { $0 != UInt8(ascii: "-") }
                guard let pid = Int32(String(decoding: pid, as: UTF8.self)), TemporaryItem.processIsGone(pid) else { continue }
                Directory.removeTreeIgnoringErrors(RawFileName.decoding(entry), in: directory)
            } else if let target = TemporaryItem.target(of: entry) {
                TemporaryItem.removeStale(of: target, among: [entry], in: directory)
            }
        }
    }

    private static func removeEntryCopies(_ entries: [String], inPackageAt path: String) throws(DocumentVersionError) {
        do {
            let package = try PackageWrapper(readingFrom: path)
            for entry in entries {
                let (folder, name) = PathName.split(entry, bareNameFolder: "")
                (folder.isEmpty ? package : package.descendant(atPath: folder))?.removeChild(named: name)
            }
            try package.save(to: path)
        } catch {
            throw DocumentVersionError(.package, pathText: path, entry: error.pathInPackage, error.message)
        }
    }

    /// Writes a copy of `source` beside `target` under a temporary name
    /// (`AtomicFileWriter`), flushes it, and renames it over `target`; the
    /// copy is made with 0644 less the umask, whatever either file's permissions.
    private static func copyFileAtomically(from source: String, over target: String) throws(DocumentVersionError) {
        let bytes = try readFileNotFollowingLink(source)
        var options = AtomicFileWriter.Options()
        // A link or device put at the target since it was checked is refused, never written through.
        options.links = .refused
        options.specialFiles = .refused
        options.permissions = .lessUmask(0o644)
        options.listingFolderOnce = false
        do throws(AtomicFileWriter.Failure) {
            let writer = try AtomicFileWriter(path: target, options: options)
            try bytes.withUnsafeBytes { buffer in Result { () throws(AtomicFileWriter.Failure) in try writer.write(buffer) } }.get()
            try writer.commit()
        } catch {
            switch error.step {
            case .openFolder: throw ioError(PathName.split(target).folder, "cannot open the document's folder", errno: error.systemError)
            case .createTemporary: throw ioError(target, "cannot write beside the document", errno: error.systemError)
            default: throw ioError(target, "cannot replace the document", errno: error.systemError)
            }
        }
    }

    /// The bytes of the regular file at `path`, opened without following a
    /// last link (`O_NOFOLLOW`): a version that became a link is refused.
    private static func readFileNotFollowingLink(_ path: String) throws(DocumentVersionError) -> Data {
        let file: OpenFile
        let kind: FileKind
        do throws(SystemCallError) {
            // Non-blocking: a FIFO put there since it was listed is refused below, not waited on.
            file = try OpenFile(path: path, options: [.noFollow, .nonBlocking])
            kind = try file.info().kind
        } catch {
            if error.code == ErrorNumber.symbolicLinkLoop { throw linkError(path: path, entry: "", "the version") }
            throw ioError(path, "cannot read the version", errno: error.code)
        }
        guard kind == .regular else { throw specialFileError(path, kind, "the version") }
        do throws(SystemCallError) {
            // No limit: readToEnd gives nil only past one.
            return Data(try file.readToEnd() ?? [])
        } catch {
            throw ioError(path, "cannot read the version", errno: error.code)
        }
    }

    private static func ioError(_ path: String, _ action: String, errno code: Int32) -> DocumentVersionError {
        DocumentVersionError(.io, pathText: path, "\(action): \(SystemCallError.describe(code))")
    }
}
