#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The text of a one-file text document (`.icfnote`, `.dox`): the whole
/// file as UTF-8, checked byte by byte so that an error says where.
///
/// `TextNoteFile` reads a note's file with it, and so can a `Document<Data>`
/// (`DocumentObject`) that loads its text (import `DocumentFormats` for it).
public struct DocumentText: Hashable, Sendable {
    /// The text.
    public var text: String
    /// How many bytes at the end were dropped as a character cut short
    /// (0 to 3); 0 when the file ends on a whole character.
    public var droppedByteCount: Int

    /// Decodes `bytes` as UTF-8.
    ///
    /// With `allowingTruncatedEnd`, a last character cut short — bytes that
    /// begin a character and end the file before it is whole, as the `.dox`
    /// app wrote when it took a character count for a byte count — is
    /// dropped and counted in `droppedByteCount` instead of refused.
    ///
    /// - Throws: `ICTDocumentError` `.invalidText` with the `byteOffset` of
    ///   the first byte that is not part of valid UTF-8 (of a character cut
    ///   short, without `allowingTruncatedEnd`). Costs one pass over the bytes.
    public init(decoding bytes: Data, allowingTruncatedEnd: Bool) throws(ICTDocumentError) {
        let (validCount, problem) = Self.validPrefix(of: bytes)
        switch problem {
        case nil:
            droppedByteCount = 0
        case .truncated where allowingTruncatedEnd:
            droppedByteCount = bytes.count - validCount
        case .truncated:
            throw ICTDocumentError(.invalidText, byteOffset: validCount, "the text ends inside a UTF-8 character")
        case .invalid:
            throw ICTDocumentError(.invalidText, byteOffset: validCount, "not UTF-8 text: byte 0x\(Self.hex(bytes, validCount)) here")
        }
        text = String(decoding: bytes.prefix(validCount), as: UTF8.self)
    }

    private enum Problem { case truncated, invalid }

    /// How many bytes from the start are whole, valid UTF-8 characters, and
    /// what stops the rest: an invalid byte, or the end inside a character.
    private static func validPrefix(of bytes: Data) -> (Int, Problem?) {
        bytes.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> (Int, Problem?) in
            var index = 0
            while index < raw.count {
                let lead = raw[index]
                let length: Int
                // The range of the byte after the lead: narrower for E0, ED, F0, F4 (no overlong forms, surrogates or scalars past U+10FFFF).
                var second: ClosedRange<UInt8> = 0x80...0xBF
                switch lead {
                case 0x00...0x7F: length = 1
                case 0xC2...0xDF: length = 2
                case 0xE0: (length, second) = (3, 0xA0...0xBF)
                case 0xED: (length, second) = (3, 0x80...0x9F)
                case 0xE1...0xEF: length = 3
                case 0xF0: (length, second) = (4, 0x90...0xBF)
                case 0xF4: (length, second) = (4, 0x80...0x8F)
                case 0xF1...0xF3: length = 4
                default: return (index, .invalid)
                }
                for offset in 1..<length {
                    // `index + offset` cannot overflow: both are below raw.count + 4.
                    guard index + offset < raw.count else { return (index, .truncated) }
                    let byte = raw[index + offset]
                    guard (offset == 1 ? second : 0x80...0xBF).contains(byte) else { return (index, .invalid) }
                }
                index += length
            }
            return (index, nil)
        }
    }

    private static func hex(_ bytes: Data, _ offset: Int) -> String {
        let byte = bytes[bytes.startIndex + offset]
        let digits = String(byte, radix: 16, uppercase: true)
        return byte < 0x10 ? "0" + digits : digits
    }
}
