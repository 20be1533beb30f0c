import DocumentPackage
import FileCoordination
import KeyedArchive

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
