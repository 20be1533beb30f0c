import ConflictVersions
import FileCoordination
import PackageFormat
import SystemPackage
import SystemSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a document holds on disk and how it is read and saved: `Data` for a
/// one-file document, `PackageWrapper` for a package (a folder shown as one
/// file). `Document` calls these inside a coordinated read or write of the
/// document, so an implementation never coordinates on its own. A `FilePath`
/// names its item byte for byte, a name that is not UTF-8 included (an
/// error's `path` carries such a byte as `RawFileName` does).
public protocol DocumentContents: SendableMetatype {
    /// Reads the document at `path` (as the caller gave it).
    ///
    /// - Throws: `DocumentError` `.notFound`, `.wrongKind`, `.io` or
    ///   `.package`, naming `path`.
    static func readDocument(at path: FilePath) throws(DocumentError) -> (contents: Self, identity: DocumentFileIdentity)

    /// Saves these contents as the document at `path`, safely: at every
    /// moment the item at `path` is the old version or the new one. With
    /// `.forOverwriting` and `replacing` set, an item that is no longer the
    /// one read or last saved (another program replaced it) is left in
    /// place and the save fails with `.changedOnDisk`.
    ///
    /// - Throws: `DocumentError` `.alreadyExists` (`.forCreating`),
    ///   `.changedOnDisk`, `.wrongKind`, `.io` or `.package`, naming `path`.
    func writeDocument(at path: FilePath, for operation: DocumentSaveOperation, replacing identity: DocumentFileIdentity?)
        throws(DocumentError) -> DocumentFileIdentity
}

/// Which item a document read or saved: its device, inode, size and
/// modification time, to tell whether another program replaced it since.
public struct DocumentFileIdentity: Hashable, Sendable {
    let stamp: FileStamp

    init(_ stamp: FileStamp) { self.stamp = stamp }

    /// The item's status at `path` (a final link followed), or nil when nothing is there.
    init?(path: String) {
        guard let stamp = FileStamp(path: path) else { return nil }
        self.stamp = stamp
    }

    /// The item's modification date.
    public var modificationDate: Date {
        Date(timeIntervalSince1970: Double(stamp.seconds) + Double(stamp.nanoseconds) / 1e9)
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.stamp == rhs.stamp }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(stamp.device)
        hasher.combine(stamp.inode)
        hasher.combine(stamp.size)
        hasher.combine(stamp.seconds)
        hasher.combine(stamp.nanoseconds)
    }
}

extension Data: DocumentContents {
    /// Reads the whole file at `path` (a final link followed).
    ///
    /// - Throws: `DocumentError` `.notFound`, `.wrongKind` for anything but
    ///   a regular file, `.io`. Costs one read of the file.
    public static func readDocument(at filePath: FilePath) throws(DocumentError) -> (contents: Data, identity: DocumentFileIdentity) {
        let (bytes, stamp) = try FlatFile.contents(at: RawFileName.text(filePath))
        return (bytes, DocumentFileIdentity(stamp))
    }

    /// Writes the bytes beside `path` under a temporary name, flushes them
    /// and renames them over `path` (`FileStamp.replace`, which refuses to
    /// replace a file another program put there since it was read).
    ///
    /// - Throws: as `DocumentContents.writeDocument`.
    public func writeDocument(at filePath: FilePath, for operation: DocumentSaveOperation, replacing identity: DocumentFileIdentity?)
        throws(DocumentError) -> DocumentFileIdentity
    {
        let path = RawFileName.text(filePath)
        return DocumentFileIdentity(try FlatFile.save(self, to: path, for: operation, replacing: identity?.stamp))
    }
}

extension PackageWrapper: DocumentContents {
    /// Reads the package at `path` lazily: its folders now, each file's
    /// bytes on first access. A package a sync engine left mixed or partial
    /// (its manifest says so: `PackageConsistency`) is never read as it is:
    /// it is read as the version it opens as, rebuilt whole from its entries
    /// and their conflict copies (`DocumentVersion.packageWrapper()` of the
    /// current version), and the document is in conflict until resolved.
    ///
    /// - Throws: `DocumentError` `.notFound`, `.wrongKind` for a path that is
    ///   not a folder, `.package` with the entry for what the package reader
    ///   refused, `.versions` when a mixed package cannot be rebuilt. Costs
    ///   one listing per folder of the package, an `lstat` per entry and the
    ///   manifest's read (and, for a mixed package, the reads of the entries
    ///   that differ from it).
    public static func readDocument(at filePath: FilePath) throws(DocumentError) -> (contents: PackageWrapper, identity: DocumentFileIdentity) {
        let path = RawFileName.text(filePath)
        let package: PackageWrapper
        if try isMixedOrPartial(path) {
            do throws(DocumentVersionError) {
                package = try DocumentVersion.currentVersionOfItem(at: path).packageWrapper()
            } catch {
                throw DocumentError(.versions, pathText: path, entry: error.entry, error.message)
            }
        } else {
            do throws(DocumentPackageError) {
                package = try PackageWrapper(readingFrom: path, mode: .lazy)
            } catch {
                throw DocumentError(packageError: error, path: path)
            }
        }
        guard let identity = DocumentFileIdentity(path: path) else {
            throw DocumentError(.notFound, pathText: path, "the document was removed as soon as it was read")
        }
        return (package, identity)
    }

    /// Saves the package with `PackageWrapper.coordinatedSave(to:options:)`:
    /// safely, only the changed folder when every change lies in one,
    /// hard-linking unchanged files, taking turns with ICTKit's other writers.
    ///
    /// - Throws: as `DocumentContents.writeDocument`; `.versions` when the
    ///   package on disk is mixed or partial (`PackageConsistency`): saving
    ///   over it would drop the entries only it holds before the user chose
    ///   a version, so the conflict is resolved first.
    public func writeDocument(at filePath: FilePath, for operation: DocumentSaveOperation, replacing identity: DocumentFileIdentity?)
        throws(DocumentError) -> DocumentFileIdentity
    {
        let path = RawFileName.text(filePath)
        if try Self.isMixedOrPartial(path) {
            throw DocumentError(
                .versions, pathText: path,
                "the package on disk mixes entries of different saves or misses some (a sync engine carried it file by file); resolve its conflict before saving over it"
            )
        }
        do throws(DocumentPackageError) {
            try coordinatedSave(to: path, options: PackageSaveOptions(replacingExisting: operation == .forOverwriting))
        } catch {
            throw DocumentError(packageError: error, path: path)
        }
        guard let saved = DocumentFileIdentity(path: path) else {
            throw DocumentError(.notFound, pathText: path, "the document was removed as soon as it was saved")
        }
        return saved
    }
}

extension PackageWrapper {
    /// Whether the package at `path` is mixed, or partial with entries
    /// missing, by its manifest; false when nothing (or no folder) is there
    /// or it has no manifest.
    ///
    /// - Throws: `DocumentError` `.versions` when its entries cannot be listed or read.
    static func isMixedOrPartial(_ path: String) throws(DocumentError) -> Bool {
        do throws(DocumentVersionError) {
            let consistency = try PackageConsistency(ofPackageAt: path)
            return consistency.isMixedOrMissingEntries
        } catch {
            // Nothing there, or not a folder: the reader and the writer say so in their own words.
            if error.code == .notFound || error.code == .kindMismatch { return false }
            throw DocumentError(.versions, pathText: path, entry: error.entry, error.message)
        }
    }
}

extension DocumentError {
    /// A package error said of the document at `path`.
    init(packageError error: DocumentPackageError, path: String) {
        let code: Code =
            switch error.code {
            case .notFound where error.pathInPackage.isEmpty: .notFound
            case .alreadyExists: .alreadyExists
            case .notADirectory: .wrongKind
            case .changedOnDisk: .changedOnDisk
            default: .package
            }
        self.init(code, pathText: path, entry: error.pathInPackage, systemErrorNumber: error.systemErrorNumber, error.message)
    }
}
