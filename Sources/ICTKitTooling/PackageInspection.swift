import KeyedArchive
import OrderedCollections
import PackageFormat
import PropertyList
import SystemSupport
import UniformTypes

/// What `ict inspect` says about one entry of a package directory.
package struct PackageEntrySummary {
    /// What a regular file holds, recognised from its first bytes.
    package enum ContentKind: String {
        case propertyList = "property-list"
        case keyedArchive = "keyed-archive"
        case png
        case text
        case other

        /// The name shown to people.
        package var displayName: String {
            switch self {
            case .propertyList: "property list"
            case .keyedArchive: "keyed archive"
            case .png: "PNG image"
            case .text: "text"
            case .other: "other"
            }
        }
    }

    /// The path inside the package, `Contents/Resources/x.nib`.
    package var path: String
    package var depth: Int
    package var wrapperKind: PackageWrapper.Kind
    /// Bytes of a regular file; for a directory, of all files below it.
    package var size: Int64
    package var contentKind: ContentKind?
    package var linkDestination: String?
}

/// Lists a package directory's entries with their sizes and content kinds,
/// reading the package lazily and each file's first 4 KB only
/// (`ContentSniffer.prefixLength`; a binary property list is mapped, and
/// only its trailer, offset table and top object are touched to find `$archiver`).
package struct PackageInspection {
    package let packagePath: String
    package let package: PackageWrapper
    package private(set) var entries: [PackageEntrySummary] = []

    package init(path: String) throws(DocumentPackageError) {
        packagePath = path
        package = try PackageWrapper(readingFrom: path, mode: .lazy)
        _ = try summarise(package, path: "", depth: 0)
    }

    /// Appends the summaries of `directory`'s children (each directory
    /// before what it holds) and returns their total file size.
    private mutating func summarise(_ directory: PackageWrapper, path: String, depth: Int)
        throws(DocumentPackageError) -> Int64
    {
        var total: Int64 = 0
        for child in directory.children {
            let childPath = path.isEmpty ? child.fileName! : path + "/" + child.fileName!
            var summary = PackageEntrySummary(path: childPath, depth: depth, wrapperKind: child.kind, size: 0)
            switch child.kind {
            case .directory:
                let index = entries.count
                entries.append(summary)
                entries[index].size = try summarise(child, path: childPath, depth: depth + 1)
                total += entries[index].size
                continue
            case .regularFile:
                summary.size = child.fileSize ?? 0
                summary.contentKind = try Self.contentKind(of: child, at: packagePath + "/" + childPath)
            case .symbolicLink:
                summary.linkDestination = child.symbolicLinkDestinationText
            }
            total += summary.size
            entries.append(summary)
        }
        return total
    }

    /// Recognises a file from its first bytes with `ContentSniffer`: a
    /// binary property list is a keyed archive when its top dictionary has
    /// `$archiver` (`KeyedArchiveObjectGraph.isBinaryArchive(atPath:)`); JSON counts as text, a zip as other.
    package static func contentKind(of file: PackageWrapper, at fileSystemPath: String) throws(DocumentPackageError) -> PackageEntrySummary.ContentKind {
        let prefix = Array(try file.contentsPrefix(maximumCount: ContentSniffer.prefixLength))
        switch ContentSniffer.typeIdentifier(ofLeadingBytes: prefix, isWholeContent: prefix.count < ContentSniffer.prefixLength) {
        case "com.apple.binary-property-list": return KeyedArchiveObjectGraph.isBinaryArchive(atPath: fileSystemPath) ? .keyedArchive : .propertyList
        case "com.apple.xml-property-list": return .propertyList
        case "public.png": return .png
        case "public.utf8-plain-text", "public.json": return .text
        default: return .other
        }
    }

    // MARK: Output for people

    /// The tree: the package, then each entry indented under its directory,
    /// with its size and kind; names with control characters escaped (`TerminalText`).
    package func treeText() -> String {
        let fileCount = entries.filter { $0.wrapperKind == .regularFile }.count
        let total = entries.filter { $0.depth == 0 }.reduce(Int64(0)) { $0 + $1.size }
        var lines = ["\(package.fileName ?? packagePath)/  package, \(entries.count) entries, \(fileCount) files, \(Self.sizeText(total))"]
        for entry in entries {
            let indent = String(repeating: "  ", count: entry.depth + 1)
            let name = RawFileName.escaped(PathName.split(entry.path).name)
            switch entry.wrapperKind {
            case .directory:
                lines.append("\(indent)\(name)/  \(Self.sizeText(entry.size))")
            case .regularFile:
                lines.append("\(indent)\(name)  \(Self.sizeText(entry.size))  \(entry.contentKind!.displayName)")
            case .symbolicLink:
                lines.append("\(indent)\(name) -> \(entry.linkDestination!)  link")
            }
        }
        // Each line is one line: any control character in it came from a name.
        return lines.map(TerminalText.escaped).joined(separator: "\n") + "\n"
    }

    /// `812 B`, `4.0 KB`, `50.0 MB` (powers of 1000, as the Finder shows).
    package static func sizeText(_ bytes: Int64) -> String {
        if bytes < 1000 { return "\(bytes) B" }
        let units = ["KB", "MB", "GB", "TB"]
        var value = Double(bytes) / 1000
        var unit = 0
        while value >= 1000, unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        let tenths = (value * 10).rounded() / 10
        return "\(tenths) \(units[unit])"
    }

    // MARK: Output for programs

    /// The `package` object of `ict inspect --json` (`Schemas/cli/inspect.schema.json`):
    /// `{"path", "entries": [{"path", "type", "size", "kind", "destination"}]}`.
    package struct JSONForm: Encodable {
        package struct Entry: Encodable {
            package var path: String
            /// directory, file or link.
            package var type: String
            package var size: Int
            package var kind: String?
            package var destination: String?
        }

        package var path: String
        package var entries: [Entry]
    }

    /// This package's `package` object.
    package func jsonForm() -> JSONForm {
        let list = entries.map { entry in
            let type =
                switch entry.wrapperKind {
                case .directory: "directory"
                case .regularFile: "file"
                case .symbolicLink: "link"
                }
            return JSONForm.Entry(
                path: entry.path, type: type, size: Int(entry.size), kind: entry.contentKind?.rawValue, destination: entry.linkDestination)
        }
        return JSONForm(path: packagePath, entries: list)
    }
}
