import SystemSupport

/// Re-saving a package in place of the one it was read from when every
/// change since lies inside one directory below the root: that directory
/// alone is written anew beside the package and swapped in, in one step.
///
/// The promises are those of the whole-package save: the new directory is
/// written under a temporary name beside the package (unchanged files
/// hard-linked from the old one), flushed, and exchanged with the old
/// directory by one `renameat2(RENAME_EXCHANGE)`, so at every moment the
/// package is exactly the old version or the new one; the old directory is
/// then removed, and a temporary left by a crash is removed by the next
/// save. Only the work is smaller: the directories outside the changed one
/// are neither made anew nor removed. They are checked instead: when
/// another writer changed anything outside the changed folder since it was
/// read, the whole package is saved, as before. One difference remains: a
/// crash between the exchange and the next step leaves the holding folder
/// with the exchange's modification time instead of its recorded one.
extension PackageWrapper {
    /// The chain of directories from the root to the smallest directory
    /// below the root holding every change since this package was read from
    /// (or saved to) `path`; nil when a change touches the root itself,
    /// nothing changed, or the package at `path` is not the one read.
    func changedSubtree(of existing: FileIdentity, at path: String) -> [PackageWrapper]? {
        guard let record = diskRecord, record.pathInPackage.isEmpty, record.origin.path == path,
            record.origin.device == existing.device, record.origin.inode == existing.inode,
            childrenMatchDiskRecord, Self.matches(self, record: record, at: "")
        else { return nil }
        var changed: [[PackageWrapper]] = []
        collectChangedDirectories(chain: [self], pathInPackage: "", origin: record.origin, into: &changed)
        guard var common = changed.first else { return nil }
        for chain in changed.dropFirst() {
            let shared = zip(common, chain).prefix { $0 === $1 }.count
            common.removeLast(common.count - shared)
        }
        return common.count > 1 ? common : nil
    }

    /// Appends the chain of each directory below `chain.last` that must be
    /// written anew: one whose children or own attributes changed, or which
    /// holds a file or link that changed.
    private func collectChangedDirectories(
        chain: [PackageWrapper], pathInPackage: String, origin: PackageOrigin,
        into changed: inout [[PackageWrapper]]
    ) {
        for child in children {
            let childPath = pathInPackage.isEmpty ? child.fileName! : pathInPackage + "/" + child.fileName!
            let same = child.diskRecord.map { $0.origin === origin && Self.matches(child, record: $0, at: childPath) } ?? false
            switch child.kind {
            case .directory:
                if same, child.childrenMatchDiskRecord {
                    child.collectChangedDirectories(chain: chain + [child], pathInPackage: childPath, origin: origin, into: &changed)
                } else {
                    changed.append(chain + [child])
                }
            case .regularFile, .symbolicLink:
                if !same || (child.kind == .regularFile && !child.contentsMatchDiskRecord) {
                    changed.append(chain)
                    return
                }
            }
        }
    }

    /// Whether `wrapper` is still what `record` says: the same place, permissions and modification time.
    private static func matches(_ wrapper: PackageWrapper, record: DiskRecord, at pathInPackage: String) -> Bool {
        record.pathInPackage == pathInPackage && wrapper.permissions == record.identity.permissions
            && wrapper.modificationTime == record.identity.modificationTime
    }

    /// Writes the last directory of `chain` anew beside the package `name`
    /// in `parent` and exchanges it with the one on disk. False, having
    /// changed nothing, when a directory on the way is not the one read or
    /// the file system cannot exchange: the caller saves the whole package.
    ///
    /// - Throws: `DocumentPackageError` as `save(to:options:)`; the
    ///   temporary is removed and the package left as it was.
    func saveSubtree(
        _ chain: [PackageWrapper], ofPackageNamed name: String, in parent: Descriptor, parentPath: String, shownPath: String,
        existing: FileIdentity, options: PackageSaveOptions, previousManifest: PackageManifest?
    ) throws(DocumentPackageError) -> Bool {
        let rootLocation = EntryLocation(pathInPackage: "", fileSystemPath: shownPath)
        // Walk down to the changed directory's container, checking each step is the directory read.
        var container = try FileSystem.openDirectory(name, in: parent.rawValue, at: rootLocation)
        guard try FileSystem.status(of: container, at: rootLocation).inode == existing.inode else { return false }
        var containerLocation = rootLocation
        for directory in chain.dropFirst().dropLast() {
            containerLocation = containerLocation.child(directory.fileName!)
            let next = try FileSystem.openDirectory(directory.fileName!, in: container.rawValue, at: containerLocation)
            guard try FileSystem.status(of: next, at: containerLocation).inode == directory.diskRecord?.identity.inode else { return false }
            container = next
        }
        let target = chain.last!
        let targetName = target.fileName!
        let targetLocation = containerLocation.child(targetName)
        guard let onDisk = try FileSystem.linkStatus(targetName, in: container.rawValue, at: targetLocation),
            onDisk.fileType == FileIdentity.directoryType, onDisk.inode == target.diskRecord?.identity.inode
        else { return false }
        // The holding folder's time is given back after the exchange: only by its owner (or root).
        let holder = try FileSystem.status(of: container, at: containerLocation)
        guard holder.owner == CurrentProcess.effectiveUserID || CurrentProcess.effectiveUserID == 0 else { return false }
        // Everything outside the changed folder must still be what was read, as a whole save would find
        // (or overwrite) it: another writer's change there makes this a whole save.
        let root = try FileSystem.openDirectory(name, in: parent.rawValue, at: rootLocation)
        guard try Self.unchangedOnDisk(self, open: root, at: rootLocation, except: target) else { return false }

        let temporaryName = try FileSystem.makeTemporaryFolder(for: name, in: parent, folder: parentPath, at: targetLocation)
        defer { TemporaryItem.finished(temporaryName, folder: parentPath) }
        // What goes wrong in the new folder is said of the folder it replaces.
        let temporaryLocation = targetLocation
        var writer = PackageWriter(
            replacedRoot: (existing.device, existing.inode), flush: options.flushingToDisk,
            rootPathInPackage: targetLocation.pathInPackage)
        writer.replacedOwnership = (onDisk.owner, onDisk.group)
        let newFolder: Descriptor
        do {
            newFolder = try FileSystem.openDirectory(temporaryName, in: parent.rawValue, at: temporaryLocation)
            try writer.writeChildren(of: target, into: newFolder, at: temporaryLocation)
            try writer.keepOwnership(newFolder, at: temporaryLocation)
            try FileSystem.finish(
                newFolder, permissions: target.permissions, modificationTime: target.modificationTime,
                startingWriteback: false, at: temporaryLocation)
            try writer.flushAll(root: newFolder, at: temporaryLocation)
            guard
                try FileSystem.exchange(
                    temporaryName, in: parent.rawValue, with: targetName, in: container.rawValue,
                    at: targetLocation)
            else {
                try FileSystem.removeTree(temporaryName, in: parent.rawValue, at: temporaryLocation)
                return false
            }
        } catch {
            try? FileSystem.removeTree(temporaryName, in: parent.rawValue, at: temporaryLocation)
            throw error
        }
        // The new folder is in place; the manifest follows it, replaced in one step. (A crash between the
        // two leaves a package whose manifest lists the old folder's files: read as mixed, and whole again
        // once saved.)
        let packagePath = (parentPath == "/" ? "" : parentPath) + "/" + name
        let manifest = try makeManifest(treePath: packagePath, written: writer.written, previous: previousManifest)
        try Self.replaceManifest(manifest, in: root, packagePath: packagePath, flushing: options.flushingToDisk, at: rootLocation)
        // Both folders get back the times a whole save gives them: some file systems stamp a folder that
        // moved to another parent, and the holding folder's entry changed (as did the root's, for the manifest).
        let containerWrapper = chain[chain.count - 2]
        if containerWrapper !== self {
            FileSystem.setModificationTime(root, modificationTime)
            if let identity = try? FileSystem.status(of: root, at: rootLocation) {
                diskRecord = DiskRecord(origin: diskRecord!.origin, pathInPackage: "", identity: identity)
            }
        }
        FileSystem.setModificationTime(newFolder, target.modificationTime)
        FileSystem.setModificationTime(container, containerWrapper.modificationTime)
        let origin = diskRecord!.origin
        if let identity = try? FileSystem.status(of: newFolder, at: targetLocation) {
            target.recordSaved(DiskRecord(origin: origin, pathInPackage: targetLocation.pathInPackage, identity: identity))
        }
        if let identity = try? FileSystem.status(of: container, at: containerLocation) {
            containerWrapper.diskRecord = DiskRecord(origin: origin, pathInPackage: containerLocation.pathInPackage, identity: identity)
        }
        for (wrapper, pathInPackage, identity) in writer.written {
            wrapper.recordSaved(DiskRecord(origin: origin, pathInPackage: pathInPackage, identity: identity))
        }
        if options.flushingToDisk {
            try FileSystem.flush(container, at: containerLocation)
            try FileSystem.flush(parent, at: EntryLocation(pathInPackage: "", fileSystemPath: PathName.folder(of: shownPath)))
        }
        // After the exchange the temporary name holds the old folder.
        try FileSystem.removeTree(temporaryName, in: parent.rawValue, at: temporaryLocation)
        return true
    }

    /// Whether the entries below `directory` (open as `descriptor`) are on
    /// disk what its wrappers were read as, `except` the folder being
    /// replaced: the same names, and each entry the same item with the same
    /// size and modification time (a folder's own time aside, as the
    /// exchange changes its holder's). Costs one listing per folder and one
    /// `lstat` per entry; reads no file.
    private static func unchangedOnDisk(
        _ directory: PackageWrapper, open descriptor: Descriptor, at location: EntryLocation,
        except target: PackageWrapper
    ) throws(DocumentPackageError) -> Bool {
        // The manifest at the root is not an entry: it changes with every save.
        let onDisk = try FileSystem.entryNames(of: descriptor, at: location).filter {
            !location.pathInPackage.isEmpty || !isManifestName($0)
        }
        let children = directory.children
        guard onDisk.count == children.count,
            Set(onDisk) == Set(children.map { RawFileName.bytes($0.fileName!) })
        else { return false }
        for child in children where child !== target {
            let name = child.fileName!
            let childLocation = location.child(name)
            guard let record = child.diskRecord,
                let now = try FileSystem.linkStatus(name, in: descriptor.rawValue, at: childLocation),
                now.device == record.identity.device, now.inode == record.identity.inode, now.mode == record.identity.mode
            else { return false }
            if child.kind == .directory {
                let opened = try FileSystem.openDirectory(name, in: descriptor.rawValue, at: childLocation)
                guard try unchangedOnDisk(child, open: opened, at: childLocation, except: target) else { return false }
            } else if !now.sameContents(as: record.identity) {
                return false
            }
        }
        return true
    }
}
