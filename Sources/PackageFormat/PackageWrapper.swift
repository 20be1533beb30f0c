import SystemPackage
import SystemSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where a package was read from or last saved to; the entries read from it
/// refer to it for their bytes.
final class PackageOrigin: Sendable {
    /// The package's absolute path.
    let path: String
    /// The package's path as the caller named it, for errors.
    let shownPath: String
    /// The root directory's device and inode, to recognise the same package.
    let device: UInt64
    let inode: UInt64

    init(path: String, shownPath: String, identity: FileIdentity) {
        self.path = path
        self.shownPath = shownPath
        device = identity.device
        inode = identity.inode
    }
}

/// An entry as it was on disk when read or last saved.
struct DiskRecord {
    let origin: PackageOrigin
    /// The entry's path inside the package, empty for the root.
    let pathInPackage: String
    let identity: FileIdentity

    var fileSystemPath: String { pathInPackage.isEmpty ? origin.path : origin.path + "/" + pathInPackage }
    /// Where errors about the entry say it is: below the path the caller named.
    var location: EntryLocation {
        EntryLocation(pathInPackage: pathInPackage, fileSystemPath: pathInPackage.isEmpty ? origin.shownPath : origin.shownPath + "/" + pathInPackage)
    }
}

/// A file wrapper: one item of a document package — a directory of named
/// children, a regular file, or a symbolic link — with its name, POSIX
/// permissions and modification date.
///
/// A wrapper read from disk remembers where it came from: a regular file read
/// lazily loads its bytes on first access, `hasChangedOnDisk()` compares the
/// item with what was read, and saving hard-links or clones entries whose
/// bytes were not changed instead of copying them.
public final class PackageWrapper {
    /// The three kinds of wrapper.
    public enum Kind: Hashable, Sendable {
        /// A directory of named children.
        case directory
        /// A regular file's bytes.
        case regularFile
        /// A symbolic link: its destination only, never what it points to.
        case symbolicLink
    }

    /// The kind of item, fixed when the wrapper is made.
    public let kind: Kind
    /// The name under which the wrapper is a child of its directory (or was
    /// read from disk); nil for a new wrapper not yet added. Names are bytes:
    /// a byte of a name on disk (or in a zip) that is not part of valid UTF-8
    /// is carried as the private-use scalar U+10FF00 + byte (U+10FF80…U+10FFFF)
    /// and written back as that byte, so such a file is read, saved and zipped
    /// under its own name.
    public internal(set) var fileName: String?
    /// The name to use when the wrapper is added without one.
    public var preferredFileName: String?
    /// The POSIX permission bits (`0o644`, say; setuid, setgid and sticky
    /// included). Ignored for symbolic links on Linux.
    public var permissions: UInt16
    /// The modification time to the nanosecond; nil means "when written".
    var modificationTime: FileTimestamp?

    /// A directory's children, keyed by `PackageChildName.foldingKey`.
    var childrenByFoldedName: [String: PackageWrapper] = [:]
    /// A regular file's bytes, once read or set.
    var loadedContents: Data?
    /// A regular file read from a zip: where its bytes are, until loaded or saved.
    var zipContents: ZipContents?
    /// A symbolic link's destination.
    let destination: String?
    /// The item on disk this wrapper was read from or last saved to.
    var diskRecord: DiskRecord?
    /// True while a regular file's bytes are those of `diskRecord`'s file.
    var contentsMatchDiskRecord = false
    /// True while a directory's children are, by name, those it was read
    /// with (or last saved with): no child added, replaced, renamed or removed.
    var childrenMatchDiskRecord = false

    init(kind: Kind, permissions: UInt16, destination: String? = nil) {
        self.kind = kind
        self.permissions = permissions
        self.destination = destination
    }

    /// Makes a regular-file wrapper holding `contents`.
    public convenience init(regularFileWithContents contents: Data, permissions: UInt16 = 0o644) {
        self.init(kind: .regularFile, permissions: permissions)
        loadedContents = contents
    }

    /// Makes a symbolic-link wrapper. The destination is stored byte for
    /// byte as given (a destination that is not UTF-8 included) and written
    /// only as a link, never resolved.
    public convenience init(symbolicLinkWithDestination destination: FilePath) {
        self.init(kind: .symbolicLink, permissions: 0o755, destination: RawFileName.text(destination))
    }

    /// Makes a symbolic-link wrapper from a destination as text, a byte that
    /// is not UTF-8 carried as `RawFileName` carries it.
    package convenience init(symbolicLinkWithDestinationText destination: String) {
        self.init(kind: .symbolicLink, permissions: 0o755, destination: destination)
    }

    /// Makes a directory wrapper with the given children.
    ///
    /// - Throws: `DocumentPackageError` `.invalidName` or `.duplicateName`
    ///   when a name is refused, as `addChild(_:named:)`.
    public convenience init(directoryWithChildren children: [String: PackageWrapper] = [:], permissions: UInt16 = 0o755)
        throws(DocumentPackageError)
    {
        self.init(kind: .directory, permissions: permissions)
        for name in children.keys.sorted() {
            try addChild(children[name]!, named: name)
        }
    }

    /// The modification date; nil for a new wrapper, meaning the time it is
    /// written. Kept to the nanosecond for entries read from disk, and equal
    /// to the date `FileManager` gives for the same file.
    public var modificationDate: Date? {
        get {
            // Foundation's conversion of a `timespec`, so the two dates compare equal.
            modificationTime.map {
                Date(
                    timeIntervalSinceReferenceDate: Double($0.seconds) - Date.timeIntervalBetween1970AndReferenceDate
                        + Double($0.nanoseconds) / 1_000_000_000)
            }
        }
        set {
            modificationTime = newValue.map { date in
                let interval = date.timeIntervalSince1970
                let seconds = interval.rounded(.down)
                return FileTimestamp(
                    seconds: Int64(seconds),
                    nanoseconds: min(Int64(((interval - seconds) * 1_000_000_000).rounded()), 999_999_999))
            }
        }
    }

    /// A symbolic link's destination, byte for byte as stored in the link;
    /// nil for the other kinds.
    public var symbolicLinkDestination: FilePath? { destination.map(RawFileName.filePath) }

    /// A symbolic link's destination as text (a byte that is not UTF-8
    /// carried as `RawFileName` carries it); nil for the other kinds.
    package var symbolicLinkDestinationText: String? { destination }

    /// A regular file's size in bytes, known without reading it; nil for
    /// directories and links.
    public var fileSize: Int64? {
        guard kind == .regularFile else { return nil }
        if let loadedContents { return Int64(loadedContents.count) }
        if let zipContents { return Int64(zipContents.record.uncompressedSize) }
        return diskRecord?.identity.size
    }

    // MARK: Regular-file contents

    /// A regular file's bytes. A wrapper read lazily reads its file on the
    /// first call (one `read` of the file's size, or the entry inflated from
    /// its zip) and keeps the bytes.
    ///
    /// - Throws: `DocumentPackageError` `.wrongKind` for a directory or a
    ///   symbolic link (a link's destination is never read through),
    ///   `.changedOnDisk` when the file was replaced or modified since the
    ///   package was read, `.io` when it cannot be read, `.invalidArchive`
    ///   when its zip entry's bytes disagree with the central directory.
    public func contents() throws(DocumentPackageError) -> Data {
        try requireRegularFile()
        if let loadedContents { return loadedContents }
        if let zipContents {
            let data = try zipContents.read()
            loadedContents = data
            return data
        }
        guard let record = diskRecord else { return Data() }
        let data = try Self.readFile(record, maximumCount: nil)
        loadedContents = data
        return data
    }

    /// Up to `maximumCount` bytes from the start of a regular file, reading
    /// no more than that from disk and keeping nothing; for recognising a
    /// file by its first bytes.
    ///
    /// - Throws: as `contents()`.
    public func contentsPrefix(maximumCount: Int) throws(DocumentPackageError) -> Data {
        try requireRegularFile()
        if let loadedContents { return loadedContents.prefix(maximumCount) }
        // A zip entry is inflated whole (at most `maximumEntrySize`) to check its checksum.
        if let zipContents { return try zipContents.read().prefix(maximumCount) }
        guard let record = diskRecord else { return Data() }
        return try Self.readFile(record, maximumCount: maximumCount)
    }

    /// Throws `.wrongKind` unless this is a directory (a wrapper read from
    /// disk has the kind the disk gave it).
    private func requireDirectory() throws(DocumentPackageError) {
        guard kind != .directory else { return }
        throw DocumentPackageError(
            .wrongKind, pathInPackage: diskRecord?.pathInPackage ?? "", fileSystemPathText: diskRecord?.fileSystemPath ?? "",
            "\(kind == .regularFile ? "a regular file" : "a symbolic link"), not a folder; it has no children")
    }

    /// Throws `.wrongKind` unless this is a regular file: the kind comes
    /// from the disk, where a link or a folder can stand in any entry's place.
    private func requireRegularFile() throws(DocumentPackageError) {
        guard kind != .regularFile else { return }
        let what =
            kind == .directory
            ? "a folder" : "a symbolic link (to \(PackageChildName.quoted(destination ?? "")))"
        throw DocumentPackageError(
            .wrongKind, pathInPackage: diskRecord?.pathInPackage ?? "", fileSystemPathText: diskRecord?.fileSystemPath ?? "",
            "\(what), not a regular file; its bytes are not read through it")
    }

    /// Replaces a regular file's bytes; the next save writes them, with the
    /// time of that save as their modification date (unless one is set
    /// after this call): a sync engine, which takes a file of the same size
    /// and time as unchanged, then sees the change. Only for a regular file
    /// (a precondition): a wrapper read from disk has the kind the disk gave
    /// it, so check `kind` first, or put a new file in its place with
    /// `replaceChild(named:with:)`.
    public func setContents(_ contents: Data) {
        precondition(kind == .regularFile, "setContents(_:) of a \(kind) wrapper")
        loadedContents = contents
        zipContents = nil
        contentsMatchDiskRecord = false
        modificationTime = nil
    }

    /// Reads a file recorded on disk after checking it is the very file that
    /// was read: same inode, size and modification time.
    private static func readFile(_ record: DiskRecord, maximumCount: Int?) throws(DocumentPackageError) -> Data {
        let location = record.location
        let descriptor = try FileSystem.openFileForReading(record.fileSystemPath, at: location)
        let now = try FileSystem.status(of: descriptor, at: location)
        guard now.fileType == FileIdentity.regularFileType, now.sameContents(as: record.identity) else {
            throw location.error(.changedOnDisk, "the file changed on disk after the package was read")
        }
        let size = Int(clamping: now.size)
        return try FileSystem.readBytes(of: descriptor, count: min(size, maximumCount ?? size), at: location)
    }

    // MARK: Children

    /// A directory's children, sorted by name; none for a file or a link.
    public var children: [PackageWrapper] {
        guard kind == .directory else { return [] }
        return childrenByFoldedName.values.sorted { $0.fileName!.utf8.lexicographicallyPrecedes($1.fileName!.utf8) }
    }

    /// The child with exactly this name, or nil (always nil for a file or a link).
    public func child(named name: String) -> PackageWrapper? {
        guard kind == .directory, let child = childrenByFoldedName[PackageChildName.foldingKey(name)], child.fileName == name else {
            return nil
        }
        return child
    }

    /// The entry at a path inside this directory, `Contents/Resources/x.nib`;
    /// nil when a step is missing or not a directory.
    package func descendant(atPath path: String) -> PackageWrapper? {
        var current = self
        for step in PathName.components(path) {
            guard current.kind == .directory, let next = current.child(named: String(step)) else { return nil }
            current = next
        }
        return current
    }

    /// Adds `child` under `name` (default: its preferred name, else its file
    /// name), and returns the name used.
    ///
    /// - Throws: `DocumentPackageError` `.invalidName` when the name is
    ///   empty, `.`, `..`, holds `/` or NUL, or is over 255 bytes of UTF-8;
    ///   `.duplicateName` when a child's name already equals it ignoring case;
    ///   `.wrongKind` when this wrapper is not a directory.
    @discardableResult
    public func addChild(_ child: PackageWrapper, named name: String? = nil) throws(DocumentPackageError) -> String {
        try requireDirectory()
        guard let name = name ?? child.preferredFileName ?? child.fileName else {
            throw DocumentPackageError(.invalidName, "a child needs a name: none given, preferred or set")
        }
        try PackageChildName.check(name, pathInPackage: name)
        let key = PackageChildName.foldingKey(name)
        if let existing = childrenByFoldedName[key] {
            throw Self.duplicate(name, existing: existing)
        }
        child.fileName = name
        childrenByFoldedName[key] = child
        childrenMatchDiskRecord = false
        return name
    }

    /// `.duplicateName` for `name` when `existing` has it already, or a name
    /// that differs from it only by case.
    private static func duplicate(_ name: String, existing: PackageWrapper) -> DocumentPackageError {
        let existingName = existing.fileName ?? ""
        let message =
            existingName == name
            ? "\(PackageChildName.quoted(name)) is already a child of this directory"
            : "\(PackageChildName.quoted(name)) differs only by case from the existing child \(PackageChildName.quoted(existingName))"
        return DocumentPackageError(.duplicateName, pathInPackage: name, message)
    }

    /// Puts `child` under `name`, replacing the child of that name (or of a
    /// name that differs only by case), and returns the replaced child.
    ///
    /// - Throws: `DocumentPackageError` `.invalidName` or `.wrongKind`, as `addChild(_:named:)`.
    @discardableResult
    public func replaceChild(named name: String, with child: PackageWrapper) throws(DocumentPackageError)
        -> PackageWrapper?
    {
        try requireDirectory()
        try PackageChildName.check(name, pathInPackage: name)
        let key = PackageChildName.foldingKey(name)
        let replaced = childrenByFoldedName.removeValue(forKey: key)
        child.fileName = name
        childrenByFoldedName[key] = child
        childrenMatchDiskRecord = false
        return replaced
    }

    /// Gives the child named `oldName` the name `newName` (which may differ
    /// from the old one only by case).
    ///
    /// - Throws: `DocumentPackageError` `.notFound` when there is no such
    ///   child, `.invalidName`, `.duplicateName` or `.wrongKind` as `addChild(_:named:)`.
    public func renameChild(named oldName: String, to newName: String) throws(DocumentPackageError) {
        try requireDirectory()
        guard let child = child(named: oldName) else {
            throw DocumentPackageError(.notFound, pathInPackage: oldName, "no child named \(PackageChildName.quoted(oldName))")
        }
        try PackageChildName.check(newName, pathInPackage: newName)
        let oldKey = PackageChildName.foldingKey(oldName)
        let newKey = PackageChildName.foldingKey(newName)
        if newKey != oldKey, let existing = childrenByFoldedName[newKey] {
            throw Self.duplicate(newName, existing: existing)
        }
        childrenByFoldedName.removeValue(forKey: oldKey)
        child.fileName = newName
        childrenByFoldedName[newKey] = child
        childrenMatchDiskRecord = false
    }

    /// Removes and returns the child with exactly this name, or nil when
    /// there is none.
    @discardableResult
    public func removeChild(named name: String) -> PackageWrapper? {
        guard child(named: name) != nil else { return nil }
        childrenMatchDiskRecord = false
        return childrenByFoldedName.removeValue(forKey: PackageChildName.foldingKey(name))
    }

    // MARK: Disk state

    /// Whether the item on disk differs from what this wrapper was read from
    /// (or last saved to): its inode, size, modification time, type or
    /// permissions changed, it is gone, or — for a directory — any entry
    /// below it changed or was added or removed. True for a wrapper that was
    /// never read or saved. Costs one `lstat` per entry and no reads.
    public func hasChangedOnDisk() -> Bool {
        diskChanged(countingUnread: true)
    }

    /// Where another program changed the items this wrapper was read from
    /// since (as `hasChangedOnDisk()`, without counting children added in
    /// memory, which have nothing on disk to compare): the first such item,
    /// or nil. Costs one `lstat` per item read.
    func firstChangeOnDiskSinceRead() -> EntryLocation? {
        guard let record = diskRecord else { return nil }
        if kind == .directory {
            // Children first: a file replaced by a rename changes its folder too, and the file is the news.
            for child in childrenByFoldedName.values {
                if let changed = child.firstChangeOnDiskSinceRead() { return changed }
            }
        }
        return diskChanged(countingUnread: false, recursing: false) ? record.location : nil
    }

    private func diskChanged(countingUnread: Bool, recursing: Bool = true) -> Bool {
        guard let record = diskRecord else { return countingUnread }
        let now: FileIdentity?
        do {
            now = try FileSystem.linkStatus(record.fileSystemPath, at: record.location)
        } catch {
            return true
        }
        guard let now, now.sameContents(as: record.identity), now.mode == record.identity.mode else { return true }
        guard kind == .directory, recursing else { return false }
        return childrenByFoldedName.values.contains { $0.diskChanged(countingUnread: countingUnread) }
    }
}
