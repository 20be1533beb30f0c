import OrderedCollections
import PropertyList

/// Writes keyed archives as `NSKeyedArchiver` lays them out.
///
/// Binary (the default): the top dictionary's keys in the order `$version`,
/// `$objects`, `$archiver`, `$top`; objects numbered depth-first as
/// CoreFoundation numbers them. Unlike the plain binary writer, which stores
/// every equal string once, Apple's archiver shares a plist string only when
/// its process held one string object for both uses, and this writer follows
/// what the archives real Foundation wrote on macOS 10.14 show:
///
/// - dictionary keys (`$class`, `NS.objects`, the caller's keys) are shared by
///   equal text — they are constant strings in the encoding code;
/// - values (strings, numbers, data, dates) are shared by equal value, as
///   CoreFoundation shares them; integers and reals are never merged;
/// - a class name in `$classname` or `$classes` is shared with an equal
///   class name only when Foundation's copy is one object: when the name
///   fits in a tagged-pointer string (up to 7 ASCII characters; 8–9 from
///   the 6-bit alphabet, 10–11 from the 5-bit alphabet of macOS's tagged
///   strings) or is a class-cluster name (`NSMutableArray`, `NSDictionary`,
///   …, whose archived name is a constant); other names are written once per
///   use, so `NSMeasurement`'s `$classname` and `$classes[0]` are two strings;
/// - UIDs, `true` and `false` are not shared, yet are looked up by value:
///   each use adds an object of its own, but every reference points at the
///   first equal one, so the later copies are unreferenced — as in every
///   archive real Foundation wrote;
/// - the entries of `$objects` that are strings or data are distinct
///   objects to the archiver, so each is written as its own object even when
///   equal; numbers there are shared with equal numbers elsewhere (Foundation's
///   small numbers are tagged pointers, one object per value).
///
/// XML (on request): keys sorted within each dictionary, UIDs as
/// `<dict><key>CF$UID</key><integer>N</integer></dict>`, as Apple's XML
/// writer does.
public struct KeyedArchiveWriter: Sendable {
    /// The serialised form of an archive.
    public enum Format: String, Sendable, CaseIterable {
        /// A binary property list (`bplist00`), what `NSKeyedArchiver` writes by default.
        case binary
        /// An XML property list.
        case xml
    }

    /// The form written.
    public var format: Format

    /// Makes a writer for `format`.
    public init(format: Format = .binary) {
        self.format = format
    }

    /// Encodes `archive`.
    ///
    /// - Throws: `KeyedArchiveError` for the first structural problem of
    ///   `archive` (so only archives that read back are written), or of kind
    ///   `.propertyList` when the XML writer refuses a value.
    public func encode(_ archive: KeyedArchive) throws(KeyedArchiveError) -> [UInt8] {
        var validator = KeyedArchiveValidator(stopAtFirstProblem: true)
        _ = validator.check(archive.propertyList)
        if let problem = validator.problems.first { throw problem }
        switch format {
        case .binary:
            var layout = ArchiveLayout()
            layout.flattenArchive(archive)
            return BinaryPropertyListWriter().encode(objectTable: layout.table)
        case .xml:
            do {
                return try XMLPropertyListWriter().encode(Self.sortingKeys(archive.propertyList))
            } catch {
                throw KeyedArchiveError(error)
            }
        }
    }

    private static func sortingKeys(_ value: PropertyListValue) -> PropertyListValue {
        switch value {
        case .array(let elements): return .array(elements.map(sortingKeys))
        case .dictionary(let dictionary):
            var sorted = OrderedDictionary<String, PropertyListValue>()
            sorted.reserveCapacity(dictionary.count)
            for key in dictionary.keys.sorted(by: { $0.utf16.lexicographicallyPrecedes($1.utf16) }) {
                sorted[key] = sortingKeys(dictionary[key]!)
            }
            return .dictionary(sorted)
        default: return value
        }
    }
}

/// Numbers an archive's property-list objects as `NSKeyedArchiver` does (see `KeyedArchiveWriter`).
struct ArchiveLayout {
    private(set) var table: [BinaryPropertyListObject] = []
    private var keys: [String: Int] = [:]
    private var classNames: [String: Int] = [:]
    private var values: [PropertyListValue: Int] = [:]
    private var firstOccurrences: [PropertyListValue: Int] = [:]

    /// Class names Foundation archives under a constant name, seen shared in real archives.
    private static let clusterClassNames: Set<String> = [
        "NSArray", "NSMutableArray", "NSDictionary", "NSMutableDictionary", "NSSet", "NSMutableSet",
        "NSString", "NSMutableString", "NSData", "NSMutableData", "NSDate", "NSNumber", "NSValue",
        "NSNull", "NSURL", "NSUUID", "NSLocale",
    ]
    private static let sixBitAlphabet = Set("eilotrm.apdnsIc ufkMShjTRxgC4013bDNvwyUL2O856P-B79AFKEWV_zGJ/HYX".utf8)
    private static let fiveBitAlphabet = Set("eilotrm.apdnsIc ufkMShjTRxgC4013".utf8)

    /// True when macOS keeps `name` as one shared object (see `KeyedArchiveWriter`).
    static func isInterned(className name: String) -> Bool {
        if clusterClassNames.contains(name) { return true }
        let utf8 = Array(name.utf8)
        switch utf8.count {
        case 0...7: return utf8.allSatisfy { $0 < 0x80 }
        case 8...9: return utf8.allSatisfy { sixBitAlphabet.contains($0) }
        case 10...11: return utf8.allSatisfy { fiveBitAlphabet.contains($0) }
        default: return false
        }
    }

    mutating func flattenArchive(_ archive: KeyedArchive) {
        let top = append(.dictionary(keys: [], values: []))
        let topKeys = ["$version", "$objects", "$archiver", "$top"].map { key(for: $0) }
        let version = value(.integer(PropertyListInteger(KeyedArchive.formatVersion)))
        let objects = append(.array([]))
        var objectNumbers: [Int] = []
        objectNumbers.reserveCapacity(archive.objects.count)
        for object in archive.objects {
            objectNumbers.append(flattenObject(object))
        }
        table[objects] = .array(objectNumbers)
        let archiver = value(.string(KeyedArchive.archiverName))
        let topDictionary = flattenDictionary(archive.top, classDescription: false)
        table[top] = .dictionary(keys: topKeys, values: [version, objects, archiver, topDictionary])
    }

    private mutating func flattenObject(_ object: PropertyListValue) -> Int {
        switch object {
        case .dictionary(let fields): return flattenDictionary(fields, classDescription: fields["$classname"] != nil)
        case .integer, .real, .real32: return value(object)
        default: return unshared(object)
        }
    }

    private mutating func flattenDictionary(_ fields: OrderedDictionary<String, PropertyListValue>, classDescription: Bool) -> Int {
        let number = append(.dictionary(keys: [], values: []))
        var keyNumbers: [Int] = []
        keyNumbers.reserveCapacity(fields.count)
        for name in fields.keys { keyNumbers.append(key(for: name)) }
        var valueNumbers: [Int] = []
        valueNumbers.reserveCapacity(fields.count)
        for (name, element) in fields {
            if classDescription, name == "$classname", case .string(let className) = element {
                valueNumbers.append(self.className(className))
            } else if classDescription, name == "$classes", case .array(let chain) = element {
                let array = append(.array([]))
                table[array] = .array(chain.map { link in
                    if case .string(let className) = link { return self.className(className) }
                    return value(link)
                })
                valueNumbers.append(array)
            } else if classDescription {
                valueNumbers.append(unshared(element))
            } else {
                valueNumbers.append(value(element))
            }
        }
        table[number] = .dictionary(keys: keyNumbers, values: valueNumbers)
        return number
    }

    /// A value in an object: containers are never shared, booleans as described above.
    private mutating func value(_ element: PropertyListValue) -> Int {
        switch element {
        case .bool, .uid:
            let number = append(.scalar(element))
            if let first = firstOccurrences[element] { return first }
            firstOccurrences[element] = number
            return number
        case .array(let elements):
            let number = append(.array([]))
            table[number] = .array(elements.map { value($0) })
            return number
        case .dictionary(let dictionary):
            return flattenDictionary(dictionary, classDescription: false)
        default:
            if let existing = values[element] { return existing }
            let number = append(.scalar(element))
            values[element] = number
            return number
        }
    }

    /// A value written once per use (class hints and other extras of a class description).
    private mutating func unshared(_ element: PropertyListValue) -> Int {
        switch element {
        case .array(let elements):
            let number = append(.array([]))
            table[number] = .array(elements.map { unshared($0) })
            return number
        case .dictionary: return value(element)
        default: return append(.scalar(element))
        }
    }

    private mutating func key(for name: String) -> Int {
        if let existing = keys[name] { return existing }
        let number = append(.scalar(.string(name)))
        keys[name] = number
        return number
    }

    private mutating func className(_ name: String) -> Int {
        guard Self.isInterned(className: name) else { return append(.scalar(.string(name))) }
        if let existing = classNames[name] { return existing }
        let number = append(.scalar(.string(name)))
        classNames[name] = number
        return number
    }

    private mutating func append(_ object: BinaryPropertyListObject) -> Int {
        table.append(object)
        return table.count - 1
    }
}
