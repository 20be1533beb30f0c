import OrderedCollections

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads XML property lists (`<plist version="1.0">`), as Apple's tools and
/// other libraries write them.
///
/// The common document (UTF-8, Apple's declaration and document type or
/// none, the property-list elements alone, no comment, CDATA section or
/// character reference) is read first in one pass over its bytes
/// (`XMLPropertyListQuickReader`); any other, and any the quick read does
/// not take to the end, is parsed in one streaming pass with libxml2's SAX2
/// parser, which builds no tree. Both hand elements and text to one builder;
/// values are built as their elements close, with an
/// explicit stack, so deep input cannot overflow the call stack. Accepted: UTF-8, UTF-16 and UTF-32
/// with or without a byte order mark; `<plist>` as an optional root wrapper;
/// `<dict>`/`<key>`, `<array>`, `<string>`, `<integer>` (decimal or `0x` hex,
/// `Int64.min ... UInt64.max`), `<real>` (decimal, `nan`, `inf`, `infinity`
/// with signs, any case), `<true/>`, `<false/>`, `<date>` (`YYYY-MM-DDTHH:MM:SSZ`,
/// fractional seconds allowed), `<data>` (base64, whitespace anywhere); empty
/// forms, CDATA sections, comments and character references. A duplicated
/// key keeps its last value, as CoreFoundation and Python's `plistlib` keep
/// it (`duplicateKeys(in:)` finds such keys, for a warning). A dictionary whose only key is `CF$UID` with an
/// integer value is read as `.uid`, as Apple writes keyed-archiver UIDs.
///
/// Text is read as CoreFoundation reads it, the one place where this reader
/// departs from XML 1.0: raw control characters (U+0000–U+001F, such as the
/// ESC Interface Builder writes for key equivalents) are accepted in text and
/// CDATA, and a raw carriage return in a value stays a carriage return
/// instead of becoming a line feed, so a file Cocoa wrote reads back as the
/// value Cocoa wrote (see `XMLParserInput`). libxml2 still checks everything
/// else.
///
/// Hostile input: the network is never used, no external DTD is loaded, and
/// any entity declaration or reference is an error, so entity-expansion bombs
/// are refused before they expand. Other declarations in an internal DTD
/// subset are refused too, as Apple's parsers refuse them.
public struct XMLPropertyListReader: Sendable {
    /// The limits applied to the input. libxml2's own depth limit is lifted
    /// (`XML_PARSE_HUGE`), so `maximumDepth` is the one that applies, as for
    /// every other reader; a depth libxml2 still refuses (over 2048) is
    /// reported as `limitExceeded(.depth)` too.
    public var limits: PropertyListLimits

    /// Makes a reader with the given limits.
    public init(limits: PropertyListLimits = .default) {
        self.limits = limits
    }

    /// Decodes the property list in the XML document `bytes`.
    ///
    /// - Throws: `PropertyListError` with the line and column of the problem
    ///   and the key path of the value being read: `.malformedXML` for what
    ///   libxml2 rejects and for entities, `.unexpectedElement`, `.invalidKey`,
    ///   `.invalidValue`, or `.limitExceeded`; `.unrecognizedFormat` naming the
    ///   format when the root element is that of an Interface Builder or
    ///   Xcode document (see `NonPropertyListFormat`).
    public func read(_ bytes: UnsafeRawBufferPointer) throws(PropertyListError) -> PropertyListValue {
        guard bytes.count <= limits.maximumInputSize, bytes.count <= Int(Int32.max) else {
            throw PropertyListError(
                .limitExceeded(.inputSize), at: .none,
                "the input is \(bytes.count) bytes, more than the \(min(limits.maximumInputSize, Int(Int32.max))) allowed")
        }
        guard !bytes.isEmpty else {
            throw PropertyListError(.unrecognizedFormat, at: .lineColumn(line: 1, column: 1), "the input is empty")
        }
        let input = try XMLParserInput(bytes)
        let result: Result<PropertyListValue, PropertyListError> = input.withBytes(of: bytes) { text, parserBytes, options in
            if input.isUTF8AsGiven, let value = XMLPropertyListQuickReader.read(text, limits: limits) { return .success(value) }
            if case .success(let value) = build(input, text, parserBytes, options, firstTry: true) { return .success(value) }
            return build(input, text, parserBytes, options, firstTry: false)
        }
        return try result.get()
    }

    /// One parse of `parserBytes` into a value. The first try reads the
    /// document whole (libxml2's pull parser); what it refuses is parsed
    /// again as libxml2's tree reader fed its parser (in pieces), so that
    /// every error says what, and where, it always said
    /// (`parseXMLEvents(…, firstTry:)`).
    private func build(
        _ input: XMLParserInput, _ text: UnsafeRawBufferPointer, _ parserBytes: UnsafeRawBufferPointer,
        _ options: XMLParseOptions, firstTry: Bool
    ) -> Result<PropertyListValue, PropertyListError> {
        Result { () throws(PropertyListError) in
            let receiver = XMLPropertyListEventReceiver(
                builder: XMLPropertyListBuilder(input: text, encoding: input.encoding, placeholders: input.placeholders, limits: limits))
            let sink = XMLEventSink(handler: receiver)
            _ = parseXMLEvents(parserBytes, options: options, into: sink, firstTry: firstTry)
            return try receiver.finish(sink)
        }
    }

    /// Every way `bytes` are read, for the tests and the fuzz target that
    /// hold them to agreeing: the quick read's value (nil where it gives
    /// up or the input is not UTF-8 as given), libxml2's first try's
    /// outcome and the parse in pieces'. Where the quick read or the first
    /// try gives a value, the parse in pieces must give the same one.
    /// Nil when the input is refused before any parse (its size or encoding).
    @_spi(Fuzzing)
    public func readAllWays(
        _ bytes: UnsafeRawBufferPointer
    ) -> (
        quick: PropertyListValue?, firstTry: Result<PropertyListValue, PropertyListError>,
        inPieces: Result<PropertyListValue, PropertyListError>
    )? {
        guard !bytes.isEmpty, bytes.count <= limits.maximumInputSize, bytes.count <= Int(Int32.max),
            let input = try? XMLParserInput(bytes)
        else { return nil }
        return input.withBytes(of: bytes) { text, parserBytes, options in
            (
                input.isUTF8AsGiven ? XMLPropertyListQuickReader.read(text, limits: limits) : nil,
                build(input, text, parserBytes, options, firstTry: true),
                build(input, text, parserBytes, options, firstTry: false)
            )
        }
    }

    /// Decodes the property list in the XML document `data`.
    ///
    /// - Throws: `PropertyListError`, as `read(_:)` on bytes.
    public func read(_ data: Data) throws(PropertyListError) -> PropertyListValue {
        try data.withPropertyListBytes { (bytes) throws(PropertyListError) in try read(bytes) }
    }
}
