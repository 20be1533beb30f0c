import PropertyList

/// Converts a property list from one form to another as `ict convert` does,
/// keeping keyed archives what they are: an archive converted to JSON is
/// written in its JSON form (`KeyedArchive.jsonForm`), one converted to
/// `keyedArchive` or `keyedArchiveXML` laid out as `NSKeyedArchiver` lays it
/// out, and a binary archive written again as binary or JSON keeps its own
/// object table (`KeyedArchiveLayout`: nibs and Xcode's files share objects
/// by identity, not by a rule), so an unchanged archive comes back whole.
public struct PropertyListConversion: Sendable {
    /// The form to write.
    public enum Form: Sendable, Hashable {
        /// An XML property list.
        case xml
        /// A binary property list (a binary archive keeps its layout).
        case binary
        /// JSON: a property list's JSON form, or an archive's.
        case json
        /// A binary keyed archive, from an archive or its JSON form.
        case keyedArchive
        /// An XML keyed archive, from an archive or its JSON form.
        case keyedArchiveXML
    }

    /// A property list read for conversion.
    public struct Input: Sendable {
        /// The value read.
        public var value: PropertyListValue
        /// The form it was read in.
        public var format: PropertyListFormat
        /// The object table of a binary keyed archive, when the conversion keeps it.
        public var layout: KeyedArchiveLayout?
    }

    /// The form written.
    public var form: Form
    /// Whether every dictionary's keys are written sorted (no layout is
    /// kept then: the objects are renumbered).
    public var sortsKeys: Bool
    /// The reader's limits.
    public var limits: PropertyListLimits

    /// A conversion to `form`.
    public init(to form: Form, sortingKeys: Bool = false, limits: PropertyListLimits = .default) {
        self.form = form
        sortsKeys = sortingKeys
        self.limits = limits
    }

    /// Reads `bytes` in whatever form they are (`hint` first, as
    /// `PropertyListReader.read(_:format:)`), recording a binary archive's
    /// layout when the form written keeps it. An archive whose layout cannot
    /// be recorded is written by the rule.
    ///
    /// - Throws: `PropertyListError` when the bytes are not a property list.
    public func read(_ bytes: UnsafeRawBufferPointer, hint: PropertyListFormat? = nil) throws(PropertyListError) -> Input {
        let read = try PropertyListReader(limits: limits).read(bytes, format: hint)
        if sortsKeys { return Input(value: read.value.withSortedKeys(), format: read.format) }
        let keepsLayout = form == .json || form == .keyedArchive || form == .binary
        guard keepsLayout, read.format == .binary, KeyedArchiveObjectGraph.looksLikeArchive(read.value),
            let archive = try? KeyedArchiveObjectGraph(propertyList: read.value)
        else { return Input(value: read.value, format: read.format) }
        // An archive that cannot be recorded is written by the rule; its problems are reported when it is converted.
        let layout = try? KeyedArchiveLayout(recording: archive, binaryPropertyList: bytes, limits: limits)
        return Input(value: read.value, format: read.format, layout: layout ?? nil)
    }

    /// Writes `input` in the form, handing the bytes to `sink`: XML in
    /// pieces as it is produced, every other form whole.
    ///
    /// - Throws: `PropertyListError` for the output (or whatever `sink`
    ///   throws), `KeyedArchiveError` for an input that is not the archive
    ///   the form needs.
    public func write(_ input: Input, to sink: (UnsafeRawBufferPointer) throws(PropertyListError) -> Void) throws {
        if form == .xml {
            try XMLPropertyListWriter().encode(input.value, to: sink)
            return
        }
        let bytes = try encode(input)
        let result: Result<Void, PropertyListError> = bytes.withUnsafeBytes { buffer in
            Result { () throws(PropertyListError) in try sink(buffer) }
        }
        try result.get()
    }

    /// The output bytes: a property list, an archive's JSON form, or an
    /// archive; an archive read from a binary file numbered as its layout says.
    ///
    /// - Throws: as `write(_:to:)`.
    public func encode(_ input: Input) throws -> [UInt8] {
        let value = input.value
        switch form {
        case .xml: return try PropertyListWriter().encode(value, format: .xml)
        case .binary:
            guard let layout = input.layout else { return try PropertyListWriter().encode(value, format: .binary) }
            var archive = try KeyedArchiveObjectGraph(propertyList: value)
            archive.layout = layout
            return try KeyedArchiveWriter(format: .binary).encode(archive)
        case .json:
            // A JSON text file ends with a newline, as XML property lists do.
            guard KeyedArchiveObjectGraph.looksLikeArchive(value) else { return try PropertyListWriter().encode(value, format: .json) + [UInt8(ascii: "\n")] }
            var archive = try KeyedArchiveObjectGraph(propertyList: value)
            archive.layout = input.layout
            return try JSONPropertyListWriter(prettyPrinted: true).encode(archive.jsonForm) + [UInt8(ascii: "\n")]
        case .keyedArchive, .keyedArchiveXML:
            var archive: KeyedArchiveObjectGraph
            if KeyedArchiveObjectGraph.looksLikeJSONForm(value) {
                archive = try KeyedArchiveObjectGraph(jsonForm: value)
            } else {
                archive = try KeyedArchiveObjectGraph(propertyList: value)
                archive.layout = input.layout
            }
            return try KeyedArchiveWriter(format: form == .keyedArchive ? .binary : .xml).encode(archive)
        }
    }
}
