/// Base64 as XML property lists hold `<data>`: decoded with whitespace
/// anywhere, encoded in lines wrapped the way CoreFoundation wraps them.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// For each 12 bits, its two characters as they lie in memory, the
    /// first at the lower address: half the lookups of one per 6 bits.
    private static let characterPairs: [UInt16] = (0..<4096).map { bits in
        UInt16(alphabet[bits >> 6]) | UInt16(alphabet[bits & 0x3F]) << 8
    }

    private static let whitespace: UInt8 = 0xFE
    private static let padding: UInt8 = 0xFD
    private static let invalid: UInt8 = 0xFF

    /// For each byte: its 6-bit value, or `whitespace`, `padding` or `invalid`.
    private static let decodingTable: [UInt8] = {
        var table = [UInt8](repeating: invalid, count: 256)
        for (value, character) in alphabet.enumerated() { table[Int(character)] = UInt8(value) }
        for character in " \t\r\n".utf8 { table[Int(character)] = whitespace }
        table[Int(UInt8(ascii: "="))] = padding
        return table
    }()

    /// Decodes base64 text, skipping spaces, tabs and line breaks anywhere.
    /// Trailing `=` padding may be missing; anything after it but whitespace
    /// or more `=` is an error. Returns nil when the text is not base64.
    static func decode(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var output: [UInt8] = []
        output.reserveCapacity(text.count / 4 * 3 + 3)
        var accumulator: UInt32 = 0
        var sextets = 0
        var paddingCount = 0
        let table = decodingTable
        for character in text {
            let value = table[Int(character)]
            if value < 64 {
                guard paddingCount == 0 else { return nil }
                accumulator = accumulator << 6 | UInt32(value)
                sextets += 1
                if sextets == 4 {
                    output.append(UInt8(truncatingIfNeeded: accumulator >> 16))
                    output.append(UInt8(truncatingIfNeeded: accumulator >> 8))
                    output.append(UInt8(truncatingIfNeeded: accumulator))
                    accumulator = 0
                    sextets = 0
                }
            } else if value == whitespace {
                continue
            } else if value == padding {
                paddingCount += 1
            } else {
                return nil
            }
        }
        switch sextets {
        case 0:
            guard paddingCount == 0 else { return nil }
        case 2:
            guard paddingCount == 0 || paddingCount == 2 else { return nil }
            output.append(UInt8(truncatingIfNeeded: accumulator >> 4))
        case 3:
            guard paddingCount <= 1 else { return nil }
            output.append(UInt8(truncatingIfNeeded: accumulator >> 10))
            output.append(UInt8(truncatingIfNeeded: accumulator >> 2))
        default:
            return nil
        }
        return output
    }

    /// Appends `bytes` as base64 lines of `lineLength` characters (a multiple
    /// of 4; the last line may be shorter), each after `indent` tabs and
    /// ending in a newline. Empty input appends nothing.
    static func appendLines<Output: ByteSink>(
        of bytes: UnsafeRawBufferPointer, lineLength: Int, indent: Int,
        to output: inout Output
    ) {
        precondition(lineLength > 0 && lineLength % 4 == 0, "base64 lines hold whole groups of four")
        let groupsPerLine = lineLength / 4
        let totalGroups = (bytes.count + 2) / 3
        let fullGroups = bytes.count / 3
        var group = 0
        characterPairs.withUnsafeBufferPointer { pairs in
            while group < totalGroups {
                let lineEnd = min(totalGroups, group + groupsPerLine)
                let fullEnd = min(lineEnd, fullGroups)
                // The line's tabs and full groups in one reservation, written through a pointer.
                output.append(count: indent + (fullEnd - group) * 4) { line in
                    var out = line
                    for _ in 0..<indent {
                        out.pointee = UInt8(ascii: "\t")
                        out += 1
                    }
                    var position = group * 3
                    for _ in group..<fullEnd {
                        // Safe: a full group has three bytes from `position`.
                        let triple =
                            UInt32(bytes[position]) << 16 | UInt32(bytes[position &+ 1]) << 8
                            | UInt32(bytes[position &+ 2])
                        let four = UInt32(pairs[Int(triple >> 12)]) | UInt32(pairs[Int(triple & 0xFFF)]) << 16
                        UnsafeMutableRawPointer(out).storeBytes(of: four.littleEndian, as: UInt32.self)
                        out += 4
                        position &+= 3
                    }
                }
                group = fullEnd
                if group < lineEnd {
                    // The last, partial group, padded.
                    appendTail(bytes, from: group * 3, to: &output)
                    group += 1
                }
                output.append(UInt8(ascii: "\n"))
            }
        }
    }

    /// Appends the last one or two bytes as a padded group of four.
    private static func appendTail<Output: ByteSink>(_ bytes: UnsafeRawBufferPointer, from position: Int, to output: inout Output) {
        let first = UInt32(bytes[position])
        if bytes.count - position == 1 {
            output.append(alphabet[Int(first >> 2)])
            output.append(alphabet[Int(first << 4 & 0x3F)])
            output.append(contentsOf: "==".utf8)
        } else {
            let second = UInt32(bytes[position + 1])
            output.append(alphabet[Int(first >> 2)])
            output.append(alphabet[Int((first << 4 | second >> 4) & 0x3F)])
            output.append(alphabet[Int(second << 2 & 0x3F)])
            output.append(UInt8(ascii: "="))
        }
    }
}
