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
/// An archive read with `KeyedArchiveReader.keepsLayout` from a binary file
/// whose objects are numbered otherwise (Interface Builder's nibs, Xcode's
/// state files) carries a `KeyedArchiveLayout` saying where; the writer
/// follows it while it fits the archive, so such a file is written back byte
/// for byte, and drops it when it does not.
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
    ///   `archive` (so only archives that read back are written), or with code
    ///   `.propertyList` when the XML writer refuses a value.
    public func encode(_ archive: KeyedArchiveObjectGraph) throws(KeyedArchiveError) -> [UInt8] {
        var validator = KeyedArchiveValidator(stopAtFirstProblem: true)
        _ = validator.check(archive.propertyList)
        if let problem = validator.problems.first { throw problem }
        switch format {
        case .binary:
            return BinaryPropertyListWriter().encode(objectTable: Self.objectTable(archive))
        case .xml:
            do {
                return try XMLPropertyListWriter().encode(Self.sortingKeys(archive.propertyList))
            } catch {
                throw KeyedArchiveError(error)
            }
        }
    }

    /// The archive's objects numbered by the rule, or by `archive.layout` when it fits the archive.
    static func objectTable(_ archive: KeyedArchiveObjectGraph) -> [BinaryPropertyListObject] {
        if let recorded = archive.layout, !recorded.isStandard {
            var layout = ArchiveLayout(exceptions: recorded.placements)
            layout.flattenArchive(archive, topKeys: recorded.topKeys)
            if !layout.failed { return layout.table }
        }
        var layout = ArchiveLayout()
        layout.flattenArchive(archive)
        return layout.table
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

    /// The placements that differ from the rule, by visit (`KeyedArchiveLayout`).
    private let exceptions: [Int: KeyedArchiveLayout.Placement]
    /// When recording, the table read from the file, and how often each of its objects is referred to.
    private let original: [BinaryPropertyListObject]?
    private var referenceCounts: [Int] = []
    /// The placements recorded that differ from the rule.
    private(set) var recorded: [Int: KeyedArchiveLayout.Placement] = [:]
    /// The number of scalars placed so far.
    private var visit = 0
    /// True when an exception did not fit the archive, or the archive did not fit the recorded table.
    private(set) var failed = false

    /// A layout that places every scalar by the rule, but for `exceptions`.
    init(exceptions: [Int: KeyedArchiveLayout.Placement] = [:]) {
        self.exceptions = exceptions
        original = nil
    }

    /// A layout that follows `original`, the object table of a file, and
    /// records where it differs from the rule (`recorded`); `failed` when the
    /// table is not one this writer can produce for the archive.
    init(recording original: [BinaryPropertyListObject]) {
        exceptions = [:]
        self.original = original
        referenceCounts = Array(repeating: 0, count: original.count)
        for object in original {
            switch object {
            case .scalar: continue
            case .array(let children): for child in children { referenceCounts[child] += 1 }
            case .dictionary(let keys, let values): for child in keys + values { referenceCounts[child] += 1 }
            }
        }
    }

    /// Where a value goes: position `index` among the children of container
    /// `parent` (a dictionary's keys first, then its values), if it has one.
    struct Slot {
        var parent: Int
        var index: Int
    }

    mutating func flattenArchive(_ archive: KeyedArchiveObjectGraph, topKeys: [String] = KeyedArchiveLayout.standardTopKeys) {
        let top = append(.dictionary(keys: [], values: []), at: nil)
        var keyNumbers: [Int] = []
        for (position, name) in topKeys.enumerated() { keyNumbers.append(key(for: name, at: Slot(parent: top, index: position))) }
        var valueNumbers: [Int] = []
        for (position, name) in topKeys.enumerated() {
            let slot = Slot(parent: top, index: topKeys.count + position)
            switch name {
            case "$version": valueNumbers.append(value(.integer(PropertyListInteger(KeyedArchiveObjectGraph.formatVersion)), at: slot))
            case "$objects": valueNumbers.append(flattenObjects(archive.objects, at: slot))
            case "$archiver": valueNumbers.append(value(.string(KeyedArchiveObjectGraph.archiverName), at: slot))
            default: valueNumbers.append(flattenDictionary(archive.top, classDescription: false, at: slot))
            }
        }
        table[top] = .dictionary(keys: keyNumbers, values: valueNumbers)
        if let original, !failed, table.count != original.count { failed = true }
    }

    private mutating func flattenObjects(_ objects: [PropertyListValue], at slot: Slot) -> Int {
        let number = append(.array([]), at: slot)
        var objectNumbers: [Int] = []
        objectNumbers.reserveCapacity(objects.count)
        for (position, object) in objects.enumerated() {
            objectNumbers.append(flattenObject(object, at: Slot(parent: number, index: position)))
        }
        table[number] = .array(objectNumbers)
        return number
    }

    private mutating func flattenObject(_ object: PropertyListValue, at slot: Slot) -> Int {
        switch object {
        case .dictionary(let fields): return flattenDictionary(fields, classDescription: fields["$classname"] != nil, at: slot)
        case .integer, .real, .real32: return value(object, at: slot)
        default: return unshared(object, at: slot)
        }
    }

    private mutating func flattenDictionary(
        _ fields: OrderedDictionary<String, PropertyListValue>, classDescription: Bool,
        at slot: Slot
    ) -> Int {
        let number = append(.dictionary(keys: [], values: []), at: slot)
        var keyNumbers: [Int] = []
        keyNumbers.reserveCapacity(fields.count)
        for (position, name) in fields.keys.enumerated() { keyNumbers.append(key(for: name, at: Slot(parent: number, index: position))) }
        var valueNumbers: [Int] = []
        valueNumbers.reserveCapacity(fields.count)
        for (position, (name, element)) in fields.enumerated() {
            let valueSlot = Slot(parent: number, index: fields.count + position)
            if classDescription, name == "$classname", case .string(let className) = element {
                valueNumbers.append(self.className(className, at: valueSlot))
            } else if classDescription, name == "$classes", case .array(let chain) = element {
                let array = append(.array([]), at: valueSlot)
                var links: [Int] = []
                for (index, link) in chain.enumerated() {
                    let linkSlot = Slot(parent: array, index: index)
                    if case .string(let className) = link {
                        links.append(self.className(className, at: linkSlot))
                    } else {
                        links.append(value(link, at: linkSlot))
                    }
                }
                table[array] = .array(links)
                valueNumbers.append(array)
            } else if classDescription {
                valueNumbers.append(unshared(element, at: valueSlot))
            } else {
                valueNumbers.append(value(element, at: valueSlot))
            }
        }
        table[number] = .dictionary(keys: keyNumbers, values: valueNumbers)
        return number
    }

    /// A value in an object: containers are never shared, booleans and UIDs as described above.
    private mutating func value(_ element: PropertyListValue, at slot: Slot) -> Int {
        switch element {
        case .bool, .uid:
            let number = place(element, rule: firstOccurrences[element].map { .copied($0) } ?? .new, at: slot)
            if firstOccurrences[element] == nil { firstOccurrences[element] = number }
            return number
        case .array(let elements):
            let number = append(.array([]), at: slot)
            var children: [Int] = []
            for (position, child) in elements.enumerated() { children.append(value(child, at: Slot(parent: number, index: position))) }
            table[number] = .array(children)
            return number
        case .dictionary(let dictionary):
            return flattenDictionary(dictionary, classDescription: false, at: slot)
        default:
            let number = place(element, rule: values[element].map { .shared($0) } ?? .new, at: slot)
            if values[element] == nil { values[element] = number }
            return number
        }
    }

    /// A value written once per use (class hints and other extras of a class description).
    private mutating func unshared(_ element: PropertyListValue, at slot: Slot) -> Int {
        switch element {
        case .array(let elements):
            let number = append(.array([]), at: slot)
            var children: [Int] = []
            for (position, child) in elements.enumerated() { children.append(unshared(child, at: Slot(parent: number, index: position))) }
            table[number] = .array(children)
            return number
        case .dictionary: return value(element, at: slot)
        default: return place(element, rule: .new, at: slot)
        }
    }

    private mutating func key(for name: String, at slot: Slot) -> Int {
        let number = place(.string(name), rule: keys[name].map { .shared($0) } ?? .new, at: slot)
        if keys[name] == nil { keys[name] = number }
        return number
    }

    private mutating func className(_ name: String, at slot: Slot) -> Int {
        guard Self.isInterned(className: name) else { return place(.string(name), rule: .new, at: slot) }
        let number = place(.string(name), rule: classNames[name].map { .shared($0) } ?? .new, at: slot)
        if classNames[name] == nil { classNames[name] = number }
        return number
    }

    /// Places one scalar: as the rule says, unless an exception or the recorded table says otherwise.
    private mutating func place(_ scalar: PropertyListValue, rule: KeyedArchiveLayout.Placement, at slot: Slot) -> Int {
        defer { visit += 1 }
        var placement = rule
        if original != nil {
            placement = observedPlacement(of: scalar, at: slot) ?? rule
            if placement != rule { recorded[visit] = placement }
        } else if let exception = exceptions[visit] {
            if fits(exception, scalar) { placement = exception } else { failed = true }
        }
        switch placement {
        case .new: return append(.scalar(scalar), at: nil)
        case .shared(let number): return number
        case .copied(let number):
            _ = append(.scalar(scalar), at: nil)
            return number
        }
    }

    /// True when `placement` can place `scalar` in the table built so far.
    private func fits(_ placement: KeyedArchiveLayout.Placement, _ scalar: PropertyListValue) -> Bool {
        switch placement {
        case .new: return true
        case .shared(let number), .copied(let number): return number < table.count && table[number] == .scalar(scalar)
        }
    }

    /// How the recorded table placed `scalar` at `slot`; nil (and `failed`) when it cannot have.
    private mutating func observedPlacement(of scalar: PropertyListValue, at slot: Slot) -> KeyedArchiveLayout.Placement? {
        guard let original, !failed, let reference = originalChild(of: slot) else {
            failed = true
            return nil
        }
        let next = table.count
        if reference == next, next < original.count, original[next] == .scalar(scalar) { return .new }
        guard reference < next, table[reference] == .scalar(scalar) else {
            failed = true
            return nil
        }
        // An equal object that nothing refers to, next in the table, is this visit's copy.
        guard next < original.count, referenceCounts[next] == 0, original[next] == .scalar(scalar) else { return .shared(reference) }
        return .copied(reference)
    }

    /// The number the recorded table has at `slot`.
    private func originalChild(of slot: Slot) -> Int? {
        guard let original, slot.parent < original.count else { return nil }
        switch original[slot.parent] {
        case .array(let children): return slot.index < children.count ? children[slot.index] : nil
        case .dictionary(let keys, let values):
            if slot.index < keys.count { return keys[slot.index] }
            return slot.index - keys.count < values.count ? values[slot.index - keys.count] : nil
        case .scalar: return nil
        }
    }

    /// Appends an object; when recording, a container must be where the recorded table has it.
    private mutating func append(_ object: BinaryPropertyListObject, at slot: Slot?) -> Int {
        if original != nil, let slot, originalChild(of: slot) != table.count { failed = true }
        table.append(object)
        return table.count - 1
    }
}
