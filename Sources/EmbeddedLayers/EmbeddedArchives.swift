import DataLayers
import KeyedArchive
import NIBArchive
import OrderedCollections
import PropertyList
import TypedStream

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a data value holds, told by its first bytes: a property list (a
/// keyed archive is one whose top dictionary has `$archiver` and
/// `$objects`), an `NSArchiver` typed stream, a compiled nib in Apple's
/// `NIBArchive` format, compressed data or (inside compressed data) a
/// protocol buffer.
public enum EmbeddedArchiveForm: Hashable, Sendable, CustomStringConvertible {
    /// A property list in this form.
    case propertyList(PropertyListFormat)
    /// An `NSKeyedArchiver` archive, a property list in this form.
    case keyedArchive(PropertyListFormat)
    /// An `NSArchiver` typed stream (`\u{4}\u{B}streamtyped`), read by the `TypedStream` module.
    case typedStream
    /// A compiled nib in Apple's `NIBArchive` format, read by the `NIBArchive` module.
    case nibArchive
    /// Compressed data (gzip or zlib), whose inflated bytes are a layer of their own.
    case compressed(CompressedForm)
    /// A protocol buffer, read without its schema (`ProtocolBufferReader`):
    /// found only as what compressed data inflates to, where nothing else reads.
    case protocolBuffer

    /// The form's stable name, for programs: `binary`, `xml`, `json`,
    /// `openStep` (for property lists and keyed archives alike),
    /// `typedStream`, `nibArchive`, `gzip`, `zlib`, `protocolBuffer`.
    public var formatName: String {
        switch self {
        case .propertyList(let format), .keyedArchive(let format): format.rawValue
        case .typedStream: "typedStream"
        case .nibArchive: "nibArchive"
        case .compressed(let form): form.rawValue
        case .protocolBuffer: "protocolBuffer"
        }
    }

    /// The kind's stable name, for programs: `propertyList`, `keyedArchive`,
    /// `typedStream`, `nibArchive`, `compressed`, `protocolBuffer`.
    public var kindName: String {
        switch self {
        case .propertyList: "propertyList"
        case .keyedArchive: "keyedArchive"
        case .typedStream: "typedStream"
        case .nibArchive: "nibArchive"
        case .compressed: "compressed"
        case .protocolBuffer: "protocolBuffer"
        }
    }

    /// For people: "binary property list", "keyed archive (XML)", "NSArchiver typed stream",
    /// "NIB archive", "gzip data", "protocol buffer (no schema)".
    public var description: String {
        switch self {
        case .propertyList(let format): "\(Self.name(format)) property list"
        case .keyedArchive(let format): "keyed archive (\(Self.name(format)))"
        case .typedStream: "NSArchiver typed stream"
        case .nibArchive: "NIB archive"
        case .compressed(let form): "\(form.rawValue) data"
        case .protocolBuffer: "protocol buffer (no schema)"
        }
    }

    private static func name(_ format: PropertyListFormat) -> String {
        switch format {
        case .binary: "binary"
        case .xml: "XML"
        case .json: "JSON"
        case .openStep: "OpenStep"
        }
    }
}

/// One archive found in a data value by ``EmbeddedArchives/find(in:)``.
public struct EmbeddedArchive: Hashable, Sendable {
    /// The data value's key path, in the grammar of `EmbeddedKeyPath` (PropertyList)
    /// without its last step (`Font`; `Font!.$objects.1.NS.data` inside another).
    public var keyPath: EmbeddedKeyPath
    /// What the data holds.
    public var form: EmbeddedArchiveForm
    /// The data value's bytes, as they are in the outer value.
    public var bytes: Data
    /// The property list read from the bytes; for a typed stream, its root
    /// decoded by class (`FoundationObject.jsonForm`); for a NIB archive, its
    /// object graph (`NibObjectGraph.jsonForm`); nil when they do not read.
    public var value: PropertyListValue?
    /// Why bytes that start as a binary or XML property list do not read (its location is in the embedded bytes).
    public var error: PropertyListError?
    /// The archives inside this one's data values, found the same way; for
    /// compressed data, the layer its inflated bytes are (when they are one).
    public var nested: [EmbeddedArchive]
    /// For compressed data, the inflated bytes; nil when they do not inflate (`layerError`).
    public var inflated: Data? = nil
    /// For a protocol buffer, its fields (`value` is them as a property list: `ProtocolBufferPropertyList`).
    public var fields: [ProtocolBufferField]? = nil
    /// Why compressed data does not inflate (the offset is in its bytes).
    public var layerError: DataLayerError? = nil
    /// For a typed stream, the stream as read, losslessly (`value` is its root decoded).
    public var typedStream: TypedStreamDocument? = nil
    /// Why a typed stream does not read or decode (the offset is in its bytes).
    public var typedStreamError: TypedStreamError? = nil
    /// Why a NIB archive does not read (the offset is in its bytes).
    public var nibArchiveError: NIBArchiveError? = nil
}

extension EmbeddedArchive {
    /// The layer for programs, beside the raw bytes it was found in:
    /// `kind` and `format` (``EmbeddedArchiveForm/kindName`` and
    /// ``EmbeddedArchiveForm/formatName``), `length`; compressed data's
    /// `inflatedLength` (or `error` with `message` and `offset`); a protocol
    /// buffer's `fields` (``ProtocolBufferPropertyList/fieldsForm(_:)``); a
    /// typed stream's `typedStream` (`TypedStreamDocument.jsonForm`, lossless)
    /// and `value` (its root decoded), or `error` with `message` and `offset`;
    /// a NIB archive's `value` (its object graph) or `error`; a property
    /// list's or keyed archive's `value` as read (or `error` with its
    /// `message` and `location`); then `embedded`, the layers inside.
    public var jsonForm: PropertyListValue {
        var form: OrderedDictionary<String, PropertyListValue> = [
            "keyPath": .string(keyPath.description), "kind": .string(self.form.kindName), "format": .string(self.form.formatName),
            "length": .integer(PropertyListInteger(bytes.count)),
        ]
        if let inflated { form["inflatedLength"] = .integer(PropertyListInteger(inflated.count)) }
        if let layerError {
            form["error"] = ["message": .string(layerError.message), "offset": .integer(PropertyListInteger(layerError.offset))]
        }
        if let typedStream { form["typedStream"] = typedStream.jsonForm }
        if let error = typedStreamError {
            form["error"] = ["message": .string(error.message), "offset": .integer(PropertyListInteger(error.byteOffset))]
        }
        if let error = nibArchiveError {
            var entry: OrderedDictionary<String, PropertyListValue> = ["message": .string(error.message)]
            if let offset = error.byteOffset { entry["offset"] = .integer(PropertyListInteger(offset)) }
            form["error"] = .dictionary(entry)
        }
        if let fields {
            form["fields"] = ProtocolBufferPropertyList.fieldsForm(fields)
        } else if let value {
            form["value"] = value
        } else if let error {
            form["error"] = ["message": .string(error.message), "location": .string(error.location.description)]
        }
        form["embedded"] = .array(nested.map(\.jsonForm))
        return .dictionary(form)
    }
}

/// Why a key path through data values (`EmbeddedKeyPath` (PropertyList)) cannot be
/// followed, saying where: the whole key path, the segment it failed in,
/// and for data that does not read, the byte offset inside that data.
public struct EmbeddedKeyPathError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong: one of the static members, compared with `==` or
    /// matched in a `switch` (which needs a `default:`, as codes may be added
    /// in later versions without breaking callers).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Wrapped: Hashable, Sendable {
            case notData, unreadable, readOnlyForm, nestingLimit, keyPath, layerLimit
        }

        fileprivate var wrapped: Wrapped

        fileprivate init(_ wrapped: Wrapped) { self.wrapped = wrapped }

        /// A `!` step follows a value that is not data.
        public static var notData: Self { Self(.notData) }
        /// The data a step reads is not a property list; ``EmbeddedKeyPathError/propertyListError`` says where in it.
        public static var unreadable: Self { Self(.unreadable) }
        /// What the step changed cannot be written back: the embedded property list is OpenStep, or
        /// the data is read only (compressed data, a typed stream, a NIB archive).
        public static var readOnlyForm: Self { Self(.readOnlyForm) }
        /// Archives nest in data values more deeply than ``EmbeddedArchives/maximumNesting``.
        public static var nestingLimit: Self { Self(.nestingLimit) }
        /// A key-path error inside one segment; ``EmbeddedKeyPathError/keyPathError`` has it.
        public static var keyPath: Self { Self(.keyPath) }
        /// Compressed data inflates past ``EmbeddedArchives/maximumInflatedSize``, or a protocol
        /// buffer, typed stream or NIB archive passes its reader's limits; ``EmbeddedKeyPathError/layerError``,
        /// ``EmbeddedKeyPathError/typedStreamError`` or ``EmbeddedKeyPathError/nibArchiveError`` says where in the layer.
        public static var layerLimit: Self { Self(.layerLimit) }

        /// The code's name, stable across versions.
        public var description: String {
            switch wrapped {
            case .notData: "notData"
            case .unreadable: "unreadable"
            case .readOnlyForm: "readOnlyForm"
            case .nestingLimit: "nestingLimit"
            case .keyPath: "keyPath"
            case .layerLimit: "layerLimit"
            }
        }
    }

    /// What went wrong.
    public var code: Code
    /// The whole key path asked for (or, from `find(in:)`, the data value's).
    public var keyPath: EmbeddedKeyPath
    /// The segment the problem is in (0: the outer property list).
    public var segment: Int
    /// For `.unreadable` and `.readOnlyForm`, the reader's or writer's error
    /// (its location is inside the embedded data).
    public var propertyListError: PropertyListError?
    /// For `.keyPath`, the error inside the segment.
    public var keyPathError: PropertyListKeyPathError?
    /// For `.layerLimit` and for compressed data that does not inflate
    /// (`.unreadable`), the layer's error, with the offset in the layer's bytes.
    public var layerError: DataLayerError? = nil
    /// For a typed stream that does not read or decode (`.unreadable`, or
    /// `.layerLimit` past its reader's limits), the reader's error, with the
    /// offset in the stream's bytes.
    public var typedStreamError: TypedStreamError? = nil
    /// For a NIB archive that does not read (`.unreadable`, or `.layerLimit`
    /// past its reader's limits), the reader's error, with the offset in its bytes.
    public var nibArchiveError: NIBArchiveError? = nil
    /// A sentence for people, naming the data value's key path and, for data
    /// that does not read, the byte offset inside it.
    public var message: String

    /// Makes an error.
    public init(
        _ code: Code, keyPath: EmbeddedKeyPath, segment: Int, propertyListError: PropertyListError? = nil,
        keyPathError: PropertyListKeyPathError? = nil, layerError: DataLayerError? = nil, _ message: String
    ) {
        self.code = code
        self.keyPath = keyPath
        self.segment = segment
        self.propertyListError = propertyListError
        self.keyPathError = keyPathError
        self.layerError = layerError
        self.message = message
    }

    public var description: String { "\(message) (at \(keyPath))" }
}

/// Archives held in data values: recognised by their first bytes, read,
/// and written back in their own form after an edit inside them.
///
/// Recognised (`form(of:)`, used by `find(in:)`): bytes starting
/// `bplist` (a binary property list), XML naming a `plist` in its first
/// 4 KB, an `NSArchiver` typed stream or a `NIBArchive` nib by its header
/// (as `NonPropertyListFormat` tells them), gzip or zlib data by theirs,
/// and text opening a dictionary or array (`{`, `(`, `[`) that reads whole
/// as JSON or OpenStep. A key path's `!` step (`value(in:at:)`,
/// `edit(_:at:followingLast:_:)`) reads a typed stream as its root decoded
/// by class, a NIB archive as its object graph, compressed data as what it
/// inflates to, and any other data as `PropertyListReader` reads a file,
/// and says where it fails; only property lists are written back.
public struct EmbeddedArchives: Sendable {
    /// The limits for reading each embedded property list.
    public var limits: PropertyListLimits
    /// How many data values deep archives may nest (a step is one level;
    /// so is each layer of compressed data).
    public var maximumNesting: Int
    /// The most bytes compressed data may inflate to (each layer).
    public var maximumInflatedSize: Int
    /// The reader of protocol buffers inside compressed data, with its limits.
    public var protocolBuffers: ProtocolBufferReader
    /// The reader of typed streams in data values, with its limits.
    public var typedStreams: TypedStreamReader
    /// The reader of NIB archives in data values, with its limits.
    public var nibArchives: NIBArchiveReader

    /// Makes a reader with these limits (compressed data inflates to at most 64 MB).
    public init(
        limits: PropertyListLimits = .default, maximumNesting: Int = 16, maximumInflatedSize: Int = 64 << 20,
        protocolBuffers: ProtocolBufferReader = ProtocolBufferReader(), typedStreams: TypedStreamReader = TypedStreamReader(),
        nibArchives: NIBArchiveReader = NIBArchiveReader()
    ) {
        self.limits = limits
        self.maximumNesting = maximumNesting
        self.maximumInflatedSize = maximumInflatedSize
        self.protocolBuffers = protocolBuffers
        self.typedStreams = typedStreams
        self.nibArchives = nibArchives
    }

    /// What `bytes` hold, told by their first bytes (see the type's list);
    /// nil when they start as none of these. A text form is read in full
    /// to tell; binary and XML only by their start.
    public func form(of bytes: Data) -> EmbeddedArchiveForm? {
        bytes.withUnsafeBytes { buffer -> EmbeddedArchiveForm? in
            if let (other, _) = NonPropertyListFormat.detect(buffer) {
                switch other {
                case .typedStream: return .typedStream
                case .nibArchive: return .nibArchive
                default: return nil
                }
            }
            if let compressed = CompressedForm.detect(buffer) { return .compressed(compressed) }
            let format = PropertyListFormat.detect(buffer)
            switch format {
            case .binary:
                return buffer.starts(with: "bplist".utf8) ? Self.propertyListForm(buffer, format) : nil
            case .xml:
                let head = Array(buffer.prefix(4096))
                return head.firstRange(of: Array("<plist".utf8)) != nil ? Self.propertyListForm(buffer, format) : nil
            case .json, .openStep:
                guard let first = buffer.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }),
                    [UInt8(ascii: "{"), UInt8(ascii: "("), UInt8(ascii: "[")].contains(first),
                    let read = try? PropertyListReader(limits: limits).read(buffer)
                else { return nil }
                return KeyedArchiveKeyPath.isArchive(read.value) ? .keyedArchive(read.format) : .propertyList(read.format)
            }
        }
    }

    /// Binary or XML: a keyed archive when its start names `$archiver` (the
    /// whole read tells for sure; this is only a name for people).
    private static func propertyListForm(_ buffer: UnsafeRawBufferPointer, _ format: PropertyListFormat) -> EmbeddedArchiveForm {
        let marker = Array("$archiver".utf8)
        let found = Array(buffer.prefix(1 << 16)).firstRange(of: marker) != nil
        return found ? .keyedArchive(format) : .propertyList(format)
    }

    /// Reads `bytes` as a property list in any form, as `PropertyListReader` reads a file.
    ///
    /// - Throws: `PropertyListError` from the reader, located in `bytes`.
    public func read(_ bytes: Data) throws(PropertyListError) -> (value: PropertyListValue, format: PropertyListFormat) {
        try PropertyListReader(limits: limits).read(bytes)
    }

    /// The value at `keyPath` in `root`, reading each stepped-into data
    /// value; each segment starting `$top` follows its archive's references
    /// (`KeyedArchiveKeyPath`), the last one's only when `followingLast`.
    ///
    /// Cost: reads each data value on the way in full.
    ///
    /// - Throws: `EmbeddedKeyPathError`: `.keyPath` with `.missing` when
    ///   nothing is there; `.notData`, `.unreadable` (with the byte offset
    ///   in the data), `.layerLimit` or `.nestingLimit` for a step.
    public func value(in root: PropertyListValue, at keyPath: EmbeddedKeyPath, followingLast: Bool = true) throws(EmbeddedKeyPathError)
        -> PropertyListValue
    {
        try checkNesting(keyPath)
        var current = root
        for (index, segment) in keyPath.segments.enumerated() {
            let isLast = index == keyPath.segments.count - 1
            let resolved = KeyedArchiveKeyPath.resolve(segment, in: current, followingLast: isLast ? followingLast : true)
            guard let found = current.value(at: resolved) else {
                throw EmbeddedKeyPathError(
                    .keyPath, keyPath: keyPath, segment: index,
                    keyPathError: PropertyListKeyPathError(.missing, keyPath: resolved, depth: resolved.components.count),
                    "no value at this key path")
            }
            if isLast { return found }
            current = try open(found, keyPath: keyPath, segment: index).value
        }
        return current
    }

    /// The value at the last segment of `keyPath` read by its class, as
    /// `KeyedArchiveKeyPath.readableValue(at:in:)` reads it in the keyed
    /// archive the `!` steps lead to (a UUID, URL, rect, colour, font,
    /// attributed string, …): what `ict get` prints for such an object
    /// inside a data value, as it does for one in a file.
    ///
    /// Cost: reads each data value on the way in full, then the innermost
    /// archive's object graph.
    ///
    /// - Returns: nil when a step fails (`value(in:at:followingLast:)`
    ///   says why) or the value is no object read by its class.
    public func readableValue(in root: PropertyListValue, at keyPath: EmbeddedKeyPath) -> ArchivedValue? {
        guard let last = keyPath.segments.last, (try? checkNesting(keyPath)) != nil else { return nil }
        var current = root
        for index in keyPath.segments.indices.dropLast() {
            let resolved = KeyedArchiveKeyPath.resolve(keyPath.segments[index], in: current)
            guard let found = current.value(at: resolved), let opened = try? open(found, keyPath: keyPath, segment: index) else {
                return nil
            }
            current = opened.value
        }
        return KeyedArchiveKeyPath.readableValue(at: last, in: current)
    }

    /// Edits the value at `keyPath` in `root`: `body` gets the property
    /// list of the last segment and the path in it (references followed
    /// as in `value(in:at:followingLast:)`), and each data value on the
    /// way that `body` changed is written back in the form it was read in
    /// (binary stays binary, XML stays XML), in place of the old data. A
    /// data value whose contents did not change keeps its bytes.
    ///
    /// Cost: reads and writes each data value on the way in full.
    ///
    /// - Throws: `EmbeddedKeyPathError` as `value(in:at:followingLast:)`
    ///   does, `.keyPath` for what `body` throws, `.readOnlyForm` when an
    ///   OpenStep embedded property list changed (or cannot be written
    ///   back), or what `body` changed is inside compressed data, a typed
    ///   stream or a NIB archive (read only); `root` is then unchanged.
    public func edit(
        _ root: inout PropertyListValue, at keyPath: EmbeddedKeyPath, followingLast: Bool,
        _ body: (inout PropertyListValue, PropertyListKeyPath) throws(PropertyListKeyPathError) -> Void
    ) throws(EmbeddedKeyPathError) {
        try checkNesting(keyPath)
        var copy = root
        try edit(&copy, keyPath: keyPath, segment: 0, followingLast: followingLast, body)
        root = copy
    }

    private func edit(
        _ value: inout PropertyListValue, keyPath: EmbeddedKeyPath, segment index: Int, followingLast: Bool,
        _ body: (inout PropertyListValue, PropertyListKeyPath) throws(PropertyListKeyPathError) -> Void
    ) throws(EmbeddedKeyPathError) {
        let segment = keyPath.segments[index]
        guard index < keyPath.segments.count - 1 else {
            let resolved = KeyedArchiveKeyPath.resolve(segment, in: value, followingLast: followingLast)
            do throws(PropertyListKeyPathError) {
                try body(&value, resolved)
            } catch {
                let place = index == 0 ? "" : "inside the data at '\(keyPath.prefix(throughSegment: index - 1))': "
                throw EmbeddedKeyPathError(.keyPath, keyPath: keyPath, segment: index, keyPathError: error, place + error.message)
            }
            return
        }
        let resolved = KeyedArchiveKeyPath.resolve(segment, in: value, followingLast: true)
        guard let found = value.value(at: resolved) else {
            throw EmbeddedKeyPathError(
                .keyPath, keyPath: keyPath, segment: index,
                keyPathError: PropertyListKeyPathError(.missing, keyPath: resolved, depth: resolved.components.count),
                "no value at '\(keyPath.prefix(throughSegment: index))' to step into")
        }
        let opened = try open(found, keyPath: keyPath, segment: index)
        var inner = opened.value
        try edit(&inner, keyPath: keyPath, segment: index + 1, followingLast: followingLast, body)
        guard inner != opened.value else { return }
        let place = keyPath.prefix(throughSegment: index)
        guard let format = opened.format else {
            throw EmbeddedKeyPathError(
                .readOnlyForm, keyPath: keyPath, segment: index + 1,
                "the data at '\(place)' is \(Self.readOnlyName(opened.form)): what it holds is read, not written back")
        }
        let bytes: [UInt8]
        do throws(PropertyListError) {
            bytes = try PropertyListWriter().encode(inner, format: format)
        } catch {
            throw EmbeddedKeyPathError(
                .readOnlyForm, keyPath: keyPath, segment: index + 1, propertyListError: error,
                "the \(EmbeddedArchiveForm.propertyList(format)) in the data at '\(place)' cannot be written back: \(error.message)")
        }
        do throws(PropertyListKeyPathError) {
            try value.setValue(.data(Data(bytes)), at: resolved, mode: .replace)
        } catch {
            throw EmbeddedKeyPathError(.keyPath, keyPath: keyPath, segment: index, keyPathError: error, error.message)
        }
    }

    /// The property list in the data value `found`, reached by segment
    /// `index` of `keyPath`, with the form to write it back in: nil when it
    /// is reached through compressed layers, or is a typed stream or NIB
    /// archive (read only; `form` is then the outermost layer's). Compressed
    /// data is inflated, layer by layer; what it inflates to that is no
    /// property list is read as a protocol buffer (`ProtocolBufferPropertyList`).
    private func open(_ found: PropertyListValue, keyPath: EmbeddedKeyPath, segment index: Int) throws(EmbeddedKeyPathError)
        -> (value: PropertyListValue, format: PropertyListFormat?, form: EmbeddedArchiveForm?)
    {
        let place = keyPath.prefix(throughSegment: index)
        guard case .data(var bytes) = found else {
            throw EmbeddedKeyPathError(
                .notData, keyPath: keyPath, segment: index,
                "'\(place)' holds \(Self.kindName(found)), not data, so '!' cannot read a property list from it")
        }
        var layers = 0
        let outer = form(of: bytes)
        var inner = outer
        while case .compressed(let compressed)? = inner {
            layers += 1
            guard index + layers <= maximumNesting else {
                throw EmbeddedKeyPathError(
                    .nestingLimit, keyPath: keyPath, segment: index,
                    "the data at '\(place)' nests compressed layers more than \(maximumNesting) deep")
            }
            bytes = try inflate(bytes, compressed, place: place, keyPath: keyPath, segment: index)
            inner = form(of: bytes)
        }
        switch inner {
        case .typedStream?:
            return (try typedStreamValue(bytes, place: place, keyPath: keyPath, segment: index), nil, outer)
        case .nibArchive?:
            return (try nibArchiveValue(bytes, place: place, keyPath: keyPath, segment: index), nil, outer)
        case nil where layers > 0:
            let fields = try protocolBuffer(bytes, place: place, keyPath: keyPath, segment: index)
            return (ProtocolBufferPropertyList.value(of: fields), nil, outer)
        default:
            break
        }
        do throws(PropertyListError) {
            let read = try read(bytes)
            return (read.value, layers > 0 ? nil : read.format, outer)
        } catch {
            let whereInside = error.location == .none ? "" : " (\(error.location) of its \(bytes.count) bytes)"
            let inflatedWord = layers > 0 ? " inflated" : ""
            throw EmbeddedKeyPathError(
                .unreadable, keyPath: keyPath, segment: index + 1, propertyListError: error,
                "the\(inflatedWord) data at '\(place)' does not read as a property list: \(error.message)\(whereInside)")
        }
    }

    /// `bytes` inflated from `compressed`, for the data at `place`.
    private func inflate(_ bytes: Data, _ compressed: CompressedForm, place: EmbeddedKeyPath, keyPath: EmbeddedKeyPath, segment index: Int)
        throws(EmbeddedKeyPathError) -> Data
    {
        switch inflated(bytes, compressed) {
        case .success(let inflated): return inflated
        case .failure(let error):
            throw EmbeddedKeyPathError(
                error.isLimit ? .layerLimit : .unreadable, keyPath: keyPath, segment: index, layerError: error,
                "the \(compressed.rawValue) data at '\(place)' does not inflate: \(error.message) (at byte \(error.offset) of its \(bytes.count))")
        }
    }

    private func inflated(_ bytes: Data, _ compressed: CompressedForm) -> Result<Data, DataLayerError> {
        bytes.withUnsafeBytes { buffer in
            Result { () throws(DataLayerError) in Data(try Inflate.inflate(buffer, form: compressed, limit: maximumInflatedSize)) }
        }
    }

    /// The fields of the protocol buffer `bytes` (inflated from the data at `place`).
    private func protocolBuffer(_ bytes: Data, place: EmbeddedKeyPath, keyPath: EmbeddedKeyPath, segment index: Int)
        throws(EmbeddedKeyPathError) -> [ProtocolBufferField]
    {
        do throws(DataLayerError) {
            return try protocolBuffers.read(bytes)
        } catch {
            throw EmbeddedKeyPathError(
                error.isLimit ? .layerLimit : .unreadable, keyPath: keyPath, segment: index + 1, layerError: error,
                "the data at '\(place)' inflates to \(bytes.count) bytes that are neither a property list nor a protocol buffer: "
                    + "\(error.message) (at byte \(error.offset) of them)")
        }
    }

    /// The typed stream `bytes` (the data at `place`, or what it inflates
    /// to) read and its root decoded by class, as a property list.
    private func typedStreamValue(_ bytes: Data, place: EmbeddedKeyPath, keyPath: EmbeddedKeyPath, segment index: Int)
        throws(EmbeddedKeyPathError) -> PropertyListValue
    {
        switch typedStream(bytes) {
        case .success(let read): return read.value
        case .failure(let error): throw Self.failure(error, length: bytes.count, place: place, keyPath: keyPath, segment: index + 1)
        }
    }

    private static func failure(_ error: TypedStreamError, length: Int, place: EmbeddedKeyPath, keyPath: EmbeddedKeyPath, segment: Int)
        -> EmbeddedKeyPathError
    {
        var failure = EmbeddedKeyPathError(
            error.code == .limitExceeded ? .layerLimit : .unreadable, keyPath: keyPath, segment: segment,
            "the NSArchiver typed stream at '\(place)' does not read: \(error.message) (at byte \(error.byteOffset) of its \(length))")
        failure.typedStreamError = error
        return failure
    }

    /// The NIB archive `bytes` (the data at `place`, or what it inflates to) read, as its object graph's property list.
    private func nibArchiveValue(_ bytes: Data, place: EmbeddedKeyPath, keyPath: EmbeddedKeyPath, segment index: Int)
        throws(EmbeddedKeyPathError) -> PropertyListValue
    {
        switch nibArchive(bytes) {
        case .success(let graph): return graph.jsonForm
        case .failure(let error): throw Self.failure(error, length: bytes.count, place: place, keyPath: keyPath, segment: index + 1)
        }
    }

    private static func failure(_ error: NIBArchiveError, length: Int, place: EmbeddedKeyPath, keyPath: EmbeddedKeyPath, segment: Int)
        -> EmbeddedKeyPathError
    {
        let at = error.byteOffset.map { " (at byte \($0) of its \(length))" } ?? ""
        var failure = EmbeddedKeyPathError(
            isLimit(error) ? .layerLimit : .unreadable, keyPath: keyPath, segment: segment,
            "the NIB archive at '\(place)' does not read: \(error.message)\(at)")
        failure.nibArchiveError = error
        return failure
    }

    /// The typed stream read, and its root decoded (`FoundationObject.jsonForm`).
    private func typedStream(_ bytes: Data) -> Result<(document: TypedStreamDocument, value: PropertyListValue), TypedStreamError> {
        bytes.withUnsafeBytes { buffer in
            Result { () throws(TypedStreamError) in
                let document = try typedStreams.read(buffer)
                var decoder = TypedStreamFoundationDecoder(document: document)
                return (document, try decoder.decodeRoot().jsonForm)
            }
        }
    }

    private func nibArchive(_ bytes: Data) -> Result<NibObjectGraph, NIBArchiveError> {
        bytes.withUnsafeBytes { buffer in
            Result { () throws(NIBArchiveError) in NibObjectGraph(try nibArchives.read(buffer)) }
        }
    }

    private static func isLimit(_ error: NIBArchiveError) -> Bool {
        [NIBArchiveLimit.inputSize, .count, .depth].contains { error.code == .limitExceeded($0) }
    }

    /// What read-only data is, for the refusal of an edit inside it.
    private static func readOnlyName(_ form: EmbeddedArchiveForm?) -> String {
        switch form {
        case .typedStream?: "an NSArchiver typed stream"
        case .nibArchive?: "a NIB archive"
        default: "compressed"
        }
    }

    private func checkNesting(_ keyPath: EmbeddedKeyPath) throws(EmbeddedKeyPathError) {
        let steps = keyPath.segments.count - 1
        guard steps > maximumNesting else { return }
        throw EmbeddedKeyPathError(
            .nestingLimit, keyPath: keyPath, segment: maximumNesting,
            "the key path steps into \(steps) data values, more than the limit of \(maximumNesting)")
    }

    /// Every archive in a data value of `root`, and the archives in those,
    /// each with its key path (a keyed archive's as its property list holds
    /// it: `$objects.3.NS.data`). A typed stream's value is its root decoded
    /// by class, a NIB archive's its object graph; the layers inside those
    /// are found in their data values too.
    ///
    /// Cost: reads every data value that starts as a layer in full.
    ///
    /// - Throws: `EmbeddedKeyPathError` with `.nestingLimit` when archives
    ///   nest more than `maximumNesting` deep, `.layerLimit` when a layer
    ///   passes its reader's limits, naming the data value's key path.
    public func find(in root: PropertyListValue) throws(EmbeddedKeyPathError) -> [EmbeddedArchive] {
        try find(in: root, at: EmbeddedKeyPath([PropertyListKeyPath()]))
    }

    private func find(in value: PropertyListValue, at keyPath: EmbeddedKeyPath) throws(EmbeddedKeyPathError) -> [EmbeddedArchive] {
        var found: [EmbeddedArchive] = []
        var pending: [(PropertyListValue, PropertyListKeyPath)] = [(value, keyPath.segments[keyPath.segments.count - 1])]
        while let (current, path) = pending.popLast() {
            switch current {
            case .dictionary(let dictionary):
                for (key, element) in dictionary.reversed() { pending.append((element, path.appending(.key(key)))) }
            case .array(let elements):
                for (index, element) in elements.enumerated().reversed() { pending.append((element, path.appending(.index(index)))) }
            case .data(let bytes):
                guard let form = form(of: bytes) else { continue }
                var place = keyPath
                place.segments[place.segments.count - 1] = path
                found.append(try archive(bytes, form: form, at: place))
            default:
                continue
            }
        }
        return found
    }

    private func archive(_ bytes: Data, form: EmbeddedArchiveForm, at place: EmbeddedKeyPath, layers: Int = 0) throws(EmbeddedKeyPathError)
        -> EmbeddedArchive
    {
        var archive = EmbeddedArchive(keyPath: place, form: form, bytes: bytes, value: nil, error: nil, nested: [])
        switch form {
        case .typedStream:
            switch typedStream(bytes) {
            case .success(let read):
                archive.typedStream = read.document
                archive.value = read.value
            case .failure(let error) where error.code == .limitExceeded:
                throw Self.failure(error, length: bytes.count, place: place, keyPath: place, segment: place.segments.count - 1)
            case .failure(let error):
                archive.typedStreamError = error
                return archive
            }
            return try nesting(archive)
        case .nibArchive:
            switch nibArchive(bytes) {
            case .success(let graph): archive.value = graph.jsonForm
            case .failure(let error) where Self.isLimit(error):
                throw Self.failure(error, length: bytes.count, place: place, keyPath: place, segment: place.segments.count - 1)
            case .failure(let error):
                archive.nibArchiveError = error
                return archive
            }
            return try nesting(archive)
        default:
            break
        }
        if case .compressed(let compressed) = form {
            guard place.segments.count + layers <= maximumNesting else {
                throw EmbeddedKeyPathError(
                    .nestingLimit, keyPath: place, segment: place.segments.count - 1,
                    "archives and compressed layers nest in data values more than \(maximumNesting) deep")
            }
            let inflated: Data
            switch self.inflated(bytes, compressed) {
            case .success(let data): inflated = data
            case .failure(let error) where error.isLimit:
                throw EmbeddedKeyPathError(
                    .layerLimit, keyPath: place, segment: place.segments.count - 1, layerError: error,
                    "the \(compressed.rawValue) data at '\(place)' does not inflate: \(error.message) (at byte \(error.offset) of its \(bytes.count))")
            case .failure(let error):
                archive.layerError = error
                return archive
            }
            archive.inflated = inflated
            if let inner = self.form(of: inflated) {
                archive.nested = [try self.archive(inflated, form: inner, at: place, layers: layers + 1)]
                return archive
            }
            let fields: [ProtocolBufferField]
            do throws(DataLayerError) {
                fields = try protocolBuffers.read(inflated)
            } catch  where error.isLimit {
                throw EmbeddedKeyPathError(
                    .layerLimit, keyPath: place, segment: place.segments.count, layerError: error,
                    "the protocol buffer the data at '\(place)' inflates to passes a limit: \(error.message) (at byte \(error.offset) of its \(inflated.count))"
                )
            } catch {
                return archive  // Neither a property list nor a protocol buffer: the inflated bytes are shown as data.
            }
            var layer = EmbeddedArchive(keyPath: place, form: .protocolBuffer, bytes: inflated, value: nil, error: nil, nested: [])
            let value = ProtocolBufferPropertyList.value(of: fields)
            layer.fields = fields
            layer.value = value
            layer.nested = try find(in: value, at: place.appending(segment: PropertyListKeyPath()))
            archive.nested = [layer]
            return archive
        }
        let value: PropertyListValue
        do throws(PropertyListError) {
            value = try read(bytes).value
        } catch {
            archive.error = error
            return archive
        }
        archive.value = value
        return try nesting(archive)
    }

    /// `archive` with the layers in its value's data values, within the nesting limit.
    private func nesting(_ archive: EmbeddedArchive) throws(EmbeddedKeyPathError) -> EmbeddedArchive {
        guard let value = archive.value else { return archive }
        let place = archive.keyPath
        guard place.segments.count <= maximumNesting else {
            throw EmbeddedKeyPathError(
                .nestingLimit, keyPath: place, segment: place.segments.count - 1,
                "archives nest in data values more than \(maximumNesting) deep")
        }
        var archive = archive
        archive.nested = try find(in: value, at: place.appending(segment: PropertyListKeyPath()))
        return archive
    }

    private static func kindName(_ value: PropertyListValue) -> String {
        switch value {
        case .string: "a string"
        case .integer: "an integer"
        case .real, .real32: "a real number"
        case .bool: "a boolean"
        case .date: "a date"
        case .data: "data"
        case .uid: "a UID"
        case .array: "an array"
        case .dictionary: "a dictionary"
        }
    }
}
