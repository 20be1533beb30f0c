/// The bytes libxml2 is given for an XML property list, made so that text
/// reads as CoreFoundation reads it — the one place where ICTKit departs
/// from XML 1.0.
///
/// CoreFoundation's XML reader (`parseStringTag` in CFPropertyList.c) copies
/// the bytes between `<string>` and `</string>` (or `<key>` and `</key>`,
/// CDATA sections included) as they are: the control characters U+0000–U+001F
/// stay, and so does a carriage return, alone or before a line feed. Its
/// writer (`_appendEscapedString`) writes them back raw, escaping only `&`,
/// `<` and `>`, so Interface Builder and Xcode files hold raw ESC, U+0003 and
/// CR. XML 1.0 forbids those control characters (libxml2: "PCDATA invalid
/// Char value 27") and turns every CR and CR LF into LF (§2.11).
///
/// So, before libxml2 sees a UTF-8 document, each such character in text
/// between tags (and each character reference to such a control character,
/// `&#27;`, which CoreFoundation reads too) is replaced by a private-use character no byte of the input
/// uses (`XMLTextPlaceholders`), and the reader puts the character back in the
/// text libxml2 hands it. Everything else — well-formedness, tags, entities,
/// encodings, the DTD — is still libxml2's. A carriage return is replaced only
/// where it belongs to a value: in a run of text holding something besides
/// white space, or in the whole text of an element other than `<dict>`,
/// `<array>` and `<plist>`; line ends between elements are left to libxml2,
/// so the DTD validator sees white space there. Control characters inside
/// tags, comments and declarations are left for libxml2 to refuse, as
/// CoreFoundation refuses them there too.
///
/// UTF-32 input is transcoded to UTF-8 first (libxml2 cannot be relied on to
/// read it: Debian's fails even with a byte order mark), and so is UTF-16
/// input holding such characters. Input declaring another 8-bit encoding is
/// given to libxml2 as it is.
struct XMLParserInput {
    /// The input as UTF-8 when it was transcoded, else nil (the input itself is the text).
    private var transcoded: [UInt8]?
    /// The text with placeholders, when any character needed one.
    private var mapped: [UInt8]?
    /// What the placeholders stand for, when there are any.
    let placeholders: XMLTextPlaceholders?
    /// The encoding of the text (UTF-8 once transcoded).
    let encoding: XMLInputEncoding

    /// Prepares `bytes` for libxml2. Costs one pass over the input when it
    /// holds no byte below 0x20 other than tab and line feed; otherwise a
    /// copy of it.
    ///
    /// - Throws: `.invalidString` at the line and column of UTF-32 or UTF-16
    ///   code units that are not Unicode scalars.
    init(_ bytes: UnsafeRawBufferPointer) throws(PropertyListError) {
        let detected = XMLInputEncoding.detect(bytes)
        switch detected {
        case .utf32BigEndian, .utf32LittleEndian:
            transcoded = try XMLInputEncoding.transcodeUTF32(bytes, bigEndian: detected == .utf32BigEndian)
        case .utf16BigEndian, .utf16LittleEndian:
            if XMLTextPlaceholders.utf16NeedsPlaceholders(bytes, bigEndian: detected == .utf16BigEndian) {
                transcoded = try XMLInputEncoding.transcodeUTF16(bytes, bigEndian: detected == .utf16BigEndian)
            }
        case .utf8:
            break
        }
        encoding = transcoded == nil ? detected : .utf8
        guard encoding == .utf8, transcoded != nil || !XMLTextPlaceholders.declaresOtherEncoding(bytes) else {
            placeholders = nil
            return
        }
        let result = transcoded.map { $0.withUnsafeBytes { XMLTextPlaceholders.mapping($0) } } ?? XMLTextPlaceholders.mapping(bytes)
        mapped = result?.bytes
        placeholders = result?.placeholders
    }

    /// True when libxml2 is given the input as it is, 8-bit: nothing
    /// transcoded, no placeholder. The quick read
    /// (`XMLPropertyListQuickReader`) reads only such input, and of it only
    /// a document whose declaration names UTF-8 or no encoding.
    var isUTF8AsGiven: Bool { transcoded == nil && mapped == nil && encoding == .utf8 }

    /// Calls `body` with the text errors are located in (the input, or its
    /// UTF-8 transcoding) and the bytes and options libxml2 parses with.
    func withBytes<Result>(
        of input: UnsafeRawBufferPointer,
        _ body: (_ text: UnsafeRawBufferPointer, _ parser: UnsafeRawBufferPointer, _ options: XMLParseOptions) -> Result
    )
        -> Result
    {
        let options = transcoded == nil ? XMLParseOptions.untrusted : XMLParseOptions.untrusted.union(.ignoreDeclaredEncoding)
        func withText(_ text: UnsafeRawBufferPointer) -> Result {
            guard let mapped else { return body(text, text, options) }
            return mapped.withUnsafeBytes { body(text, $0, options) }
        }
        guard let transcoded else { return withText(input) }
        return transcoded.withUnsafeBytes { withText($0) }
    }
}

/// Thirty-two private-use characters standing for the bytes 0x00–0x1F in
/// text given to libxml2 (see `XMLParserInput`): byte `b` is written as
/// U+`base + b`. The block is one no character of the input falls in, so
/// every placeholder in the text libxml2 returns is one this pass wrote.
struct XMLTextPlaceholders: Sendable {
    /// The first of the 32 characters, in planes 15–16 and a multiple of 32.
    let base: UInt32

    /// The UTF-8 bytes shared by the block's 32 characters: as `base` is a
    /// multiple of 32, they differ only in the last byte.
    private var prefix: (UInt8, UInt8, UInt8) {
        (0xF0 | UInt8(base >> 18), 0x80 | UInt8(base >> 12 & 0x3F), 0x80 | UInt8(base >> 6 & 0x3F))
    }

    /// The placeholder's last UTF-8 byte for `byte` (below 0x20).
    private func lastByte(for byte: UInt8) -> UInt8 { 0x80 | UInt8(base & 0x3F) | byte }

    /// Appends `text` to `output` with each placeholder turned back into its byte.
    func restore(_ text: UnsafeBufferPointer<UInt8>, appendingTo output: inout [UInt8]) {
        let (first, second, third) = prefix
        let lowest = lastByte(for: 0)
        var runStart = 0
        var index = 0
        while index < text.count {
            // `index + 3 < text.count` keeps the four reads in bounds.
            if text[index] == first, index + 3 < text.count, text[index + 1] == second, text[index + 2] == third,
                text[index + 3] >= lowest, text[index + 3] < lowest + 0x20
            {
                output.append(contentsOf: UnsafeBufferPointer(rebasing: text[runStart..<index]))
                output.append(text[index + 3] - lowest)
                index += 4
                runStart = index
            } else {
                index += 1
            }
        }
        output.append(contentsOf: UnsafeBufferPointer(rebasing: text[runStart...]))
    }

    /// Bytes that may need a placeholder: below 0x20, except tab and line feed.
    private static let isCandidate: [Bool] = (0..<256).map { $0 < 0x20 && $0 != 0x09 && $0 != 0x0A }

    /// True when `bytes` hold a byte below 0x20 other than tab and line feed.
    /// Thirty-two bytes a step, then eight: most XML property lists hold
    /// none, and this pass is all they pay for the placeholders.
    static func containsCandidate(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let start = bytes.baseAddress else { return false }
        var offset = 0
        let space = SIMD32<UInt8>(repeating: 0x20), tab = SIMD32<UInt8>(repeating: 0x09), lineFeed = SIMD32<UInt8>(repeating: 0x0A)
        while offset + 32 <= bytes.count {
            let block = start.loadUnaligned(fromByteOffset: offset, as: SIMD32<UInt8>.self)
            let candidates = (block .< space) .& (block .!= tab) .& (block .!= lineFeed)
            // A lane is all ones where true; the four words ORed are not zero
            // when one is (the standard library's `any` scans lane by lane).
            let words = unsafeBitCast(candidates, to: (UInt64, UInt64, UInt64, UInt64).self)
            if words.0 | words.1 | words.2 | words.3 != 0 { return true }
            offset += 32
        }
        let ones: UInt64 = 0x0101_0101_0101_0101, low7 = 0x7F7F_7F7F_7F7F_7F7F as UInt64, high = 0x8080_8080_8080_8080 as UInt64
        // Per byte, exactly (no carry crosses a byte: each sum is at most 0x7F + 0x7F):
        // the high bit of `below` is set when the byte is below 0x20, of `zero` when it is 0.
        func below32(_ word: UInt64) -> UInt64 { ~(((word & low7) &+ 0x60 &* ones) | word) & high }
        func zero(_ word: UInt64) -> UInt64 { ~(((word & low7) &+ low7) | word) & high }
        while offset + 8 <= bytes.count {
            let word = start.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            let candidates = below32(word) & ~zero(word ^ (0x09 &* ones)) & ~zero(word ^ (0x0A &* ones))
            if candidates != 0 { return true }
            offset += 8
        }
        while offset < bytes.count {
            if isCandidate[Int(bytes[offset])] { return true }
            offset += 1
        }
        return false
    }

    /// True when UTF-16 `bytes` hold a code unit below 0x20 other than tab and line feed.
    static func utf16NeedsPlaceholders(_ bytes: UnsafeRawBufferPointer, bigEndian: Bool) -> Bool {
        var offset = 0
        while offset + 1 < bytes.count {
            let (high, low) = bigEndian ? (bytes[offset], bytes[offset + 1]) : (bytes[offset + 1], bytes[offset])
            if high == 0, isCandidate[Int(low)] { return true }
            offset += 2
        }
        return false
    }

    /// True when the XML declaration names an encoding other than UTF-8, in
    /// which the placeholders' UTF-8 bytes would mean something else.
    static func declaresOtherEncoding(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let head = Array(bytes.prefix(256))
        guard let start = head.firstRange(of: Array("<?xml".utf8)),
            let end = head[start.upperBound...].firstRange(of: Array("?>".utf8)),
            let name = head[start.upperBound..<end.lowerBound].firstRange(of: Array("encoding".utf8))
        else { return false }
        let rest = head[name.upperBound..<end.lowerBound].drop { $0 == 0x20 || $0 == 0x3D || $0 == 0x22 || $0 == 0x27 || $0 == 0x09 }
        let value = String(decoding: rest.prefix { $0 != 0x22 && $0 != 0x27 }, as: UTF8.self).lowercased()
        return value != "utf-8" && value != "utf8"
    }

    /// `bytes` (UTF-8) with placeholders for the characters libxml2 would
    /// refuse or normalise in text, and the placeholders used; nil when
    /// there are none, or when every block of planes 15–16 occurs in the
    /// input (then libxml2 reports the characters).
    static func mapping(_ bytes: UnsafeRawBufferPointer) -> (bytes: [UInt8], placeholders: XMLTextPlaceholders)? {
        guard containsCandidate(bytes), let base = unusedBlock(in: bytes) else { return nil }
        var mapper = XMLPlaceholderMapper(input: bytes, placeholders: XMLTextPlaceholders(base: base))
        mapper.run()
        return mapper.changed ? (mapper.output, mapper.placeholders) : nil
    }

    /// The first block of 32 characters from U+F0000 on that no character of `bytes` falls in.
    private static func unusedBlock(in bytes: UnsafeRawBufferPointer) -> UInt32? {
        var used = [UInt64](repeating: 0, count: 64)  // 4096 blocks of 32 in U+F0000…U+10FFFF.
        var index = 0
        while index + 3 < bytes.count {
            let lead = bytes[index]
            guard lead == 0xF3 || lead == 0xF4 else { index += 1; continue }
            let scalar =
                UInt32(lead & 0x07) << 18 | UInt32(bytes[index + 1] & 0x3F) << 12
                | UInt32(bytes[index + 2] & 0x3F) << 6 | UInt32(bytes[index + 3] & 0x3F)
            if scalar >= 0xF0000, scalar <= 0x10FFFF {
                let block = Int((scalar - 0xF0000) >> 5)
                used[block >> 6] |= 1 << UInt64(block & 63)
            }
            index += 4
        }
        for (word, bits) in used.enumerated() where bits != .max {
            return 0xF0000 + UInt32(word * 64 + (~bits).trailingZeroBitCount) * 32
        }
        return nil
    }

    /// Appends the placeholder for `byte` to `output`.
    fileprivate func append(_ byte: UInt8, to output: inout [UInt8]) {
        let (first, second, third) = prefix
        output.append(contentsOf: [first, second, third, lastByte(for: byte)])
    }
}

/// One pass over UTF-8 input, copying markup as it is and text with
/// placeholders (see `XMLParserInput` for which characters).
private struct XMLPlaceholderMapper {
    let input: UnsafeRawBufferPointer
    let placeholders: XMLTextPlaceholders
    var output: [UInt8] = []
    var changed = false
    /// Whether the last tag was the start tag of an element holding text.
    private var lastTagOpensText = false
    private var index = 0

    init(input: UnsafeRawBufferPointer, placeholders: XMLTextPlaceholders) {
        self.input = input
        self.placeholders = placeholders
        output.reserveCapacity(input.count + input.count / 16)
    }

    mutating func run() {
        while index < input.count {
            if input[index] == UInt8(ascii: "<"), !hasPrefix("<![CDATA[", at: index) {
                copyMarkup()
            } else {
                copyText()
            }
        }
    }

    private func hasPrefix(_ prefix: StaticString, at offset: Int) -> Bool {
        let count = prefix.utf8CodeUnitCount
        guard offset + count <= input.count else { return false }
        return (0..<count).allSatisfy { input[offset + $0] == prefix.utf8Start[$0] }
    }

    /// The offset just past the first `terminator` at or after `offset`, or the input's end.
    private func offset(after terminator: StaticString, from offset: Int) -> Int {
        var position = offset
        while position < input.count {
            if hasPrefix(terminator, at: position) { return position + terminator.utf8CodeUnitCount }
            position += 1
        }
        return input.count
    }

    /// Copies a tag, comment, processing instruction or declaration as it is.
    private mutating func copyMarkup() {
        let start = index
        if hasPrefix("<!--", at: start) {
            index = offset(after: "-->", from: start + 4)
        } else if hasPrefix("<?", at: start) {
            index = offset(after: "?>", from: start + 2)
        } else {
            index = endOfTag(from: start)
            let isDeclaration = hasPrefix("<!", at: start)
            let isEndTag = hasPrefix("</", at: start)
            let isEmpty = index - start >= 2 && input[index - 2] == UInt8(ascii: "/")
            if !isDeclaration {
                lastTagOpensText = !isEndTag && !isEmpty && !Self.containerNames.contains { nameMatches($0, at: start + 1) }
            }
        }
        output.append(contentsOf: input[start..<index])
    }

    private static let containerNames: [StaticString] = ["dict", "array", "plist"]

    /// True when the tag name at `offset` is `name`.
    private func nameMatches(_ name: StaticString, at offset: Int) -> Bool {
        guard hasPrefix(name, at: offset) else { return false }
        let after = offset + name.utf8CodeUnitCount
        guard after < input.count else { return true }
        let byte = input[after]
        return byte == UInt8(ascii: ">") || byte == UInt8(ascii: "/") || byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// Just past the `>` ending the tag or declaration at `start`, skipping
    /// quoted values and, in a `<!DOCTYPE`, the bracketed internal subset.
    private func endOfTag(from start: Int) -> Int {
        var quote: UInt8 = 0
        var bracketDepth = 0
        var position = start + 1
        while position < input.count {
            let byte = input[position]
            position += 1
            if quote != 0 {
                if byte == quote { quote = 0 }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: "[") {
                bracketDepth += 1
            } else if byte == UInt8(ascii: "]") {
                bracketDepth -= 1
            } else if byte == UInt8(ascii: ">"), bracketDepth <= 0 {
                return position
            }
        }
        return position
    }

    /// Copies one run of text (CDATA sections included) up to the next
    /// tag, replacing its control characters, and its carriage returns when
    /// the run belongs to a value.
    private mutating func copyText() {
        let start = index
        var isBlank = true
        var position = start
        while position < input.count {
            if hasPrefix("<![CDATA[", at: position) {
                isBlank = false
                position = offset(after: "]]>", from: position + 9)
                continue
            }
            let byte = input[position]
            if byte == UInt8(ascii: "<") { break }
            if byte != 0x20 && byte != 0x09 && byte != 0x0A && byte != 0x0D { isBlank = false }
            position += 1
        }
        let closesElement = hasPrefix("</", at: position)
        let keepsCarriageReturns = !isBlank || (lastTagOpensText && closesElement)
        var runStart = start
        var offset = start
        var inCDATA = false
        while offset < position {
            if !inCDATA, hasPrefix("<![CDATA[", at: offset) { inCDATA = true; offset += 9; continue }
            if inCDATA, hasPrefix("]]>", at: offset) { inCDATA = false; offset += 3; continue }
            let byte = input[offset]
            var length = 1
            var replaced: UInt8?
            if byte < 0x20, byte != 0x09, byte != 0x0A, byte != 0x0D || keepsCarriageReturns {
                replaced = byte
            } else if byte == UInt8(ascii: "&"), !inCDATA, let reference = controlCharacterReference(at: offset, before: position) {
                (replaced, length) = (reference.value, reference.length)
            }
            if let replaced {
                output.append(contentsOf: input[runStart..<offset])
                placeholders.append(replaced, to: &output)
                runStart = offset + length
                changed = true
            }
            offset += length
        }
        output.append(contentsOf: input[runStart..<position])
        index = position
    }

    /// A character reference (`&#27;`, `&#x1B;`) at `offset` to a control
    /// character XML 1.0 forbids, which CoreFoundation reads; its value and length.
    private func controlCharacterReference(at offset: Int, before end: Int) -> (value: UInt8, length: Int)? {
        guard hasPrefix("&#", at: offset) else { return nil }
        var position = offset + 2
        let isHex = position < end && input[position] == UInt8(ascii: "x")
        if isHex { position += 1 }
        var value = 0
        let digitsStart = position
        while position < end, position - digitsStart < 8, input[position] != UInt8(ascii: ";") {
            let byte = input[position]
            let digit: Int
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = Int(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f") where isHex: digit = Int(byte - UInt8(ascii: "a")) + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F") where isHex: digit = Int(byte - UInt8(ascii: "A")) + 10
            default: return nil
            }
            value = value * (isHex ? 16 : 10) + digit  // At most 8 digits: no overflow.
            position += 1
        }
        guard position > digitsStart, position < end, input[position] == UInt8(ascii: ";"),
            value < 0x20, value != 0x09, value != 0x0A, value != 0x0D
        else { return nil }
        return (UInt8(value), position + 1 - offset)
    }
}
