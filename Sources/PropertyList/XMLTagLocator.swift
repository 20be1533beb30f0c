/// Finds where a tag stands in the input, for error messages. Only run when
/// an error is thrown: it scans the input from the start.
enum XMLTagLocator {
    struct Position {
        var line: Int
        var column: Int
    }

    /// The start of the `index`th tag (counted from 0) and the position just
    /// after it, skipping comments, CDATA sections, processing instructions
    /// and the document type declaration; nil when there are fewer tags.
    static func locate(tag index: Int, in input: UnsafeRawBufferPointer, encoding: XMLInputEncoding)
        -> (start: Position, end: Position)?
    {
        let utf8 = asUTF8(input, encoding: encoding)
        return utf8.withUnsafeBufferPointer { locate(tag: index, in: $0) }
    }

    /// The start of the first `<!ENTITY` outside comments, else of the
    /// first `<!DOCTYPE`; nil when there is neither.
    static func locateDeclaration(in input: UnsafeRawBufferPointer, encoding: XMLInputEncoding) -> Position? {
        let utf8 = asUTF8(input, encoding: encoding)
        return utf8.withUnsafeBufferPointer { bytes in
            locate("<!ENTITY", in: bytes) ?? locate("<!DOCTYPE", in: bytes)
        }
    }

    /// The start of the first `marker` outside comments.
    private static func locate(_ marker: StaticString, in bytes: UnsafeBufferPointer<UInt8>) -> Position? {
        let pattern = UnsafeBufferPointer(start: marker.utf8Start, count: marker.utf8CodeUnitCount)
        func matches(_ prefix: UnsafeBufferPointer<UInt8>, at offset: Int) -> Bool {
            offset + prefix.count <= bytes.count && (0..<prefix.count).allSatisfy { bytes[offset + $0] == prefix[$0] }
        }
        let commentStart: StaticString = "<!--", commentEnd: StaticString = "-->"
        let opening = UnsafeBufferPointer(start: commentStart.utf8Start, count: commentStart.utf8CodeUnitCount)
        let closing = UnsafeBufferPointer(start: commentEnd.utf8Start, count: commentEnd.utf8CodeUnitCount)
        var line = 1
        var lineStart = bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF ? 3 : 0
        var index = lineStart
        var inComment = false
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x0A || (byte == 0x0D && !(index + 1 < bytes.count && bytes[index + 1] == 0x0A)) {
                line += 1
                index += 1
                lineStart = index
                continue
            }
            if inComment {
                if matches(closing, at: index) { inComment = false; index += closing.count; continue }
            } else if matches(opening, at: index) {
                inComment = true; index += opening.count; continue
            } else if matches(pattern, at: index) {
                // Columns count characters: every byte but UTF-8 continuation bytes.
                return Position(line: line, column: bytes[lineStart..<index].reduce(1) { $0 + ($1 & 0xC0 == 0x80 ? 0 : 1) })
            }
            index += 1
        }
        return nil
    }

    private static func asUTF8(_ input: UnsafeRawBufferPointer, encoding: XMLInputEncoding) -> [UInt8] {
        let bigEndian: Bool
        switch encoding {
        case .utf8: return Array(input)
        case .utf16BigEndian: bigEndian = true
        case .utf16LittleEndian: bigEndian = false
        case .utf32BigEndian, .utf32LittleEndian: preconditionFailure("UTF-32 is transcoded to UTF-8 before it is parsed")
        }
        var codeUnits: [UInt16] = []
        codeUnits.reserveCapacity(input.count / 2)
        for offset in stride(from: 0, to: input.count - 1, by: 2) {
            let high = UInt16(input[bigEndian ? offset : offset + 1])
            let low = UInt16(input[bigEndian ? offset + 1 : offset])
            codeUnits.append(high << 8 | low)
        }
        return Array(String(decoding: codeUnits, as: UTF16.self).utf8)
    }

    private enum Mode {
        case content, comment, cdata, processingInstruction, documentType, tag
    }

    private static func locate(tag target: Int, in bytes: UnsafeBufferPointer<UInt8>) -> (start: Position, end: Position)? {
        var line = 1
        var mode = Mode.content
        var quote: UInt8 = 0
        var bracketDepth = 0
        var tagIndex = 0
        var tagStart = Position(line: 1, column: 1)
        // A byte order mark takes no column.
        let byteOrderMark = bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF
        var index = byteOrderMark ? 3 : 0
        var lineStart = index

        func column(at offset: Int) -> Int {
            // Columns count characters: every byte but UTF-8 continuation bytes.
            bytes[lineStart..<offset].reduce(1) { $0 + ($1 & 0xC0 == 0x80 ? 0 : 1) }
        }
        func hasPrefix(_ prefix: StaticString, at offset: Int) -> Bool {
            let count = prefix.utf8CodeUnitCount
            guard offset + count <= bytes.count else { return false }
            return (0..<count).allSatisfy { bytes[offset + $0] == prefix.utf8Start[$0] }
        }

        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x0A || byte == 0x0D {
                if byte == 0x0D, index + 1 < bytes.count, bytes[index + 1] == 0x0A { index += 1 }
                line += 1
                index += 1
                lineStart = index
                continue
            }
            switch mode {
            case .content:
                if byte == UInt8(ascii: "<") {
                    if hasPrefix("<!--", at: index) {
                        mode = .comment; index += 4; continue
                    } else if hasPrefix("<![CDATA[", at: index) {
                        mode = .cdata; index += 9; continue
                    } else if hasPrefix("<?", at: index) {
                        mode = .processingInstruction
                    } else if hasPrefix("<!", at: index) {
                        mode = .documentType
                    } else {
                        mode = .tag
                        tagStart = Position(line: line, column: column(at: index))
                    }
                }
            case .comment:
                if hasPrefix("-->", at: index) { mode = .content; index += 3; continue }
            case .cdata:
                if hasPrefix("]]>", at: index) { mode = .content; index += 3; continue }
            case .processingInstruction:
                if hasPrefix("?>", at: index) { mode = .content; index += 2; continue }
            case .documentType:
                if quote != 0 {
                    if byte == quote { quote = 0 }
                } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                    quote = byte
                } else if byte == UInt8(ascii: "[") {
                    bracketDepth += 1
                } else if byte == UInt8(ascii: "]") {
                    bracketDepth -= 1
                } else if byte == UInt8(ascii: ">") && bracketDepth <= 0 {
                    mode = .content
                    bracketDepth = 0
                }
            case .tag:
                if quote != 0 {
                    if byte == quote { quote = 0 }
                } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                    quote = byte
                } else if byte == UInt8(ascii: ">") {
                    mode = .content
                    if tagIndex == target {
                        return (tagStart, Position(line: line, column: column(at: index + 1)))
                    }
                    tagIndex += 1
                }
            }
            index += 1
        }
        return nil
    }
}
