import Foundation
import ZIPFoundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A document package as one zip file (for e-mail and upload), both ways,
/// with ZIPFoundation.
///
/// A package zip holds one top-level directory named after the package
/// (`Friend.ict/ctdocument.data`, …), as the Finder's "Compress" makes it.
/// Reading refuses every entry that would land outside the package:
/// absolute paths, `..` steps, backslashes, entries below a file or a link,
/// and links whose destination leaves the package.
public enum PackageZipArchive {
    /// Writes `package` (a directory wrapper) to a new zip at `zipPath`, its
    /// entries under `rootName/`. Files are deflated; permissions,
    /// modification dates (to the zip's 2 seconds) and symbolic links (as
    /// links) are kept. Files read lazily are streamed from disk, not loaded.
    /// The zip is written under a temporary name and renamed into place.
    ///
    /// - Throws: `DocumentPackageError` `.io` when the zip cannot be written,
    ///   `.changedOnDisk` when a lazily read file changed since reading.
    public static func write(_ package: PackageWrapper, to zipPath: String, rootName: String)
        throws(DocumentPackageError)
    {
        precondition(package.kind == .directory, "a package zip holds a directory")
        try PackageChildName.check(rootName, pathInPackage: "", fileSystemPath: zipPath)
        let absolutePath = PackageWrapper.absolutePath(zipPath)
        let temporaryPath = absolutePath + ".partial-\(getpid())"
        let location = EntryLocation(pathInPackage: "", fileSystemPath: absolutePath)
        do {
            let archive = try Archive(url: URL(fileURLWithPath: temporaryPath), accessMode: .create)
            try addEntry(package, path: rootName, to: archive)
        } catch let error as DocumentPackageError {
            unlink(temporaryPath)
            throw error
        } catch {
            unlink(temporaryPath)
            throw location.error(.io, "cannot write the zip: \(error)")
        }
        guard rename(temporaryPath, absolutePath) == 0 else {
            let failure = location.error("move the zip into place")
            unlink(temporaryPath)
            throw failure
        }
    }

    private static func addEntry(_ wrapper: PackageWrapper, path: String, to archive: Archive) throws {
        let date = wrapper.modificationDate ?? Date()
        switch wrapper.kind {
        case .directory:
            try archive.addEntry(with: path + "/", type: .directory, uncompressedSize: Int64(0), modificationDate: date,
                                 permissions: wrapper.permissions, provider: { (_: Int64, _: Int) in Data() })
            for child in wrapper.children {
                try addEntry(child, path: path + "/" + child.fileName!, to: archive)
            }
        case .regularFile:
            let reader = try PackageFileStream(wrapper)
            try archive.addEntry(with: path, type: .file, uncompressedSize: reader.size, modificationDate: date,
                                 permissions: wrapper.permissions, compressionMethod: .deflate,
                                 provider: { (position: Int64, count: Int) in try reader.read(at: position, count: count) })
        case .symbolicLink:
            let destination = Data(wrapper.symbolicLinkDestination!.utf8)
            try archive.addEntry(with: path, type: .symlink, uncompressedSize: Int64(destination.count),
                                 modificationDate: date, permissions: 0o755,
                                 provider: { (position: Int64, count: Int) in destination.subdata(in: Int(position)..<Int(position) + count) })
        }
    }

    /// Reads the zip at `zipPath` into a tree of wrappers in memory (the
    /// files' uncompressed bytes are held; `limits.maximumTotalSize` bounds
    /// them). When every entry lies under one top-level directory whose name
    /// has an extension (`Friend.ict/`), that directory is the package and
    /// its name is the result's `preferredFileName`; otherwise the whole zip
    /// is the package and `preferredFileName` is nil.
    ///
    /// - Throws: `DocumentPackageError` `.unsafePath` for an entry or link
    ///   that would land outside the package (naming the entry),
    ///   `.invalidName` / `.duplicateName` for names a package cannot hold,
    ///   `.limitExceeded` over a limit, `.invalidArchive` for a zip that
    ///   cannot be read or whose bytes do not match their checksums.
    public static func read(at zipPath: String, limits: DocumentPackageLimits = .default) throws(DocumentPackageError)
        -> PackageWrapper
    {
        let absolutePath = PackageWrapper.absolutePath(zipPath)
        let archive: Archive
        do {
            archive = try Archive(url: URL(fileURLWithPath: absolutePath), accessMode: .read)
        } catch {
            throw DocumentPackageError(.invalidArchive, fileSystemPath: absolutePath, "not a readable zip archive: \(error)")
        }
        var builder = PackageZipTreeBuilder(zipPath: absolutePath, limits: limits)
        for entry in archive {
            try builder.add(entry, from: archive)
        }
        try builder.checkLinks()
        return builder.package()
    }
}

/// Reads a regular file's bytes piecewise for the zip writer: from memory
/// when loaded, else from the recorded file on disk.
private final class PackageFileStream {
    let size: Int64
    private let loaded: Data?
    private let descriptor: Descriptor?

    init(_ file: PackageWrapper) throws(DocumentPackageError) {
        if file.loadedContents != nil || !file.contentsMatchDiskRecord || file.diskRecord == nil {
            let contents = try file.contents()
            loaded = contents
            descriptor = nil
            size = Int64(contents.count)
            return
        }
        let record = file.diskRecord!
        let opened = try FileSystem.openFileForReading(record.fileSystemPath, in: AT_FDCWD, at: record.location)
        guard try FileSystem.status(of: opened, at: record.location).sameContents(as: record.identity) else {
            throw record.location.error(.changedOnDisk, "the file changed on disk after the package was read")
        }
        loaded = nil
        descriptor = opened
        size = record.identity.size
    }

    func read(at position: Int64, count: Int) throws -> Data {
        if let loaded { return loaded.subdata(in: Int(position)..<Int(position) + count) }
        var data = Data(count: count)
        let got = data.withUnsafeMutableBytes { pread(descriptor!.rawValue, $0.baseAddress, count, off_t(position)) }
        guard got == count else {
            throw DocumentPackageError(.changedOnDisk, "a file became shorter while it was zipped")
        }
        return data
    }
}

/// Builds the wrapper tree of a zip's entries, checking each path.
private struct PackageZipTreeBuilder {
    let zipPath: String
    let limits: DocumentPackageLimits
    let root: PackageWrapper
    private var entryCount = 0
    private var totalSize: Int64 = 0
    private var links: [(path: [String], destination: String)] = []

    init(zipPath: String, limits: DocumentPackageLimits) {
        self.zipPath = zipPath
        self.limits = limits
        root = PackageWrapper(kind: .directory, permissions: 0o755)
    }

    private func error(_ kind: DocumentPackageError.Kind, _ path: String, _ message: String) -> DocumentPackageError {
        DocumentPackageError(kind, pathInPackage: path, fileSystemPath: zipPath, message)
    }

    /// The entry's path as checked steps: no absolute path, drive letter,
    /// backslash, `..`, or name a package cannot hold.
    private func steps(of path: String) throws(DocumentPackageError) -> [String] {
        if path.hasPrefix("/") { throw error(.unsafePath, path, "the zip entry has an absolute path") }
        if path.contains("\\") { throw error(.unsafePath, path, "the zip entry's path holds a backslash") }
        if path.count >= 2, path.dropFirst().first == ":" {
            throw error(.unsafePath, path, "the zip entry's path starts with a drive letter")
        }
        var steps: [String] = []
        for step in path.split(separator: "/", omittingEmptySubsequences: true) where step != "." {
            if step == ".." { throw error(.unsafePath, path, "the zip entry's path leaves the package with \"..\"") }
            try PackageChildName.check(String(step), pathInPackage: path, fileSystemPath: zipPath)
            steps.append(String(step))
        }
        if steps.isEmpty { throw error(.unsafePath, path, "the zip entry has an empty path") }
        return steps
    }

    /// The directory wrapper at `steps`, made when missing.
    private func directory(at steps: ArraySlice<String>, entryPath: String) throws(DocumentPackageError) -> PackageWrapper {
        var current = root
        for step in steps {
            if let existing = current.child(named: step) {
                guard existing.kind == .directory else {
                    throw error(.unsafePath, entryPath, "the zip entry lies below \(PackageChildName.quoted(step)), which is not a directory")
                }
                current = existing
            } else {
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
            throw self.error(error.kind, entryPath, error.message)
        }
    }

    mutating func add(_ entry: Entry, from archive: Archive) throws(DocumentPackageError) {
        let path = entry.path
        let steps = try steps(of: path)
        entryCount += 1
        guard entryCount <= limits.maximumEntryCount else {
            throw error(.limitExceeded(.entryCount), path, "the zip has more than \(limits.maximumEntryCount) entries")
        }
        guard steps.count <= limits.maximumDepth + 1 else {
            throw error(.limitExceeded(.depth), path, "the zip's directories nest deeper than \(limits.maximumDepth) levels")
        }
        let attributes = entry.fileAttributes
        // Set-user-ID, set-group-ID and sticky bits are not taken from a zip.
        let permissions = ((attributes[.posixPermissions] as? NSNumber)?.uint16Value ?? 0o644) & 0o777
        let parent = try directory(at: steps.dropLast(), entryPath: path)
        let name = steps.last!
        let wrapper: PackageWrapper
        switch entry.type {
        case .directory:
            if let existing = parent.child(named: name), existing.kind == .directory {
                existing.permissions = permissions
                existing.modificationDate = attributes[.modificationDate] as? Date
                return
            }
            wrapper = PackageWrapper(kind: .directory, permissions: permissions)
        case .file:
            let size = Int64(clamping: entry.uncompressedSize)
            totalSize += size
            guard totalSize <= limits.maximumTotalSize else {
                throw error(.limitExceeded(.totalSize), path, "the zip's files hold more than \(limits.maximumTotalSize) bytes")
            }
            wrapper = PackageWrapper(regularFileWithContents: try contents(of: entry, declaredSize: size, from: archive),
                                     permissions: permissions)
        case .symlink:
            let bytes = try contents(of: entry, declaredSize: Int64(PATH_MAX), from: archive)
            guard let destination = String(data: bytes, encoding: .utf8), !destination.isEmpty,
                  !destination.utf8.contains(0)
            else { throw error(.unsafePath, path, "the link's destination is not a UTF-8 path") }
            links.append((steps, destination))
            wrapper = PackageWrapper(symbolicLinkWithDestination: destination)
        }
        wrapper.modificationDate = attributes[.modificationDate] as? Date
        try add(wrapper, named: name, to: parent, entryPath: path)
    }

    /// The entry's uncompressed bytes, refusing more than it declares.
    private func contents(of entry: Entry, declaredSize: Int64, from archive: Archive) throws(DocumentPackageError) -> Data {
        var data = Data()
        do {
            _ = try archive.extract(entry) { chunk in
                guard Int64(data.count) + Int64(chunk.count) <= declaredSize else {
                    throw DocumentPackageError(.invalidArchive, "the entry holds more bytes than it declares")
                }
                data.append(chunk)
            }
        } catch let failure as DocumentPackageError {
            throw error(failure.kind, entry.path, failure.message)
        } catch {
            throw self.error(.invalidArchive, entry.path, "cannot extract the entry: \(error)")
        }
        return data
    }

    /// Refuses links whose destination is absolute or, resolved from the
    /// link's directory, leaves the package. `..` is accepted only before the
    /// first name (`../Shared/x`, not `a/../..`): a name may itself be a link,
    /// and `l/..` then climbs from wherever `l` points. With that rule each
    /// link that stays inside keeps every chain of links inside.
    func checkLinks() throws(DocumentPackageError) {
        for (steps, destination) in links {
            let path = steps.joined(separator: "/")
            if destination.hasPrefix("/") {
                throw error(.unsafePath, path, "the link points to an absolute path, outside the package")
            }
            var depth = steps.count - 1
            var sawName = false
            for step in destination.split(separator: "/", omittingEmptySubsequences: true) where step != "." {
                if step != ".." {
                    sawName = true
                    continue
                }
                guard !sawName else {
                    throw error(.unsafePath, path, "the link's destination climbs with \"..\" after a name (\(destination))")
                }
                guard depth > 0 else {
                    throw error(.unsafePath, path, "the link points outside the package (\(destination))")
                }
                depth -= 1
            }
        }
    }

    /// The package: the single top-level directory with an extension, or the root.
    func package() -> PackageWrapper {
        let top = root.children
        if top.count == 1, top[0].kind == .directory, let name = top[0].fileName,
           let dot = name.lastIndex(of: "."), dot != name.startIndex, name.index(after: dot) != name.endIndex
        {
            let package = top[0]
            root.removeChild(named: name)
            package.preferredFileName = name
            package.fileName = nil
            return package
        }
        return root
    }
}
