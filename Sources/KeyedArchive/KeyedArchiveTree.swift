import OrderedCollections
import PropertyList

/// A walk over a keyed archive's object graph from `$top`: each object is
/// expanded where it is first reached; a later reference to it is `seen`,
/// and a reference back to an object being expanded is `seen` as a cycle.
/// What `ict inspect` shows as a tree or JSON and `ict diff` compares.
///
/// A value that is not an instance (a string, data, an array stored as one
/// of `$objects`) is shown in full at every reference to it, so the walk
/// counts the nodes and the bytes of strings and data it makes, each such
/// value's size worked out once per object, against the property-list
/// limits `maximumObjectCount` and `maximumExpandedSize`: a 1 MB archive
/// whose million references reach one 4 KB string would otherwise print 4 GB.
public struct KeyedArchiveTree {
    /// One node of the walk.
    public indirect enum Node: Sendable {
        /// `$null`, or a reference to no object.
        case null
        /// A value that is not an object: a string, number, data, …
        case value(PropertyListValue)
        /// An object expanded here: its index in `$objects`, its class, the
        /// class chain, and its fields in the archive's order.
        case object(index: Int, className: String, chain: [String], fields: [(String, Node)])
        /// An array of references or values.
        case list([Node])
        /// An object expanded elsewhere; `isCycle` when it is being expanded
        /// on the way here (it contains itself).
        case seen(index: Int, className: String, isCycle: Bool)
        /// An object nested deeper than `maximumDepth`, not expanded.
        case tooDeep(index: Int)
    }

    /// The archive walked.
    public let archive: KeyedArchiveObjectGraph
    /// Objects nested deeper than this are not expanded (stops runaway chains).
    public let maximumDepth: Int
    /// The limits on the nodes made and the bytes of strings and data in them.
    public let limits: PropertyListLimits
    private var expanded: Set<Int> = []
    private var onPath: Set<Int> = []
    /// The nodes made so far, and the bytes of strings and data in their values.
    private var producedCount = 0
    private var producedBytes = 0
    /// The size of each value of `$objects` shown, by index, once worked out.
    private var valueSizes: [Int: PropertyListValue.ExpandedSize] = [:]
    /// The top key being walked, for an error.
    private var topKey = ""

    /// A walk over `archive`, expanding objects down to `maximumDepth`,
    /// making no more nodes than `limits.maximumObjectCount` and no more bytes
    /// of strings and data than `limits.maximumExpandedSize`.
    public init(archive: KeyedArchiveObjectGraph, maximumDepth: Int = 256, limits: PropertyListLimits = .default) {
        self.archive = archive
        self.maximumDepth = maximumDepth
        self.limits = limits
    }

    /// The top keys with their nodes. Each object is expanded once in a
    /// walk: call it once per `KeyedArchiveTree`.
    ///
    /// - Throws: `KeyedArchiveError` with code
    ///   `.propertyList(.limitExceeded(.expandedSize))` or
    ///   `.propertyList(.limitExceeded(.objectCount))` when the nodes would
    ///   pass `limits`, at the top key and the object whose reference goes
    ///   over: before the caller has anything to print.
    public mutating func topNodes() throws(KeyedArchiveError) -> [(String, Node)] {
        var nodes: [(String, Node)] = []
        for (key, value) in archive.top {
            topKey = key
            nodes.append((key, try node(for: value, depth: 0)))
        }
        return nodes
    }

    private mutating func node(for value: PropertyListValue, depth: Int) throws(KeyedArchiveError) -> Node {
        switch value {
        case .uid(let uid): return try objectNode(Int(clamping: uid), depth: depth)
        case .array(let elements):
            try count(.init(values: 1, bytes: 0), object: nil)
            var nodes: [Node] = []
            nodes.reserveCapacity(elements.count)
            for element in elements { nodes.append(try node(for: element, depth: depth + 1)) }
            return .list(nodes)
        default:
            try count(value.expandedSize, object: nil)
            return .value(value)
        }
    }

    /// Adds `size` to the nodes and bytes made; throws past a limit.
    private mutating func count(_ size: PropertyListValue.ExpandedSize, object: Int?) throws(KeyedArchiveError) {
        producedCount &+= size.values  // Safe: each at most the reader's limits, checked here as they add up.
        producedBytes &+= size.bytes
        let path = PropertyListKeyPath([.key("$top"), .key(topKey)])
        if producedBytes > limits.maximumExpandedSize {
            throw KeyedArchiveError(
                .propertyList(.limitExceeded(.expandedSize)), at: path, object: object,
                "the archive's objects expand to more than \(limits.maximumExpandedSize) bytes of strings and data, "
                    + "each reference to a value counted (the maximumExpandedSize limit); nothing was shown")
        }
        if producedCount > limits.maximumObjectCount {
            throw KeyedArchiveError(
                .propertyList(.limitExceeded(.objectCount)), at: path, object: object,
                "the archive's objects expand to more than \(limits.maximumObjectCount) values, "
                    + "each reference to a value counted (the maximumObjectCount limit); nothing was shown")
        }
    }

    private mutating func objectNode(_ index: Int, depth: Int) throws(KeyedArchiveError) -> Node {
        guard index > 0, index < archive.objects.count else { return .null }
        switch archive.object(at: index) {
        case .null: return .null
        case .value(let value):
            let size = valueSizes[index] ?? value.expandedSize
            valueSizes[index] = size
            try count(size, object: index)
            return .value(value)
        case .classDescription(let description): return .seen(index: index, className: description.name, isCycle: false)
        case .instance(let instance):
            let name = instance.classDescription.name
            if onPath.contains(index) { return .seen(index: index, className: name, isCycle: true) }
            if expanded.contains(index) { return .seen(index: index, className: name, isCycle: false) }
            guard depth < maximumDepth else { return .tooDeep(index: index) }
            expanded.insert(index)
            onPath.insert(index)
            defer { onPath.remove(index) }
            try count(.init(values: 1, bytes: 0), object: index)
            var fields: [(String, Node)] = []
            fields.reserveCapacity(instance.fields.count)
            for (key, value) in instance.fields { fields.append((key, try node(for: value, depth: depth + 1))) }
            return .object(index: index, className: name, chain: instance.classDescription.chain, fields: fields)
        }
    }

    /// The archive's graph as a property list to compare by value, without
    /// object numbers: `{top key: object}`, each object
    /// `{"$class": name, field: value, …}`, a later reference to it
    /// `{"$class": name, "$reference": "shared"}` (or `"cycle"`), `$null` as
    /// the string `"$null"`. Two archives of the same objects numbered
    /// otherwise give the same value.
    ///
    /// - Throws: `KeyedArchiveError` as `topNodes()` does.
    public static func comparableValue(_ archive: KeyedArchiveObjectGraph) throws(KeyedArchiveError) -> PropertyListValue {
        var graph = KeyedArchiveTree(archive: archive)
        var top = OrderedDictionary<String, PropertyListValue>()
        for (key, node) in try graph.topNodes() { top[key] = comparable(node) }
        return .dictionary(top)
    }

    private static func comparable(_ node: Node) -> PropertyListValue {
        switch node {
        case .null: return "$null"
        case .value(let value): return value
        case .seen(_, let name, let isCycle): return ["$class": .string(name), "$reference": isCycle ? "cycle" : "shared"]
        case .tooDeep: return ["$reference": "not shown (too deep)"]
        case .list(let elements): return .array(elements.map(comparable))
        case .object(_, let name, _, let fields):
            var members: OrderedDictionary<String, PropertyListValue> = ["$class": .string(name)]
            for (key, field) in fields { members[key] = comparable(field) }
            return .dictionary(members)
        }
    }
}

extension PropertyListValue {
    /// How many values a value holds (itself included) and the bytes of its
    /// strings (UTF-8) and data, each use of a shared value counted: what a
    /// printer of it writes out. Walks the whole value.
    struct ExpandedSize {
        var values: Int
        var bytes: Int
    }

    var expandedSize: ExpandedSize {
        var size = ExpandedSize(values: 1, bytes: 0)
        switch self {
        case .string(let string): size.bytes = string.utf8.count
        case .data(let data): size.bytes = data.count
        case .array(let elements):
            for element in elements {
                let inner = element.expandedSize
                size.values &+= inner.values  // Safe: bounded by the reader's limits on the value read.
                size.bytes &+= inner.bytes
            }
        case .dictionary(let dictionary):
            for (key, element) in dictionary {
                let inner = element.expandedSize
                size.values &+= 1 &+ inner.values  // Safe: as above.
                size.bytes &+= key.utf8.count &+ inner.bytes
            }
        default: break
        }
        return size
    }
}
