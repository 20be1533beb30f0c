/// Where in the input a problem was found.
public enum PropertyListLocation: Hashable, Sendable, CustomStringConvertible {
    /// A byte offset from the start of the input (binary property lists).
    case byteOffset(Int)
    /// A 1-based line and column (XML and OpenStep property lists).
    case lineColumn(line: Int, column: Int)
    /// The problem is not tied to one place in the input (a writer's error, say).
    case none

    /// Whether this place lies further into the input than `other`: a later
    /// line, or the same line and a later column, or a later byte. Places of
    /// different kinds, or none, are not ordered.
    public func isAfter(_ other: PropertyListLocation) -> Bool {
        switch (self, other) {
        case let (.byteOffset(mine), .byteOffset(theirs)): mine > theirs
        case let (.lineColumn(line, column), .lineColumn(otherLine, otherColumn)):
            line > otherLine || (line == otherLine && column > otherColumn)
        default: false
        }
    }

    public var description: String {
        switch self {
        case .byteOffset(let offset): "byte \(offset)"
        case .lineColumn(let line, let column): "\(line):\(column)"
        case .none: ""
        }
    }
}

/// One step of a path into a property list: a dictionary key or an array index.
public enum PropertyListPathComponent: Hashable, Sendable {
    case key(String)
    case index(Int)
}

/// A path from the root of a property list to one value, written
/// `aDict.deeperDict.c[2]` in messages.
public struct PropertyListKeyPath: Hashable, Sendable, CustomStringConvertible,
    ExpressibleByArrayLiteral
{
    /// The steps from the root, outermost first.
    public var components: [PropertyListPathComponent]

    /// Makes a path from its steps.
    public init(_ components: [PropertyListPathComponent] = []) { self.components = components }

    public init(arrayLiteral elements: PropertyListPathComponent...) { components = elements }

    /// Parses `a.b[3].c`: keys separated by dots, array indexes in brackets.
    /// A key holding a dot or a bracket can be given with `components` instead.
    public init(parsing text: String) {
        var result: [PropertyListPathComponent] = []
        var key = ""
        var index: String?
        var hadKey = false
        for character in text {
            if var digits = index {
                if character == "]" {
                    if let number = Int(digits) { result.append(.index(number)) } else { result.append(.key("[\(digits)]")) }
                    index = nil
                } else {
                    digits.append(character)
                    index = digits
                }
                continue
            }
            switch character {
            case ".":
                if hadKey || !key.isEmpty { result.append(.key(key)) }
                key = ""; hadKey = false
            case "[":
                if !key.isEmpty { result.append(.key(key)) }
                key = ""; hadKey = false
                index = ""
            default:
                key.append(character); hadKey = true
            }
        }
        if let digits = index { result.append(.key("[" + digits)) }
        if hadKey { result.append(.key(key)) }
        components = result
    }

    /// This path with one more step.
    public func appending(_ component: PropertyListPathComponent) -> PropertyListKeyPath {
        PropertyListKeyPath(components + [component])
    }

    public var description: String {
        var text = ""
        for component in components {
            switch component {
            case .key(let key):
                if !text.isEmpty { text += "." }
                text += key
            case .index(let index):
                text += "[\(index)]"
            }
        }
        return text
    }
}

/// A limit that protects readers from hostile input.
public enum PropertyListLimit: String, Hashable, Sendable {
    /// `PropertyListLimits.maximumDepth`.
    case depth
    /// `PropertyListLimits.maximumObjectCount`.
    case objectCount
    /// `PropertyListLimits.maximumInputSize`.
    case inputSize
    /// `PropertyListLimits.maximumExpandedSize`.
    case expandedSize
}

/// The limits a reader enforces on untrusted input; each is reported by name
/// when hit.
public struct PropertyListLimits: Hashable, Sendable {
    /// How deeply arrays and dictionaries may nest. Stops stack overflows.
    public var maximumDepth: Int
    /// How many values (counting each use of a shared object) one read may
    /// produce. Stops allocation bombs built from shared references.
    public var maximumObjectCount: Int
    /// The largest input accepted, in bytes.
    public var maximumInputSize: Int
    /// How many bytes of strings and data (as the input stores them: a
    /// UTF-16 string two per unit) one read may produce, counting each use
    /// of a shared object: what a writer or printer of the value writes
    /// out. Stops output bombs built from shared references, such as a
    /// 65 KB file whose 4 million references reach one 64 KB data object.
    public var maximumExpandedSize: Int

    /// Makes a set of limits.
    public init(
        maximumDepth: Int = 512, maximumObjectCount: Int = 32_000_000, maximumInputSize: Int = 1 << 31,
        maximumExpandedSize: Int = 1 << 31
    ) {
        self.maximumDepth = maximumDepth
        self.maximumObjectCount = maximumObjectCount
        self.maximumInputSize = maximumInputSize
        self.maximumExpandedSize = maximumExpandedSize
    }

    /// The defaults: depth 512, 32 million values, 2 GiB of input, 2 GiB of
    /// strings and data expanded.
    public static let `default` = PropertyListLimits()
}

/// An error reading or writing a property list, saying what went wrong and where.
public struct PropertyListError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong: one of the static members, compared with `==` or
    /// matched in a `switch` (which needs a `default:`, as codes may be added
    /// in later versions without breaking callers).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: Hashable, Sendable {
            case truncated
            case unrecognizedFormat
            case invalidTrailer
            case invalidReference
            case invalidObject
            case invalidString
            case unexpectedElement
            case invalidValue
            case invalidKey
            case cycle
            case limitExceeded(PropertyListLimit)
            case malformedXML
            case unsupportedValue
            case io
        }

        private var wrapped: Wrapped

        private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

        /// The input ends before a value it announces.
        public static var truncated: Self { Self(.truncated) }
        /// The input is not of the expected format at all (wrong magic, not XML, …).
        public static var unrecognizedFormat: Self { Self(.unrecognizedFormat) }
        /// The binary trailer or offset table is inconsistent.
        public static var invalidTrailer: Self { Self(.invalidTrailer) }
        /// An object reference or offset points outside the object table.
        public static var invalidReference: Self { Self(.invalidReference) }
        /// An object's bytes are not a valid encoding of its kind.
        public static var invalidObject: Self { Self(.invalidObject) }
        /// A string is not valid in its declared encoding.
        public static var invalidString: Self { Self(.invalidString) }
        /// An element, tag or token is not allowed where it stands.
        public static var unexpectedElement: Self { Self(.unexpectedElement) }
        /// A value's text is not valid for its type (an integer, real, date, data).
        public static var invalidValue: Self { Self(.invalidValue) }
        /// A dictionary key is not a string, or a key has no value.
        public static var invalidKey: Self { Self(.invalidKey) }
        /// Objects refer to themselves (a cycle).
        public static var cycle: Self { Self(.cycle) }
        /// A limit was hit; ``limit`` says which.
        public static func limitExceeded(_ limit: PropertyListLimit) -> Self { Self(.limitExceeded(limit)) }
        /// XML the parser rejected (not well-formed, an entity, a DTD problem).
        public static var malformedXML: Self { Self(.malformedXML) }
        /// The value cannot be written in the requested format.
        public static var unsupportedValue: Self { Self(.unsupportedValue) }
        /// Reading or writing a file failed.
        public static var io: Self { Self(.io) }

        /// The limit hit, for a ``limitExceeded(_:)`` code; nil for every other code.
        public var limit: PropertyListLimit? {
            if case .limitExceeded(let limit) = wrapped { limit } else { nil }
        }

        /// The code's name, stable across versions: `truncated`, `limitExceeded(depth)`.
        public var description: String {
            switch wrapped {
            case .truncated: "truncated"
            case .unrecognizedFormat: "unrecognizedFormat"
            case .invalidTrailer: "invalidTrailer"
            case .invalidReference: "invalidReference"
            case .invalidObject: "invalidObject"
            case .invalidString: "invalidString"
            case .unexpectedElement: "unexpectedElement"
            case .invalidValue: "invalidValue"
            case .invalidKey: "invalidKey"
            case .cycle: "cycle"
            case .limitExceeded(let limit): "limitExceeded(\(limit.rawValue))"
            case .malformedXML: "malformedXML"
            case .unsupportedValue: "unsupportedValue"
            case .io: "io"
            }
        }
    }

    /// What went wrong.
    public var code: Code
    /// Where in the input.
    public var location: PropertyListLocation
    /// The path from the root to the value concerned, when known.
    public var keyPath: PropertyListKeyPath
    /// A sentence for people.
    public var message: String

    /// Makes an error.
    public init(_ code: Code, at location: PropertyListLocation, keyPath: PropertyListKeyPath = [], _ message: String) {
        self.code = code
        self.location = location
        self.keyPath = keyPath
        self.message = message
    }

    /// The error for input of zero bytes, which no reader accepts (as
    /// CoreFoundation, plistlib and libplist do not): reading it as an empty
    /// OpenStep dictionary would let an empty pipe replace a file's contents.
    public static let emptyInput = PropertyListError(
        .truncated, at: .byteOffset(0),
        "the input is empty (0 bytes); an empty file is not a property list")

    /// `byte 42: message (at aDict.b)`.
    public var description: String {
        var text = ""
        let place = location.description
        if !place.isEmpty { text = place + ": " }
        text += message
        if !keyPath.components.isEmpty { text += " (at \(keyPath))" }
        return text
    }
}
