import ConflictVersions
import DocumentFormats
import PackageFormat
import PropertyList
import SystemSupport

/// The versions of one document as `ict versions` shows them and `ict
/// resolve` picks from: number 0 the current version, then each conflict
/// version oldest first, and for `.ict` documents the fields of each.
package struct VersionListing {
    package struct Entry {
        package var number: Int
        package var version: DocumentVersion
        /// The `.ict` fields, when the document is an `.ict` document and the version could be read.
        package var fields: CTData?
        package var photoSize: (width: Int, height: Int)?
        /// The fields that differ from the current version's.
        package var differences: [String] = []
        /// Why the version cannot be used: a symbolic link, unreadable, or not of the document's kind.
        package var problem: Problem?
    }

    package var path: String
    package var isICTDocument: Bool
    package var entries: [Entry]
    /// Problems with single versions (a link, unreadable, another kind): the listing goes on.
    package var problems: [Problem] { entries.compactMap(\.problem) }

    /// Finds the versions and, for an `.ict` document, reads each one's data entry.
    ///
    /// - Throws: `DocumentVersionError` when the versions cannot be found at all.
    package init(path: String) throws(DocumentVersionError) {
        self.path = path
        let current = try DocumentVersion.currentVersionOfItem(at: path)
        isICTDocument = ICTDocumentFormat.isDocument(atPath: path)
        entries = [Entry(number: 0, version: current)]
        for (index, version) in try DocumentVersion.otherVersionsOfItem(at: path).enumerated() {
            entries.append(Entry(number: index + 1, version: version))
        }
        for index in entries.indices {
            if let problem = Self.linkProblem(entries[index]) ?? Self.kindProblem(entries[index], current: current) {
                entries[index].problem = problem
                continue
            }
            guard isICTDocument else { continue }
            do {
                let document = ICTDocumentFile(package: try entries[index].version.packageWrapper(), pathString: entries[index].version.pathText)
                _ = try document.metadata()
                let fields = try document.data()
                entries[index].fields = fields
                entries[index].photoSize = try fields.photo.map { bytes throws(ICTDocumentError) in try PNGImage.size(ofPNG: bytes) }
            } catch let error as DocumentVersionError {
                entries[index].problem = (Self.problem(entries[index], error.message, entry: error.entry))
            } catch let error as ICTDocumentError {
                entries[index].problem = (Self.problem(entries[index], error.message, entry: error.entry))
            } catch {
                entries[index].problem = (Self.problem(entries[index], "\(error)", entry: ""))
            }
        }
        if let base = entries[0].fields {
            for index in entries.indices.dropFirst() {
                guard let fields = entries[index].fields else { continue }
                entries[index].differences = Self.differences(fields, from: base)
            }
        }
    }

    /// A version that is a symbolic link or holds one, or is a device, FIFO
    /// or socket, which the library never reads or moves in.
    package static func linkProblem(_ entry: Entry) -> Problem? {
        guard let error = entry.version.symbolicLinkError ?? entry.version.specialFileError else { return nil }
        return Problem(path: error.pathText, location: error.entry.isEmpty ? .none : .entry(error.entry), "version \(entry.number): \(error.message)")
    }

    /// A version of another kind than the document: a file beside a package or the other way round.
    package static func kindProblem(_ entry: Entry, current: DocumentVersion) -> Problem? {
        let version = entry.version
        guard version.isDirectory != current.isDirectory else { return nil }
        return Problem(
            path: version.pathText,
            "version \(entry.number) is \(version.isDirectory ? "a folder" : "a file"), but the document is \(current.isDirectory ? "a package (a folder)" : "a file"); it cannot replace it"
        )
    }

    package static func problem(_ entry: Entry, _ message: String, entry inside: String) -> Problem {
        Problem(path: entry.version.pathText, location: inside.isEmpty ? .none : .entry(inside), "version \(entry.number) cannot be read: \(message)")
    }

    package static func differences(_ fields: CTData, from base: CTData) -> [String] {
        var names: [String] = []
        if fields.displayName != base.displayName { names.append("displayName") }
        if fields.firstName != base.firstName || fields.lastName != base.lastName { names.append("names") }
        if fields.favoriteNumber != base.favoriteNumber { names.append("favoriteNumber") }
        if fields.photo != base.photo { names.append("photo") }
        return names
    }

    /// What a version is, in words: `current`, `Syncthing copy`, `Dropbox entry copies (ctdocument.data)`,
    /// `save 3:1f0c2a9e rebuilt from its entries and copies`, `the package as it is` (names escaped, `RawFileName.escaped`).
    package static func sourceText(_ version: DocumentVersion) -> String {
        guard let name = version.conflictName else { return "current" }
        if version.isRebuiltPackage {
            guard let generation = version.generation else { return "the package as it is (entries of different saves)" }
            return "save \(generation) rebuilt from its entries and copies"
        }
        guard !version.entrySwaps.isEmpty else { return "\(name.tool.displayName) copy" }
        return "\(name.tool.displayName) entry copies (\(version.entrySwaps.map { RawFileName.escaped($0.entryPathText) }.joined(separator: ", ")))"
    }

    /// One version of `ict versions --json` (`Schemas/cli/versions.schema.json`).
    package struct JSONForm: Encodable {
        /// An entry of the document swapped with its conflict copy.
        package struct EntrySwap: Encodable {
            package var entry: String
            package var copy: String
        }

        package var number: Int
        package var path: String
        package var isConflict: Bool
        package var tool: String?
        package var nameDate: String?
        package var device: String?
        package var modificationDate: String?
        package var entrySwaps: [EntrySwap]
        package var fields: DocumentInspection.Fields?
        package var differences: [String]

        package init(_ entry: Entry) {
            let version = entry.version
            number = entry.number
            path = version.pathText
            isConflict = version.isConflict
            tool = version.conflictName?.tool.rawValue
            nameDate = version.conflictName?.date.description
            device = version.localizedNameOfSavingComputer
            modificationDate = version.modificationDate.map { PropertyListDateFormat.format($0) }
            entrySwaps = version.entrySwaps.map { EntrySwap(entry: $0.entryPathText, copy: $0.conflictEntryPathText) }
            fields = entry.fields.map { DocumentInspection.Fields($0, photoSize: entry.photoSize) }
            differences = entry.differences
        }
    }
}
