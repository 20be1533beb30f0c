import OrderedCollections
import PropertyList
import SystemSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A one-file text note, `.icfnote` or `.dox`: the whole file is the note
/// as UTF-8 text, with no metadata and no version.
///
/// A `.dox` may end inside a character (its app took the text's character
/// count for its byte count): what is whole is read, and the bytes dropped
/// are counted (`droppedByteCount`, with the offset where they start) so a
/// tool can warn. An `.icfnote` ending so, or either kind holding bytes that
/// are not UTF-8, is an error at that byte offset.
public struct TextNoteFile: Hashable, Sendable {
    /// The largest note read: a larger file is refused before any byte is
    /// read (16 MiB; a note is text).
    public static let maximumByteCount = 16 << 20

    /// `.icfnote` or `.dox`.
    public var kind: DocumentKind
    /// The text, and how many bytes at the end were dropped.
    public var content: DocumentText
    /// The file's size in bytes.
    public var byteCount: Int

    /// The note's text.
    public var text: String { content.text }

    /// How many bytes at the end were dropped as a character cut short (a
    /// `.dox` only); 0 when the file ends on a whole character.
    public var droppedByteCount: Int { content.droppedByteCount }

    /// Where the dropped bytes start: the byte offset of the character cut
    /// short; nil when none was dropped.
    public var truncationOffset: Int? { droppedByteCount > 0 ? byteCount - droppedByteCount : nil }

    /// The first line of the text, without its line break (all of it when it has none).
    public var firstLine: String {
        String(text.prefix { $0 != "\n" && $0 != "\r" && $0 != "\r\n" })
    }

    /// Reads a note from its bytes.
    ///
    /// - Precondition: `kind` is a text kind.
    /// - Throws: `ICTDocumentError` `.invalidText` with the `byteOffset` of
    ///   the first byte that is not UTF-8 (of a character cut short at the
    ///   end of an `.icfnote`).
    public init(bytes: [UInt8], kind: DocumentKind) throws(ICTDocumentError) {
        precondition(kind.isText, "a text note is an .icfnote or a .dox")
        self.kind = kind
        byteCount = bytes.count
        content = try DocumentText(decoding: Data(bytes), allowingTruncatedEnd: kind == .dox)
    }

    /// Reads the note at `path`, its kind from its name unless `kind` is given.
    ///
    /// Reads the file once; a symbolic link is followed, as a user's path is.
    ///
    /// - Precondition: `kind`, or the kind `path` names, is a text kind.
    /// - Throws: `ICTDocumentError` `.unreadableFile` when the file cannot be
    ///   opened or read, is not a regular file or is over `maximumByteCount`;
    ///   `.invalidText` as `init(bytes:kind:)`.
    package init(contentsOf path: String, kind: DocumentKind? = nil) throws(ICTDocumentError) {
        guard let kind = kind ?? DocumentKind.of(name: path), kind.isText else {
            preconditionFailure("\(path) is not named as a text note (.icfnote or .dox)")
        }
        try self.init(bytes: Self.readFile(path), kind: kind)
    }

    private static func readFile(_ path: String) throws(ICTDocumentError) -> [UInt8] {
        let file: OpenFile
        let info: FileInfo
        do throws(SystemCallError) {
            // Non-blocking: a FIFO named as a note is refused below, never waited on.
            file = try OpenFile(path: path, options: [.nonBlocking])
            info = try file.info()
        } catch {
            throw ICTDocumentError(.unreadableFile, "\(path): cannot open: \(error.reason)")
        }
        guard info.kind == .regular else {
            throw ICTDocumentError(.unreadableFile, "\(path): not a regular file (a note is one file of text)")
        }
        let bytes: [UInt8]?
        do throws(SystemCallError) {
            bytes = info.size <= Int64(maximumByteCount) ? try file.readToEnd(limit: maximumByteCount) : nil
        } catch {
            throw ICTDocumentError(.unreadableFile, "\(path): cannot read: \(error.reason)")
        }
        guard let bytes else { throw ICTDocumentError(.unreadableFile, "\(path): over the \(maximumByteCount)-byte limit of a note") }
        return bytes
    }

    /// The note's JSON form, as `ict convert NOTE --format json` writes it
    /// (`Schemas/text-note.json-form.schema.json`): `kind`, `text`, `bytes`
    /// (the file's size) and `droppedBytes` (of a character cut short),
    /// pretty-printed as `JSONPropertyListWriter` prints, without a final newline.
    public func jsonBytes() -> [UInt8] {
        let value: OrderedDictionary<String, PropertyListValue> = [
            "kind": .string(kind.rawValue), "text": .string(text),
            "bytes": .integer(PropertyListInteger(Int64(byteCount))),
            "droppedBytes": .integer(PropertyListInteger(Int64(droppedByteCount))),
        ]
        do {
            return try JSONPropertyListWriter(prettyPrinted: true).encode(.dictionary(value))
        } catch {
            preconditionFailure("a form of strings and integers always encodes: \(error)")
        }
    }

    /// Writes `text` as the note at `path`, as UTF-8, never leaving a
    /// half-written file: a new file is written beside it and renamed over
    /// it (`AtomicFileWriter`); an existing file's permissions are kept.
    /// Without `replacingExisting`, an item already at `path` (looked for
    /// just before writing) is not replaced. A symbolic link, device, FIFO or
    /// socket at `path` is refused and left as it is: a note is never
    /// written through a link or into a stream.
    ///
    /// - Throws: `ICTDocumentError` `.alreadyExists`, or `.unreadableFile`
    ///   saying what the system said when writing fails or what refused
    ///   kind of file is at `path` (nothing is changed then).
    package static func write(_ text: String, to path: String, replacingExisting: Bool) throws(ICTDocumentError) {
        if !replacingExisting, (try? FileInfo.of(path: path, followingLink: false)) != nil {
            throw ICTDocumentError(.alreadyExists, "\(path) already exists; not replaced")
        }
        var options = AtomicFileWriter.Options()
        options.specialFiles = .refused
        do throws(AtomicFileWriter.Failure) {
            let writer = try AtomicFileWriter(path: path, options: options)
            let bytes = Array(text.utf8)
            try bytes.withUnsafeBytes { buffer in Result { () throws(AtomicFileWriter.Failure) in try writer.write(buffer) } }.get()
            try writer.commit()
        } catch {
            throw ICTDocumentError(.unreadableFile, "\(path): cannot write: \(error.description)")
        }
    }
}
