import SystemPackage
import SystemSupport

/// Recognises what a file holds from its first bytes, the one place ICTKit
/// sniffs content: identification (`TypeRegistry.identifyItem(atPath:)`),
/// `ict inspect`'s kinds of package entries and `ict convert`'s choice
/// between a package, a zip and a property list all ask it.
///
/// Sniffing answers "what is this file?" before anything reads it. A
/// reader's choice of parser for bytes it has been told are a property list
/// (`PropertyListFormat.detect`, `NonPropertyListFormat.detect`) is not
/// sniffing in this sense: it stays with the reader, below this module.
public enum ContentSniffer {
    /// How many leading bytes are looked at.
    public static let prefixLength = 4096

    /// The type identifier the leading bytes of a file show:
    /// - `bplist0` is `com.apple.binary-property-list`;
    /// - the PNG signature is `public.png`;
    /// - `PK\u{3}\u{4}` (or `PK\u{5}\u{6}`, an empty archive) is `public.zip-archive`;
    /// - after an optional UTF-8 byte-order mark and white space, `<plist`,
    ///   or `<?xml` with `<plist` or `<!DOCTYPE plist` in the bytes given, is
    ///   `com.apple.xml-property-list`;
    /// - UTF-8 without NUL bytes is `public.json` when it starts (after the
    ///   mark and white space) with `{` or `[`, else `public.utf8-plain-text`
    ///   (so no bytes at all are plain text);
    /// - anything else is `public.data`.
    ///
    /// - Parameters:
    ///   - bytes: the first bytes of the content; only `prefixLength` are looked at.
    ///   - isWholeContent: false when `bytes` were cut from a longer file, so a
    ///     UTF-8 sequence cut at the very end does not make the text binary.
    public static func typeIdentifier(ofLeadingBytes bytes: some Collection<UInt8>, isWholeContent: Bool) -> String {
        var head = Array(bytes.prefix(prefixLength))
        let isCut = !isWholeContent || bytes.count > prefixLength
        if head.starts(with: Array("bplist0".utf8)) { return "com.apple.binary-property-list" }
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "public.png" }
        if head.starts(with: [0x50, 0x4B, 0x03, 0x04]) || head.starts(with: [0x50, 0x4B, 0x05, 0x06]) { return "public.zip-archive" }
        if head.starts(with: [0xEF, 0xBB, 0xBF]) { head.removeFirst(3) }
        let start = head.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        if start.starts(with: Array("<plist".utf8))
            || (start.starts(with: Array("<?xml".utf8)) && (contains(Array("<plist".utf8), in: head) || contains(Array("<!DOCTYPE plist".utf8), in: head)))
        {
            return "com.apple.xml-property-list"
        }
        guard !head.contains(0), isUTF8(head, cut: isCut) else { return "public.data" }
        if let first = start.first, first == UInt8(ascii: "{") || first == UInt8(ascii: "[") { return "public.json" }
        return "public.utf8-plain-text"
    }

    /// The type identifier of the item at `filePath` by its content, following a
    /// symbolic link: `public.directory` for a directory (whether it is a
    /// package depends on its name, which `TypeRegistry.identifyItem(at:)`
    /// judges), what `typeIdentifier(ofLeadingBytes:isWholeContent:)` says for
    /// a regular file, nil for anything else or an item that cannot be read.
    /// A name that is not UTF-8 is opened byte for byte.
    ///
    /// Reads the item's status and at most the first `prefixLength` bytes.
    public static func typeIdentifier(ofItemAt filePath: FilePath) -> String? {
        typeIdentifier(ofItemAtPath: RawFileName.text(filePath))
    }

    /// `typeIdentifier(ofItemAt:)` for a path held as text (bytes that are not
    /// UTF-8 carried as `RawFileName` carries them), for the kit's own callers.
    package static func typeIdentifier(ofItemAtPath path: String) -> String? {
        switch (try? FileInfo.of(path: path))?.kind {
        case .directory:
            return "public.directory"
        case .regular:
            guard let head = FileSystem.prefix(ofFile: path, count: prefixLength) else { return nil }
            return typeIdentifier(ofLeadingBytes: head, isWholeContent: head.count < prefixLength)
        default:
            return nil
        }
    }

    private static func contains(_ pattern: [UInt8], in bytes: [UInt8]) -> Bool {
        bytes.firstRange(of: pattern) != nil
    }

    /// Whether `bytes` are valid UTF-8; when they are `cut` from longer
    /// content, an incomplete sequence at the very end is allowed.
    private static func isUTF8(_ bytes: [UInt8], cut: Bool) -> Bool {
        if String(validating: bytes, as: UTF8.self) != nil { return true }
        guard cut else { return false }
        for length in 1...3 where bytes.count > length {
            if String(validating: bytes.dropLast(length), as: UTF8.self) != nil { return true }
        }
        return false
    }
}
