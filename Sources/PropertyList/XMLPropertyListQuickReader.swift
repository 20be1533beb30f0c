/// The first try at reading an XML property list: the common document —
/// UTF-8, an XML declaration and Apple's document type or neither, the
/// property-list elements with no attribute but `<plist version="1.0">`,
/// text with the five predefined entities at most, comments — read in one pass over
/// its bytes, its elements and text handed straight to the one
/// `XMLPropertyListBuilder` every parse of an XML property list feeds.
///
/// It never reports a problem. At anything else (a CDATA section, a
/// processing instruction, a character reference, a carriage return, another attribute,
/// a byte that is not UTF-8 or not an XML character, `]]>` in text, an end
/// tag that does not match, what the builder refuses) it gives up and
/// returns nil, and the reader parses the document with libxml2, which
/// finds the problem and says where it is, or reads what is only unusual.
/// What it accepts, libxml2 accepts too, giving the builder the same
/// elements and text, so the value is the one libxml2's parse gives
/// (`XMLPropertyListQuickReadTests` compare the two on every XML document
/// the tests hold, and the xml-plist fuzz target on every input it makes).
///
/// What it saves, on a 29.9 MB file of records: libxml2's parse (its name
/// dictionary, its checks of every character of a document of any shape)
/// and the SAX2 calls into Swift for each element and each run of text,
/// most of them the white space between tags.
struct XMLPropertyListQuickReader: ~Copyable {
    private let base: UnsafePointer<UInt8>
    private let end: Int
    private var position = 0
    private var builder: XMLPropertyListBuilder
    /// The open `<plist>`, `<dict>` and `<array>` elements, innermost last.
    private var open: [PropertyListElement] = []
    /// The open scalar element, whose text is being read.
    private var openScalar: PropertyListElement?
    /// Deeper than this, libxml2 refuses a document (2048 with
    /// `XML_PARSE_HUGE`) where the builder's own limit may not: such a
    /// document is left to libxml2.
    private static var deepest: Int { 1024 }

    private init(base: UnsafePointer<UInt8>, count: Int, builder: consuming XMLPropertyListBuilder) {
        self.base = base
        end = count
        self.builder = builder
    }

    /// The property list of the UTF-8 document `bytes`, or nil when the
    /// quick read gave up.
    static func read(_ bytes: UnsafeRawBufferPointer, limits: PropertyListLimits) -> PropertyListValue? {
        guard let start = bytes.baseAddress, !bytes.isEmpty else { return nil }
        let builder = XMLPropertyListBuilder(input: bytes, encoding: .utf8, placeholders: nil, limits: limits)
        var reader = Self(base: start.assumingMemoryBound(to: UInt8.self), count: bytes.count, builder: builder)
        guard reader.readDocument() else { return nil }
        return reader.builder.quickReadValue
    }

    // MARK: The document

    private mutating func readDocument() -> Bool {
        guard readProlog() else { return false }
        while true {
            if openScalar != nil {
                guard readText() else { return false }
            } else {
                guard skipWhiteSpace(), position < end else { return false }
            }
            // At a "<".
            switch skipComment() {
            case true?: continue
            case nil: return false
            case false?: break
            }
            position &+= 1
            guard position < end else { return false }
            if base[position] == UInt8(ascii: "/") {
                guard readEndTag() else { return false }
            } else {
                guard readStartTag() else { return false }
            }
            if open.isEmpty, openScalar == nil {
                // The root element ended: only white space and comments may follow.
                return skipMiscellany() && position == end
            }
        }
    }

    /// The XML declaration and document type Apple's writers and most
    /// others write, each optional; anything else there is left to libxml2.
    private mutating func readProlog() -> Bool {
        if startsWith("<?") {
            guard
                skip(#"<?xml version="1.0" encoding="UTF-8"?>"#) || skip(#"<?xml version="1.0" encoding="utf-8"?>"#)
                    || skip(#"<?xml version="1.0"?>"#)
            else { return false }
        }
        guard skipMiscellany() else { return false }
        if startsWith("<!D") {
            guard
                skip(#"<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">"#)
                    || skip(
                        #"<!DOCTYPE plist PUBLIC "-//Apple Computer//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">"#
                    )
            else { return false }
            guard skipMiscellany() else { return false }
        }
        return position < end
    }

    /// White space and comments, up to the next "<" that starts neither, or the end.
    private mutating func skipMiscellany() -> Bool {
        while true {
            guard skipWhiteSpace() else { return false }
            switch skipComment() {
            case true?: continue
            case false?: return true
            case nil: return false
            }
        }
    }

    /// Skips the comment at `position`, if one starts there and is one libxml2
    /// takes: no "--" before its end, every character an XML character in
    /// UTF-8, no carriage return. False when none starts there, nil for a
    /// comment that is not such a one (the read gives up).
    private mutating func skipComment() -> Bool? {
        guard skip("<!--") else { return false }
        while position < end {
            let byte = base[position]
            if byte == UInt8(ascii: "-"), position &+ 1 < end, base[position &+ 1] == UInt8(ascii: "-") {
                guard position &+ 2 < end, base[position &+ 2] == UInt8(ascii: ">") else { break }
                position &+= 3
                return true
            }
            if byte < 0x20 {
                guard byte == 0x09 || byte == 0x0A else { break }
                position &+= 1
            } else if byte >= 0x80 {
                guard let length = utf8Length(at: position) else { break }
                position &+= length
            } else {
                position &+= 1
            }
        }
        return nil
    }

    // MARK: Tags

    /// A start tag or an empty element, its "<" read.
    private mutating func readStartTag() -> Bool {
        guard openScalar == nil, let element = readName(), position < end else { return false }
        if element == .plist, base[position] == UInt8(ascii: " ") {
            guard skip(#" version="1.0""#), position < end else { return false }
        }
        let isEmpty: Bool
        if base[position] == UInt8(ascii: ">") {
            position &+= 1
            isEmpty = false
        } else if base[position] == UInt8(ascii: "/"), position &+ 1 < end, base[position &+ 1] == UInt8(ascii: ">") {
            position &+= 2
            isEmpty = true
        } else {
            return false
        }
        guard open.count < Self.deepest, (try? builder.startElement(element)) != nil else { return false }
        if isEmpty { return (try? builder.endElement(wasEmpty: true)) != nil }
        switch element {
        case .plist, .dict, .array: open.append(element)
        default: openScalar = element
        }
        return true
    }

    /// An end tag, its "<" read and at its "/".
    private mutating func readEndTag() -> Bool {
        position &+= 1
        guard let element = readName(), position < end, base[position] == UInt8(ascii: ">") else { return false }
        position &+= 1
        if let openScalar {
            guard element == openScalar else { return false }
            self.openScalar = nil
        } else {
            guard open.last == element else { return false }
            open.removeLast()
        }
        return (try? builder.endElement(wasEmpty: false)) != nil
    }

    /// The element whose name starts at `position` (lower-case letters
    /// only), or nil for any other name.
    private mutating func readName() -> PropertyListElement? {
        // The name's letters, the first in the lowest byte, while they fit in eight bytes.
        var packed: UInt64 = 0
        var shift: UInt64 = 0
        while position < end, base[position] &- UInt8(ascii: "a") < 26 {
            guard shift < 64 else { return nil }
            packed |= UInt64(base[position]) &<< shift
            shift &+= 8
            position &+= 1
        }
        return Self.element(packed: packed)
    }

    /// The element whose name's letters `packed` holds, the first in the lowest byte.
    private static func element(packed: UInt64) -> PropertyListElement? {
        switch packed {
        case 0x79656B: .key  // "key"
        case 0x676E69727473: .string  // "string"
        case 0x72656765746E69: .integer  // "integer"
        case 0x6C616572: .real  // "real"
        case 0x74636964: .dict  // "dict"
        case 0x7961727261: .array  // "array"
        case 0x65757274: .true  // "true"
        case 0x65736C6166: .false  // "false"
        case 0x65746164: .date  // "date"
        case 0x61746164: .data  // "data"
        case 0x7473696C70: .plist  // "plist"
        default: nil
        }
    }

    private static func equal(_ bytes: UnsafePointer<UInt8>, _ literal: StaticString) -> Bool {
        let utf8 = literal.utf8Start
        for index in 0..<literal.utf8CodeUnitCount where bytes[index] != utf8[index] { return false }
        return true
    }

    // MARK: Text

    /// White space (space, tab, line feed) up to the next "<" or the end;
    /// false at anything else, which would be text outside a value.
    private mutating func skipWhiteSpace() -> Bool {
        while position < end {
            switch base[position] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"): position &+= 1
            case UInt8(ascii: "<"): return true
            default: return false
            }
        }
        return true
    }

    /// The text of the open scalar element up to the next "<", handed to
    /// the builder: the predefined entities replaced, every other byte
    /// checked to be an XML character in UTF-8.
    private mutating func readText() -> Bool {
        let classes = Self.textClasses
        var runStart = position
        while true {
            while position < end, classes[Int(base[position])] == TextClass.plain.rawValue { position &+= 1 }
            guard position < end else { return false }
            switch TextClass(rawValue: classes[Int(base[position])]) {
            case .lessThan:
                hand(runStart..<position)
                return true
            case .ampersand:
                hand(runStart..<position)
                guard let replacement = readEntity() else { return false }
                withUnsafePointer(to: replacement) { builder.receiveText(UnsafeBufferPointer(start: $0, count: 1)) }
                runStart = position
            case .bracket:
                // "]]>" may not stand in text.
                if position &+ 2 < end, base[position &+ 1] == UInt8(ascii: "]"), base[position &+ 2] == UInt8(ascii: ">") {
                    return false
                }
                position &+= 1
            case .nonASCII:
                guard let length = utf8Length(at: position) else { return false }
                position &+= length
            case .plain, .refused, nil:
                return false
            }
        }
    }

    private mutating func hand(_ range: Range<Int>) {
        guard !range.isEmpty else { return }
        builder.receiveText(UnsafeBufferPointer(start: base + range.lowerBound, count: range.count))
    }

    /// The byte a predefined entity stands for, its "&" at `position`; nil
    /// for anything else (a character reference is left to libxml2).
    private mutating func readEntity() -> UInt8? {
        if skip("&amp;") { return UInt8(ascii: "&") }
        if skip("&lt;") { return UInt8(ascii: "<") }
        if skip("&gt;") { return UInt8(ascii: ">") }
        if skip("&quot;") { return UInt8(ascii: "\"") }
        if skip("&apos;") { return UInt8(ascii: "'") }
        return nil
    }

    /// The length of the UTF-8 sequence at `index` (its first byte at least
    /// 0x80) when it encodes an XML character: not U+FFFE or U+FFFF, no
    /// overlong form, no surrogate, nothing above U+10FFFF.
    @inline(__always)
    private func utf8Length(at index: Int) -> Int? {
        @inline(__always) func continuation(_ offset: Int, _ low: UInt8 = 0x80, _ high: UInt8 = 0xBF) -> Bool {
            index &+ offset < end && base[index &+ offset] >= low && base[index &+ offset] <= high
        }
        let lead = base[index]
        switch lead {
        case 0xC2...0xDF:
            return continuation(1) ? 2 : nil
        case 0xE0...0xEF:
            let second = lead == 0xE0 ? continuation(1, 0xA0) : lead == 0xED ? continuation(1, 0x80, 0x9F) : continuation(1)
            guard second, continuation(2) else { return nil }
            if lead == 0xEF, base[index &+ 1] == 0xBF, base[index &+ 2] >= 0xBE { return nil }  // U+FFFE, U+FFFF.
            return 3
        case 0xF0...0xF4:
            let second = lead == 0xF0 ? continuation(1, 0x90) : lead == 0xF4 ? continuation(1, 0x80, 0x8F) : continuation(1)
            return second && continuation(2) && continuation(3) ? 4 : nil
        default:
            return nil
        }
    }

    private enum TextClass: UInt8 {
        /// An ASCII character that stands for itself, tab and line feed included.
        case plain
        case lessThan, ampersand, bracket, nonASCII
        /// A control character or carriage return (libxml2 refuses or changes them).
        case refused
    }

    /// Each byte's `TextClass`, made once for the process (a pointer: an
    /// array's bounds would be checked at every byte).
    /// Written once, then only read.
    nonisolated(unsafe) private static let textClasses: UnsafePointer<UInt8> = {
        let table = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
        for byte in 0..<256 {
            let textClass: TextClass =
                switch byte {
                case 0x09, 0x0A: .plain
                case 0..<0x20: .refused
                case 0x3C: .lessThan
                case 0x26: .ampersand
                case 0x5D: .bracket
                case 0x80...: .nonASCII
                default: .plain
                }
            table[byte] = textClass.rawValue
        }
        return UnsafePointer(table)
    }()

    // MARK: Bytes

    private func startsWith(_ literal: StaticString) -> Bool {
        literal.utf8CodeUnitCount <= end &- position && Self.equal(base + position, literal)
    }

    /// Skips `literal` when the bytes at `position` are it.
    private mutating func skip(_ literal: StaticString) -> Bool {
        guard startsWith(literal) else { return false }
        position &+= literal.utf8CodeUnitCount
        return true
    }
}
