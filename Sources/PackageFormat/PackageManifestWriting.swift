import SystemSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The manifest every save writes (`PackageManifest`): made from the tree
/// just written, each file's digest taken from the manifest it replaces
/// when the file was not changed since read and its size and modification
/// time are those that manifest lists (as a sync engine's scanner takes a
/// file as unchanged), else from the bytes in memory, else read from the
/// file written.
extension PackageWrapper {
    /// Whether `name`, at the root of a package, is the manifest or a
    /// temporary of a manifest being written: left out of the package's entries.
    static func isManifestName(_ name: [UInt8]) -> Bool {
        name.elementsEqual(PackageManifest.fileName.utf8) || TemporaryItem.target(of: name) == PackageManifest.fileName
    }

    /// The manifest of this directory's tree as now on disk below
    /// `treePath`: `written` gives what the save wrote, the other entries
    /// (left in place by a save of one folder) are as last read or saved.
    ///
    /// - Throws: `DocumentPackageError` `.io` or `.changedOnDisk` naming an
    ///   entry whose bytes cannot be read for its digest.
    func makeManifest(
        treePath: String, written: [(wrapper: PackageWrapper, pathInPackage: String, identity: FileIdentity)],
        previous: PackageManifest?
    ) throws(DocumentPackageError) -> PackageManifest {
        var identities: [ObjectIdentifier: FileIdentity] = [:]
        for item in written { identities[ObjectIdentifier(item.wrapper)] = item.identity }
        var entries: [String: PackageManifest.Entry] = [:]
        try collectManifestEntries(
            below: "", treePath: treePath, identities: identities, previous: previous?.entries ?? [:], into: &entries)
        var identifier = [UInt8](repeating: 0, count: 16)
        var random = SystemRandomNumberGenerator()
        for index in identifier.indices { identifier[index] = random.next() }
        let counter = (previous?.generation.counter ?? 0).addingReportingOverflow(1)
        return PackageManifest(
            generation: .init(identifier: identifier, counter: counter.overflow ? 1 : counter.partialValue),
            savingComputer: ProcessInfo.processInfo.hostName, savedDate: Date(), entries: entries)
    }

    private func collectManifestEntries(
        below prefix: String, treePath: String, identities: [ObjectIdentifier: FileIdentity],
        previous: [String: PackageManifest.Entry], into entries: inout [String: PackageManifest.Entry]
    ) throws(DocumentPackageError) {
        for child in children {
            let path = prefix.isEmpty ? child.fileName! : prefix + "/" + child.fileName!
            // Every entry was either written by this save or left in place as read (and checked unchanged).
            guard let identity = identities[ObjectIdentifier(child)] ?? child.diskRecord?.identity else { continue }
            var entry = PackageManifest.Entry(
                kind: .folder, modificationSeconds: identity.modificationTime.seconds,
                modificationNanoseconds: identity.modificationTime.nanoseconds)
            switch child.kind {
            case .directory:
                entries[path] = entry
                try child.collectManifestEntries(below: path, treePath: treePath, identities: identities, previous: previous, into: &entries)
                continue
            case .symbolicLink:
                entry.kind = .link
                entry.destinationText = child.destination
            case .regularFile:
                entry.kind = .file
                entry.size = identity.size
                // Taken from the manifest replaced only for a file this save did not give new bytes.
                if child.contentsMatchDiskRecord, let listed = previous[path], listed.digest != nil, listed.sameStatus(as: entry) {
                    entry.digest = listed.digest
                } else if let bytes = child.loadedContents, bytes.count == identity.size {
                    entry.digest = bytes.withUnsafeBytes { SHA256Digest.of($0) }
                } else {
                    entry.digest = try PackageManifest.entryOnDisk(treePath + "/" + path, pathInPackage: path, digesting: true)?.digest
                    guard entry.digest != nil else {
                        throw DocumentPackageError(.changedOnDisk, pathInPackage: path, fileSystemPathText: treePath + "/" + path, "the file written is gone")
                    }
                }
            }
            entries[path] = entry
        }
    }

    /// The manifest of the package at `path` before a save replaces it, to
    /// count on from and to take unchanged files' digests from; nil when it
    /// has none or one that cannot be read (then the save digests every file).
    static func manifestReplaced(atPackage path: String) -> PackageManifest? {
        try? PackageManifest.read(fromPackageAt: path)
    }
}

extension PackageWriter {
    /// Writes `manifest` as a new file at the root of the tree being written
    /// (flushed with the rest).
    mutating func writeManifest(_ manifest: PackageManifest, into root: Descriptor, at location: EntryLocation)
        throws(DocumentPackageError)
    {
        let manifestLocation = location.child(PackageManifest.fileName)
        let descriptor = try FileSystem.createFile(PackageManifest.fileName, in: root.rawValue, permissions: 0o644, at: manifestLocation)
        try FileSystem.writeAll(manifest.encoded(), to: descriptor, at: manifestLocation)
        try keepOwnership(descriptor, at: manifestLocation)
        try FileSystem.finish(descriptor, permissions: 0o644, modificationTime: nil, startingWriteback: false, at: manifestLocation)
        noteWritten(PackageManifest.fileName)
    }
}

extension PackageWrapper {
    /// Replaces the manifest of the package open as `root` (at `packagePath`)
    /// in one step: written beside it under a temporary name, flushed when
    /// asked, renamed over it. For a save that replaced one folder in place.
    static func replaceManifest(
        _ manifest: PackageManifest, in root: Descriptor, packagePath: String, flushing: Bool, at location: EntryLocation
    ) throws(DocumentPackageError) {
        let manifestLocation = location.child(PackageManifest.fileName)
        TemporaryItem.removeStale(of: PackageManifest.fileName, in: root.rawValue)
        let (descriptor, temporaryName) = try FileSystem.makeTemporaryFile(
            for: PackageManifest.fileName, in: root, folder: packagePath, at: manifestLocation)
        defer { TemporaryItem.finished(temporaryName, folder: packagePath) }
        do {
            try FileSystem.writeAll(manifest.encoded(), to: descriptor, at: manifestLocation)
            try FileSystem.finish(descriptor, permissions: 0o644, modificationTime: nil, startingWriteback: false, at: manifestLocation)
            if flushing { try FileSystem.flush(descriptor, at: manifestLocation) }
            try FileSystem.rename(temporaryName, to: PackageManifest.fileName, in: root.rawValue, at: manifestLocation)
        } catch {
            try? FileSystem.removeTree(temporaryName, in: root.rawValue, at: manifestLocation)
            throw error
        }
    }
}

extension FileSystem {
    /// Writes all of `data` (`writeAll(_:to:at:)`).
    static func writeAll(_ data: Data, to descriptor: Descriptor, at location: EntryLocation) throws(DocumentPackageError) {
        let result: Result<Void, DocumentPackageError> = data.withUnsafeBytes { bytes in
            Result { () throws(DocumentPackageError) in try writeAll(bytes, to: descriptor, at: location) }
        }
        try result.get()
    }
}
