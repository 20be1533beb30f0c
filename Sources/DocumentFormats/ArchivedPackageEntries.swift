import FileCoordination
import KeyedArchive
import PackageFormat

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The entries of a data + metadata package (`.ict`, `.ptk`), each one
/// keyed archive holding one object under a `$top` key with a version: read,
/// written and saved one way for every such format.
struct ArchivedPackageEntries {
    /// The `$top` key each entry stores its object under (`DATA`, `data`).
    var topKey: String
    /// The object's version key (`VERSION`, `Version`) and the one version read.
    var versionKey: String
    var version: Int
    /// The entries holding the metadata and the data.
    var metadataEntryName: String
    var dataEntryName: String

    /// The `.ict` entries (`ctdocument.metadata`, `ctdocument.data`).
    static let ict = ArchivedPackageEntries(
        topKey: ICTDocumentFormat.topKey, versionKey: ICTDocumentFormat.versionKey, version: ICTDocumentFormat.version,
        metadataEntryName: ICTDocumentFormat.metadataEntryName, dataEntryName: ICTDocumentFormat.dataEntryName)
    /// The `.ptk` entries (`photo.metadata`, `photo.data`).
    static let ptk = ArchivedPackageEntries(
        topKey: PTKDocumentFormat.topKey, versionKey: PTKDocumentFormat.versionKey, version: PTKDocumentFormat.version,
        metadataEntryName: PTKDocumentFormat.metadataEntryName, dataEntryName: PTKDocumentFormat.dataEntryName)

    /// Decodes the object of the entry `name` of `package`, counting what it reads in `statistics`.
    ///
    /// - Throws: `ICTDocumentError` `.missingEntry` (also for a link or a
    ///   folder), `.package` when it cannot be read, `.invalidArchive`,
    ///   `.wrongClass`, `.wrongType` or `.unsupportedVersion`, naming the entry and key.
    func decode<T: KeyedArchiveDecodable>(
        _ name: String, in package: PackageWrapper, as type: T.Type, version objectVersion: KeyPath<T, Int>,
        statistics: inout ICTDocumentFile.Statistics
    ) throws(ICTDocumentError) -> T {
        let wrapper = package.child(named: name)
        guard let entry = wrapper, ICTDocumentFormat.entryProblem(entry) == nil else {
            throw ICTDocumentError(.missingEntry, entry: name, ICTDocumentFormat.entryProblem(wrapper) ?? "")
        }
        let bytes: Data
        do {
            bytes = try entry.contents()
        } catch {
            throw ICTDocumentError(error)
        }
        statistics.bytesRead += bytes.count
        statistics.entriesDecoded.append(name)
        let object: T?
        do {
            object = try KeyedUnarchiver(archive: KeyedArchiveReader().read(bytes)).decodeTopLevelObject(of: T.self, forKey: topKey)
        } catch {
            throw ICTDocumentError(error, entry: name)
        }
        guard let object else {
            throw ICTDocumentError(.wrongClass, entry: name, keyPath: topKey, "the root object is $null")
        }
        guard object[keyPath: objectVersion] == version else {
            throw ICTDocumentError(
                .unsupportedVersion, entry: name, keyPath: "\(topKey).\(versionKey)",
                "unsupported \(versionKey) \(object[keyPath: objectVersion]) (this version of ICTKit reads \(version))")
        }
        return object
    }

    /// Archives `object` as the entry `name` of `package` (replacing what is there).
    ///
    /// - Throws: `ICTDocumentError` `.invalidArchive` when it cannot be encoded, `.package` when it cannot be put in.
    func write<T: KeyedArchiveEncodable>(_ object: T, as name: String, in package: PackageWrapper) throws(ICTDocumentError) {
        let bytes: [UInt8]
        do {
            bytes = try KeyedArchiver.archive(object, forKey: topKey)
        } catch {
            throw ICTDocumentError(error, entry: name)
        }
        if let entry = package.child(named: name), entry.kind == .regularFile {
            entry.setContents(Data(bytes))
        } else {
            do {
                _ = try package.replaceChild(named: name, with: PackageWrapper(regularFileWithContents: Data(bytes)))
            } catch {
                throw ICTDocumentError(error)
            }
        }
    }

    /// Saves `package` safely at `target` (a new package written beside, then
    /// swapped in), taking turns with ICTKit's other writers (`coordinatedSave`).
    ///
    /// - Throws: `ICTDocumentError` `.alreadyExists` when `target` exists and
    ///   is not `replacing`; `.package` when writing fails (the old package stays as it was).
    static func save(_ package: PackageWrapper, to target: String, replacing: Bool) throws(ICTDocumentError) {
        do {
            try package.coordinatedSave(to: target, options: PackageSaveOptions(replacingExisting: replacing))
        } catch let error where error.code == .alreadyExists {
            throw ICTDocumentError(.alreadyExists, "\(target) already exists; not replaced")
        } catch {
            throw ICTDocumentError(error)
        }
    }
}

/// An object a data + metadata package holds in one of its two entries, with
/// the version the entries are checked for (`CTData`, `CTMetadata`,
/// `PTKData`, `PTKMetadata`).
protocol ArchivedPackageObject: KeyedArchiveCodable {
    /// The object's version, as stored under the format's version key.
    var version: Int { get }
}

extension CTMetadata: ArchivedPackageObject {}
extension CTData: ArchivedPackageObject {}
extension PTKMetadata: ArchivedPackageObject {}
extension PTKData: ArchivedPackageObject {}

/// The skeleton `ICTDocumentFile` and `PTKDocumentFile` share: a data +
/// metadata package read lazily (opening reads only its listing), where it
/// was opened from or last saved to, each object read and decoded on first
/// use, and a save that writes the objects edited and keeps every other
/// entry. One implementation for both formats.
struct ArchivedPackageDocument<Metadata: ArchivedPackageObject, Contents: ArchivedPackageObject> {
    /// How the entries are archived, and their names.
    let entries: ArchivedPackageEntries
    /// Where the document was opened from or last saved to; nil for a new one.
    private(set) var pathString: String?
    /// What has been read from disk so far.
    private(set) var statistics = ICTDocumentFile.Statistics()
    /// True when an edit has not been saved.
    var hasUnsavedChanges: Bool { metadataChanged || dataChanged }

    private let package: PackageWrapper
    private var loadedMetadata: Metadata?
    private var loadedData: Contents?
    private var metadataChanged = false
    private var dataChanged = false

    /// A new document holding `metadata` and `data`, not yet on disk (both
    /// are written by the first save).
    init(_ entries: ArchivedPackageEntries, metadata: Metadata, data: Contents) {
        self.entries = entries
        do {
            package = try PackageWrapper(directoryWithChildren: [:])
        } catch {
            preconditionFailure("an empty package cannot fail: \(error)")
        }
        loadedMetadata = metadata
        loadedData = data
        metadataChanged = true
        dataChanged = true
    }

    /// Opens the document at `path`, reading only its listing (names and sizes).
    ///
    /// - Throws: `ICTDocumentError` `.package` when `path` is not a readable
    ///   package directory.
    init(_ entries: ArchivedPackageEntries, contentsOf path: String) throws(ICTDocumentError) {
        self.entries = entries
        do {
            package = try PackageWrapper(readingFrom: path, mode: .lazy)
        } catch {
            throw ICTDocumentError(error)
        }
        pathString = path
    }

    /// A document of a package already read (lazily), at `path`. Reads nothing.
    init(_ entries: ArchivedPackageEntries, package: PackageWrapper, pathString path: String?) {
        self.entries = entries
        self.package = package
        pathString = path
    }

    /// The names and sizes of the package's entries, from the listing (reads nothing).
    var entrySizes: [(name: String, size: Int64?)] {
        package.children.map { ($0.fileName ?? "", $0.fileSize) }
    }

    /// The metadata, read and decoded on the first call.
    ///
    /// - Throws: `ICTDocumentError` `.missingEntry`, `.invalidArchive`,
    ///   `.wrongClass`, `.wrongType` or `.unsupportedVersion`, naming the
    ///   entry and key. Costs one read of the metadata entry, once.
    mutating func metadata() throws(ICTDocumentError) -> Metadata {
        if let loadedMetadata { return loadedMetadata }
        let metadata = try entries.decode(entries.metadataEntryName, in: package, as: Metadata.self, version: \.version, statistics: &statistics)
        loadedMetadata = metadata
        return metadata
    }

    /// The data, read and decoded on the first call.
    ///
    /// - Throws: as `metadata()`, for the data entry. Costs one read of the
    ///   data entry, once.
    mutating func data() throws(ICTDocumentError) -> Contents {
        if let loadedData { return loadedData }
        let data = try entries.decode(entries.dataEntryName, in: package, as: Contents.self, version: \.version, statistics: &statistics)
        loadedData = data
        return data
    }

    /// Takes `metadata` as the document's, to be written by the next save.
    mutating func store(_ metadata: Metadata) {
        loadedMetadata = metadata
        metadataChanged = true
    }

    /// Takes `data` as the document's, to be written by the next save.
    mutating func store(_ data: Contents) {
        loadedData = data
        dataChanged = true
    }

    /// Saves the document safely (a new package written beside, then swapped
    /// in): to `destination` when given, else where it was opened. Only the
    /// objects edited are encoded and written (the metadata first); the other
    /// entries are kept, hard-linked or copied unchanged.
    ///
    /// - Precondition: a new document is given a `destination`.
    /// - Throws: `ICTDocumentError` `.alreadyExists` when a new document
    ///   would replace something at `destination`; `.package` when writing
    ///   fails (the old document stays as it was); `.invalidArchive` when an
    ///   object cannot be encoded.
    mutating func save(to destination: String?) throws(ICTDocumentError) {
        guard let target = destination ?? pathString else { preconditionFailure("save() of a new document needs a path") }
        let replacing = pathString.map { $0 == target } ?? false
        if metadataChanged, let loadedMetadata {
            try entries.write(loadedMetadata, as: entries.metadataEntryName, in: package)
        }
        if dataChanged, let loadedData {
            try entries.write(loadedData, as: entries.dataEntryName, in: package)
        }
        try ArchivedPackageEntries.save(package, to: target, replacing: replacing)
        pathString = target
        metadataChanged = false
        dataChanged = false
    }
}
