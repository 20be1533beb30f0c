import SystemPackage
import SystemSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes a wrapper's children into a new directory: directories made anew,
/// regular files whose bytes are unchanged since reading hard-linked (inside
/// the package being replaced) or cloned/copied by the kernel, files read
/// from a zip inflated straight into their new file, the others written from
/// memory; symbolic links made as links.
struct PackageWriter {
    /// The device and inode of the package being replaced, whose unchanged
    /// files may be hard-linked: its old version is removed once the new one
    /// is in place, so nothing ends up shared with a package that stays.
    let replacedRoot: (device: UInt64, inode: UInt64)?
    /// The device and inode of `PackageSaveOptions.originalContentsPath`,
    /// an earlier version that stays and whose unchanged files may be
    /// hard-linked all the same: the caller asked for the sharing.
    let originalRoot: (device: UInt64, inode: UInt64)?
    /// Whether the written files and directories are flushed to disk.
    let flush: Bool
    /// The files and directories written (not linked), relative to the
    /// directory written into, children before their directory, for `flushAll(root:at:)`.
    private var toFlush: [(relativePath: String, isFile: Bool)] = []
    /// What each written entry looks like on disk, applied to the wrappers
    /// once the save has succeeded.
    private(set) var written: [(wrapper: PackageWrapper, pathInPackage: String, identity: FileIdentity)] = []
    /// The directory of the package being replaced that the last hard link
    /// came from, kept open: the files of one directory are linked one after
    /// another, and a link relative to an open directory does not walk the
    /// whole path again.
    private var linkSource: (path: String, descriptor: Descriptor)?

    /// The path inside the package of the directory written into: empty
    /// for a whole package, the directory's path when only it is written.
    let rootPathInPackage: String
    /// The owner and group of the directory replaced, given to every item
    /// written where the process may (as root), as Apple's tools keep them.
    var replacedOwnership: (owner: UInt32, group: UInt32)?

    init(
        replacedRoot: (device: UInt64, inode: UInt64)?, originalRoot: (device: UInt64, inode: UInt64)? = nil, flush: Bool,
        rootPathInPackage: String = ""
    ) {
        self.replacedRoot = replacedRoot
        self.originalRoot = originalRoot
        self.flush = flush
        self.rootPathInPackage = rootPathInPackage
    }

    /// `pathInPackage` relative to the directory written into, for flushing.
    private func pathBelowRoot(_ pathInPackage: String) -> String {
        // Cut by bytes: a name may begin with a combining mark, which would join the slash into one Character.
        rootPathInPackage.isEmpty
            ? pathInPackage
            : String(decoding: pathInPackage.utf8.dropFirst(rootPathInPackage.utf8.count + 1), as: UTF8.self)
    }

    /// Above this many items written, one `syncfs` flushes them instead of
    /// one `fsync` each. Measured on ext4 (a virtio disk shared with other
    /// work): each `fsync` after the first still waits 0.15–4 ms for a cache
    /// flush, so an incremental re-save of 13 directories and one file spent
    /// 2.2 ms (quiet disk) to 38 ms (busy disk) in its 15 `fsync`s against
    /// 0.5 ms to 4 ms for one `syncfs`.
    static let fileSystemFlushThreshold = 4

    /// Flushes every file and directory written, then the root, once at the
    /// end rather than item by item.
    ///
    /// Each `fsync` costs a flush of the device's cache even when the
    /// journal already holds the item, so past `fileSystemFlushThreshold`
    /// items one `syncfs` of the file system is cheaper (it also writes out
    /// other programs' pending data on that file system, as `sync -f` does).
    /// Below it, the files' bytes are waited for first (their writeback
    /// started when each was finished), then every item is `fsync`ed; the
    /// first commits the journal for all.
    func flushAll(root: Descriptor, at location: EntryLocation) throws(DocumentPackageError) {
        guard flush else { return }
        if toFlush.count > Self.fileSystemFlushThreshold, try FileSystem.flushFileSystem(of: root, at: location) { return }
        for (relativePath, isFile) in toFlush where isFile {
            let childLocation = location.child(relativePath)
            try FileSystem.waitForWriteback(
                try FileSystem.openForFlushing(relativePath, in: root, at: childLocation),
                at: childLocation)
        }
        for (relativePath, _) in toFlush {
            let childLocation = location.child(relativePath)
            try FileSystem.flush(try FileSystem.openForFlushing(relativePath, in: root, at: childLocation), at: childLocation)
        }
        try FileSystem.flush(root, at: location)
    }

    mutating func writeChildren(of directory: PackageWrapper, into descriptor: Descriptor, at location: EntryLocation)
        throws(DocumentPackageError)
    {
        for child in directory.children {
            let name = child.fileName!
            let childLocation = location.child(name)
            switch child.kind {
            case .directory:
                try FileSystem.makeDirectory(name, in: descriptor.rawValue, at: childLocation)
                let childDescriptor = try FileSystem.openDirectory(name, in: descriptor.rawValue, at: childLocation)
                try writeChildren(of: child, into: childDescriptor, at: childLocation)
                try keepOwnership(childDescriptor, at: childLocation)
                try FileSystem.finish(
                    childDescriptor, permissions: child.permissions,
                    modificationTime: child.modificationTime, startingWriteback: false, at: childLocation)
                if flush { toFlush.append((pathBelowRoot(childLocation.pathInPackage), false)) }
                written.append((child, childLocation.pathInPackage, try FileSystem.status(of: childDescriptor, at: childLocation)))
            case .regularFile:
                try writeFile(child, named: name, in: descriptor, at: childLocation)
            case .symbolicLink:
                try FileSystem.makeSymbolicLink(
                    name, in: descriptor.rawValue, destination: child.destination!,
                    modificationTime: child.modificationTime, at: childLocation)
                if let replacedOwnership,
                    let failed = FileOwnership.keep(
                        owner: replacedOwnership.owner, group: replacedOwnership.group, ofLinkNamed: name, in: descriptor.rawValue)
                {
                    throw childLocation.error("keep the owner", errno: failed)
                }
                if let identity = try FileSystem.linkStatus(name, in: descriptor.rawValue, at: childLocation) {
                    written.append((child, childLocation.pathInPackage, identity))
                }
            }
        }
    }

    private mutating func writeFile(
        _ file: PackageWrapper, named name: String, in directory: Descriptor,
        at location: EntryLocation
    ) throws(DocumentPackageError) {
        if file.contentsMatchDiskRecord, let record = file.diskRecord {
            if try transferUnchanged(file, record: record, named: name, in: directory, at: location) { return }
            guard file.loadedContents != nil else {
                throw record.location.error(
                    .changedOnDisk,
                    "the file changed on disk after the package was read; its original bytes are gone")
            }
        }
        if file.loadedContents == nil, let zipContents = file.zipContents {
            // Inflated straight into the new file, a piece at a time.
            let descriptor = try FileSystem.createFile(name, in: directory.rawValue, at: location)
            var byteCount = 0
            try zipContents.archive.readContents(of: zipContents.record) { (bytes) throws(DocumentPackageError) in
                try FileSystem.writeAll(bytes, to: descriptor, at: location)
                byteCount += bytes.count
            }
            try finish(file, descriptor, byteCount: byteCount, at: location)
            return
        }
        let contents = try file.contents()
        let descriptor = try FileSystem.createFile(name, in: directory.rawValue, at: location)
        let result: Result<Void, DocumentPackageError> = contents.withUnsafeBytes { bytes in
            Result { () throws(DocumentPackageError) in try FileSystem.writeAll(bytes, to: descriptor, at: location) }
        }
        try result.get()
        try finish(file, descriptor, byteCount: contents.count, at: location)
    }

    /// Puts the unchanged file recorded on disk under `name` without passing
    /// its bytes through memory. False when the recorded file is no longer
    /// the one that was read.
    private mutating func transferUnchanged(
        _ file: PackageWrapper, record: DiskRecord, named name: String,
        in directory: Descriptor, at location: EntryLocation
    )
        throws(DocumentPackageError) -> Bool
    {
        // A hard link shares the inode, so only when nothing about it would
        // change: link first, then check that the new name is the recorded
        // file with the wrapper's permissions and time, else undo the link.
        let linkable = [replacedRoot, originalRoot].contains { root in
            root.map { record.origin.device == $0.device && record.origin.inode == $0.inode } ?? false
        }
        if linkable, try hardLink(record, named: name, in: directory, at: location) {
            if let linked = try FileSystem.linkStatus(name, in: directory.rawValue, at: location),
                linked.fileType == FileIdentity.regularFileType, linked.sameContents(as: record.identity),
                linked.permissions == file.permissions,
                file.modificationTime == nil || file.modificationTime == linked.modificationTime
            {
                written.append((file, location.pathInPackage, linked))
                return true
            }
            try FileSystem.removeTree(name, in: directory.rawValue, at: location)
        }
        // Gone since it was read: not transferable (the caller writes the bytes it holds, or says it has none).
        guard let source = try FileSystem.openFileForReadingIfPresent(record.fileSystemPath, at: record.location),
            try FileSystem.status(of: source, at: record.location).sameContents(as: record.identity)
        else { return false }
        let descriptor = try FileSystem.createFile(name, in: directory.rawValue, at: location)
        try FileSystem.copyContents(of: source, size: record.identity.size, to: descriptor, at: location)
        try finish(file, descriptor, byteCount: Int(clamping: record.identity.size), at: location)
        return true
    }

    /// Links the recorded file as `name`, relative to its directory in the
    /// package being replaced (opened once for all its files). False when the
    /// file system refuses hard links.
    private mutating func hardLink(
        _ record: DiskRecord, named name: String, in directory: Descriptor,
        at location: EntryLocation
    ) throws(DocumentPackageError) -> Bool {
        let sourcePath = record.fileSystemPath
        // An absolute path of an entry below the package root: there is a folder before its name.
        let (sourceDirectoryPath, sourceName) = PathName.split(sourcePath)
        if linkSource.map({ !PathName.same($0.path, sourceDirectoryPath) }) ?? true {
            linkSource = nil
            let sourceDirectoryLocation = EntryLocation(
                pathInPackage: PathName.split(record.pathInPackage, bareNameFolder: "").folder, fileSystemPath: sourceDirectoryPath)
            linkSource = (sourceDirectoryPath, try FileSystem.openDirectory(sourceDirectoryPath, followingLink: true, at: sourceDirectoryLocation))
        }
        return try FileSystem.hardLink(sourceName, in: linkSource!.descriptor.rawValue, named: name, in: directory.rawValue, at: location)
    }

    /// Records a file written at `relativePath` below the directory written
    /// into (not a wrapper's: the manifest), to be flushed with the rest.
    mutating func noteWritten(_ relativePath: String) {
        if flush { toFlush.append((relativePath, true)) }
    }

    /// Gives the item written the replaced directory's owner and group
    /// (`replacedOwnership`), where the process may; before its permissions
    /// are set, which `chown` would clear of set-user-ID bits.
    func keepOwnership(_ descriptor: Descriptor, at location: EntryLocation) throws(DocumentPackageError) {
        guard let replacedOwnership,
            let failed = FileOwnership.keep(owner: replacedOwnership.owner, group: replacedOwnership.group, on: descriptor.rawValue)
        else { return }
        throw location.error("keep the owner", errno: failed)
    }

    /// Files at least this large start their writeback as soon as they are
    /// written, so that the flush at the end overlaps with writing the rest.
    static let earlyWritebackSize = 256 << 10

    /// Sets the file's permissions and time, records it, and (when flushing)
    /// starts its writeback early if that pays: for every file while the
    /// flush at the end may still wait on files one by one (no more than
    /// `fileSystemFlushThreshold` items), and for large files always. Past
    /// that, one `syncfs` writes the small files out at the end; starting
    /// each early would only add a system call per file (100,000 small files
    /// restored from a zip spent half their time in `sync_file_range`).
    private mutating func finish(_ file: PackageWrapper, _ descriptor: Descriptor, byteCount: Int, at location: EntryLocation)
        throws(DocumentPackageError)
    {
        let startsWriteback = flush && (toFlush.count < Self.fileSystemFlushThreshold || byteCount >= Self.earlyWritebackSize)
        try keepOwnership(descriptor, at: location)
        try FileSystem.finish(
            descriptor, permissions: file.permissions, modificationTime: file.modificationTime,
            startingWriteback: startsWriteback, at: location)
        if flush { toFlush.append((pathBelowRoot(location.pathInPackage), true)) }
        written.append((file, location.pathInPackage, try FileSystem.status(of: descriptor, at: location)))
    }
}

/// The saving options.
public struct PackageSaveOptions: Hashable, Sendable {
    /// Whether an existing package at the destination is replaced (safely);
    /// when false, an existing item is an `.alreadyExists` error.
    public var replacingExisting: Bool
    /// Whether every file and directory is flushed to disk before the new
    /// package is swapped in, so that it survives a power loss, not only a
    /// crash of the process. Costs the time to write the bytes to the device.
    public var flushingToDisk: Bool
    /// An earlier version of the package, saved elsewhere, whose regular
    /// files this save hard-links instead of copying where a wrapper read
    /// from it is unchanged (Foundation's `FileWrapper` does the same with
    /// `originalContentsURL`). The two packages then share those files'
    /// inodes: a later change made to one in place shows in the other, so
    /// use it only when the earlier version is about to be replaced or is
    /// never edited in place. Nil (the default): nothing is shared with a
    /// package that stays.
    public var originalContentsPath: FilePath?
    /// Whether re-saving the package a wrapper was read from replaces it
    /// even when another program changed it on disk since it was read
    /// (Foundation's `FileWrapper.write` does). False (the default): such a
    /// save throws `.changedOnDisk` and leaves the other program's package
    /// as it is, so no one's change is lost without a word.
    public var overwritingChangesOnDisk: Bool

    /// Makes a set of options.
    public init(
        replacingExisting: Bool = true, flushingToDisk: Bool = true, originalContentsPath: FilePath? = nil,
        overwritingChangesOnDisk: Bool = false
    ) {
        self.replacingExisting = replacingExisting
        self.flushingToDisk = flushingToDisk
        self.originalContentsPath = originalContentsPath
        self.overwritingChangesOnDisk = overwritingChangesOnDisk
    }
}

extension PackageWrapper {
    /// Saves this directory wrapper as the package at `path`, safely.
    ///
    /// The new package is written beside the old one under a temporary name
    /// (`TemporaryItem`: `.NAME.ict-new-PID-RANDOM`, removed by SIGINT,
    /// SIGTERM and SIGHUP while the save runs), flushed, and swapped in with one
    /// `renameat2(RENAME_EXCHANGE)` (`renameatx_np(RENAME_SWAP)` on macOS);
    /// where the file system cannot swap, the old package is renamed aside
    /// and the new one renamed in. The old version is then removed. At no
    /// moment is a half-written package under `path`. Temporaries left by
    /// earlier saves that crashed are removed first.
    ///
    /// The save takes no lock and tells no one: ICTKit's other writers of
    /// the package (other threads and processes) take turns with it, and
    /// its presenters in other processes hear of it, when it is made by
    /// `FileCoordination`'s `coordinatedSave(to:options:)` or inside a
    /// coordinated write, as every ICTKit writer makes it.
    ///
    /// Re-saving the package this wrapper was read from, when every change
    /// lies inside one directory below the root, that directory alone is
    /// written beside the package and exchanged with the old one in the same
    /// way (the package on disk is still the old or the new version at every
    /// moment); the rest of the package is left where it is.
    ///
    /// Regular files unchanged since they were read are not copied byte by
    /// byte: hard-linked when they belong to the package being replaced
    /// (or to `options.originalContentsPath`), else cloned (`FICLONE`) or
    /// copied in the kernel. Afterwards the wrappers refer to the saved
    /// package.
    ///
    /// - Throws: `DocumentPackageError` `.io` naming the path that failed
    ///   (the temporary is removed; the old package stays), `.changedOnDisk`
    ///   when an unchanged file that was never loaded is gone or modified,
    ///   `.notADirectory` when `path` is something other than a directory
    ///   (a symbolic link there is neither replaced nor followed, even one
    ///   to a directory: the message says so and where it points),
    ///   `.alreadyExists` when `options` forbids replacing.
    package func save(to path: String, options: PackageSaveOptions = PackageSaveOptions()) throws(DocumentPackageError) {
        precondition(kind == .directory, "save(to:) of a \(kind) wrapper: a package is a directory")
        var replaced = false
        try save(to: PackageSaveDestination(checking: path), options: options, replaced: &replaced)
    }

    /// `save(to:options:)` to a destination already checked, setting
    /// `replaced` once the new version is in place (also when a later step,
    /// the flush of its folder or the removal of the old version, then
    /// fails): what a coordinator tells the package's presenters of.
    package func save(to checked: PackageSaveDestination, options: PackageSaveOptions, replaced saved: inout Bool)
        throws(DocumentPackageError)
    {
        precondition(kind == .directory, "save(to:) of a \(kind) wrapper: a package is a directory")
        let (absolutePath, parentPath, name) = (checked.absolutePath, checked.parentPath, checked.name)
        let (shownPath, location, parentLocation) = (checked.shownPath, checked.location, checked.parentLocation)
        let parent = checked.parent
        Self.cleanUpStrayTemporaries(of: name, in: parent)
        let existing = try FileSystem.linkStatus(name, in: parent.rawValue, at: location)
        if let existing, existing.fileType == FileIdentity.symbolicLinkType {
            let destination = try FileSystem.linkDestination(name, in: parent.rawValue, size: existing.size, at: location)
            throw location.error(
                .notADirectory,
                "is a symbolic link (to \(PackageChildName.quoted(RawFileName.decoding(destination)))); a package is never saved through a link or over one")
        }
        // Re-saving the package this wrapper was read from: only over what was read.
        if !options.overwritingChangesOnDisk, let record = diskRecord, record.pathInPackage.isEmpty, record.origin.path == absolutePath,
            let changed = firstChangeOnDiskSinceRead()
        {
            throw changed.error(
                .changedOnDisk, "the package changed on disk since it was read (another program saved it); nothing was saved")
        }
        if let existing {
            guard options.replacingExisting else { throw location.error(.alreadyExists, "already exists") }
            guard existing.fileType == FileIdentity.directoryType else {
                throw location.error(.notADirectory, "exists and is not a package directory; not replaced")
            }
        }

        // The manifest replaced: its counter is counted on, its digests of files left unchanged are kept.
        let previousManifest = existing == nil ? nil : Self.manifestReplaced(atPackage: absolutePath)

        // Every change inside one directory below the root: that directory alone is written anew and swapped in.
        if let existing, let chain = changedSubtree(of: existing, at: absolutePath),
            try saveSubtree(
                chain, ofPackageNamed: name, in: parent, parentPath: parentPath, shownPath: shownPath, existing: existing,
                options: options, previousManifest: previousManifest)
        {
            saved = true
            return
        }

        let temporaryName = try FileSystem.makeTemporaryFolder(for: name, in: parent, folder: parentPath, at: location)
        defer { TemporaryItem.finished(temporaryName, folder: parentPath) }
        // What goes wrong in the new version is said of the package it becomes.
        let temporaryLocation = location
        let original = try options.originalContentsPath.flatMap { (filePath) throws(DocumentPackageError) in
            let path = RawFileName.text(filePath)
            let originalPath = Self.absolutePath(path)
            return try FileSystem.linkStatus(originalPath, at: EntryLocation(pathInPackage: "", fileSystemPath: path))
        }
        var writer = PackageWriter(
            replacedRoot: existing.map { ($0.device, $0.inode) },
            originalRoot: original.map { ($0.device, $0.inode) }, flush: options.flushingToDisk)
        writer.replacedOwnership = existing.map { ($0.owner, $0.group) }
        let rootIdentity: FileIdentity
        do {
            let root = try FileSystem.openDirectory(temporaryName, in: parent.rawValue, at: temporaryLocation)
            try writer.writeChildren(of: self, into: root, at: temporaryLocation)
            let manifest = try makeManifest(
                treePath: (parentPath == "/" ? "" : parentPath) + "/" + temporaryName, written: writer.written, previous: previousManifest)
            try writer.writeManifest(manifest, into: root, at: temporaryLocation)
            try writer.keepOwnership(root, at: temporaryLocation)
            try FileSystem.finish(
                root, permissions: permissions, modificationTime: modificationTime,
                startingWriteback: false, at: temporaryLocation)
            try writer.flushAll(root: root, at: temporaryLocation)
            rootIdentity = try FileSystem.status(of: root, at: temporaryLocation)
            try Self.swapIn(temporaryName, as: name, in: parent, replacing: existing != nil, at: location)
            saved = true
        } catch {
            try? FileSystem.removeTree(temporaryName, in: parent.rawValue, at: temporaryLocation)
            throw error
        }
        if options.flushingToDisk { try FileSystem.flush(parent, at: parentLocation) }
        // After a swap the temporary name holds the old version.
        try FileSystem.removeTree(temporaryName, in: parent.rawValue, at: temporaryLocation)

        let origin = PackageOrigin(path: absolutePath, shownPath: shownPath, identity: rootIdentity)
        fileName = name
        modificationTime = rootIdentity.modificationTime
        diskRecord = DiskRecord(origin: origin, pathInPackage: "", identity: rootIdentity)
        childrenMatchDiskRecord = true
        for (wrapper, pathInPackage, identity) in writer.written {
            wrapper.recordSaved(DiskRecord(origin: origin, pathInPackage: pathInPackage, identity: identity))
        }
    }

    /// Records that this wrapper is now the item `record` describes, as saved.
    func recordSaved(_ record: DiskRecord) {
        diskRecord = record
        modificationTime = record.identity.modificationTime
        switch kind {
        case .regularFile:
            contentsMatchDiskRecord = true
            zipContents = nil
        case .directory: childrenMatchDiskRecord = true
        // A link's permissions are the system's (0o777 on Linux), whatever the wrapper was made with.
        case .symbolicLink: permissions = record.identity.permissions
        }
    }

    /// Moves the finished temporary package to `name`: a swap when there is
    /// an old package (afterwards the temporary name holds it), a rename
    /// refusing to replace when there is none.
    private static func swapIn(
        _ temporaryName: String, as name: String, in parent: Descriptor, replacing: Bool,
        at location: EntryLocation
    ) throws(DocumentPackageError) {
        guard replacing else {
            try FileSystem.renameWithoutReplacing(temporaryName, to: name, in: parent.rawValue, at: location)
            return
        }
        if try FileSystem.exchange(temporaryName, name, in: parent.rawValue, at: location) { return }
        // No swap on this file system: move the old version aside under a
        // name the next save recognises, then the new one in.
        let asideName = TemporaryItem.name(for: name, role: .old)
        try FileSystem.renameWithoutReplacing(name, to: asideName, in: parent.rawValue, at: location)
        do {
            try FileSystem.renameWithoutReplacing(temporaryName, to: name, in: parent.rawValue, at: location)
        } catch {
            try? FileSystem.renameWithoutReplacing(asideName, to: name, in: parent.rawValue, at: location)
            throw error
        }
        try FileSystem.renameWithoutReplacing(asideName, to: temporaryName, in: parent.rawValue, at: location)
    }

    /// Removes the temporaries of saves of `name` whose process is gone
    /// (`TemporaryItem.removeStale`). When such a save died between moving
    /// the old package aside and moving the new one in, the old one is put
    /// back instead.
    static func cleanUpStrayTemporaries(of name: String, in parent: Descriptor) {
        TemporaryItem.removeStale(of: name, in: parent.rawValue)
    }

    /// Removes what saves of the package at `path` killed midway (SIGKILL,
    /// a crash) left beside it — a half-written new version, or an old one
    /// moved aside, put back when the package is missing — once their
    /// process is gone, as `save(to:options:)` does first. For a writer
    /// that changes an entry in place without saving the whole package.
    /// Best effort: lists the package's folder; what cannot be removed stays.
    package static func removeStaleTemporaries(ofPackageAt path: String) {
        let (folder, name) = PathName.split(absolutePath(path))
        guard let parent = try? Directory.openDescriptor(atPath: folder) else { return }
        defer { DescriptorCalls.close(parent) }
        TemporaryItem.removeStale(of: name, in: parent)
    }
}

/// Where a package save writes, once the checks it makes before writing
/// anything have passed: the package's name is one a package may have, and
/// its folder opens. A coordinator takes the package's turn after these
/// checks (`FileCoordination`'s `coordinatedSave(to:options:)`), so that
/// a save to a folder that is not there says so, not that it cannot lock.
package struct PackageSaveDestination {
    /// The package's absolute path, without trailing slashes: what its lock and its presenters name.
    package let absolutePath: String
    let parentPath: String
    let name: String
    /// The path as given, without trailing slashes: errors name it (its folder, the package), never the
    /// absolute one nor the temporary's.
    let shownPath: String
    let location: EntryLocation
    let parentLocation: EntryLocation
    /// The package's folder, open.
    let parent: Descriptor

    /// Checks a save to `path`: its name, and its folder, which it opens.
    ///
    /// - Throws: `DocumentPackageError` as `save(to:options:)` does for a
    ///   name a package cannot have or a folder that cannot be opened.
    package init(checking path: String) throws(DocumentPackageError) {
        let absolutePath = PathName.trimmingTrailingSlashes(PackageWrapper.absolutePath(path))
        (parentPath, name) = PathName.split(absolutePath)
        self.absolutePath = absolutePath
        let shownPath = PathName.trimmingTrailingSlashes(path)
        self.shownPath = shownPath
        location = EntryLocation(pathInPackage: "", fileSystemPath: shownPath)
        try PackageChildName.check(name, pathInPackage: "", fileSystemPath: shownPath)
        parentLocation = EntryLocation(pathInPackage: "", fileSystemPath: PathName.folder(of: shownPath))
        parent = try FileSystem.openDirectory(parentPath, followingLink: true, at: parentLocation)
    }

    /// An `.io` error about the package, as the path was given, saying `message`.
    package func ioError(_ message: String) -> DocumentPackageError { location.error(.io, message) }
}
