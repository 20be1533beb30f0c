/// Checks an input as it arrives, a piece at a time, for bytes that no
/// property list can hold where they stand, so that a stream which can
/// never be read (`/dev/zero`, `/dev/urandom`, a binary file sent to standard
/// input) is refused at the first such byte rather than read to the size
/// limit first.
///
/// The first bytes decide the form, as the readers decide it: a binary
/// property list (`bplist0`; `bplist` then another version is refused at
/// once, as the reader refuses it) or a typed stream, whose bytes are not
/// looked at further; XML starting with its declaration (`<?xml`, which may
/// name another 8-bit encoding), whose bytes are checked only up to its root
/// element, where no XML reader takes a NUL (so `<?xml` then `/dev/zero` is
/// refused at its first NUL); otherwise text in
/// UTF-8, or in UTF-16 or UTF-32 by the byte order mark or the zero bytes
/// of an ASCII first character. Text must then start, after any byte order
/// mark and white space, with a printable ASCII character (`<`, `{`, `(`,
/// `"`, a letter or digit, …) and be well-formed in its encoding: NUL bytes
/// open no property list, and random bytes are not UTF-8 for long. A stream
/// (`check(_:)`) that starts as a PNG image or a `NIBArchive` file, which no
/// property-list reader reads and which cannot be read as they arrive, is
/// refused at its first bytes with the readers' error
/// (`NonPropertyListFormat.error(at:)`); `checkStart(of:)` leaves a whole
/// file of those to its caller, which may read it as what it is.
///
/// Cost: a few comparisons a byte; nothing is kept but the first 16 bytes.
public struct PropertyListInputSniffer: Sendable {
    private enum Form: Sendable, Equatable {
        /// Too few bytes yet to tell.
        case undecided
        /// A form whose bytes are left to its reader.
        case unchecked
        /// XML after its declaration, before its root element; `afterLess`
        /// when the last byte was `<`.
        case declaredXML(afterLess: Bool)
        case utf8
        case utf16(bigEndian: Bool)
        case utf32(bigEndian: Bool)
    }

    /// The starts of the forms left to their readers.
    private static let magics: [[UInt8]] = [
        Array("bplist0".utf8), Array("NIBArchive".utf8), [0x04, 0x0B] + Array("streamtyped".utf8),
        [0x04, 0x0B] + Array("typedstream".utf8), pngSignature, Array("<?xml".utf8),
    ]
    private static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    private var form = Form.undecided
    /// The first bytes, while the form is undecided.
    private var head: [UInt8] = []
    /// The offset of the next byte.
    private var offset = 0
    /// UTF-8: how many bytes of a byte order mark open the input.
    private var byteOrderMarkBytes = 0
    private static let utf8ByteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]
    /// Whether the text's first character (not white space, not a byte order mark) was seen.
    private var started = false
    /// UTF-8: continuation bytes still expected, the range of the next one,
    /// and the bytes of the character so far.
    private var continuations = 0
    private var nextRange: ClosedRange<UInt8> = 0x80...0xBF
    private var character: UInt32 = 0
    private var characterLength = 0
    /// UTF-16 and UTF-32: the code unit being gathered, its bytes so far and where it started.
    private var unit: UInt32 = 0
    private var unitBytes = 0
    private var unitStart = 0
    /// UTF-16: a high surrogate waits for its low one.
    private var awaitingLowSurrogate = false

    /// Whether bytes after the start are left alone (`checkStart(of:)`).
    private var checksStartOnly = false

    /// Makes a sniffer for an input whose first bytes are still to come.
    public init() {}

    /// Whether the bytes so far decided the form and, for text, showed its
    /// first character: past this, only the encoding is checked.
    private var hasCheckedStart: Bool {
        switch form {
        case .undecided: false
        case .unchecked, .declaredXML: true
        default: started
        }
    }

    /// Checks the next bytes of the input.
    ///
    /// - Throws: `PropertyListError` at the offending byte (from the start
    ///   of the input): `.unrecognizedFormat` when the text's first character
    ///   can start no property list (a NUL, a control character, a byte that
    ///   is no byte order mark); `.invalidString` when text is not
    ///   well-formed in its encoding.
    public mutating func check(_ bytes: UnsafeRawBufferPointer) throws(PropertyListError) {
        if form == .unchecked {
            offset += bytes.count
            return
        }
        for byte in bytes {
            if byte < 0x80, started, continuations == 0, form == .utf8 {
                offset += 1  // ASCII in UTF-8 text under way: the most common byte, and always good.
                continue
            }
            try check(byte)
        }
    }

    /// Checks how `bytes`, a whole input, start: their form and, for text,
    /// the first character, leaving everything after that to the reader
    /// (which reads it anyway, and says where it goes wrong in its own terms).
    /// Reads at most the first 4096 bytes.
    ///
    /// - Throws: `PropertyListError`, as `check(_:)`.
    public static func checkStart(of bytes: UnsafeRawBufferPointer) throws(PropertyListError) {
        var sniffer = PropertyListInputSniffer()
        sniffer.checksStartOnly = true
        for byte in bytes.prefix(4096) {
            try sniffer.check(byte)
            if sniffer.hasCheckedStart { return }
        }
        try sniffer.decide(atEnd: true)
    }

    private mutating func check(_ byte: UInt8) throws(PropertyListError) {
        if checksStartOnly, hasCheckedStart { return }
        switch form {
        case .undecided:
            head.append(byte)
            offset += 1
            try decide(atEnd: false)
        case .unchecked:
            offset += 1
        case .declaredXML(let afterLess):
            try checkPrologue(byte, afterLess: afterLess)
            offset += 1
        case .utf8:
            try checkUTF8(byte)
            offset += 1
        case .utf16(let bigEndian):
            try gather(byte, size: 2, bigEndian: bigEndian)
        case .utf32(let bigEndian):
            try gather(byte, size: 4, bigEndian: bigEndian)
        }
    }

    /// Decides the form once the head shows it (or the input ends), then
    /// checks the head's bytes as text of that form.
    private mutating func decide(atEnd: Bool) throws(PropertyListError) {
        guard case .undecided = form else { return }
        if head.count >= 7, head.starts(with: "bplist".utf8), !head.starts(with: "bplist0".utf8) {
            throw PropertyListError(.unrecognizedFormat, at: .byteOffset(0), "not a binary property list: it does not start with 'bplist0'")
        }
        if let magic = Self.magics.first(where: { head.starts(with: $0) }) {
            if !checksStartOnly, magic == Self.pngSignature { throw NonPropertyListFormat.png.error(at: .byteOffset(0)) }
            if !checksStartOnly, magic.starts(with: "NIBArchive".utf8) { throw NonPropertyListFormat.nibArchive.error(at: .byteOffset(0)) }
            if magic.starts(with: "<?xml".utf8) {
                // The head's bytes are the declaration's start, all ASCII: the prologue is checked from after them.
                form = .declaredXML(afterLess: false)
                return
            }
            form = .unchecked
            return
        }
        if !atEnd, Self.magics.contains(where: { $0.starts(with: head) }) || head.count < 4 { return }
        let decided: Form =
            head.count < 4 && (head.starts(with: [0xFE, 0xFF]) || head.starts(with: [0xFF, 0xFE]))
            ? .utf16(bigEndian: head[0] == 0xFE)  // A short input after a UTF-16 byte order mark.
            : head.withUnsafeBytes { bytes in
                switch XMLInputEncoding.detect(bytes) {
                case .utf8: .utf8
                case .utf16BigEndian: .utf16(bigEndian: true)
                case .utf16LittleEndian: .utf16(bigEndian: false)
                case .utf32BigEndian: .utf32(bigEndian: true)
                case .utf32LittleEndian: .utf32(bigEndian: false)
                }
            }
        let bytes = head
        form = decided
        head = []
        offset = 0
        for byte in bytes {
            try check(byte)
        }
    }

    /// XML before its root element (the declaration, comments, a doctype,
    /// white space), in an ASCII-compatible encoding: a NUL is refused (no
    /// XML reader takes one there, whatever the encoding); the root
    /// element's start (`<` and a letter, `_` or `:`) ends the checking,
    /// since the property-list readers take some bytes inside values that
    /// XML forbids.
    private mutating func checkPrologue(_ byte: UInt8, afterLess: Bool) throws(PropertyListError) {
        if byte == 0 {
            throw PropertyListError(
                .malformedXML, at: .byteOffset(offset), "byte 0x00 (NUL) before the root element: XML allows no NUL there")
        }
        let letter = (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)  // Either case.
        if afterLess, letter || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ":") {
            form = .unchecked
            return
        }
        form = .declaredXML(afterLess: byte == UInt8(ascii: "<"))
    }

    private mutating func checkUTF8(_ byte: UInt8) throws(PropertyListError) {
        if continuations > 0 {
            character = character << 8 | UInt32(byte)
            characterLength += 1
            guard nextRange.contains(byte) else {
                let bytes = (0..<characterLength).reversed().map { UInt8(truncatingIfNeeded: character >> (8 * UInt32($0))) }
                throw notUTF8(bytes, at: offset + 1 - characterLength)
            }
            continuations -= 1
            nextRange = 0x80...0xBF
            return
        }
        if offset < 3, offset == byteOrderMarkBytes, byte == Self.utf8ByteOrderMark[offset] {
            byteOrderMarkBytes += 1
            return
        }
        if (1...2).contains(byteOrderMarkBytes), byteOrderMarkBytes == offset {
            throw notUTF8(Array(Self.utf8ByteOrderMark[0..<offset]) + [byte], at: 0)
        }
        if byte < 0x80 {
            try checkFirst(UInt32(byte), at: offset)
            return
        }
        guard started else { throw cannotStart(UInt32(byte), at: offset, byte: true) }
        character = UInt32(byte)
        characterLength = 1
        switch byte {
        case 0xC2...0xDF: continuations = 1
        case 0xE0: continuations = 2; nextRange = 0xA0...0xBF
        case 0xE1...0xEC, 0xEE...0xEF: continuations = 2
        case 0xED: continuations = 2; nextRange = 0x80...0x9F
        case 0xF0: continuations = 3; nextRange = 0x90...0xBF
        case 0xF1...0xF3: continuations = 3
        case 0xF4: continuations = 3; nextRange = 0x80...0x8F
        default: throw notUTF8([byte], at: offset)
        }
    }

    /// Adds `byte` to the UTF-16 or UTF-32 code unit being gathered and
    /// checks the unit when it is whole.
    private mutating func gather(_ byte: UInt8, size: Int, bigEndian: Bool) throws(PropertyListError) {
        if unitBytes == 0 { unitStart = offset }
        unit = bigEndian ? unit << 8 | UInt32(byte) : unit | UInt32(byte) << (8 * UInt32(unitBytes))
        unitBytes += 1
        offset += 1
        guard unitBytes == size else { return }
        let value = unit
        unit = 0
        unitBytes = 0
        let encoding = size == 2 ? "UTF-16" : "UTF-32"
        if size == 2 {
            if awaitingLowSurrogate {
                awaitingLowSurrogate = false
                guard (0xDC00...0xDFFF).contains(value) else { throw badUnit(value, encoding, "follows a high surrogate") }
                return
            }
            if (0xD800...0xDBFF).contains(value) {
                awaitingLowSurrogate = true
                guard started else { throw cannotStart(value, at: unitStart, byte: false) }
                return
            }
            guard !(0xDC00...0xDFFF).contains(value) else { throw badUnit(value, encoding, "is an unpaired low surrogate") }
        } else {
            guard value <= 0x10FFFF, !(0xD800...0xDFFF).contains(value) else { throw badUnit(value, encoding, "is no Unicode scalar") }
        }
        if value == 0xFEFF, !started { return }
        try checkFirst(value, at: unitStart)
    }

    /// Before the text's first character: white space passes, a printable
    /// ASCII character starts the text, anything else is refused.
    private mutating func checkFirst(_ scalar: UInt32, at position: Int) throws(PropertyListError) {
        guard !started else { return }
        switch scalar {
        case 0x09...0x0D, 0x20: return
        case 0x21...0x7E: started = true
        default: throw cannotStart(scalar, at: position, byte: form == .utf8)
        }
    }

    private func cannotStart(_ value: UInt32, at position: Int, byte: Bool) -> PropertyListError {
        let shown = byte ? "byte 0x" + Self.hex(value, digits: 2) : "U+" + Self.hex(value, digits: 4)
        let name = value == 0 ? " (NUL)" : ""
        return PropertyListError(
            .unrecognizedFormat, at: .byteOffset(position),
            "\(shown)\(name) starts no property list: not a binary one (bplist00), nor XML, JSON or OpenStep text")
    }

    private func notUTF8(_ bytes: [UInt8], at position: Int) -> PropertyListError {
        let shown = bytes.map { "0x" + Self.hex(UInt32($0), digits: 2) }.joined(separator: " ")
        return PropertyListError(
            .invalidString, at: .byteOffset(position),
            "\(bytes.count == 1 ? "byte" : "bytes") \(shown) \(bytes.count == 1 ? "is" : "are") not valid UTF-8, which this text property list is written in")
    }

    private func badUnit(_ value: UInt32, _ encoding: String, _ problem: String) -> PropertyListError {
        PropertyListError(
            .invalidString, at: .byteOffset(unitStart),
            "the \(encoding) code unit 0x\(Self.hex(value, digits: encoding == "UTF-16" ? 4 : 8)) \(problem)")
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
