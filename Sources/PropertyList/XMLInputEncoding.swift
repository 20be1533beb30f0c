/// The encoding of the input as its first bytes show it; what libxml2 is
/// told when it cannot tell by itself, and how errors are located.
enum XMLInputEncoding {
    case utf8
    case utf16BigEndian, utf16LittleEndian
    case utf32BigEndian, utf32LittleEndian

    /// Looks at the byte order mark, or at the pattern of zero bytes an
    /// ASCII first character leaves.
    static func detect(_ bytes: UnsafeRawBufferPointer) -> XMLInputEncoding {
        guard bytes.count >= 4 else { return .utf8 }
        switch (bytes[0], bytes[1], bytes[2], bytes[3]) {
        case (0x00, 0x00, 0xFE, 0xFF): return .utf32BigEndian
        case (0xFF, 0xFE, 0x00, 0x00): return .utf32LittleEndian
        case (0xFE, 0xFF, _, _): return .utf16BigEndian
        case (0xFF, 0xFE, _, _): return .utf16LittleEndian
        case (0x00, 0x00, 0x00, let c) where c != 0: return .utf32BigEndian
        case (let c, 0x00, 0x00, 0x00) where c != 0: return .utf32LittleEndian
        case (0x00, let c, 0x00, let d) where c != 0 && d != 0: return .utf16BigEndian
        case (let c, 0x00, let d, 0x00) where c != 0 && d != 0: return .utf16LittleEndian
        default: return .utf8
        }
    }

    /// UTF-32 input as UTF-8, without its byte order mark.
    ///
    /// - Throws: `.invalidString` at the line and column of a code unit that
    ///   is not a Unicode scalar, or of a trailing partial code unit.
    static func transcodeUTF32(_ bytes: UnsafeRawBufferPointer, bigEndian: Bool) throws(PropertyListError) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count / 4)
        var line = 1
        var column = 1
        var offset = 0
        while offset < bytes.count {
            guard bytes.count - offset >= 4 else {
                throw PropertyListError(
                    .invalidString, at: .lineColumn(line: line, column: column),
                    "the UTF-32 input ends in a partial code unit")
            }
            var unit: UInt32 = 0
            for index in 0..<4 {
                let byte = UInt32(bytes[offset + (bigEndian ? index : 3 - index)])
                unit = unit << 8 | byte
            }
            offset += 4
            guard let scalar = Unicode.Scalar(unit) else {
                throw PropertyListError(
                    .invalidString, at: .lineColumn(line: line, column: column),
                    "0x\(String(unit, radix: 16, uppercase: true)) is not a Unicode scalar")
            }
            if offset == 4 && scalar == "\u{FEFF}" { continue }
            if scalar == "\n" { line += 1; column = 1 } else { column += 1 }
            output.append(contentsOf: scalar.utf8)
        }
        return output
    }
    /// UTF-16 input as UTF-8, without its byte order mark.
    ///
    /// - Throws: `.invalidString` at the line and column of an unpaired
    ///   surrogate or of a trailing odd byte.
    static func transcodeUTF16(_ bytes: UnsafeRawBufferPointer, bigEndian: Bool) throws(PropertyListError) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count / 2)
        var line = 1
        var column = 1
        var offset = 0
        func unit(at offset: Int) -> UInt16 {
            UInt16(bytes[bigEndian ? offset : offset + 1]) << 8 | UInt16(bytes[bigEndian ? offset + 1 : offset])
        }
        while offset < bytes.count {
            guard bytes.count - offset >= 2 else {
                throw PropertyListError(
                    .invalidString, at: .lineColumn(line: line, column: column),
                    "the UTF-16 input ends in a partial code unit")
            }
            let first = unit(at: offset)
            offset += 2
            var scalar = Unicode.Scalar(first)
            if UTF16.isLeadSurrogate(first), bytes.count - offset >= 2, UTF16.isTrailSurrogate(unit(at: offset)) {
                scalar = Unicode.Scalar(0x10000 + (UInt32(first & 0x3FF) << 10 | UInt32(unit(at: offset) & 0x3FF)))
                offset += 2
            }
            guard let scalar else {
                throw PropertyListError(
                    .invalidString, at: .lineColumn(line: line, column: column),
                    "0x\(String(first, radix: 16, uppercase: true)) is an unpaired UTF-16 surrogate")
            }
            if offset <= 4 && scalar == "\u{FEFF}" && output.isEmpty { continue }
            if scalar == "\n" { line += 1; column = 1 } else { column += 1 }
            output.append(contentsOf: scalar.utf8)
        }
        return output
    }
}
