// Foundation's value classes as plain Swift values, free of any archive
// format: TypedStream's decoder makes `FoundationObject`s of them, and
// KeyedArchive's `ArchivedValue` carries the same types.

/// A decoded Foundation object: a string, attributed string, number,
/// collection and the like, or an object of another class kept with its
/// class name, version and fields in order.
public indirect enum FoundationObject: Hashable, Sendable {
    /// `NSString`, `NSMutableString`.
    case string(String)
    /// `NSAttributedString`, `NSMutableAttributedString`.
    case attributedString(AttributedText<FoundationObject>)
    /// `NSNumber`.
    case number(FoundationNumber)
    /// `NSData`, `NSMutableData`: the bytes.
    case data([UInt8])
    /// `NSDate`.
    case date(FoundationDate)
    /// `NSURL`.
    case url(FoundationURL)
    /// `NSArray`, `NSMutableArray`.
    case array([FoundationObject])
    /// `NSSet`, `NSMutableSet`: the elements in stored order.
    case set([FoundationObject])
    /// `NSDictionary`, `NSMutableDictionary`: the entries in stored order.
    case dictionary([FoundationDictionaryEntry])
    /// `NSFont`.
    case font(FoundationFont)
    /// `NSColor`.
    case color(FoundationColor)
    /// An `NSValue` holding a point, size, rect or range.
    case geometry(FoundationGeometry)
    /// A struct of another kind (in an `NSValue`, or an object's field).
    case structure(name: String?, fields: [FoundationObject])
    /// A C value that is not an object: an integer or floating-point field.
    case scalar(FoundationNumber)
    /// A C string, atom or selector field, as its bytes.
    case cString([UInt8])
    /// A class written as a value (`#`): its name.
    case className(String)
    /// nil, NULL or Nil.
    case null
    /// An object of a class not decoded by name.
    case other(FoundationOtherObject)
    /// An object of a class not decoded by name, met again while it is being
    /// decoded: a cycle through its own fields, as a view's subview refers to
    /// its superview. Its index in the archive's object table. A decoder asked
    /// to reference shared objects (`TypedStreamFoundationDecoder`'s
    /// `referencesSharedObjects`) also gives every container object this way.
    case reference(Int)
}

/// A key and its value in a dictionary (or an attributed string's run) of `Value`s.
public struct FoundationEntry<Value: Hashable & Sendable>: Hashable, Sendable {
    /// The key.
    public var key: Value
    /// The value.
    public var value: Value

    /// Makes an entry.
    public init(key: Value, value: Value) {
        self.key = key
        self.value = value
    }
}

/// A key and its value in a typed stream's dictionary.
public typealias FoundationDictionaryEntry = FoundationEntry<FoundationObject>

/// An object of a class the decoder does not know by name.
public struct FoundationOtherObject: Hashable, Sendable {
    /// The class name, most derived first, with its superclasses' names after it.
    public var classNames: [String]
    /// The most derived class's version.
    public var version: Int
    /// The fields its coder wrote, in order.
    public var fields: [FoundationObject]

    /// Makes an object description.
    public init(classNames: [String], version: Int, fields: [FoundationObject]) {
        self.classNames = classNames
        self.version = version
        self.fields = fields
    }
}

/// An attributed string: its text and the runs of attributes over it, each
/// attribute's key and value a `Value` of the format it was read from
/// (`FoundationObject` from a typed stream, `ArchivedValue` from a keyed archive).
public struct AttributedText<Value: Hashable & Sendable>: Hashable, Sendable {
    /// The text.
    public var string: String
    /// The runs, in order, covering the text without gaps.
    public var runs: [AttributedTextRun<Value>]

    /// Makes an attributed text.
    public init(string: String, runs: [AttributedTextRun<Value>]) {
        self.string = string
        self.runs = runs
    }
}

/// One run of an attributed string: a range of its text and the attributes over it.
public struct AttributedTextRun<Value: Hashable & Sendable>: Hashable, Sendable {
    /// The range, in UTF-16 code units as Foundation counts.
    public var range: TextRange
    /// The attributes by name (`NSFont`, `NSColor`, `NSLink`, iMessage's `__kIMLinkAttributeName`), in stored order.
    public var attributes: [FoundationEntry<Value>]

    /// Makes a run.
    public init(range: TextRange, attributes: [FoundationEntry<Value>]) {
        self.range = range
        self.attributes = attributes
    }

    /// The run's text, cut out of `text` (nil when the range is not on character boundaries in it).
    public func text(in text: String) -> String? {
        let utf16 = text.utf16
        guard range.location >= 0, range.length >= 0, range.location <= utf16.count - range.length else { return nil }
        let start = utf16.index(utf16.startIndex, offsetBy: range.location)
        let end = utf16.index(start, offsetBy: range.length)
        return String(utf16[start..<end])
    }
}

/// A location and length (`NSRange`).
public struct TextRange: Hashable, Sendable, CustomStringConvertible {
    /// The first unit.
    public var location: Int
    /// How many units.
    public var length: Int

    /// Makes a range.
    public init(location: Int, length: Int) {
        self.location = location
        self.length = length
    }

    /// `{0, 10}`, as `NSStringFromRange` writes it.
    public var description: String { "{\(location), \(length)}" }
}

/// A number's value, as it was stored.
public enum FoundationNumber: Hashable, Sendable, CustomStringConvertible {
    /// An integer of any width.
    case integer(Int64)
    /// A `float` or `double`.
    case real(Double)
    /// A `BOOL`/`_Bool`.
    case bool(Bool)

    /// The value as text: `42`, `0.5`, `true`.
    public var description: String {
        switch self {
        case .integer(let value): String(value)
        case .real(let value): FoundationText.number(value)
        case .bool(let value): value ? "true" : "false"
        }
    }
}

/// A date (`NSDate`): seconds from 2001-01-01 00:00:00 UTC.
public struct FoundationDate: Hashable, Sendable {
    /// Seconds since the reference date, 2001-01-01 00:00:00 UTC.
    public var secondsSinceReferenceDate: Double

    /// Makes a date.
    public init(secondsSinceReferenceDate: Double) {
        self.secondsSinceReferenceDate = secondsSinceReferenceDate
    }

    /// Seconds since 1970-01-01 00:00:00 UTC.
    public var secondsSince1970: Double { secondsSinceReferenceDate + 978_307_200 }
}

/// A URL (`NSURL`): its string and the URL it is relative to, if any.
public struct FoundationURL: Hashable, Sendable, CustomStringConvertible {
    /// The URL's string as stored (relative to ``base`` when there is one).
    public var string: String
    /// The base URL's string, for a relative URL.
    public var base: String?

    /// Makes a URL.
    public init(string: String, base: String? = nil) {
        self.string = string
        self.base = base
    }

    /// The string resolved against its base as RFC 3986 section 5.2 says
    /// (`NSURL`'s `absoluteString`): `docs/a.txt` relative to
    /// `https://example.com/base/index.html` is
    /// `https://example.com/base/docs/a.txt`. The string itself when there is no base.
    public var absoluteString: String {
        guard let base else { return string }
        return URLResolution.resolve(string, against: base)
    }

    /// The absolute string.
    public var description: String { absoluteString }
}

extension FoundationObject {
    /// The value on one line for people: a string quoted, a number as it
    /// reads, a URL as `<absolute string>`, a rect as `NSStringFromRect`
    /// writes it, a colour as its space and components, a font as its name
    /// and size, collections with their elements so written.
    public var readableText: String {
        switch self {
        case .string(let text): FoundationText.quoted(text)
        case .attributedString(let text): "attributed " + FoundationText.quoted(text.string)
        case .number(let number), .scalar(let number): number.description
        case .data(let bytes): "<\(bytes.count) bytes>"
        case .date(let date): "date \(FoundationText.number(date.secondsSinceReferenceDate)) s since 2001-01-01"
        case .url(let url): "<\(url.absoluteString)>"
        case .array(let elements): "(\(elements.map(\.readableText).joined(separator: ", ")))"
        case .set(let elements): "set (\(elements.map(\.readableText).joined(separator: ", ")))"
        case .dictionary(let entries): "{\(entries.map { "\($0.key.readableText) = \($0.value.readableText)" }.joined(separator: "; "))}"
        case .font(let font): "font \(font)"
        case .color(let color): "colour \(color)"
        case .geometry(let geometry): geometry.description
        case .structure(let name, let fields): "struct \(name ?? "?") {\(fields.map(\.readableText).joined(separator: ", "))}"
        case .cString(let bytes): FoundationText.quoted(String(decoding: bytes, as: UTF8.self))
        case .className(let name): "class \(name)"
        case .null: "nil"
        case .reference(let index): "object #\(index) (a cycle)"
        case .other(let object): "\(object.classNames.first ?? "?") v\(object.version) (\(object.fields.count) fields)"
        }
    }
}
