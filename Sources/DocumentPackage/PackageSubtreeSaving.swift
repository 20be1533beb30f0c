#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

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
/// are neither made anew nor removed.
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
    private func collectChangedDirectories(chain: [PackageWrapper], pathInPackage: String, origin: PackageOrigin,
                                           into changed: inout [[PackageWrapper]]) {
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
    func saveSubtree(_ chain: [PackageWrapper], ofPackageNamed name: String, in parent: Descriptor, parentPath: String,
                     existing: FileIdentity, options: PackageSaveOptions) throws(DocumentPackageError) -> Bool {
        let rootLocation = EntryLocation(pathInPackage: "", fileSystemPath: parentPath + "/" + name)
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

        let temporaryName = ".\(name)\(Self.savingMarker)\(getpid())-\(String(UInt32.random(in: .min ... .max), radix: 16))"
        let temporaryLocation = EntryLocation(pathInPackage: targetLocation.pathInPackage, fileSystemPath: parentPath + "/" + temporaryName)
        try FileSystem.makeDirectory(temporaryName, in: parent.rawValue, at: temporaryLocation)
        var writer = PackageWriter(replacedRoot: (existing.device, existing.inode), flush: options.flushingToDisk,
                                   rootPathInPackage: targetLocation.pathInPackage)
        let targetIdentity: FileIdentity
        do {
            let root = try FileSystem.openDirectory(temporaryName, in: parent.rawValue, at: temporaryLocation)
            try writer.writeChildren(of: target, into: root, at: temporaryLocation)
            try FileSystem.finish(root, permissions: target.permissions, modificationTime: target.modificationTime,
                                  startingWriteback: false, at: temporaryLocation)
            try writer.flushAll(root: root, at: temporaryLocation)
            targetIdentity = try FileSystem.status(of: root, at: temporaryLocation)
            guard try FileSystem.exchange(temporaryName, in: parent.rawValue, with: targetName, in: container.rawValue,
                                          at: targetLocation)
            else {
                try FileSystem.removeTree(temporaryName, in: parent.rawValue, at: temporaryLocation)
                return false
            }
        } catch {
            try? FileSystem.removeTree(temporaryName, in: parent.rawValue, at: temporaryLocation)
            throw error
        }
        // The container's entry changed: it keeps its recorded modification time, as in a whole save.
        let containerWrapper = chain[chain.count - 2]
        try FileSystem.finish(container, permissions: containerWrapper.permissions, modificationTime: containerWrapper.modificationTime,
                              startingWriteback: false, at: containerLocation)
        if options.flushingToDisk {
            try FileSystem.flush(container, at: containerLocation)
            try FileSystem.flush(parent, at: EntryLocation(pathInPackage: "", fileSystemPath: parentPath))
        }
        // After the exchange the temporary name holds the old directory.
        try FileSystem.removeTree(temporaryName, in: parent.rawValue, at: temporaryLocation)

        let origin = diskRecord!.origin
        containerWrapper.diskRecord = DiskRecord(origin: origin, pathInPackage: containerLocation.pathInPackage,
                                                 identity: try FileSystem.status(of: container, at: containerLocation))
        target.diskRecord = DiskRecord(origin: origin, pathInPackage: targetLocation.pathInPackage, identity: targetIdentity)
        target.modificationTime = targetIdentity.modificationTime
        target.childrenMatchDiskRecord = true
        for (wrapper, pathInPackage, identity) in writer.written {
            wrapper.recordSaved(DiskRecord(origin: origin, pathInPackage: pathInPackage, identity: identity))
        }
        return true
    }
}
