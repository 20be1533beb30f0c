import PropertyList
import SystemPackage
import SystemSupport

// Reading freedesktop shared-mime-info XML. Choice of parser: PropertyList's
// public `XMLEventParser` (libxml2's SAX2 parser, no tree), not FoundationXML's
// `XMLParser`. Both are libxml2 underneath, but XMLParser would pull all of
// Foundation into this module (style rule 2 asks for FoundationEssentials at
// most), calls a delegate with a bridged String and attribute dictionary
// for every element — the full freedesktop.org.xml has ~40,000 elements,
// mostly translated comments we skip — and would make a second module link
// libxml2. The event parser compares element names without allocating and
// builds strings only for what we keep, which the ≤ 50 ms load budget needs;
// being libxml2's SAX2 parser with no tree, it made bench row j's load about
// half the instructions it was on `XMLStreamReader` (xmlTextReader).

/// One `<mime-type>` of a shared-mime-info file.
public struct MimeTypeDeclaration: Hashable, Sendable {
    /// The `type` attribute (`image/png`), lower-cased.
    public var mimeType: String
    /// The `<alias type=…>` names, lower-cased.
    public var aliases: [String] = []
    /// The `<sub-class-of type=…>` names, lower-cased.
    public var parents: [String] = []
    /// The `<glob pattern=…>` patterns, as written.
    public var globs: [String] = []
    /// The `<comment>` without `xml:lang` (the English one).
    public var comment: String?
    /// Where it was read (file and line).
    public var source: DeclarationSource

    /// Makes a declaration; names are expected lower-cased, as the readers give them.
    public init(
        mimeType: String, aliases: [String] = [], parents: [String] = [], globs: [String] = [], comment: String? = nil,
        source: DeclarationSource
    ) {
        self.mimeType = mimeType
        self.aliases = aliases
        self.parents = parents
        self.globs = globs
        self.comment = comment
        self.source = source
    }

    /// The filename extensions of the globs of the form `*.ext` (without
    /// other wildcards), lower-cased; `*.tar.gz` gives `tar.gz`.
    public var filenameExtensions: [String] {
        var result: [String] = []
        for glob in globs {
            let tail = glob.dropFirst(2)
            if glob.utf8.allSatisfy({ $0 < 0x80 }) {
                // ASCII, the usual case: test bytes, which are characters here.
                let utf8 = glob.utf8
                guard utf8.count > 2, utf8.starts(with: "*.".utf8),
                    !utf8.dropFirst(2).contains(where: { $0 == 0x2A || $0 == 0x3F || $0 == 0x5B || $0 == 0x5D })
                else { continue }  // * ? [ ]
            } else {
                guard glob.hasPrefix("*."), !tail.isEmpty, !tail.contains(where: { "*?[]".contains($0) }) else { continue }
            }
            let lowered = String(tail).lowercasedIfNeeded
            if !result.contains(lowered) { result.append(lowered) }
        }
        return result
    }
}

/// Reads freedesktop shared-mime-info XML (`/usr/share/mime/packages/*.xml`):
/// `mime-type`, `glob`, `sub-class-of`, `alias` and the untranslated
/// `comment`; `magic`, `treemagic`, `root-XML` and icons are skipped.
public enum SharedMimeInfoReader {
    /// The directory Debian's `shared-mime-info` installs its sources in.
    public static let systemPackagesDirectory: FilePath = "/usr/share/mime/packages"
    /// `systemPackagesDirectory` as text, for the kit's own callers.
    package static let systemPackagesDirectoryText = "/usr/share/mime/packages"

    /// Reads the `<mime-type>` elements of `bytes`.
    ///
    /// - Throws: `UniformTypeError` `.malformedSharedMimeInfo` naming `file`,
    ///   with line and column, when the XML is not well-formed or a
    ///   `mime-type` has no `type`.
    public static func read(_ bytes: UnsafeRawBufferPointer, file: FilePath?) throws(UniformTypeError) -> [MimeTypeDeclaration] {
        try read(bytes, fileText: file.map(RawFileName.text))
    }

    /// `read(_:file:)` with the file named by text (bytes that are not UTF-8
    /// carried as `RawFileName` carries them), for the kit's own readers.
    ///
    /// - Throws: as `read(_:file:)`.
    package static func read(_ bytes: UnsafeRawBufferPointer, fileText file: String?) throws(UniformTypeError) -> [MimeTypeDeclaration] {
        let handler = SharedMimeInfoHandler(file: file)
        do {
            try XMLEventParser.parse(bytes, handler: handler)
        } catch {
            throw UniformTypeError(error, path: file, as: .malformedSharedMimeInfo)
        }
        return handler.result
    }

    /// Reads the shared-mime-info file at `path`.
    ///
    /// - Throws: `UniformTypeError` with code `.io` when the file cannot be
    ///   read, else as `read(_:file:)`.
    package static func read(contentsOf path: String) throws(UniformTypeError) -> [MimeTypeDeclaration] {
        let file = try mapFile(path, readingAs: .malformedSharedMimeInfo)
        return try read(file.bytes, fileText: path)
    }

    /// The entries of every `*.xml` file of a `packages` directory, in name
    /// order, and the files read.
    static func read(packagesDirectory directory: String) throws(UniformTypeError) -> (entries: [MimeTypeDeclaration], files: [String]) {
        let files = FileSystem.entries(of: directory).filter { $0.hasSuffix(".xml") }.sorted().map { directory + "/" + $0 }
        var entries: [MimeTypeDeclaration] = []
        for file in files { entries += try SharedMimeInfoReader.read(contentsOf: file) }
        return (entries, files)
    }
}

/// Builds the `MimeTypeDeclaration`s while `XMLEventParser` reads; keeps the
/// text of the untranslated `<comment>` only.
private final class SharedMimeInfoHandler: XMLEventHandler {
    let file: String?
    var result: [MimeTypeDeclaration] = []
    private var current: MimeTypeDeclaration?
    private var depth = 0
    private var mimeTypeDepth = 0
    private var commentDepth = 0  // Depth of an untranslated <comment> being read, else 0.
    private var commentText: [UInt8] = []

    init(file: String?) { self.file = file }

    func startElement(_ element: XMLElementStart) throws(PropertyListError) {
        depth += 1
        if element.localNameIs("mime-type") {
            guard let type = element.attribute("type") else {
                throw PropertyListError(
                    .unexpectedElement, at: .lineColumn(line: element.line, column: 1),
                    "a <mime-type> has no type attribute")
            }
            current = MimeTypeDeclaration(mimeType: type.lowercased(), source: DeclarationSource(fileText: file, line: element.line))
            mimeTypeDepth = depth
        } else if current != nil, depth == mimeTypeDepth + 1 {
            if element.localNameIs("glob") {
                if let pattern = element.attribute("pattern") { current?.globs.append(pattern) }
            } else if element.localNameIs("sub-class-of") {
                if let type = element.attribute("type") { current?.parents.append(type.lowercased()) }
            } else if element.localNameIs("alias") {
                if let type = element.attribute("type") { current?.aliases.append(type.lowercased()) }
            } else if element.localNameIs("comment"), !element.hasAttribute("xml:lang") {
                commentDepth = depth
                commentText.removeAll(keepingCapacity: true)
            }
        }
    }

    func text(_ utf8: UnsafeBufferPointer<UInt8>) {
        if commentDepth != 0, depth == commentDepth { commentText.append(contentsOf: utf8) }
    }

    func endElement() {
        if commentDepth == depth {
            current?.comment = String(decoding: commentText, as: UTF8.self)
            commentDepth = 0
        }
        if depth == mimeTypeDepth, let finished = current {
            result.append(finished)
            current = nil
            mimeTypeDepth = 0
        }
        depth -= 1
    }
}
