// Foundation's value classes as plain Swift values, free of any archive
// format: the typed stream decoder makes them today, the keyed-archive
// decoder will make the same ones.

/// A decoded Foundation object: a string, attributed string, number,
/// collection and the like, or an object of another class kept with its
/// class name, version and fields in order.
public indirect enum FoundationObject: Hashable, Sendable {
    /// `NSString`, `NSMutableString`.
    case string(String)
    /// `NSAttributedString`, `NSMutableAttributedString`.
    case attributedString(AttributedText)
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
    /// its superview. Its index in the archive's object table.
    case reference(Int)
}

/// A key and its value in a dictionary.
public struct FoundationDictionaryEntry: Hashable, Sendable {
    /// The key.
    public var key: FoundationObject
    /// The value.
    public var value: FoundationObject

    /// Makes an entry.
    public init(key: FoundationObject, value: FoundationObject) {
        self.key = key
        self.value = value
    }
}

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

/// An attributed string: its text and the runs of attributes over it.
public struct AttributedText: Hashable, Sendable {
    /// The text.
    public var string: String
    /// The runs, in order, covering the text without gaps.
    public var runs: [AttributedTextRun]

    /// Makes an attributed text.
    public init(string: String, runs: [AttributedTextRun]) {
        self.string = string
        self.runs = runs
    }
}

/// One run of an attributed string: a range of its text and the attributes over it.
public struct AttributedTextRun: Hashable, Sendable {
    /// The range, in UTF-16 code units as Foundation counts.
    public var range: TextRange
    /// The attributes by name (`NSFont`, `NSColor`, `NSLink`, iMessage's `__kIMLinkAttributeName`), in stored order.
    public var attributes: [FoundationDictionaryEntry]

    /// Makes a run.
    public init(range: TextRange, attributes: [FoundationDictionaryEntry]) {
        self.range = range
        self.attributes = attributes
    }

    /// The run's text, cut out of `text` (nil when the range is not on character boundaries in it).
    public func text(in text: String) -> String? {
        let utf16 = text.utf16
        guard range.location >= 0, range.length >= 0, range.location + range.length <= utf16.count else { return nil }
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
        case .real(let value): GeometryText.number(value)
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
public struct FoundationURL: Hashable, Sendable {
    /// The URL's string as stored.
    public var string: String
    /// The base URL's string, for a relative URL.
    public var base: String?

    /// Makes a URL.
    public init(string: String, base: String? = nil) {
        self.string = string
        self.base = base
    }
}

/// A font (`NSFont`): its name and point size.
public struct FoundationFont: Hashable, Sendable {
    /// The PostScript name, when the archive's form of it was read (nil otherwise).
    public var name: String?
    /// The size in points.
    public var size: Double

    /// Makes a font.
    public init(name: String?, size: Double) {
        self.name = name
        self.size = size
    }
}

/// A colour (`NSColor`): its colour space and components.
public struct FoundationColor: Hashable, Sendable {
    /// The colour space a colour's components are in.
    public enum Space: String, Hashable, Sendable {
        /// Calibrated (generic) RGB: red, green, blue, alpha.
        case calibratedRGB
        /// Device RGB: red, green, blue, alpha.
        case deviceRGB
        /// Calibrated white: white, alpha.
        case calibratedWhite
        /// Device white: white, alpha.
        case deviceWhite
        /// Device CMYK: cyan, magenta, yellow, black, alpha.
        case deviceCMYK
        /// A named colour from a catalog; ``FoundationColor/catalog`` and ``FoundationColor/name`` say which.
        case named
    }

    /// The colour space.
    public var space: Space
    /// The components in the space's order, alpha last; empty for a named colour.
    public var components: [Double]
    /// A named colour's catalog (`System`).
    public var catalog: String?
    /// A named colour's name (`controlColor`).
    public var name: String?

    /// Makes a colour.
    public init(space: Space, components: [Double], catalog: String? = nil, name: String? = nil) {
        self.space = space
        self.components = components
        self.catalog = catalog
        self.name = name
    }
}

/// A point, size, rect or range held in an `NSValue`.
public enum FoundationGeometry: Hashable, Sendable, CustomStringConvertible {
    /// `NSPoint`/`CGPoint`.
    case point(x: Double, y: Double)
    /// `NSSize`/`CGSize`.
    case size(width: Double, height: Double)
    /// `NSRect`/`CGRect`.
    case rect(x: Double, y: Double, width: Double, height: Double)
    /// `NSRange`.
    case range(TextRange)

    /// As `NSStringFromPoint`, `NSStringFromSize`, `NSStringFromRect` and
    /// `NSStringFromRange` write it: `{{0, 0}, {480, 360}}`.
    public var description: String {
        switch self {
        case .point(let x, let y): "{\(GeometryText.number(x)), \(GeometryText.number(y))}"
        case .size(let width, let height): "{\(GeometryText.number(width)), \(GeometryText.number(height))}"
        case .rect(let x, let y, let width, let height):
            "{{\(GeometryText.number(x)), \(GeometryText.number(y))}, {\(GeometryText.number(width)), \(GeometryText.number(height))}}"
        case .range(let range): range.description
        }
    }
}

/// Numbers as Foundation's `NSStringFrom…` functions print them (`%g`-like: `480`, `0.5`).
enum GeometryText {
    static func number(_ value: Double) -> String {
        if value.isFinite, value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}
