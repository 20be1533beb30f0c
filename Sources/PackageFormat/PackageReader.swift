import SystemSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// When a package's regular files are read.
public enum PackageReadingMode: Hashable, Sendable {
    /// Each file's bytes are read on first access (`contents()`); opening
    /// reads only the directories.
    case lazy
    /// Every file's bytes are read while opening.
    case eager
}

extension PackageWrapper {
    /// Reads the package directory at `path`: its tree of directories, files
    /// and symbolic links, with names, permissions and modification times.
    ///
    /// Symbolic links are read as links and never followed (only `path`
    /// itself may be reached through one). With `.lazy`, no file's bytes are
    /// read until asked for.
    ///
    /// - Throws: `DocumentPackageError` `.notADirectory` or `.notFound` for
    ///   `path`; `.io` naming the directory or file that cannot be read;
    ///   `.invalidName` for a name that is not UTF-8; `.duplicateName` for
    ///   names that differ only by case; `.unsupportedFileType` for a device,
    ///   FIFO or socket; `.limitExceeded` when the package is over a limit.
    package convenience init(
        readingFrom path: String, mode: PackageReadingMode = .lazy,
        limits: DocumentPackageLimits = .default
    ) throws(DocumentPackageError) {
        let absolutePath = Self.absolutePath(path)
        // Errors name the path as given, never the absolute one made from it.
        let location = EntryLocation(pathInPackage: "", fileSystemPath: path)
        let root = try FileSystem.openDirectory(absolutePath, followingLink: true, at: location)
        let identity = try FileSystem.status(of: root, at: location)
        let origin = PackageOrigin(path: absolutePath, shownPath: path, identity: identity)
        self.init(kind: .directory, permissions: identity.permissions)
        fileName = PathName.split(absolutePath).name
        modificationTime = identity.modificationTime
        diskRecord = DiskRecord(origin: origin, pathInPackage: "", identity: identity)
        var reader = PackageReader(origin: origin, mode: mode, limits: limits)
        try reader.readChildren(of: self, from: root, at: location, depth: 1)
        childrenMatchDiskRecord = true
    }

    /// Reads a package made of some entries of the package at `path`, each
    /// under another name: `sources` maps each entry of the result (`a/b`)
    /// to the entry of the package on disk that holds it (itself, or a
    /// conflict copy of it: `a/b.sync-conflict-….data`). Folders on the way
    /// are made as needed; an entry mapped to a folder is an empty folder
    /// with that folder's permissions and time. Files are read lazily and,
    /// saved back to `path`, hard-linked rather than copied, as for a
    /// package read whole. Nothing else of the package is read: a FIFO or
    /// device elsewhere in it is never met.
    ///
    /// - Throws: `DocumentPackageError` `.notFound` naming an entry whose
    ///   source is gone, `.unsupportedFileType` for a source that is a
    ///   device, FIFO or socket, `.invalidName` or `.duplicateName` for an
    ///   entry path that cannot be one, and what `init(readingFrom:)` throws for the root.
    package convenience init(readingEntries sources: [String: String], fromPackageAt path: String) throws(DocumentPackageError) {
        let absolutePath = Self.absolutePath(path)
        let location = EntryLocation(pathInPackage: "", fileSystemPath: path)
        let root = try FileSystem.openDirectory(absolutePath, followingLink: true, at: location)
        let identity = try FileSystem.status(of: root, at: location)
        let origin = PackageOrigin(path: absolutePath, shownPath: path, identity: identity)
        self.init(kind: .directory, permissions: identity.permissions)
        fileName = PathName.split(absolutePath).name
        modificationTime = identity.modificationTime
        diskRecord = DiskRecord(origin: origin, pathInPackage: "", identity: identity)
        var reader = PackageReader(origin: origin, mode: .lazy, limits: .default)
        // Shorter paths first: a folder's own entry before the entries inside it.
        for entryPath in sources.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            try reader.readEntry(entryPath, from: sources[entryPath]!, root: root, into: self, at: location)
        }
    }

    /// `path` made absolute against the current directory, so lazy reads
    /// still find it after a `chdir`.
    static func absolutePath(_ path: String) -> String {
        if PathName.isAbsolute(path) { return path }
        guard let base = CurrentDirectory.path() else { return path }
        return base == "/" ? "/" + path : base + "/" + path
    }
}

/// One read of a package tree, counting entries and bytes against the limits.
struct PackageReader {
    let origin: PackageOrigin
    let mode: PackageReadingMode
    let limits: DocumentPackageLimits
    private var entryCount = 0
    private var totalSize: Int64 = 0

    init(origin: PackageOrigin, mode: PackageReadingMode, limits: DocumentPackageLimits) {
        self.origin = origin
        self.mode = mode
        self.limits = limits
    }

    mutating func readChildren(
        of directory: PackageWrapper, from descriptor: Descriptor, at location: EntryLocation,
        depth: Int
    ) throws(DocumentPackageError) {
        for rawName in try FileSystem.entryNames(of: descriptor, at: location) {
            // The manifest (`PackageManifest`) is the save's, not an entry: each save writes it anew.
            if depth == 1, PackageWrapper.isManifestName(rawName) { continue }
            // A name that is not UTF-8 is carried byte for byte (`RawFileName`).
            let name = RawFileName.decoding(rawName)
            let childLocation = location.child(name)
            entryCount += 1
            guard entryCount <= limits.maximumEntryCount else {
                throw childLocation.error(
                    .limitExceeded(.entryCount),
                    "the package has more than \(limits.maximumEntryCount) entries")
            }
            guard let identity = try FileSystem.linkStatus(name, in: descriptor.rawValue, at: childLocation) else {
                throw childLocation.error(.changedOnDisk, "the entry disappeared while the package was read")
            }
            let child = try readEntry(name, identity: identity, in: descriptor, at: childLocation, depth: depth)
            do {
                try directory.addChild(child, named: name)
            } catch {
                throw childLocation.error(error.code, error.message)
            }
        }
    }

    mutating func readEntry(
        _ name: String, identity: FileIdentity, in directory: Descriptor,
        at location: EntryLocation, depth: Int
    ) throws(DocumentPackageError)
        -> PackageWrapper
    {
        let record = DiskRecord(origin: origin, pathInPackage: location.pathInPackage, identity: identity)
        switch identity.fileType {
        case FileIdentity.directoryType:
            guard depth <= limits.maximumDepth else {
                throw location.error(.limitExceeded(.depth), "directories nest deeper than \(limits.maximumDepth) levels")
            }
            let descriptor = try FileSystem.openDirectory(name, in: directory.rawValue, at: location)
            guard try FileSystem.status(of: descriptor, at: location).sameContents(as: identity) else {
                throw location.error(.changedOnDisk, "the directory was replaced while the package was read")
            }
            let wrapper = PackageWrapper(kind: .directory, permissions: identity.permissions)
            try readChildren(of: wrapper, from: descriptor, at: location, depth: depth + 1)
            wrapper.childrenMatchDiskRecord = true
            return finish(wrapper, record)
        case FileIdentity.regularFileType:
            totalSize += identity.size
            guard totalSize <= limits.maximumTotalSize else {
                throw location.error(
                    .limitExceeded(.totalSize),
                    "the package's files hold more than \(limits.maximumTotalSize) bytes")
            }
            let wrapper = PackageWrapper(kind: .regularFile, permissions: identity.permissions)
            wrapper.contentsMatchDiskRecord = true
            if mode == .eager {
                let descriptor = try FileSystem.openFileForReading(name, in: directory.rawValue, at: location)
                guard try FileSystem.status(of: descriptor, at: location).sameContents(as: identity) else {
                    throw location.error(.changedOnDisk, "the file was replaced while the package was read")
                }
                wrapper.loadedContents = try FileSystem.readBytes(of: descriptor, count: Int(identity.size), at: location)
            }
            return finish(wrapper, record)
        case FileIdentity.symbolicLinkType:
            let bytes = try FileSystem.linkDestination(name, in: directory.rawValue, size: identity.size, at: location)
            // Bytes, as names are: one that is not UTF-8 is carried as `RawFileName` carries it.
            let destination = RawFileName.decoding(bytes)
            return finish(PackageWrapper(kind: .symbolicLink, permissions: identity.permissions, destination: destination), record)
        default:
            throw location.error(.unsupportedFileType, "not a directory, regular file or symbolic link")
        }
    }

    /// Puts the entry `source` of the package open as `root` into `package` as `entryPath`.
    mutating func readEntry(
        _ entryPath: String, from source: String, root: Descriptor, into package: PackageWrapper, at rootLocation: EntryLocation
    ) throws(DocumentPackageError) {
        let steps = PathName.components(entryPath).map(String.init)
        let sourceSteps = PathName.components(source).map(String.init)
        guard let name = steps.last, let sourceName = sourceSteps.last else {
            throw rootLocation.error(.invalidName, "an empty entry path")
        }
        var parent = package
        for step in steps.dropLast() {
            if let existing = parent.child(named: step) {
                parent = existing
            } else {
                let folder = PackageWrapper(kind: .directory, permissions: 0o755)
                try parent.addChild(folder, named: step)
                parent = folder
            }
        }
        var sourceFolder = root
        var sourceLocation = rootLocation
        for step in sourceSteps.dropLast() {
            sourceLocation = sourceLocation.child(step)
            sourceFolder = try FileSystem.openDirectory(step, in: sourceFolder.rawValue, at: sourceLocation)
        }
        sourceLocation = sourceLocation.child(sourceName)
        guard let identity = try FileSystem.linkStatus(sourceName, in: sourceFolder.rawValue, at: sourceLocation) else {
            throw sourceLocation.error(.notFound, "the entry is gone")
        }
        let wrapper: PackageWrapper
        if identity.fileType == FileIdentity.directoryType {
            if let existing = parent.child(named: name), existing.kind == .directory {
                existing.permissions = identity.permissions
                existing.modificationTime = identity.modificationTime
                return
            }
            wrapper = PackageWrapper(kind: .directory, permissions: identity.permissions)
            wrapper.modificationTime = identity.modificationTime
        } else {
            wrapper = try readEntry(sourceName, identity: identity, in: sourceFolder, at: sourceLocation, depth: steps.count)
        }
        do {
            try parent.addChild(wrapper, named: name)
        } catch {
            throw DocumentPackageError(error.code, pathInPackage: entryPath, fileSystemPathText: rootLocation.child(entryPath).fileSystemPath, error.message)
        }
    }

    private func finish(_ wrapper: PackageWrapper, _ record: DiskRecord) -> PackageWrapper {
        wrapper.modificationTime = record.identity.modificationTime
        wrapper.diskRecord = record
        return wrapper
    }
}
