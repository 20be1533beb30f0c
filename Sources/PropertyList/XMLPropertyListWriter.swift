#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes XML property lists byte for byte as CoreFoundation formats them.
///
/// The layout is Apple's: the XML declaration and `DOCTYPE`, `<plist
/// version="1.0">`, one element per line indented with tabs, `<key>` lines
/// before their values, `<true/>`/`<false/>`, `<array/>` and `<dict/>` when
/// empty, `<data>` as base64 lines of 76 characters less 8 per indent level
/// (at most 8 levels counted), dates as `2004-10-26T10:33:33Z` with whole
/// seconds. Dictionaries keep their key order (CoreFoundation sorts keys; a
/// value read from an Apple file is already sorted).
///
/// Reals are written as CoreFoundation's `__CFNumberCopyFormattingDescriptionAsFloat64`
/// does: `%.17g` (so `0.5`, `32.5`, `1`, `0.10000000000000001`, every double
/// read back exactly), `0.0` for either zero, `nan`, `+infinity` and
/// `-infinity`. A `.real32` is widened to a double first, as a float
/// `CFNumber` is.
///
/// Text escapes `&`, `<` and `>` and nothing else, as CoreFoundation's
/// `_appendEscapedString` (CFPropertyList.c) does: every other character is
/// copied unchanged, carriage returns and the control characters
/// U+0000–U+001F included, as Interface Builder and Xcode files hold them.
/// This is the one place where the output departs from XML 1.0, which has no
/// way to write those control characters and turns a raw carriage return
/// into a line feed: a file Cocoa wrote converts to binary and back to the
/// same bytes, and `XMLPropertyListReader` reads such text back unchanged
/// (see `XMLParserInput`), as CoreFoundation does; other XML parsers may
/// refuse it or read CR as LF.
///
/// A `.uid` is written as Apple's XML writer writes `CFKeyedArchiverUID`:
/// `<dict><key>CF$UID</key><integer>N</integer></dict>`.
public struct XMLPropertyListWriter: Sendable {
    /// How deeply arrays and dictionaries may nest: the readers' limit, so
    /// that what is written can be read back.
    public var maximumDepth: Int

    /// Makes a writer.
    public init(maximumDepth: Int = PropertyListLimits.default.maximumDepth) {
        self.maximumDepth = maximumDepth
    }

    /// Serialises `value` as a complete XML property-list document in UTF-8.
    ///
    /// - Throws: `PropertyListError` with code `.unsupportedValue`, with the key
    ///   path, for a date too far from 1970 to format; `.limitExceeded(.depth)` for
    ///   containers nested deeper than `maximumDepth`.
    public func encode(_ value: PropertyListValue) throws(PropertyListError) -> [UInt8] {
        var encoder = XMLPropertyListEncoder(sink: nil)
        encoder.maximumDepth = maximumDepth
        defer { encoder.output.deallocate() }
        encoder.output.append(contentsOf: XMLPropertyListEncoder.prologue.utf8)
        try encoder.append(value, indent: 0)
        encoder.output.append("</plist>\n")
        return [UInt8](encoder.output.bytes)
    }

    /// Serialises `value` as `encode(_:)` does, handing the document to
    /// `sink` in pieces of about `chunkSize` bytes instead of building it whole,
    /// so a large document needs no large buffer.
    ///
    /// - Throws: `PropertyListError`, as `encode(_:)`, or whatever `sink` throws;
    ///   the pieces handed over before then are a prefix of the document.
    public func encode(
        _ value: PropertyListValue, chunkSize: Int = 1 << 20,
        to sink: (UnsafeRawBufferPointer) throws(PropertyListError) -> Void
    ) throws(PropertyListError) {
        try withoutActuallyEscaping(sink) { (sink) throws(PropertyListError) in
            var encoder = XMLPropertyListEncoder(sink: sink, chunkSize: chunkSize)
            encoder.maximumDepth = maximumDepth
            defer { encoder.output.deallocate() }
            encoder.output.append(contentsOf: XMLPropertyListEncoder.prologue.utf8)
            try encoder.append(value, indent: 0)
            encoder.output.append("</plist>\n")
            try encoder.flush()
        }
    }
}

/// The output of one `encode` call and the path to the value being written.
struct XMLPropertyListEncoder {
    static let prologue = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">

        """

    /// Freed by the `encode` call that made this encoder.
    var output: XMLOutputBytes
    var path: [PropertyListPathComponent] = []
    /// How deeply containers may nest (`XMLPropertyListWriter.maximumDepth`).
    var maximumDepth = PropertyListLimits.default.maximumDepth
    /// Where finished pieces go, when the document is streamed.
    private let sink: ((UnsafeRawBufferPointer) throws(PropertyListError) -> Void)?
    private let chunkSize: Int

    init(sink: ((UnsafeRawBufferPointer) throws(PropertyListError) -> Void)?, chunkSize: Int = 0) {
        self.sink = sink
        self.chunkSize = chunkSize
        output = XMLOutputBytes(capacity: sink == nil ? 1 << 16 : chunkSize + 4096)
    }

    /// Hands what is written so far to the sink, if there is one.
    mutating func flush() throws(PropertyListError) {
        guard let sink else { return }
        try sink(output.bytes)
        output.removeAll()
    }

    /// Hands a full piece to the sink, when streaming.
    @inline(__always)
    mutating func flushIfFull() throws(PropertyListError) {
        if sink != nil, output.count >= chunkSize { try flush() }
    }

    mutating func append(_ value: PropertyListValue, indent: Int) throws(PropertyListError) {
        try flushIfFull()
        appendIndent(indent)
        switch value {
        case .string(let string):
            appendLine(open: "<string>", text: string, close: "</string>\n")
        case .integer(let integer):
            append("<integer>")
            appendDecimal(integer)
            append("</integer>\n")
        case .real(let real):
            appendReal(real)
        case .real32(let real):
            appendReal(Double(real))
        case .bool(let bool):
            append(bool ? "<true/>\n" : "<false/>\n")
        case .date(let date):
            guard PropertyListDateFormat.formattableSeconds.contains(date.timeIntervalSince1970) else {
                throw PropertyListError(
                    .unsupportedValue, at: .none, keyPath: PropertyListKeyPath(path),
                    "the date \(date.timeIntervalSince1970) seconds from 1970 is too far away to write")
            }
            append("<date>")
            PropertyListDateFormat.append(date, to: &output)
            append("</date>\n")
        case .data(let data):
            data.withUnsafeBytes { bytes in appendDataLines(bytes, indent: indent) }
        case .array(let array):
            try checkDepth()
            openContainer(isDictionary: false, isEmpty: array.isEmpty)
            guard !array.isEmpty else { return }
            for (index, element) in array.enumerated() {
                path.append(.index(index))
                try append(element, indent: indent + 1)
                path.removeLast()
            }
            closeContainer(isDictionary: false, indent: indent)
        case .dictionary(let dictionary):
            try checkDepth()
            openContainer(isDictionary: true, isEmpty: dictionary.isEmpty)
            guard !dictionary.isEmpty else { return }
            for (key, element) in dictionary {
                path.append(.key(key))
                try appendKey(key, indent: indent + 1)
                try append(element, indent: indent + 1)
                path.removeLast()
            }
            closeContainer(isDictionary: true, indent: indent)
        case .uid(let uid):
            append("<dict>\n")
            appendIndent(indent + 1)
            append("<key>CF$UID</key>\n")
            appendIndent(indent + 1)
            appendLine(open: "<integer>", ascii: String(uid), close: "</integer>\n")
            appendIndent(indent)
            append("</dict>\n")
        }
    }

    /// Starts an array or dictionary whose indentation `append` has written:
    /// `<array>` or, when empty, `<array/>`.
    /// Refuses a container nested deeper than the readers read.
    private func checkDepth() throws(PropertyListError) {
        guard path.count < maximumDepth else {
            throw PropertyListError(
                .limitExceeded(.depth), at: .none, keyPath: PropertyListKeyPath(path),
                "containers nest more than \(maximumDepth) deep")
        }
    }

    mutating func openContainer(isDictionary: Bool, isEmpty: Bool) {
        switch (isDictionary, isEmpty) {
        case (false, true): append("<array/>\n")
        case (false, false): append("<array>\n")
        case (true, true): append("<dict/>\n")
        case (true, false): append("<dict>\n")
        }
    }

    /// Ends a non-empty array or dictionary opened at `indent`.
    mutating func closeContainer(isDictionary: Bool, indent: Int) {
        appendIndent(indent)
        append(isDictionary ? "</dict>\n" : "</array>\n")
    }

    /// Writes `<key>…</key>` at `indent`; `path` already ends with this key.
    /// `<data>`, the bytes as base64 lines, `</data>`, after the indent is written.
    private mutating func appendDataLines(_ bytes: UnsafeRawBufferPointer, indent: Int) {
        append("<data>\n")
        // CoreFoundation counts at most 8 levels against the line and indents the lines no further.
        let dataIndent = min(indent, 8)
        Base64.appendLines(of: bytes, lineLength: 76 - 8 * dataIndent, indent: dataIndent, to: &output)
        appendIndent(indent)
        append("</data>\n")
    }

    /// A data value on its own lines, from bytes that need no `Data` (the
    /// binary converter's, straight from the file).
    mutating func appendData(_ bytes: UnsafeRawBufferPointer, indent: Int) throws(PropertyListError) {
        try flushIfFull()
        appendIndent(indent)
        appendDataLines(bytes, indent: indent)
    }

    mutating func appendKey(_ key: String, indent: Int) throws(PropertyListError) {
        try flushIfFull()
        appendIndent(indent)
        appendLine(open: "<key>", text: key, close: "</key>\n")
    }

    /// As `appendKey(_:indent:)`, for a key given as its UTF-8 bytes (the
    /// binary converter's, straight from the file).
    mutating func appendKey(utf8 bytes: UnsafeRawBufferPointer, indent: Int) throws(PropertyListError) {
        try flushIfFull()
        appendIndent(indent)
        appendLine(open: "<key>", utf8: bytes, close: "</key>\n")
    }

    mutating func appendIndent(_ indent: Int) {
        guard indent > 0 else { return }
        output.append(count: indent) { tabs in tabs.initialize(repeating: UInt8(ascii: "\t"), count: indent) }
    }

    private mutating func appendLine(open: StaticString, ascii: String, close: StaticString) {
        append(open)
        output.append(contentsOf: ascii.utf8)
        append(close)
    }

    /// Appends `open`, `text` escaped, and `close`.
    private mutating func appendLine(open: StaticString, text: String, close: StaticString) {
        var text = text
        text.withUTF8 { bytes in appendLine(open: open, utf8: UnsafeRawBufferPointer(bytes), close: close) }
    }

    /// As `appendLine(open:text:close:)`, for text given as its UTF-8 bytes:
    /// `&`, `<` and `>` escaped, every other byte copied.
    mutating func appendLine(open: StaticString, utf8 bytes: UnsafeRawBufferPointer, close: StaticString) {
        append(open)
        var runStart = 0
        // Eight bytes at a time while none needs escaping (the common text), then byte by byte from the first that may.
        var clean = 0
        while clean &+ 8 <= bytes.count, !Self.mayNeedEscaping(bytes.loadUnaligned(fromByteOffset: clean, as: UInt64.self)) {
            clean &+= 8
        }
        for index in clean..<bytes.count {
            let replacement: StaticString
            switch bytes[index] {
            case UInt8(ascii: "&"): replacement = "&amp;"
            case UInt8(ascii: "<"): replacement = "&lt;"
            case UInt8(ascii: ">"): replacement = "&gt;"
            default: continue
            }
            output.append(UnsafeRawBufferPointer(rebasing: bytes[runStart..<index]))
            append(replacement)
            runStart = index + 1
        }
        output.append(UnsafeRawBufferPointer(rebasing: bytes[runStart...]))
        append(close)
    }

    /// Whether any of the eight bytes of `word` is `&`, `<` or `>` (exactly:
    /// each byte is compared on its own, with no carry between bytes).
    @inline(__always)
    private static func mayNeedEscaping(_ word: UInt64) -> Bool {
        @inline(__always) func hasByte(_ byte: UInt64) -> Bool {
            let x = word ^ (byte &* 0x0101_0101_0101_0101)
            // A byte of x is zero exactly when its low seven bits and its top bit are both clear.
            return ~((x & 0x7F7F_7F7F_7F7F_7F7F) &+ 0x7F7F_7F7F_7F7F_7F7F | x) & 0x8080_8080_8080_8080 != 0
        }
        return hasByte(0x26) || hasByte(0x3C) || hasByte(0x3E)
    }

    /// Writes `<string>…</string>` at `indent` for text given as UTF-8 bytes,
    /// as `append(.string(…), indent:)` does.
    mutating func appendString(utf8 bytes: UnsafeRawBufferPointer, indent: Int) throws(PropertyListError) {
        try flushIfFull()
        appendIndent(indent)
        appendLine(open: "<string>", utf8: bytes, close: "</string>\n")
    }

    /// Appends the integer's decimal digits, as `description` spells them.
    private mutating func appendDecimal(_ integer: PropertyListInteger) {
        var magnitude: UInt64
        if integer.isNegative {
            output.append(UInt8(ascii: "-"))
            magnitude = integer.bitPattern.magnitudeOfSigned
        } else {
            magnitude = integer.bitPattern
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var count = 0
            repeat {
                digits[count] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
                count += 1
                magnitude /= 10
            } while magnitude > 0
            for index in stride(from: count - 1, through: 0, by: -1) { output.append(digits[index]) }
        }
    }

    @inline(__always)
    private mutating func append(_ text: StaticString) {
        output.append(text)
    }

    /// Appends `<real>…</real>` as CoreFoundation formats a double.
    private mutating func appendReal(_ real: Double) {
        append("<real>")
        if real.isNaN {
            append("nan")
        } else if real.isInfinite {
            append(real < 0 ? "-infinity" : "+infinity")
        } else if real == 0 {
            append("0.0")
        } else {
            RealFormat.appendSeventeenDigits(real, to: &output)
        }
        append("</real>\n")
    }
}

private extension UInt64 {
    /// The magnitude of these bits read as a negative `Int64`.
    var magnitudeOfSigned: UInt64 { Int64(bitPattern: self).magnitude }
}
