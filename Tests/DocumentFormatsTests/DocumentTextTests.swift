import DocumentFormats
import Foundation
import Testing

@Suite struct DocumentTextTests {
    // "Grüße" in UTF-8, by hand: G r (C3 BC = ü) (C3 9F = ß) e.
    static let grusse: [UInt8] = [0x47, 0x72, 0xC3, 0xBC, 0xC3, 0x9F, 0x65]

    @Test func wholeTextDecodes() throws {
        let text = try DocumentText(decoding: Data(Self.grusse), allowingTruncatedEnd: false)
        #expect(text.text == "Grüße")
        #expect(text.droppedByteCount == 0)
    }

    @Test func aCharacterCutShortAtTheEndIsDroppedWhenAllowed() throws {
        // Five bytes: "Grü" and the first byte of "ß" (as the .dox app wrote 5 characters as 5 bytes).
        let cut = Data(Self.grusse.prefix(5))
        let text = try DocumentText(decoding: cut, allowingTruncatedEnd: true)
        #expect(text.text == "Grü")
        #expect(text.droppedByteCount == 1)
        #expect { try DocumentText(decoding: cut, allowingTruncatedEnd: false) } throws: {
            ($0 as? ICTDocumentError)?.code == .invalidText && ($0 as? ICTDocumentError)?.byteOffset == 4
        }
    }

    @Test func anInvalidByteIsAnErrorAtItsOffsetEvenWhenTruncationIsAllowed() throws {
        // 0xFF is never UTF-8: offset 2. A lead byte followed by ASCII (C3 41) is not a cut-short end: offset 1.
        for (bytes, offset) in [([0x41, 0x42, 0xFF, 0x43] as [UInt8], 2), ([0x41, 0xC3, 0x41], 1), ([0xED, 0xA0, 0x80], 0), ([0xC0, 0xAF], 0)] {
            #expect {
                try DocumentText(decoding: Data(bytes), allowingTruncatedEnd: true)
            } throws: { error in
                let error = error as? ICTDocumentError
                return error?.code == .invalidText && error?.byteOffset == offset
                    && error?.description.hasPrefix("byte \(offset): not UTF-8 text: byte 0x") == true
            }
        }
    }

    @Test func agreesWithFoundationOnEveryTwoByteSequence() {
        // Foundation's UTF-8 decoder is the oracle: every pair of bytes is valid for both or for neither.
        for first in 0...255 {
            for second in 0...255 {
                let bytes = Data([UInt8(first), UInt8(second)])
                let ours = (try? DocumentText(decoding: bytes, allowingTruncatedEnd: false)) != nil
                let foundation = String(data: bytes, encoding: .utf8) != nil
                if ours != foundation { Issue.record("\(first), \(second): ours \(ours), Foundation \(foundation)") }
            }
        }
    }
}
