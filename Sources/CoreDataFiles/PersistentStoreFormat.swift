import PropertyList
import SystemPackage
import SystemSupport

/// Recognising Core Data's files on disk: SQLite stores and `UIManagedDocument` packages.
public enum PersistentStoreFormat {
    /// The 16 bytes every SQLite database begins with: `SQLite format 3` and a NUL.
    public static let sqliteHeader: [UInt8] = Array("SQLite format 3".utf8) + [0]

    /// Whether `path` is a Core Data SQLite store: a regular file (a last link followed) that begins with
    /// ``sqliteHeader`` and has a `Z_METADATA` table.
    ///
    /// Reads the file's first 16 bytes, and of an SQLite file its schema (read-only, writing nothing). A name that
    /// is not UTF-8 is opened byte for byte.
    public static func isStore(at filePath: FilePath) -> Bool {
        isStore(atPath: RawFileName.text(filePath))
    }

    /// `isStore(at:)` for a path held as text (bytes that are not UTF-8 carried as `RawFileName` carries them),
    /// for the kit's own callers.
    package static func isStore(atPath path: String) -> Bool {
        guard isSQLiteFile(atPath: path) else { return false }
        guard let connection = try? SQLiteConnection(path: path), let tables = try? connection.tableNames() else { return false }
        return tables.contains("Z_METADATA")
    }

    /// Whether `path` is a regular file (a last link followed) that begins with ``sqliteHeader``: an SQLite
    /// database, or one damaged past its header.
    ///
    /// Reads the file's status and first 16 bytes. A name that is not UTF-8 is opened byte for byte.
    public static func isSQLiteFile(at filePath: FilePath) -> Bool {
        isSQLiteFile(atPath: RawFileName.text(filePath))
    }

    /// `isSQLiteFile(at:)` for a path held as text (bytes that are not UTF-8 carried as `RawFileName` carries
    /// them), for the kit's own callers.
    package static func isSQLiteFile(atPath path: String) -> Bool {
        guard let info = try? FileInfo.of(path: path), info.kind == .regular, info.size >= 16 else { return false }
        guard let file = try? OpenFile(path: path, options: [.nonBlocking]) else { return false }
        var header = [UInt8](repeating: 0, count: 16)
        let count = (try? header.withUnsafeMutableBytes { buffer in Result { () throws(SystemCallError) in try file.read(into: buffer) } }.get()) ?? 0
        return count == 16 && header == sqliteHeader
    }
}

/// A `UIManagedDocument` package (the `NSPersistentDocument` of iOS): a directory holding its store at
/// `StoreContent/persistentStore` and, when the document was saved with options or additional content, a
/// `DocumentMetadata.plist` and an `AdditionalContent` folder.
public struct ManagedDocumentPackage: Sendable {
    /// The package's path, as given.
    public var path: FilePath {
        get { RawFileName.filePath(pathText) }
        set { pathText = RawFileName.text(newValue) }
    }
    /// `path` as text (bytes that are not UTF-8 carried as `RawFileName` carries them).
    package var pathText: String
    /// `DocumentMetadata.plist` read as a property list; nil when the package has none.
    public var documentMetadata: PropertyListValue?
    /// The store's path, `PATH/StoreContent/persistentStore`; nil when the package has no store.
    public var storePath: FilePath? {
        get { storePathText.map { RawFileName.filePath($0) } }
        set { storePathText = newValue.map(RawFileName.text) }
    }
    /// `storePath` as text (bytes that are not UTF-8 carried as `RawFileName` carries them).
    package var storePathText: String?
    /// Whether the package has an `AdditionalContent` folder.
    public var hasAdditionalContent: Bool

    /// The store's path inside a package.
    public static let storeEntry = "StoreContent/persistentStore"
    /// The metadata's path inside a package.
    public static let metadataEntry = "DocumentMetadata.plist"

    /// Whether `path` is a directory with `StoreContent/persistentStore` or `DocumentMetadata.plist`.
    ///
    /// Reads the status of the directory and of those two entries. A name that is not UTF-8 is read byte for byte.
    public static func isPackage(at filePath: FilePath) -> Bool {
        isPackage(atPath: RawFileName.text(filePath))
    }

    /// `isPackage(at:)` for a path held as text (bytes that are not UTF-8 carried as `RawFileName` carries
    /// them), for the kit's own callers.
    package static func isPackage(atPath path: String) -> Bool {
        guard let info = try? FileInfo.of(path: path), info.kind == .directory else { return false }
        return (try? FileInfo.of(path: path + "/" + storeEntry)) != nil || (try? FileInfo.of(path: path + "/" + metadataEntry)) != nil
    }

    /// Reads the package at `path`: its metadata property list, and where its store is.
    ///
    /// - Throws: `CoreDataError` when `path` is not such a package, or at the key path of a metadata file that is
    ///   not a property list. A name that is not UTF-8 is read byte for byte.
    public init(path: FilePath) throws(CoreDataError) {
        try self.init(path: RawFileName.text(path))
    }

    /// `init(path:)` for a path held as text (bytes that are not UTF-8 carried as `RawFileName` carries them),
    /// for the kit's own callers.
    ///
    /// - Throws: as `init(path:)`.
    package init(path: String) throws(CoreDataError) {
        guard Self.isPackage(atPath: path) else {
            throw CoreDataError(
                pathText: path, place: .none,
                message: "not a managed document package: a directory with \(Self.storeEntry) or \(Self.metadataEntry)")
        }
        self.pathText = path
        let store = path + "/" + Self.storeEntry
        storePathText = (try? FileInfo.of(path: store))?.kind == .regular ? store : nil
        hasAdditionalContent = (try? FileInfo.of(path: path + "/AdditionalContent"))?.kind == .directory
        let metadataPath = path + "/" + Self.metadataEntry
        guard (try? FileInfo.of(path: metadataPath)) != nil else {
            documentMetadata = nil
            return
        }
        let read: [UInt8]?
        do { read = try OpenFile(path: metadataPath).readToEnd(limit: 16 << 20) } catch {
            throw CoreDataError(pathText: metadataPath, place: .none, message: "cannot read: \(error.reason)")
        }
        guard let bytes = read else {
            throw CoreDataError(pathText: metadataPath, place: .none, message: "larger than 16 MB, the limit of a document's metadata")
        }
        do {
            documentMetadata = try bytes.withUnsafeBytes { buffer throws(PropertyListError) in try PropertyListReader().read(buffer).value }
        } catch {
            throw CoreDataError(pathText: metadataPath, place: .none, message: "not a property list: \(error)")
        }
    }
}
