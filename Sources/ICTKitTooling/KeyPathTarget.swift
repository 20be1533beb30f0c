import DocumentFormats
import EmbeddedLayers
import KeyedArchive
import PropertyList
import SystemSupport

/// Where a key path typed by a user points: a property-list file, or an
/// entry of an `.ict` document, and the key path inside it.
///
/// The key path is in `plutil`'s syntax (`a.b.2`, `\.` a dot inside a key).
/// In an `.ict` document it is `ENTRY:PATH`, PATH taken in the entry's
/// archive from its root object (`ctdocument.data:FIRST_NAME` is
/// `$top.DATA.FIRST_NAME` there; an empty PATH is the root object). In a
/// keyed archive a key path starting `$top` follows references
/// (`$top.root.NSString`; see `KeyedArchiveKeyPath`).
/// A `!` ending a key steps into the property list or keyed archive held
/// in that key's data value (`Font!.$top.root`; `\!` is a `!` in a key;
/// see `EmbeddedKeyPath`).
package struct KeyPathAddress: Sendable, Equatable {
    /// The file or document as the user named it.
    package let path: String
    /// The key path as typed.
    package let keyPathText: String
    /// The entry of an `.ict` document, or nil for a property-list file.
    package let entry: String?
    /// The file holding the property list: `path`, or the document's entry in it.
    package let filePath: String
    /// The key path's text inside the file (after `ENTRY:` in a document).
    let pathInFile: String

    /// Parses `text` as a key path into the item at `path` (`-` is standard input).
    ///
    /// Reads the status of `path` and, in a document, of the entry (never its contents).
    ///
    /// - Throws: `ICTDocumentError` with code `.invalidKeyPath` when `path`
    ///   is a document and `text` is not `ENTRY:PATH` with an entry's name,
    ///   `.unreadableFile` when the entry is a symbolic link (links in a
    ///   document are never followed) or a folder.
    package init(path: String, keyPath text: String) throws(ICTDocumentError) {
        self.path = path
        keyPathText = text
        guard ICTDocumentFormat.isPackage(atPath: path) else {
            entry = nil
            filePath = path
            pathInFile = text
            return
        }
        guard let colon = text.firstIndex(of: ":") else {
            throw ICTDocumentError(.invalidKeyPath, keyPath: text, "an .ict document's key path is ENTRY:PATH, such as ctdocument.data:FIRST_NAME")
        }
        let name = String(text[..<colon])
        guard !name.isEmpty, !name.contains("/"), !name.hasPrefix(".") else {
            throw ICTDocumentError(.invalidKeyPath, keyPath: text, "'\(name)' is not an entry name of the document")
        }
        entry = name
        filePath = ICTDocumentFormat.trimmingTrailingSlashes(path) + "/" + name
        pathInFile = String(text[text.index(after: colon)...])
        if let problem = Self.entryProblem(filePath) { throw ICTDocumentError(.unreadableFile, entry: name, keyPath: text, problem) }
    }

    /// The path whose lock a read-modify-write of a key path in `path`
    /// holds: the document for an entry of an `.ict` document (its saves
    /// replace the whole package), else the file.
    ///
    /// Reads the item's status.
    package static func lockPath(_ path: String) -> String {
        path == "-" || !ICTDocumentFormat.isPackage(atPath: path) ? path : ICTDocumentFormat.trimmingTrailingSlashes(path)
    }

    /// An error about this address, at its entry and key path as typed.
    package func error(_ code: ICTDocumentError.Code, _ message: String) -> ICTDocumentError {
        ICTDocumentError(code, entry: entry ?? "", keyPath: keyPathText, message)
    }

    /// Why an `.ict` document's entry cannot be read or edited in place: it
    /// is a symbolic link (links in a document are never followed, as
    /// `DocumentFormats` reads entries: an edit would write through it, maybe
    /// outside the document) or a folder; nil for a file or nothing there.
    private static func entryProblem(_ file: String) -> String? {
        guard let info = try? FileInfo.of(path: file, followingLink: false) else { return nil }
        switch info.kind {
        case .symbolicLink:
            let destination = (try? SymbolicLink.destination(ofLinkAt: file)) ?? "?"
            return "the entry is a symbolic link (to \(destination)), not a file; links in a document are not followed"
        case .directory:
            return "the entry is a folder, not a file"
        default:
            return nil
        }
    }
}

/// One value of a property list found by key path (see `KeyPathAddress`),
/// with the whole property list it is in, to read it or edit it and write
/// the property list back in its own form (binary, XML or JSON; OpenStep is
/// read only).
package struct KeyPathTarget: Sendable {
    /// Where the key path points.
    package let address: KeyPathAddress
    /// The key path in the file's property list, before references are
    /// followed; with `!` steps (see `EmbeddedKeyPath`), the part up to the first.
    package let keyPath: PropertyListKeyPath
    /// The whole key path, through the data values its `!` steps read.
    package let embeddedKeyPath: EmbeddedKeyPath
    /// The whole property list of the file (or entry).
    package var propertyList: PropertyListValue
    /// The form the file was read in, and is written back in.
    package let format: PropertyListFormat

    /// The target at `address` in `propertyList`, read from `address.filePath` in `format`.
    /// In a document's entry that is a keyed archive, the key path starts at the root object.
    package init(address: KeyPathAddress, propertyList: PropertyListValue, format: PropertyListFormat) {
        self.address = address
        self.propertyList = propertyList
        self.format = format
        var parsed = EmbeddedKeyPath(parsing: address.pathInFile)
        var components = address.pathInFile.isEmpty && address.entry != nil ? [] : parsed.segments[0].components
        if address.entry != nil, KeyedArchiveKeyPath.isArchive(propertyList) {
            components = [.key("$top"), .key(ICTDocumentFormat.topKey)] + components
        }
        keyPath = PropertyListKeyPath(components)
        parsed.segments[0] = keyPath
        embeddedKeyPath = parsed
    }

    /// The path in the property list itself, references followed (see `KeyedArchiveKeyPath`).
    package func resolved(followingLast: Bool = true) -> PropertyListKeyPath {
        KeyedArchiveKeyPath.resolve(keyPath, in: propertyList, followingLast: followingLast)
    }

    /// The value at the key path.
    ///
    /// - Throws: `ICTDocumentError` with code `.missingValue` when nothing is there.
    /// Through `!` steps, reads each data value on the way.
    ///
    /// - Throws: `ICTDocumentError` with code `.missingValue` when nothing
    ///   is there, `.invalidKeyPath` when a `!` step cannot be taken (the
    ///   message says why and where, as `EmbeddedKeyPathError` does).
    package func value() throws(ICTDocumentError) -> PropertyListValue {
        guard !embeddedKeyPath.segments.contains(where: { $0.components.contains(.key("")) }) else {
            throw address.error(.missingValue, "no value at this key path")
        }
        guard embeddedKeyPath.hasSteps else {
            guard let found = propertyList.value(at: resolved()) else { throw address.error(.missingValue, "no value at this key path") }
            return found
        }
        do throws(EmbeddedKeyPathError) {
            return try EmbeddedArchives().value(in: propertyList, at: embeddedKeyPath)
        } catch {
            throw address.error(error.code == .keyPath ? .missingValue : .invalidKeyPath, error.message)
        }
    }

    /// Edits the value at the key path: `body` gets the property list the
    /// key path's last segment is in (the file's, or one read from a data
    /// value by a `!` step) and the path there, references followed
    /// (see `KeyedArchiveKeyPath`; the last one only when `followingLast`).
    /// Data values on the way are written back in their own form
    /// (`EmbeddedArchives.edit(_:at:followingLast:_:)`); the file is
    /// written by the caller, with `encoded()`.
    ///
    /// - Throws: `EmbeddedKeyPathError` saying where the key path fails;
    ///   the property list is then unchanged.
    package mutating func edit(
        followingLast: Bool, _ body: (inout PropertyListValue, PropertyListKeyPath) throws(PropertyListKeyPathError) -> Void
    ) throws(EmbeddedKeyPathError) {
        try EmbeddedArchives().edit(&propertyList, at: embeddedKeyPath, followingLast: followingLast, body)
    }

    /// The property list's bytes in the file's own form, to write back.
    ///
    /// - Throws: `ICTDocumentError` with code `.unwritableValue` when the
    ///   form is OpenStep (read only) or the value cannot be written in it.
    package func encoded() throws(ICTDocumentError) -> [UInt8] {
        do throws(PropertyListError) {
            switch format {
            case .binary: return try BinaryPropertyListWriter().encode(propertyList)
            case .xml: return try XMLPropertyListWriter().encode(propertyList)
            case .json: return try JSONPropertyListWriter().encode(propertyList)
            case .openStep:
                throw PropertyListError(
                    .unsupportedValue, at: .none,
                    "the OpenStep form is read only; convert the file first (ict convert FILE --format xml1 -o FILE)")
            }
        } catch {
            var failure = address.error(.unwritableValue, error.message)
            failure.propertyListError = error
            throw failure
        }
    }

    /// The value at `keyPath` of a binary property-list file, found without
    /// reading the rest of the file (`BinaryPropertyListDocument`: the
    /// trailer, then only the objects on the way), for one value of a large
    /// file. nil unless `path` is a regular binary property-list file and
    /// the path is a plain one (not into an `.ict` document, not following
    /// an archive's references from `$top`, no `!` step), and nil whenever anything on
    /// the way fails: the caller then reads the whole file, whose reading
    /// says what is wrong.
    ///
    /// Maps the file.
    package static func valueInBinaryFile(_ path: String, keyPath text: String, limits: PropertyListLimits = .default) -> PropertyListValue? {
        let embedded = EmbeddedKeyPath(parsing: text)
        let keyPath = embedded.segments[0]
        guard path != "-", !embedded.hasSteps, keyPath.components.first != .key("$top"), !keyPath.components.contains(.key("")),
            !ICTDocumentFormat.isPackage(atPath: path)
        else { return nil }
        guard let info = try? FileInfo.of(path: path), info.kind == .regular, Int(info.size) <= limits.maximumInputSize,
            let opened = try? OpenFile(path: path, options: .nonBlocking)
        else { return nil }
        // The mapping outlives the descriptor, but the descriptor must outlive the mapping's making.
        defer { withExtendedLifetime(opened) {} }
        guard let file = try? MappedFile(descriptor: opened.descriptor, path: path), file.bytes.count <= limits.maximumInputSize,
            file.bytes.starts(with: "bplist00".utf8),
            let document = try? BinaryPropertyListDocument(file: file, limits: limits)
        else { return nil }
        return (try? document.value(at: keyPath)) ?? nil
    }
}
