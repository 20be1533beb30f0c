import OrderedCollections
import PropertyList
import SystemPackage
import SystemSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a package was when ICTKit saved it: a generation and each entry's
/// kind, size, modification time and SHA-256 digest, kept inside the package
/// as the hidden entry `.ictkit-manifest.plist` (a binary property list).
///
/// A sync engine that carries a package file by file (Syncthing, Nextcloud,
/// Dropbox) can leave a package mixing entries of two saves, missing some,
/// or holding per-entry conflict copies. The manifest lets a reader tell: a
/// package is whole when every entry is the one its manifest lists
/// (`PackageConsistency` in ConflictVersions reads it so). Every
/// `PackageWrapper.save(to:options:)` writes one; `PackageWrapper(readingFrom:)`
/// and a zip of the package leave it out, so it never shows as an entry and
/// Apple's readers, which list a package's entries by name, never meet it
/// (a name starting with a dot is hidden, and a document's own entries are
/// asked for by name). The format is in `docs/ict-format.md`, section 10.
public struct PackageManifest: Hashable, Sendable {
    /// The manifest's name at the package's root.
    public static let fileName = ".ictkit-manifest.plist"
    /// The largest manifest read, in bytes: 16 MiB holds over 60,000 entries
    /// of long names. A larger one is refused (`.limitExceeded(.entrySize)`)
    /// before it is read.
    public static let maximumFileSize = 16 << 20
    /// The format number written, and the only one read.
    public static let formatVersion = 1

    /// One save of the package: a random identifier made by that save and a
    /// counter one past the manifest it replaced. Two devices saving the same
    /// package while apart make two generations with one counter and two identifiers.
    public struct Generation: Hashable, Sendable, CustomStringConvertible {
        /// 16 random bytes.
        public var identifier: [UInt8]
        /// One past the counter of the manifest the save replaced; 1 for the first.
        public var counter: Int64

        /// Makes a generation.
        public init(identifier: [UInt8], counter: Int64) {
            self.identifier = identifier
            self.counter = counter
        }

        /// `7:1f0c…` — the counter and the identifier's first 4 bytes in hex.
        public var description: String {
            "\(counter):" + identifier.prefix(4).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        }
    }

    /// The kinds of entry.
    public enum EntryKind: String, Hashable, Sendable {
        /// A regular file, with its size and digest.
        case file
        /// A folder; its entries are listed on their own.
        case folder
        /// A symbolic link, with its destination.
        case link
        /// A device, FIFO or socket: never in a manifest, only found on disk
        /// (`PackageManifest.entryOnDisk`), where it matches no listed entry.
        case special
    }

    /// One entry as saved.
    public struct Entry: Hashable, Sendable {
        /// What the entry is.
        public var kind: EntryKind
        /// A file's size in bytes; 0 for the other kinds.
        public var size: Int64
        /// The modification time, seconds since 1970 and nanoseconds.
        public var modificationSeconds: Int64
        /// The nanoseconds of the modification time.
        public var modificationNanoseconds: Int64
        /// A file's SHA-256 digest (32 bytes); nil for the other kinds, and
        /// for a file found on disk whose bytes were not read.
        public var digest: [UInt8]?
        /// A link's destination as text, a byte that is not UTF-8 carried
        /// as `RawFileName` carries it; nil for the other kinds.
        package var destinationText: String?

        /// A link's destination, byte for byte; nil for the other kinds.
        public var destination: FilePath? {
            get { destinationText.map(RawFileName.filePath) }
            set { destinationText = newValue.map(RawFileName.text) }
        }

        /// Makes an entry.
        public init(
            kind: EntryKind, size: Int64 = 0, modificationSeconds: Int64 = 0, modificationNanoseconds: Int64 = 0,
            digest: [UInt8]? = nil, destination: FilePath? = nil
        ) {
            self.kind = kind
            self.size = size
            self.modificationSeconds = modificationSeconds
            self.modificationNanoseconds = modificationNanoseconds
            self.digest = digest
            self.destinationText = destination.map(RawFileName.text)
        }

        /// Whether the two are the same content: kind, and a file's size and
        /// digest or a link's destination. Times are not compared.
        public func sameContent(as other: Entry) -> Bool {
            guard kind == other.kind else { return false }
            switch kind {
            case .file: return size == other.size && digest != nil && digest == other.digest
            case .link: return destinationText == other.destinationText
            case .folder: return true
            case .special: return false
            }
        }

        /// Whether the two agree in kind, size and modification time to the
        /// nanosecond: what a sync engine's scanner takes as "unchanged", and
        /// what lets a reader skip reading a file's bytes.
        public func sameStatus(as other: Entry) -> Bool {
            kind == other.kind && size == other.size && modificationSeconds == other.modificationSeconds
                && modificationNanoseconds == other.modificationNanoseconds
        }
    }

    /// The save that wrote the manifest.
    public var generation: Generation
    /// The name of the computer that saved it (its host name).
    public var savingComputer: String
    /// When it was saved, by the saving computer's clock.
    public var savedDate: Date
    /// Every entry below the root, keyed by its path inside the package
    /// (`Contents/x.png`), the manifest itself left out.
    public var entries: [String: Entry]

    /// Makes a manifest.
    public init(generation: Generation, savingComputer: String, savedDate: Date, entries: [String: Entry]) {
        self.generation = generation
        self.savingComputer = savingComputer
        self.savedDate = savedDate
        self.entries = entries
    }

    // MARK: Reading

    /// The manifest of the package at `packagePath`, or nil when it has none.
    ///
    /// - Throws: `DocumentPackageError` naming the manifest's entry:
    ///   `.invalidManifest` (what is wrong and at which key) when it is not
    ///   one, `.limitExceeded(.entrySize)` when it is over `maximumFileSize`,
    ///   `.limitExceeded(.entryCount)` when it lists more entries than
    ///   `limits` allow, `.wrongKind` when it is not a regular file (a link,
    ///   folder or FIFO is never followed or read), `.io` when it cannot be
    ///   read. Costs one read of the manifest.
    package static func read(fromPackageAt packagePath: String, limits: DocumentPackageLimits = .default)
        throws(DocumentPackageError) -> PackageManifest?
    {
        try read(fileAt: packagePath + "/" + fileName, pathInPackage: fileName, limits: limits)
    }

    /// The manifest in the file `pathInPackage` of the package at
    /// `packagePath` — the manifest, or a conflict copy of it.
    ///
    /// - Throws: as `read(fromPackageAt:limits:)`.
    package static func read(
        fromPackageAt packagePath: String, pathInPackage: String, limits: DocumentPackageLimits = .default
    ) throws(DocumentPackageError) -> PackageManifest? {
        try read(fileAt: packagePath + "/" + pathInPackage, pathInPackage: pathInPackage, limits: limits)
    }

    private static func read(fileAt path: String, pathInPackage: String, limits: DocumentPackageLimits)
        throws(DocumentPackageError) -> PackageManifest?
    {
        let location = EntryLocation(pathInPackage: pathInPackage, fileSystemPath: path)
        guard let listed = try FileSystem.linkStatus(path, at: location) else { return nil }
        guard listed.fileType == FileIdentity.regularFileType else {
            throw location.error(.wrongKind, "the manifest is not a regular file; it is not read")
        }
        // Opened without following a link and without waiting (a FIFO put there since is refused by its status).
        let descriptor = try FileSystem.openFileForReading(path, at: location)
        let status = try FileSystem.status(of: descriptor, at: location)
        guard status.fileType == FileIdentity.regularFileType else {
            throw location.error(.wrongKind, "the manifest is not a regular file; it is not read")
        }
        guard status.size <= maximumFileSize else {
            throw location.error(
                .limitExceeded(.entrySize), "the manifest holds \(status.size) bytes, over the \(maximumFileSize) a manifest may")
        }
        let data = try FileSystem.readBytes(of: descriptor, count: Int(status.size), at: location)
        return try PackageManifest(decoding: data, location: location, limits: limits)
    }

    /// Decodes a manifest's bytes.
    ///
    /// - Throws: `DocumentPackageError` `.invalidManifest` naming the key
    ///   that is wrong, `.limitExceeded(.entryCount)` as `read(fromPackageAt:limits:)`.
    public init(decoding data: Data, limits: DocumentPackageLimits = .default) throws(DocumentPackageError) {
        try self.init(decoding: data, location: EntryLocation(pathInPackage: Self.fileName, fileSystemPath: Self.fileName), limits: limits)
    }

    init(decoding data: Data, location: EntryLocation, limits: DocumentPackageLimits) throws(DocumentPackageError) {
        func invalid(_ message: String) -> DocumentPackageError { location.error(.invalidManifest, message) }
        var propertyListLimits = PropertyListLimits.default
        // Each entry is a dictionary of at most 7 objects, its key and value.
        propertyListLimits.maximumObjectCount = min(propertyListLimits.maximumObjectCount, 16 * limits.maximumEntryCount + 64)
        let value: PropertyListValue
        do throws(PropertyListError) {
            value = try BinaryPropertyListReader(limits: propertyListLimits, maximumThreadCount: 1).read(data)
        } catch {
            throw invalid("not a binary property list: \(error)")
        }
        guard let root = value.dictionaryValue else { throw invalid("the top is \(value.kindNameWithArticle), not a dictionary") }
        func integer(_ value: PropertyListValue?, _ key: String) throws(DocumentPackageError) -> Int64 {
            guard case .integer(let number)? = value, let result = number.int64Value else {
                throw invalid("\(key): \(value.map { $0.kindNameWithArticle } ?? "missing"), not an integer")
            }
            return result
        }
        guard try integer(root["Format"], "Format") == Int64(Self.formatVersion) else {
            throw invalid("Format: \(root["Format"].map { "\($0)" } ?? "missing"), not \(Self.formatVersion); this reader knows only that")
        }
        guard case .data(let identifier)? = root["Generation"], identifier.count == 16 else {
            throw invalid("Generation: not 16 bytes of data")
        }
        let counter = try integer(root["Counter"], "Counter")
        guard case .string(let computer)? = root["SavingComputer"] else { throw invalid("SavingComputer: not a string") }
        guard case .date(let saved)? = root["Saved"] else { throw invalid("Saved: not a date") }
        guard let listed = root["Entries"]?.dictionaryValue else { throw invalid("Entries: not a dictionary") }
        guard listed.count <= limits.maximumEntryCount else {
            throw location.error(
                .limitExceeded(.entryCount), "the manifest lists \(listed.count) entries, over the \(limits.maximumEntryCount) a package may hold")
        }
        var entries: [String: Entry] = [:]
        entries.reserveCapacity(listed.count)
        for (path, value) in listed {
            let keyPath = "Entries/\(path)"
            guard Self.isEntryPath(path) else { throw invalid("\(keyPath): not a path inside the package") }
            guard let fields = value.dictionaryValue else { throw invalid("\(keyPath): not a dictionary") }
            guard case .string(let kindName)? = fields["Kind"], let kind = EntryKind(rawValue: kindName), kind != .special else {
                throw invalid("\(keyPath)/Kind: not file, folder or link")
            }
            var entry = Entry(kind: kind)
            entry.modificationSeconds = try integer(fields["ModifiedSeconds"], keyPath + "/ModifiedSeconds")
            entry.modificationNanoseconds = try integer(fields["ModifiedNanoseconds"], keyPath + "/ModifiedNanoseconds")
            switch kind {
            case .file:
                entry.size = try integer(fields["Size"], keyPath + "/Size")
                guard entry.size >= 0 else { throw invalid("\(keyPath)/Size: negative") }
                guard case .data(let digest)? = fields["SHA256"], digest.count == 32 else {
                    throw invalid("\(keyPath)/SHA256: not 32 bytes of data")
                }
                entry.digest = Array(digest)
            case .link:
                guard case .string(let destination)? = fields["Destination"] else { throw invalid("\(keyPath)/Destination: not a string") }
                entry.destinationText = destination
            case .folder, .special: break
            }
            entries[path] = entry
        }
        self.init(
            generation: Generation(identifier: Array(identifier), counter: counter), savingComputer: computer, savedDate: saved,
            entries: entries)
    }

    /// Whether `path` can name an entry: steps that are names (not empty, `.`, `..`), no NUL.
    private static func isEntryPath(_ path: String) -> Bool {
        !path.isEmpty && !path.utf8.contains(0)
            && PathName.components(path, keepingEmpty: true).allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." }
    }

    // MARK: Writing

    /// The manifest as a binary property list.
    public func encoded() -> Data {
        var listed = OrderedDictionary<String, PropertyListValue>()
        for path in entries.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            let entry = entries[path]!
            var fields: OrderedDictionary<String, PropertyListValue> = [
                "Kind": .string(entry.kind.rawValue),
                "ModifiedSeconds": .integer(PropertyListInteger(entry.modificationSeconds)),
                "ModifiedNanoseconds": .integer(PropertyListInteger(entry.modificationNanoseconds)),
            ]
            if entry.kind == .file {
                fields["Size"] = .integer(PropertyListInteger(entry.size))
                fields["SHA256"] = .data(Data(entry.digest ?? []))
            }
            if let destination = entry.destinationText { fields["Destination"] = .string(destination) }
            listed[path] = .dictionary(fields)
        }
        let root: OrderedDictionary<String, PropertyListValue> = [
            "Format": .integer(PropertyListInteger(Self.formatVersion)),
            "Generation": .data(Data(generation.identifier)),
            "Counter": .integer(PropertyListInteger(generation.counter)),
            "SavingComputer": .string(savingComputer),
            "Saved": .date(savedDate),
            "Entries": .dictionary(listed),
        ]
        // Depth 4 (root, Entries, an entry, its fields) is far inside the writer's limit: it cannot fail.
        return (try? BinaryPropertyListWriter().encodedData(.dictionary(root))) ?? Data()
    }

    // MARK: Entries on disk

    /// The entry at `path` on disk as a manifest would list it, or nil when
    /// nothing is there. A file's digest is computed only `digesting` (one
    /// read of the file, a piece at a time); a symbolic link is read as a
    /// link, never followed; a device, FIFO or socket is `.special` and
    /// never opened for reading.
    ///
    /// - Throws: `DocumentPackageError` `.io` naming `pathInPackage` when it
    ///   cannot be read, `.changedOnDisk` when it changes while read.
    package static func entryOnDisk(_ path: String, pathInPackage: String, digesting: Bool) throws(DocumentPackageError) -> Entry? {
        let location = EntryLocation(pathInPackage: pathInPackage, fileSystemPath: path)
        guard let identity = try FileSystem.linkStatus(path, at: location) else { return nil }
        var entry = Entry(
            kind: .special, modificationSeconds: identity.modificationTime.seconds,
            modificationNanoseconds: identity.modificationTime.nanoseconds)
        switch identity.fileType {
        case FileIdentity.directoryType:
            entry.kind = .folder
        case FileIdentity.symbolicLinkType:
            entry.kind = .link
            entry.destinationText = RawFileName.decoding(
                try FileSystem.linkDestination(path, in: CurrentDirectory.descriptor, size: identity.size, at: location))
        case FileIdentity.regularFileType:
            entry.kind = .file
            entry.size = identity.size
            if digesting {
                let descriptor = try FileSystem.openFileForReading(path, at: location)
                guard try FileSystem.status(of: descriptor, at: location).sameContents(as: identity) else {
                    throw location.error(.changedOnDisk, "the file changed while its digest was computed")
                }
                entry.digest = try FileSystem.digest(of: descriptor, size: identity.size, at: location)
            }
        default:
            break
        }
        return entry
    }
}

extension FileSystem {
    /// The SHA-256 of the first `size` bytes of an open file, read 1 MiB at a time.
    static func digest(of descriptor: Descriptor, size: Int64, at location: EntryLocation) throws(DocumentPackageError) -> [UInt8] {
        var digest = SHA256Digest()
        let chunk = 1 << 20
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        var offset: Int64 = 0
        while offset < size {
            let wanted = Int(min(Int64(chunk), size - offset))
            let filled: Int
            do throws(SystemCallError) {
                filled = try PositionalIO.read(
                    descriptor.rawValue, into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<wanted]), at: UInt64(offset),
                    path: location.fileSystemPath)
            } catch {
                throw location.error("read the file", errno: error.code)
            }
            guard filled > 0 else { throw location.error(.changedOnDisk, "the file grew shorter while its digest was computed") }
            digest.update(UnsafeRawBufferPointer(rebasing: buffer[0..<filled]))
            offset += Int64(filled)
        }
        return digest.finish()
    }
}
