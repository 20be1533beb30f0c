import OrderedCollections
import PropertyList

/// How a binary archive read from a file numbered its objects, where that
/// differs from `KeyedArchiveWriter`'s rule, so that writing the archive
/// unchanged gives the file's bytes again.
///
/// Which equal strings and numbers a binary archive stores once depends on
/// which were one object in the writing process (see `KeyedArchiveWriter`),
/// and that is not in the file's values: Interface Builder's nibs, for one,
/// share a class name between some class chains and not others. The writer
/// places each scalar of the archive in turn — a key, a value, a class name,
/// in CoreFoundation's depth-first order — and numbers these placements
/// from 0 (visits); a layout names the visits placed otherwise than the rule
/// places them. It is recorded by `KeyedArchiveReader` when asked
/// (`keepsLayout`), kept in the JSON form, and dropped by the writer as a
/// whole when it no longer fits the archive (a visit that would refer to an
/// object that is not there or not equal), so an edited archive is written
/// by the rule.
public struct KeyedArchiveLayout: Hashable, Sendable {
    /// Where one visit puts its scalar.
    public enum Placement: Hashable, Sendable {
        /// Appended as a new object, and referred to.
        case new
        /// Not appended: refers to the object with this number.
        case shared(Int)
        /// Appended as a new object that nothing refers to; refers to the object
        /// with this number (as CoreFoundation does for UIDs and booleans).
        case copied(Int)
    }

    /// The order of the top dictionary's keys, when not `$version`, `$objects`,
    /// `$archiver`, `$top` (Xcode writes `$version`, `$archiver`, `$top`, `$objects`).
    public var topKeys: [String]
    /// The placements that differ from the rule, by visit.
    public var placements: [Int: Placement]

    /// The order `NSKeyedArchiver` writes the top keys in.
    public static let standardTopKeys = ["$version", "$objects", "$archiver", "$top"]

    /// Makes a layout.
    public init(topKeys: [String] = Self.standardTopKeys, placements: [Int: Placement] = [:]) {
        self.topKeys = topKeys
        self.placements = placements
    }

    /// True when the layout says nothing the rule would not do.
    public var isStandard: Bool { topKeys == Self.standardTopKeys && placements.isEmpty }

    /// The layout in the archive's JSON form: `{"topKeys": […], "new": [visit…],
    /// "shared": [[visit, object]…], "copied": [[visit, object]…]}`, visits in order.
    public var jsonForm: PropertyListValue {
        var members: OrderedDictionary<String, PropertyListValue> = [:]
        if topKeys != Self.standardTopKeys { members["topKeys"] = .array(topKeys.map(PropertyListValue.string)) }
        var new: [PropertyListValue] = [], shared: [PropertyListValue] = [], copied: [PropertyListValue] = []
        func integer(_ value: Int) -> PropertyListValue { .integer(PropertyListInteger(Int64(value))) }
        for visit in placements.keys.sorted() {
            switch placements[visit]! {
            case .new: new.append(integer(visit))
            case .shared(let object): shared.append([integer(visit), integer(object)])
            case .copied(let object): copied.append([integer(visit), integer(object)])
            }
        }
        if !new.isEmpty { members["new"] = .array(new) }
        if !shared.isEmpty { members["shared"] = .array(shared) }
        if !copied.isEmpty { members["copied"] = .array(copied) }
        return .dictionary(members)
    }

    /// Reads a layout from its JSON form.
    ///
    /// - Throws: `KeyedArchiveError` with code `.notAnArchive`, with the key path
    ///   under `layout`, for a member that is not of that shape.
    public init(jsonForm value: PropertyListValue) throws(KeyedArchiveError) {
        let path: PropertyListKeyPath = [.key("layout")]
        guard case .dictionary(let members) = value else {
            throw KeyedArchiveError(.notAnArchive, at: path, "layout is a \(value.kindName), not an object")
        }
        self.init()
        for (name, member) in members {
            let memberPath = path.appending(.key(name))
            guard case .array(let elements) = member else {
                throw KeyedArchiveError(.notAnArchive, at: memberPath, "layout.\(name) is a \(member.kindName), not an array")
            }
            switch name {
            case "topKeys":
                let keys = elements.compactMap(\.stringValue)
                guard keys.count == elements.count, keys.sorted() == Self.standardTopKeys.sorted() else {
                    throw KeyedArchiveError(.notAnArchive, at: memberPath, "layout.topKeys is not an order of $version, $objects, $archiver and $top")
                }
                topKeys = keys
            case "new":
                for (position, element) in elements.enumerated() {
                    guard let visit = Self.count(element) else {
                        throw KeyedArchiveError(.notAnArchive, at: memberPath.appending(.index(position)), "a visit is a number from 0")
                    }
                    placements[visit] = .new
                }
            case "shared", "copied":
                for (position, element) in elements.enumerated() {
                    guard case .array(let pair) = element, pair.count == 2, let visit = Self.count(pair[0]), let object = Self.count(pair[1]) else {
                        throw KeyedArchiveError(.notAnArchive, at: memberPath.appending(.index(position)), "a placement is [visit, object], two numbers from 0")
                    }
                    placements[visit] = name == "shared" ? .shared(object) : .copied(object)
                }
            default:
                throw KeyedArchiveError(.notAnArchive, at: memberPath, "\"\(name)\" is not a member of a layout")
            }
        }
    }

    /// The layout of `archive` as `bytes`, the binary property list it was
    /// read from, numbers its objects. Reads the object table and writes it
    /// once, to check the bytes come out the same.
    ///
    /// - Returns: nil when the writer's rule numbers the objects so already,
    ///   or when the table is not one the writer can make (the same bytes
    ///   would not come out).
    /// - Throws: `KeyedArchiveError` with code `.propertyList` when the bytes are not a binary property list.
    public init?(
        recording archive: KeyedArchiveObjectGraph, binaryPropertyList bytes: UnsafeRawBufferPointer,
        limits: PropertyListLimits = .default
    ) throws(KeyedArchiveError) {
        let original: [BinaryPropertyListObject]
        do {
            guard let table = try BinaryPropertyListReader(limits: limits).readObjectTable(bytes) else { return nil }
            original = table
        } catch {
            throw KeyedArchiveError(error)
        }
        guard case .dictionary(let topKeys, _) = original.first else { return nil }
        let topKeyNames = topKeys.compactMap { number -> String? in
            guard case .scalar(.string(let name)) = original[number] else { return nil }
            return name
        }
        guard topKeyNames.count == 4, topKeyNames.sorted() == KeyedArchiveLayout.standardTopKeys.sorted() else { return nil }
        var layout = ArchiveLayout(recording: original)
        layout.flattenArchive(archive, topKeys: topKeyNames)
        guard !layout.failed, layout.table == original,
            BinaryPropertyListWriter().encode(objectTable: original).elementsEqual(bytes)
        else { return nil }
        self.init(topKeys: topKeyNames, placements: layout.recorded)
        if isStandard { return nil }
    }

    private static func count(_ value: PropertyListValue) -> Int? {
        guard case .integer(let integer) = value, let number = integer.int64Value, number >= 0, number <= Int64(Int32.max) else { return nil }
        return Int(number)
    }
}
