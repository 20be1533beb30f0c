import PropertyList

/// An error reading, decoding or writing a keyed archive, saying what went
/// wrong and where: the key path from the archive's top (`$top.DATA.THUMBNAIL`,
/// `$objects[3].$class`) and the index of the object concerned in `$objects`.
public struct KeyedArchiveError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Hashable, Sendable {
        /// The bytes are not a readable property list; `underlying` says why.
        case propertyList(PropertyListError.Kind)
        /// The property list is not a keyed archive (no `$archiver`/`$objects` dictionary).
        case notAnArchive
        /// `$archiver` is missing or is not `NSKeyedArchiver`.
        case wrongArchiver
        /// `$version` is missing or is not 100000.
        case unsupportedVersion
        /// `$top` is missing or is not a dictionary.
        case missingTop
        /// `$objects` is missing or is not an array.
        case missingObjects
        /// `$objects[0]` is not the string `$null`.
        case missingNull
        /// A UID refers past the end of `$objects`.
        case danglingReference
        /// A `$class` reference or a class description (`$classname`, `$classes`) is wrong.
        case invalidClass
        /// An object's shape is not what its class needs (a field of the wrong kind, say).
        case invalidObject
        /// A value the caller asked for is not there.
        case missingValue
        /// The object's class is not one the caller allowed (secure decoding).
        case disallowedClass
        /// Objects refer to themselves where a value cannot (typed decoding of a cycle).
        case cycle
        /// Objects nest deeper than `KeyedArchiveLimits.maximumDepth`.
        case depthLimitExceeded
        /// A value cannot be written into an archive.
        case unsupportedValue
    }

    /// What went wrong.
    public var kind: Kind
    /// The path from the archive's top to the value concerned.
    public var keyPath: PropertyListKeyPath
    /// The index in `$objects` of the object concerned, when there is one.
    public var objectIndex: Int?
    /// A sentence for people.
    public var message: String
    /// The property-list error behind a `.propertyList` error, with its byte offset or line.
    public var underlying: PropertyListError?

    /// Makes an error.
    public init(_ kind: Kind, at keyPath: PropertyListKeyPath, object objectIndex: Int? = nil, _ message: String) {
        self.kind = kind
        self.keyPath = keyPath
        self.objectIndex = objectIndex
        self.message = message
    }

    /// Wraps a property-list error; its key path (into the archive's property list) is kept.
    public init(_ error: PropertyListError) {
        kind = .propertyList(error.kind)
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
