import SystemSupport

/// The kinds of document the original apps wrote, told from a file name's
/// extension (in any case): the photo-and-name `.ict` package, the photo
/// app's `.ptk` package, and the flat UTF-8 text notes `.icfnote` (the
/// notes app) and `.dox` (the tutorial's notes app).
public enum DocumentKind: String, Hashable, Sendable, CaseIterable {
    /// A photo-and-name package (`ICTDocumentFile`).
    case ict
    /// A photo package (`PTKDocumentFile`).
    case ptk
    /// A one-file UTF-8 note (`TextNoteFile`).
    case icfnote
    /// A one-file UTF-8 note that may end inside a character (`TextNoteFile`).
    case dox

    /// The kind a file name (or a path's last part) names by its extension,
    /// in any case, trailing slashes aside: `Coffee.ict`, `Note.ICFNOTE`;
    /// nil for any other name. Nothing is looked up on disk.
    public static func of(name: some StringProtocol) -> DocumentKind? {
        let name = PathName.split(String(name)).name
        guard let dot = name.lastIndex(of: ".") else { return nil }
        return DocumentKind(rawValue: name[name.index(after: dot)...].lowercased())
    }

    /// The kind of the item at `path` when it is a document of a kind its
    /// name says: a package kind only as a directory, a text kind only as a
    /// regular file (a symbolic link to either is followed, as a user's
    /// path is). Reads the item's status only.
    package static func of(itemAtPath path: String) -> DocumentKind? {
        guard let kind = of(name: path), let info = try? FileInfo.of(path: path) else { return nil }
        return kind.accepts(info.kind) ? kind : nil
    }

    /// Whether an item of `fileKind` can be a document of this kind.
    func accepts(_ fileKind: FileKind) -> Bool {
        isPackage ? fileKind == .directory : fileKind == .regular
    }

    /// The file-name extension, without the dot: `ict`.
    public var fileExtension: String { rawValue }

    /// Whether a document of this kind is a package directory (`.ict`,
    /// `.ptk`) rather than one file (`.icfnote`, `.dox`).
    public var isPackage: Bool { self == .ict || self == .ptk }

    /// Whether a document of this kind is UTF-8 text (`.icfnote`, `.dox`).
    public var isText: Bool { !isPackage }

    /// The uniform type identifier of the kind, as `Schemas/ict-types.plist`
    /// declares it: the apps' own for `.ict` and `.ptk`, ICTKit's names for
    /// the notes (their apps' declarations are not published).
    public var typeIdentifier: String {
        switch self {
        case .ict: "com.appmosphereinc.icloudtest.doc"
        case .ptk: "com.razeware.PhotoKeeper.doc"
        case .icfnote: "com.ictkit.icfnote.doc"
        case .dox: "com.ictkit.dox.doc"
        }
    }

    /// The name a document of this kind shows when it has no display name of
    /// its own: the last part of `path` without the kind's extension
    /// (`Shopping List` for `notes/Shopping List.icfnote`).
    package func fileDisplayName(ofPath path: String) -> String {
        let fileName = PathName.split(path).name
        let suffix = "." + rawValue
        guard fileName.count > suffix.count, fileName.lowercased().hasSuffix(suffix) else { return fileName }
        return String(fileName.dropLast(suffix.count))
    }
}
