import ConflictVersions
import DocumentFormats
import PackageFormat
import SystemSupport

/// A document of one of the `DocumentKind`s found in a folder (`DocumentDiscovery`), or named by its path.
package struct DocumentLocation: Sendable, Hashable {
    /// The folder the document was found in, as it was named; empty for a
    /// document named by its path.
    package var folder: String
    /// The document's name in `folder`, or its path when `folder` is empty.
    package var name: String
    /// How many conflict copies of the document the folder's listing holds
    /// (see `DocumentVersion.conflictCounts(amongNames:)`); nil when the
    /// folder was not listed.
    package var conflictCount: Int?
    /// The document's kind, from its name's extension.
    package var kind: DocumentKind

    /// A document in `folder` named `name` (or, with `folder` empty, at the
    /// path `name`), of `kind`, or when nil of the kind its name says
    /// (`.ict` when it says none).
    package init(folder: String, name: String, conflictCount: Int?, kind: DocumentKind? = nil) {
        self.folder = folder
        self.name = name
        self.conflictCount = conflictCount
        self.kind = kind ?? DocumentKind.of(name: name) ?? .ict
    }

    /// The document's path: `folder/name`, or `name` for a document named by its path.
    package var path: String { folder.isEmpty ? name : folder == "/" ? "/" + name : "\(folder)/\(name)" }
}

/// Finds the documents in a folder, as `ict list` does: each directory (or
/// link to one) named as a package kind (`.ict`, `.ptk`) and each regular
/// file (or link to one) named as a text kind (`.icfnote`, `.dox`; see
/// `DocumentKind`), with the number of conflict copies sync tools left
/// beside it; a conflict copy of a document that is there is a version of
/// it, not a document of its own.
package enum DocumentDiscovery {
    /// The documents in `directory`, and with `recursive` in its
    /// subfolders (not in documents, nor through links to folders, as `find`
    /// without `-L`: a link can lead back up into a loop), in name order,
    /// each folder's documents before its subfolders' in that order.
    ///
    /// A subfolder that cannot be listed is passed to `unlistedFolder` as
    /// an error, and the rest is still searched.
    ///
    /// Reads each folder's listing once, and the status of entries whose
    /// type the listing does not give; no document is opened.
    ///
    /// - Throws: `ICTDocumentError` with code `.package` (its
    ///   `packageError` an `.io` one at `directory`) when `directory` itself
    ///   cannot be listed.
    package static func documents(
        in directory: String, recursive: Bool = false, unlistedFolder: (ICTDocumentError) -> Void = { _ in }
    ) throws(ICTDocumentError) -> [DocumentLocation] {
        let listing: [DirectoryEntry]
        do throws(SystemCallError) {
            listing = try Directory.entries(atPath: directory)
        } catch {
            throw ICTDocumentError(
                DocumentPackageError(.io, fileSystemPathText: directory, systemErrorNumber: error.code, "cannot list the folder: \(error.reason)"))
        }
        // The entry's type when the file system gives it; links and unknowns are looked up.
        let entries = listing.map { (name: $0.name, kind: FolderEntryKind(listed: $0.kind)) }
        let conflicts = DocumentVersion.conflictCounts(amongNames: entries.map(\.name))
        let names = Set(entries.map(\.name))
        var locations: [DocumentLocation] = []
        for entry in entries.sorted(by: { $0.name < $1.name }) {
            let documentKind = DocumentKind.of(name: entry.name)
            // Nothing to look up for a name that is no document's, unless subfolders are searched.
            guard documentKind != nil || recursive else { continue }
            let location = DocumentLocation(
                folder: directory, name: entry.name, conflictCount: conflicts[entry.name] ?? 0, kind: documentKind ?? .ict)
            guard let kind = entry.kind ?? FolderEntryKind.of(location.path), kind != .other else { continue }
            if let documentKind, documentKind.isPackage ? kind != .file : kind == .file {
                // A conflict copy of a document that is here is a version of it, not a document.
                if let copy = ConflictName(parsing: entry.name), names.contains(copy.originalName) { continue }
                locations.append(location)
            } else if recursive, kind == .folder {
                // A link to a folder is not looked into (as find without -L): it could lead
                // back up (a loop) or anywhere on the disk.
                do throws(ICTDocumentError) {
                    locations += try documents(in: location.path, recursive: true, unlistedFolder: unlistedFolder)
                } catch {
                    unlistedFolder(error)
                }
            }
        }
        return locations
    }
}

/// What an entry of a folder being searched is: a folder, a symbolic link
/// to a folder (a document reached through it is found; it is never looked
/// into for more), a regular file or a link to one, or anything else.
private enum FolderEntryKind {
    case folder, linkToFolder, file, other

    /// The kind the folder's listing gives, or nil when it must be looked up (links, unknowns).
    init?(listed kind: FileKind?) {
        switch kind {
        case .directory?: self = .folder
        case .regular?: self = .file
        case .symbolicLink?, .unknown?, nil: return nil
        default: self = .other
        }
    }

    /// The kind of the item at `path`, from `lstat` and, for a link, `stat`; nil when it is gone.
    static func of(_ path: String) -> FolderEntryKind? {
        guard let info = try? FileInfo.of(path: path, followingLink: false) else { return nil }
        switch info.kind {
        case .directory: return .folder
        case .regular: return .file
        case .symbolicLink:
            switch (try? FileInfo.of(path: path))?.kind {
            case .directory?: return .linkToFolder
            case .regular?: return .file
            default: return .other
            }
        default: return .other
        }
    }
}
