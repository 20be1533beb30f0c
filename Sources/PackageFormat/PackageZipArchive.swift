import SystemSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A document package as one zip file (for e-mail and upload), both ways.
///
/// A package zip holds one top-level directory named after the package
/// (`Friend.ict/ctdocument.data`, …), as the Finder's "Compress" makes it.
/// Reading refuses every entry that would land outside the package:
/// absolute paths, `..` steps, backslashes, entries below a file or a link,
/// and links whose destination leaves the package. Both directions apply the
/// same `DocumentPackageLimits`, so every zip written is read back.
public enum PackageZipArchive {
    /// Writes `package` (a directory wrapper) to a new zip at `zipPath`, its
    /// entries under `rootName/`. Files are deflated (small ones stored when
    /// that is smaller); permissions, modification dates (to the zip's 2
    /// seconds) and symbolic links (as links) are kept. Files read lazily are
    /// streamed from disk, not loaded. The zip is written in one pass under
    /// a temporary name beside it (`TemporaryItem`: removed by SIGINT,
    /// SIGTERM and SIGHUP, and when a killed run left it, by the next write
    /// of the same zip) and renamed into place; time and memory grow
    /// linearly with the entries. The zip is flushed to disk before the rename.
    /// A device, FIFO or socket at `zipPath` (`/dev/stdout`, a pipe) is
    /// written as a stream, front to back, and never replaced; a symbolic
    /// link there is refused, never written through nor replaced.
    ///
    /// - Throws: `DocumentPackageError` `.limitExceeded` naming the entry
    ///   when the package is over `limits`, `.unsafePath` naming a symbolic
    ///   link whose destination is absolute or leaves the package, which
    ///   reading refuses (both checked before anything is written: a zip
    ///   that could not be read back is never made) or a symbolic link at
    ///   `zipPath`, `.io`
    ///   when the zip cannot be written, `.changedOnDisk` when a lazily read
    ///   file changed since reading.
    ///
    /// `progress`, when given, is called on this thread after each entry is
    /// written, with the entries written and the package's entry count.
    package static func write(
        _ package: PackageWrapper, to zipPath: String, rootName: String,
        limits: DocumentPackageLimits = .default, progress: ((_ done: Int, _ total: Int) -> Void)? = nil
    ) throws(DocumentPackageError) {
        precondition(package.kind == .directory, "a package zip holds a directory")
        let absolutePath = PackageWrapper.absolutePath(zipPath)
        // Errors name the paths as given, never the absolute ones made from them.
        try PackageChildName.check(rootName, pathInPackage: "", fileSystemPath: zipPath)
        var tally = PackageLimitTally(limits: limits, fileSystemPath: package.diskRecord?.origin.shownPath ?? zipPath)
        try tally.count(childrenOf: package, path: "", depth: 1)
        // Errors name the zip as given; the folder is opened by its absolute path.
        let location = EntryLocation(pathInPackage: "", fileSystemPath: zipPath)
        let (folder, name) = PathName.split(absolutePath)
        if let existing = try FileSystem.linkStatus(zipPath, at: location) {
            switch FileKind(mode: existing.mode) {
            case .symbolicLink where (try? FileInfo.of(path: zipPath))?.kind.isSpecial == true:
                // A link to a stream (`/dev/stdout`): written as the stream; no file can be changed through it.
                return try writeStream(package, to: zipPath, rootName: rootName, total: tally.entries + 1, at: location, progress: progress)
            case .symbolicLink:
                let destination = (try? SymbolicLink.destination(ofLinkAt: zipPath)).map { " (to \(PackageChildName.quoted($0)))" } ?? ""
                throw location.error(.unsafePath, "is a symbolic link\(destination); a zip is never written through a link or over one")
            case .fifo, .characterDevice, .blockDevice, .socket:
                return try writeStream(package, to: zipPath, rootName: rootName, total: tally.entries + 1, at: location, progress: progress)
            default: break
            }
        }
        let parent: Descriptor
        do throws(SystemCallError) {
            parent = Descriptor(try Directory.openDescriptor(atPath: folder))
        } catch {
            throw location.error("create the file", errno: error.code)
        }
        TemporaryItem.removeStale(of: name, in: parent.rawValue)
        let (descriptor, temporaryName) = try FileSystem.makeTemporaryFile(for: name, in: parent, folder: folder, at: location)
        defer { TemporaryItem.finished(temporaryName, folder: folder) }
        do throws(DocumentPackageError) {
            let writer = ZipArchiveWriter(descriptor: descriptor, location: location)
            var written = 0
            // The root directory and each entry below it.
            let total = tally.entries + 1
            try addEntry(package, path: rootName, to: writer, now: FileTimestamp(seconds: Int64(Date().timeIntervalSince1970.rounded(.down)), nanoseconds: 0)) {
                written += 1
                progress?(written, total)
            }
            try writer.finish()
            // As a new file would have been made: 0666 less the umask.
            do throws(SystemCallError) {
                try FilePermissions.set(FilePermissions.forNewFile(), on: descriptor.rawValue, path: zipPath)
            } catch {
                throw location.error("set the zip's permissions", errno: error.code)
            }
            // On disk before it takes the zip's name, as `ict convert` flushes every file it writes.
            try FileSystem.flush(descriptor, at: location)
            try FileSystem.rename(temporaryName, to: name, in: parent.rawValue, at: location)
        } catch {
            try? FileSystem.removeTree(temporaryName, in: parent.rawValue, at: location)
            throw error
        }
    }

    /// Writes the zip to the device, FIFO or socket at `path` (or named by a
    /// link there) front to back (`ZipArchiveWriter` streaming: large files'
    /// sizes in data descriptors). What was opened is checked to be such a
    /// stream: a regular file put there meanwhile is refused, never written in place.
    private static func writeStream(
        _ package: PackageWrapper, to path: String, rootName: String, total: Int, at location: EntryLocation,
        progress: ((_ done: Int, _ total: Int) -> Void)?
    ) throws(DocumentPackageError) {
        let descriptor: Descriptor
        let isStream: Bool
        do throws(SystemCallError) {
            descriptor = Descriptor(try DescriptorCalls.open(path, in: CurrentDirectory.descriptor, options: [.writeOnly]))
            isStream = try FileInfo.of(descriptor: descriptor.rawValue, path: path).kind.isSpecial
        } catch {
            throw location.error("open the file", errno: error.code)
        }
        guard isStream else { throw location.error(.io, "became a regular file while it was opened; nothing was written") }
        let writer = ZipArchiveWriter(descriptor: descriptor, location: location, streaming: true)
        var written = 0
        try addEntry(package, path: rootName, to: writer, now: FileTimestamp(seconds: Int64(Date().timeIntervalSince1970.rounded(.down)), nanoseconds: 0)) {
            written += 1
            progress?(written, total)
        }
        try writer.finish()
    }

    private static func addEntry(
        _ wrapper: PackageWrapper, path: String, to writer: ZipArchiveWriter, now: FileTimestamp, added: () -> Void
    ) throws(DocumentPackageError) {
        let time = wrapper.modificationTime ?? now
        switch wrapper.kind {
        case .directory:
            try writer.addDirectory(path: path + "/", permissions: wrapper.permissions, modificationTime: time)
            for child in wrapper.children {
                try addEntry(child, path: path + "/" + child.fileName!, to: writer, now: now, added: added)
            }
        case .regularFile:
            let stream = try PackageFileStream(wrapper)
            try writer.addFile(
                path: path, permissions: wrapper.permissions, modificationTime: time, size: stream.size,
                read: stream.read)
        case .symbolicLink:
            try writer.addSymbolicLink(path: path, destination: wrapper.symbolicLinkDestinationText!, modificationTime: time)
        }
        added()
    }

    /// Reads the zip at `zipPath` as a package: its whole central directory
    /// is read and checked first (every path, link destination, declared
    /// size and count against `limits`), and each file's bytes are left in
    /// the zip until asked for (`contents()`) or saved, when they are
    /// inflated straight into the new file, checked against their declared
    /// size and checksum. So memory holds the tree, never the files, and
    /// a zip bomb is stopped by its declared size or within 256 KB of it.
    /// When every entry lies under one top-level directory whose name
    /// has an extension (`Friend.ict/`), that directory is the package and
    /// its name is the result's `preferredFileName`; otherwise the whole zip
    /// is the package and `preferredFileName` is nil.
    ///
    /// - Throws: `DocumentPackageError` `.unsafePath` for an entry or link
    ///   that would land outside the package (naming the entry),
    ///   `.invalidName` / `.duplicateName` for names a package cannot hold,
    ///   `.limitExceeded` over a limit, `.invalidArchive` for a zip that
    ///   cannot be read. Reading or saving the files later throws
    ///   `.invalidArchive` naming the entry whose bytes disagree with the
    ///   central directory (more or fewer than declared, a wrong checksum).
    ///
    /// `progress`, when given, is called on the thread that reads or saves
    /// the files, after each file's bytes are read whole and checked, with
    /// the files read so far and the zip's file count.
    package static func read(
        at zipPath: String, limits: DocumentPackageLimits = .default, progress: ((_ done: Int, _ total: Int) -> Void)? = nil
    ) throws(DocumentPackageError) -> PackageWrapper {
        // Opened once, by the path as given, which its errors name.
        let archive = try ZipArchiveReader(path: zipPath)
        var builder = PackageZipTreeBuilder(archive: archive, limits: limits)
        var fileCount = 0
        try archive.forEachRecord { (record) throws(DocumentPackageError) in
            try builder.add(record)
            if record.kind == .regularFile { fileCount += 1 }
        }
        if let progress {
            var read = 0
            archive.contentsRead = {
                read += 1
                progress(read, fileCount)
            }
        }
        return try builder.package()
    }
}

/// Which symbolic links a package zip may hold: reading refuses the others,
/// and writing refuses them too, so that every zip written is read back.
///
/// A link's destination must be relative and, resolved from the link's
/// directory, stay inside the package. `..` is accepted only before the
/// first name (`../Shared/x`, not `a/../..`): a name may itself be a link,
/// and `l/..` then climbs from wherever `l` points. With that rule each link
/// that stays inside keeps every chain of links inside.
enum PackageLinkRule {
    /// Why a link `directoryDepth` directories below the package's root
    /// pointing to `destination` is refused, or nil when it is accepted.
    static func refusal(of destination: String, directoryDepth: Int) -> String? {
        if PathName.isAbsolute(destination) { return "the link points to an absolute path, outside the package" }
        var depth = directoryDepth
        var sawName = false
        for step in PathName.components(destination) where step != "." {
            if step != ".." {
                sawName = true
                continue
            }
            guard !sawName else { return "the link's destination climbs with \"..\" after a name (\(destination))" }
            guard depth > 0 else { return "the link points outside the package (\(destination))" }
            depth -= 1
        }
        return nil
    }
}

/// A regular file's bytes inside a zip, read when asked for.
struct ZipContents {
    let archive: ZipArchiveReader
    let record: ZipEntryRecord

    /// The entry's bytes, inflated and checked.
    func read() throws(DocumentPackageError) -> Data {
        var data = Data()
        // Reserve no more than a deflate stream of this size can hold (at most 1,032 to 1), nor than 16 MB.
        // `&*`: a product that wraps only makes the reservation smaller; `append` grows the buffer as needed.
        data.reserveCapacity(Int(min(record.uncompressedSize, record.compressedSize &* 1032, 16 << 20)))
        try archive.readContents(of: record) { (bytes) throws(DocumentPackageError) in data.append(contentsOf: bytes) }
        return data
    }
}

/// Counts a wrapper tree against the limits as reading it back would:
/// entries, directory depth, file sizes one by one and in all.
private struct PackageLimitTally {
    let limits: DocumentPackageLimits
    let fileSystemPath: String
    private var entryCount = 0
    private var totalSize: Int64 = 0
    /// The entries counted so far.
    var entries: Int { entryCount }

    init(limits: DocumentPackageLimits, fileSystemPath: String) {
        self.limits = limits
        self.fileSystemPath = fileSystemPath
    }

    private func error(_ limit: DocumentPackageLimit, _ path: String, _ message: String) -> DocumentPackageError {
        DocumentPackageError(
            .limitExceeded(limit), pathInPackage: path, fileSystemPathText: fileSystemPath,
            message + "; a zip of it could not be read back")
    }

    mutating func count(childrenOf directory: PackageWrapper, path: String, depth: Int) throws(DocumentPackageError) {
        for child in directory.children {
            let childPath = path.isEmpty ? child.fileName! : path + "/" + child.fileName!
            entryCount += 1
            guard entryCount <= limits.maximumEntryCount else {
                throw error(.entryCount, childPath, "the package has more than \(limits.maximumEntryCount) entries")
            }
            switch child.kind {
            case .directory:
                guard depth <= limits.maximumDepth else {
                    throw error(.depth, childPath, "directories nest deeper than \(limits.maximumDepth) levels")
                }
                try count(childrenOf: child, path: childPath, depth: depth + 1)
            case .regularFile:
                let size = child.fileSize ?? 0
                guard size <= limits.maximumEntrySize else {
                    throw error(.entrySize, childPath, "the file holds \(size) bytes, over the limit of \(limits.maximumEntrySize) per entry")
                }
                totalSize += size
                guard totalSize <= limits.maximumTotalSize else {
                    throw error(.totalSize, childPath, "the package's files hold more than \(limits.maximumTotalSize) bytes")
                }
            case .symbolicLink:
                let destination = child.symbolicLinkDestinationText ?? ""
                if let reason = PackageLinkRule.refusal(of: destination, directoryDepth: depth - 1) {
                    throw DocumentPackageError(
                        .unsafePath, pathInPackage: childPath, fileSystemPathText: fileSystemPath,
                        reason + "; a zip of it could not be restored, so none is written")
                }
            }
        }
    }
}

/// Reads a regular file's bytes piecewise for the zip writer: from memory
/// when loaded (or from its zip entry, loaded), else from the recorded file on disk.
private final class PackageFileStream {
    let size: Int64
    private let loaded: Data?
    private let descriptor: Descriptor?
    private let location: EntryLocation

    init(_ file: PackageWrapper) throws(DocumentPackageError) {
        if file.loadedContents != nil || !file.contentsMatchDiskRecord || file.diskRecord == nil {
            let contents = try file.contents()
            loaded = contents
            descriptor = nil
            size = Int64(contents.count)
            location = EntryLocation(pathInPackage: "", fileSystemPath: "")
            return
        }
        let record = file.diskRecord!
        let opened = try FileSystem.openFileForReading(record.fileSystemPath, at: record.location)
        guard try FileSystem.status(of: opened, at: record.location).sameContents(as: record.identity) else {
            throw record.location.error(.changedOnDisk, "the file changed on disk after the package was read")
        }
        loaded = nil
        descriptor = opened
        size = record.identity.size
        location = record.location
    }

    /// Fills `buffer` with the bytes from `position`.
    func read(into buffer: UnsafeMutableRawBufferPointer, at position: Int64) throws(DocumentPackageError) {
        if let loaded {
            loaded.copyBytes(to: buffer, from: Int(position)..<Int(position) + buffer.count)
            return
        }
        let filled: Int
        do throws(SystemCallError) {
            filled = try PositionalIO.read(descriptor!.rawValue, into: buffer, at: UInt64(position), path: location.fileSystemPath)
        } catch {
            throw location.error("read the file", errno: error.code)
        }
        guard filled == buffer.count else { throw location.error(.changedOnDisk, "the file became shorter while it was zipped") }
    }
}

/// Builds the wrapper tree of a zip's entries, checking each path, and
/// counting against the limits as the package it becomes: the top-level
/// directory that turns out to be the package is not one of its entries.
private struct PackageZipTreeBuilder {
    let archive: ZipArchiveReader
    let limits: DocumentPackageLimits
    let root: PackageWrapper
    /// Wrappers made so far, directories implied by a path included.
    private var madeCount = 0
    private var totalSize: Int64 = 0
    /// The most steps below the zip's root of any directory, and its path.
    private var deepestDirectory: (steps: Int, path: String) = (0, "")
    private var links: [(path: [String], destination: String)] = []

    init(archive: ZipArchiveReader, limits: DocumentPackageLimits) {
        self.archive = archive
        self.limits = limits
        root = PackageWrapper(kind: .directory, permissions: 0o755)
    }

    private func error(_ code: DocumentPackageError.Code, _ path: String, _ message: String) -> DocumentPackageError {
        DocumentPackageError(code, pathInPackage: path, fileSystemPathText: archive.path, message)
    }

    /// The entry's path as checked steps: no absolute path, drive letter,
    /// backslash, `..`, or name a package cannot hold.
    private func steps(of path: String) throws(DocumentPackageError) -> [String] {
        if PathName.isAbsolute(path) { throw error(.unsafePath, path, "the zip entry has an absolute path") }
        if path.contains("\\") { throw error(.unsafePath, path, "the zip entry's path holds a backslash") }
        if path.count >= 2, path.dropFirst().first == ":" {
            throw error(.unsafePath, path, "the zip entry's path starts with a drive letter")
        }
        var steps: [String] = []
        for step in PathName.components(path) where step != "." {
            if step == ".." { throw error(.unsafePath, path, "the zip entry's path leaves the package with \"..\"") }
            try PackageChildName.check(String(step), pathInPackage: path, fileSystemPath: archive.path)
            steps.append(String(step))
        }
        if steps.isEmpty { throw error(.unsafePath, path, "the zip entry has an empty path") }
        return steps
    }

    /// Counts one more wrapper; one above the limit is allowed until the
    /// end, for the top-level directory that may be the package itself.
    private mutating func countMade(_ path: String) throws(DocumentPackageError) {
        madeCount += 1
        guard madeCount <= limits.maximumEntryCount + 1 else {
            throw error(.limitExceeded(.entryCount), path, "the zip has more than \(limits.maximumEntryCount) entries")
        }
    }

    /// Notes a directory `steps` steps below the zip's root; one level more
    /// than the limit is allowed until the end, as for `countMade`.
    private mutating func noteDirectory(steps: Int, path: String) throws(DocumentPackageError) {
        guard steps <= limits.maximumDepth + 1 else {
            throw error(.limitExceeded(.depth), path, "the zip's directories nest deeper than \(limits.maximumDepth) levels")
        }
        if steps > deepestDirectory.steps { deepestDirectory = (steps, path) }
    }

    /// The directory wrapper at `steps`, made when missing.
    private mutating func directory(at steps: ArraySlice<String>, entryPath: String) throws(DocumentPackageError) -> PackageWrapper {
        var current = root
        for (index, step) in steps.enumerated() {
            if let existing = current.child(named: step) {
                guard existing.kind == .directory else {
                    throw error(.unsafePath, entryPath, "the zip entry lies below \(PackageChildName.quoted(step)), which is not a directory")
                }
                current = existing
            } else {
                try countMade(entryPath)
                try noteDirectory(steps: index + 1, path: entryPath)
                let made = PackageWrapper(kind: .directory, permissions: 0o755)
                try add(made, named: step, to: current, entryPath: entryPath)
                current = made
            }
        }
        return current
    }

    private func add(_ child: PackageWrapper, named name: String, to parent: PackageWrapper, entryPath: String)
        throws(DocumentPackageError)
    {
        do {
            try parent.addChild(child, named: name)
        } catch {
            if error.code == .duplicateName, parent.child(named: name) != nil {
                throw self.error(error.code, entryPath, "the zip holds two entries named \(PackageChildName.quoted(entryPath))")
            }
            throw self.error(error.code, entryPath, error.message)
        }
    }

    mutating func add(_ record: ZipEntryRecord) throws(DocumentPackageError) {
        let path = record.path
        let steps = try steps(of: path)
        let parent = try directory(at: steps.dropLast(), entryPath: path)
        let name = steps.last!
        let wrapper: PackageWrapper
        switch record.kind {
        case .directory:
            let permissions = record.permissions ?? 0o755
            if let existing = parent.child(named: name), existing.kind == .directory {
                existing.permissions = permissions
                existing.modificationTime = record.modificationTime
                return
            }
            try noteDirectory(steps: steps.count, path: path)
            wrapper = PackageWrapper(kind: .directory, permissions: permissions)
        case .regularFile:
            let size = Int64(clamping: record.uncompressedSize)
            guard size <= limits.maximumEntrySize else {
                throw error(
                    .limitExceeded(.entrySize), path,
                    "the zip entry declares \(record.uncompressedSize) bytes, over the limit of \(limits.maximumEntrySize) per entry")
            }
            totalSize += size
            guard totalSize <= limits.maximumTotalSize else {
                throw error(.limitExceeded(.totalSize), path, "the zip's files hold more than \(limits.maximumTotalSize) bytes")
            }
            wrapper = PackageWrapper(kind: .regularFile, permissions: record.permissions ?? 0o644)
            wrapper.zipContents = ZipContents(archive: archive, record: record)
        case .symbolicLink:
            // The destination is needed now, to check it: refuse a long one before reading it.
            guard record.uncompressedSize <= UInt64(RawFileName.maximumPathLength) else {
                throw error(.unsafePath, path, "the link's destination is longer than \(RawFileName.maximumPathLength) bytes")
            }
            // Bytes, as names are: one that is not UTF-8 is carried as `RawFileName` carries it.
            let bytes = try ZipContents(archive: archive, record: record).read()
            guard !bytes.isEmpty, !bytes.contains(0) else {
                throw error(.unsafePath, path, "the link's destination is \(bytes.isEmpty ? "empty" : "not a path (it holds a NUL byte)")")
            }
            let destination = RawFileName.decoding(bytes)
            links.append((steps, destination))
            wrapper = PackageWrapper(symbolicLinkWithDestinationText: destination)
        }
        // Set-user-ID, set-group-ID and sticky bits are not taken from a zip.
        wrapper.permissions &= 0o777
        wrapper.modificationTime = record.modificationTime
        try countMade(path)
        try add(wrapper, named: name, to: parent, entryPath: path)
    }

    /// Refuses links that `PackageLinkRule` refuses (the package's root is
    /// `packageSteps` steps below the zip's).
    private func checkLinks(packageSteps: Int) throws(DocumentPackageError) {
        for (steps, destination) in links {
            if let reason = PackageLinkRule.refusal(of: destination, directoryDepth: steps.count - 1 - packageSteps) {
                throw error(.unsafePath, steps.joined(separator: "/"), reason)
            }
        }
    }

    /// The package: the single top-level directory with an extension, or
    /// the root; checked against the entry-count and depth limits as such,
    /// and its links checked.
    func package() throws(DocumentPackageError) -> PackageWrapper {
        let top = root.children
        if top.count == 1, top[0].kind == .directory, let name = top[0].fileName,
            let dot = name.lastIndex(of: "."), dot != name.startIndex, name.index(after: dot) != name.endIndex
        {
            try checkLinks(packageSteps: 1)
            let package = top[0]
            root.removeChild(named: name)
            package.preferredFileName = name
            package.fileName = nil
            return package
        }
        guard madeCount <= limits.maximumEntryCount else {
            throw error(.limitExceeded(.entryCount), "", "the zip has more than \(limits.maximumEntryCount) entries")
        }
        guard deepestDirectory.steps <= limits.maximumDepth else {
            throw error(
                .limitExceeded(.depth), deepestDirectory.path,
                "the zip's directories nest deeper than \(limits.maximumDepth) levels")
        }
        try checkLinks(packageSteps: 0)
        return root
    }
}
