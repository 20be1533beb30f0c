import PropertyList

/// An error reading, decoding or writing a keyed archive, saying what went
/// wrong and where: the key path from the archive's top (`$top.DATA.THUMBNAIL`,
/// `$objects[3].$class`) and the index of the object concerned in `$objects`.
public struct KeyedArchiveError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong: one of the static members, compared with `==` or
    /// matched in a `switch` (which needs a `default:`, as codes may be added
    /// in later versions without breaking callers).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: Hashable, Sendable {
            case propertyList(PropertyListError.Code)
            case notAnArchive
            case wrongArchiver
            case unsupportedVersion
            case missingTop
            case missingObjects
            case missingNull
            case danglingReference
            case invalidClass
            case invalidObject
            case missingValue
            case disallowedClass
            case cycle
            case depthLimitExceeded
            case unsupportedValue
        }

        private var wrapped: Wrapped

        private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

        /// The bytes are not a readable property list; `underlying` says why,
        /// and ``propertyListCode`` gives its code.
        public static func propertyList(_ code: PropertyListError.Code) -> Self { Self(.propertyList(code)) }
        /// The property list is not a keyed archive (no `$archiver`/`$objects` dictionary).
        public static var notAnArchive: Self { Self(.notAnArchive) }
        /// `$archiver` is missing or is not `NSKeyedArchiver`.
        public static var wrongArchiver: Self { Self(.wrongArchiver) }
        /// `$version` is missing or is not 100000.
        public static var unsupportedVersion: Self { Self(.unsupportedVersion) }
        /// `$top` is missing or is not a dictionary.
        public static var missingTop: Self { Self(.missingTop) }
        /// `$objects` is missing or is not an array.
        public static var missingObjects: Self { Self(.missingObjects) }
        /// `$objects[0]` is not the string `$null`.
        public static var missingNull: Self { Self(.missingNull) }
        /// A UID refers past the end of `$objects`.
        public static var danglingReference: Self { Self(.danglingReference) }
        /// A `$class` reference or a class description (`$classname`, `$classes`) is wrong.
        public static var invalidClass: Self { Self(.invalidClass) }
        /// An object's shape is not what its class needs (a field of the wrong kind, say).
        public static var invalidObject: Self { Self(.invalidObject) }
        /// A value the caller asked for is not there.
        public static var missingValue: Self { Self(.missingValue) }
        /// The object's class is not one the caller allowed (secure decoding).
        public static var disallowedClass: Self { Self(.disallowedClass) }
        /// Objects refer to themselves where a value cannot (typed decoding of a cycle).
        public static var cycle: Self { Self(.cycle) }
        /// Objects nest deeper than `KeyedArchiveLimits.maximumDepth`.
        public static var depthLimitExceeded: Self { Self(.depthLimitExceeded) }
        /// A value cannot be written into an archive.
        public static var unsupportedValue: Self { Self(.unsupportedValue) }

        /// The property-list error's code, for a ``propertyList(_:)`` code;
        /// nil for every other code.
        public var propertyListCode: PropertyListError.Code? {
            if case .propertyList(let code) = wrapped { code } else { nil }
        }

        /// The code's name, stable across versions: `missingTop`,
        /// `propertyList(truncated)`.
        public var description: String {
            switch wrapped {
            case .propertyList(let code): "propertyList(\(code))"
            case .notAnArchive: "notAnArchive"
            case .wrongArchiver: "wrongArchiver"
            case .unsupportedVersion: "unsupportedVersion"
            case .missingTop: "missingTop"
            case .missingObjects: "missingObjects"
            case .missingNull: "missingNull"
            case .danglingReference: "danglingReference"
            case .invalidClass: "invalidClass"
            case .invalidObject: "invalidObject"
            case .missingValue: "missingValue"
            case .disallowedClass: "disallowedClass"
            case .cycle: "cycle"
            case .depthLimitExceeded: "depthLimitExceeded"
            case .unsupportedValue: "unsupportedValue"
            }
        }
    }

    /// What went wrong.
    public var code: Code
    /// The path from the archive's top to the value concerned.
    public var keyPath: PropertyListKeyPath
    /// The index in `$objects` of the object concerned, when there is one.
    public var objectIndex: Int?
    /// A sentence for people.
    public var message: String
    /// The property-list error behind a `.propertyList` error, with its byte offset or line.
    public var underlying: PropertyListError?

    /// Makes an error.
    public init(_ code: Code, at keyPath: PropertyListKeyPath, object objectIndex: Int? = nil, _ message: String) {
        self.code = code
        self.keyPath = keyPath
        self.objectIndex = objectIndex
        self.message = message
    }

    /// Wraps a property-list error; its key path (into the archive's property list) is kept.
    public init(_ error: PropertyListError) {
        code = .propertyList(error.code)
        keyPath = error.keyPath
        message = error.message
        underlying = error
    }

    /// `message (at $top.DATA.THUMBNAIL, object 5)`, with the byte offset or
    /// line first for a property-list error.
    public var description: String {
        var text = ""
        if let place = underlying?.location.description, !place.isEmpty { text = place + ": " }
        text += message
        var places: [String] = []
        if !keyPath.components.isEmpty { places.append("at \(keyPath)") }
        if let objectIndex { places.append("object \(objectIndex)") }
        if !places.isEmpty { text += " (" + places.joined(separator: ", ") + ")" }
        return text
    }
}

/// The limits a keyed-archive reader enforces on untrusted input, each
/// reported by name when hit.
public struct KeyedArchiveLimits: Hashable, Sendable {
    /// How deeply decoded objects may nest (an object holding an object …).
    /// Stops stack overflows on long chains; cycles are caught separately.
    public var maximumDepth: Int
    /// The limits of the property-list reader underneath.
    public var propertyList: PropertyListLimits

    /// Makes a set of limits.
    public init(maximumDepth: Int = 512, propertyList: PropertyListLimits = .default) {
        self.maximumDepth = maximumDepth
        self.propertyList = propertyList
    }

    /// The defaults: objects nest 512 deep, property-list defaults underneath.
    public static let `default` = KeyedArchiveLimits()
}

extension PropertyListKeyPath {
    /// `$top.key`.
    static func top(_ key: String) -> PropertyListKeyPath { [.key("$top"), .key(key)] }
    /// `$objects[index]`.
    static func object(_ index: Int) -> PropertyListKeyPath { [.key("$objects"), .index(index)] }
}
